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
	// buf is the list behind val when this channel allocated it: val is
	// buf clipped to its length (no spare capacity shows), so only this
	// channel ever writes past the end, and appending in place leaves every
	// value handed out before unchanged. nil when val came from elsewhere
	// (a restore, a reducer, a clone's source).
	buf []any
	// appended is how many elements the value had before the last update,
	// when that update only appended to it; -1 otherwise.
	appended int
}

func (c *reducerChannel) update(vals []any) (bool, error) {
	if len(vals) == 0 {
		return false, nil
	}
	c.appended = -1
	if c.appendOnly && c.has && !anyOverwrite(vals) {
		return true, c.appendAll(vals)
	}
	// LangGraph.js channels/binop.ts update (Python channels/binop.py:123):
	// the first write of an empty channel is its value; an Overwrite
	// replaces the value, a second one in the superstep is an error, and
	// plain writes after it are ignored.
	c.buf = nil
	if !c.has {
		first := vals[0]
		if ov, ok := overwriteValue(first); ok {
			first = ov
		}
		c.val, c.has = first, true
		vals = vals[1:]
	}
	seenOverwrite := false
	for _, v := range vals {
		if ov, ok := overwriteValue(v); ok {
			if seenOverwrite {
				return false, &InvalidUpdateError{Channel: c.name, Msg: "can receive only one Overwrite value per step"}
			}
			c.val, seenOverwrite = ov, true
			continue
		}
		if seenOverwrite {
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

// appendAll appends a superstep's list writes; the result equals folding
// AppendReducer over them. It costs what is appended, not the list's
// length: the elements go into the spare capacity of the list this channel
// allocated (grown by doubling, so copies add up to O(length) over the
// list's life), which no value handed out can see (see buf).
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
	out := c.buf
	if out == nil || len(out) != len(cur) || cap(out) < n {
		out = make([]any, len(cur), max(n, 2*len(cur)))
		copy(out, cur)
	}
	for _, v := range vals {
		if l, ok := v.([]any); ok {
			out = append(out, l...)
		} else {
			out = append(out, v)
		}
	}
	c.buf, c.val, c.appended = out, out[:n:n], len(cur)
	return nil
}

// lastAppend reports how many elements the value had before the last
// update, when that update only appended to it.
func (c *reducerChannel) lastAppend() (int, bool) { return c.appended, c.appended >= 0 }

func (c *reducerChannel) kind() string          { return KindReducer }
func (c *reducerChannel) get() (any, bool)      { return c.val, c.has }
func (c *reducerChannel) consume() bool         { return false }
func (c *reducerChannel) finish() bool          { return false }
func (c *reducerChannel) snapshot() (any, bool) { return c.val, c.has }
func (c *reducerChannel) restore(v any)         { c.val, c.has, c.buf, c.appended = v, true, nil, -1 }

// clone's copy shares the list but not the right to append in place.
func (c *reducerChannel) clone() channel { cp := *c; cp.buf = nil; return &cp }
