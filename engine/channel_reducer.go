package engine

// Reducer folds a superstep's writes into a key's value: new = fn(old, write),
// applied left to right in task order. It must not modify its arguments.
type Reducer func(current, write any) (any, error)

// reducerChannel is LangGraph's BinaryOperatorAggregate: available from the
// start with its default value.
type reducerChannel struct {
	name       string
	fn         Reducer
	appendOnly bool
	val        any
	has        bool
}

func (c *reducerChannel) update(vals []any) (bool, error) {
	if len(vals) == 0 {
		return false, nil
	}
	if c.appendOnly && c.has {
		return true, c.appendAll(vals)
	}
	for _, v := range vals {
		if !c.has {
			c.val, c.has = v, true
			continue
		}
		next, err := c.fn(c.val, v)
		if err != nil {
			// The reducer's own error, not an invalid update: LangGraph's
			// BinaryOperatorAggregate.update lets the operator's exception
			// through (channels/binop.py:123-144; binop.ts:65), e.g.
			// add_messages removing an id that does not exist.
			return false, &ReducerError{Channel: c.name, Err: err}
		}
		c.val = next
	}
	return true, nil
}

// appendAll concatenates a superstep's list writes in one allocation; the
// result equals folding AppendReducer over them.
func (c *reducerChannel) appendAll(vals []any) error {
	cur, err := asList(c.val)
	if err != nil {
		return &InvalidUpdateError{Channel: c.name, Msg: err.Error()}
	}
	n := len(cur)
	for _, v := range vals {
		if l, ok := v.([]any); ok {
			n += len(l)
		} else {
			n++
		}
	}
	out := make([]any, len(cur), n)
	copy(out, cur)
	for _, v := range vals {
		if l, ok := v.([]any); ok {
			out = append(out, l...)
		} else {
			out = append(out, v)
		}
	}
	c.val = out
	return nil
}

func (c *reducerChannel) kind() string          { return KindReducer }
func (c *reducerChannel) get() (any, bool)      { return c.val, c.has }
func (c *reducerChannel) consume() bool         { return false }
func (c *reducerChannel) finish() bool          { return false }
func (c *reducerChannel) snapshot() (any, bool) { return c.val, c.has }
func (c *reducerChannel) restore(v any)         { c.val, c.has = v, true }
func (c *reducerChannel) clone() channel        { cp := *c; return &cp }
