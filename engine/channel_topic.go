package engine

import "slices"

// topic collects Send packets for one superstep (a non-accumulating Topic):
// each update replaces the previous superstep's packets.
type topic struct {
	name string
	vals []any
}

func newTopic(name string) *topic { return &topic{name: name} }

func (c *topic) get() (any, bool) { return c.vals, len(c.vals) > 0 }

func (c *topic) update(vals []any) (bool, error) {
	changed := len(c.vals) > 0
	c.vals = nil
	for _, v := range vals {
		if l, ok := v.([]any); ok {
			c.vals = append(c.vals, l...)
		} else {
			c.vals = append(c.vals, v)
		}
	}
	return changed || len(c.vals) > 0, nil
}

func (c *topic) consume() bool { return false }
func (c *topic) finish() bool  { return false }

func (c *topic) snapshot() (any, bool) {
	if c.vals == nil {
		return []any{}, true
	}
	return c.vals, true
}

func (c *topic) restore(v any) {
	l, _ := v.([]any)
	c.vals = make([]any, len(l))
	for i, p := range l {
		c.vals[i] = storedSend(p)
	}
}

func (c *topic) clone() channel { return &topic{name: c.name, vals: slices.Clone(c.vals)} }
