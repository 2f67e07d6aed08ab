package engine

import (
	"reflect"
	"sync/atomic"
)

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
	// buf is the list behind val when this channel allocated it (nil when
	// val came from elsewhere: a restore, a reducer). val is buf's list
	// clipped to its length, so no value handed out shows spare capacity
	// and appending in place leaves every one of them unchanged.
	buf *listBuf
	// lender is, in a clone, its source's buf: the clone may borrow its
	// spare capacity once (see listBuf.lent).
	lender *listBuf
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
	c.buf, c.lender = nil, nil
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

// listBuf is the list an append-only channel grows in place.
//
// A task's local read (what its routes see after its own writes) clones
// the channel and applies the task's writes to the clone. The first clone
// may borrow the spare capacity for that (lent), instead of copying the
// list: the channel's own update later appends the superstep's writes at
// the same place, and in the usual case — one task appended — they are
// the very same elements, so nothing is overwritten. If they differ, the
// channel copies its list instead of writing over what the clone made.
type listBuf struct {
	list []any // len: the channel's current length
	lent atomic.Bool
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
	if b := c.lender; b != nil {
		// A clone: borrow the source's spare capacity once, or copy.
		c.lender = nil
		if len(b.list) == len(cur) && cap(b.list) >= n && b.lent.CompareAndSwap(false, true) {
			out := appendWrites(b.list, vals)
			c.val, c.appended = out[:n:n], len(cur)
			return nil
		}
	}
	b := c.buf
	if b != nil && (len(b.list) != len(cur) || cap(b.list) < n) {
		b = nil
	}
	if b != nil && b.lent.Load() {
		// A clone wrote past the end: keep its elements if they are what
		// this update appends, else leave them to it.
		if sameWrites(b.list[len(cur):n], vals) {
			b.list = b.list[:n]
			b.lent.Store(false)
			c.val, c.appended = b.list[:n:n], len(cur)
			return nil
		}
		b = nil
	}
	if b == nil {
		list := make([]any, len(cur), max(n, 2*len(cur)))
		copy(list, cur)
		b = &listBuf{list: list}
	}
	b.list = appendWrites(b.list, vals)
	c.buf, c.val, c.appended = b, b.list[:n:n], len(cur)
	return nil
}

// appendWrites appends list writes to l as AppendReducer would.
func appendWrites(l []any, vals []any) []any {
	for _, v := range vals {
		if x, ok := v.([]any); ok {
			l = append(l, x...)
		} else {
			l = append(l, v)
		}
	}
	return l
}

// sameWrites reports whether region holds exactly the elements vals
// append, the same values (not merely equal ones).
func sameWrites(region []any, vals []any) bool {
	i := 0
	for _, v := range vals {
		elems := []any{v}
		if x, ok := v.([]any); ok {
			elems = x
		}
		for _, e := range elems {
			if i >= len(region) || !identical(region[i], e) {
				return false
			}
			i++
		}
	}
	return i == len(region)
}

// identical reports whether a and b are the same value: equal scalars, or
// the same map or list (not copies).
func identical(a, b any) bool {
	switch x := a.(type) {
	case nil, bool, float64, string:
		return a == b
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	return false
}

// lastAppend reports how many elements the value had before the last
// update, when that update only appended to it.
func (c *reducerChannel) lastAppend() (int, bool) { return c.appended, c.appended >= 0 }

func (c *reducerChannel) kind() string          { return KindReducer }
func (c *reducerChannel) get() (any, bool)      { return c.val, c.has }
func (c *reducerChannel) consume() bool         { return false }
func (c *reducerChannel) finish() bool          { return false }
func (c *reducerChannel) snapshot() (any, bool) { return c.val, c.has }
func (c *reducerChannel) restore(v any) {
	c.val, c.has, c.buf, c.lender, c.appended = v, true, nil, nil, -1
}

// clone's copy shares the list, and may borrow its spare capacity once.
func (c *reducerChannel) clone() channel {
	cp := *c
	cp.buf, cp.lender = nil, c.buf
	return &cp
}
