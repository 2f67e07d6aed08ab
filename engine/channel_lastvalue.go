package engine

import "fmt"

// lastValue holds the one value written in a superstep; two writes in one
// superstep are an InvalidUpdateError.
type lastValue struct {
	name string
	val  any
	has  bool
}

func newLastValue(name string) *lastValue { return &lastValue{name: name} }

func (c *lastValue) get() (any, bool) { return c.val, c.has }

func (c *lastValue) update(vals []any) (bool, error) {
	switch len(vals) {
	case 0:
		return false, nil
	case 1:
		c.val, c.has = vals[0], true
		return true, nil
	}
	return false, &InvalidUpdateError{Channel: c.name, Msg: fmt.Sprintf("LastValue can only receive one value per step, got %d; use a reducer key to accept several", len(vals))}
}

func (c *lastValue) consume() bool         { return false }
func (c *lastValue) finish() bool          { return false }
func (c *lastValue) snapshot() (any, bool) { return c.val, c.has }
func (c *lastValue) restore(v any)         { c.val, c.has = v, true }
func (c *lastValue) clone() channel        { cp := *c; return &cp }

// stored is storedValue(c) without the interface call.
func (c *lastValue) stored() any {
	if c.has {
		return c.val
	}
	return absent
}
