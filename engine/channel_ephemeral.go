package engine

// ephemeral holds a value for exactly one superstep: the next superstep that
// does not write it clears it. Branch triggers and __start__ are ephemeral.
type ephemeral struct {
	name  string
	guard bool // refuse several writes in one superstep (__start__)
	val   any
	has   bool
}

func newEphemeral(name string) *ephemeral { return &ephemeral{name: name} }

func (c *ephemeral) get() (any, bool) { return c.val, c.has }

func (c *ephemeral) update(vals []any) (bool, error) {
	if len(vals) == 0 {
		if c.has {
			c.val, c.has = nil, false
			return true, nil
		}
		return false, nil
	}
	if len(vals) > 1 && c.guard {
		return false, &InvalidUpdateError{Channel: c.name, Msg: "EphemeralValue(guard) can receive only one value per step"}
	}
	c.val, c.has = vals[len(vals)-1], true
	return true, nil
}

func (c *ephemeral) consume() bool         { return false }
func (c *ephemeral) finish() bool          { return false }
func (c *ephemeral) snapshot() (any, bool) { return c.val, c.has }
func (c *ephemeral) restore(v any)         { c.val, c.has = v, true }
func (c *ephemeral) clone() channel        { cp := *c; return &cp }
