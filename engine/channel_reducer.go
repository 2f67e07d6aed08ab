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
		next, err := reduce(c.fn, c.val, v)
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

// reduce is fn(current, write), with a panic of fn as its error: the
// graph's reducer is the program's code, and a panic in it must fail the
// run, not end the process (the update runs on a goroutine of the
// engine's under Stream).
func reduce(fn Reducer, current, write any) (next any, err error) {
	defer func() {
		if r := recover(); r != nil {
			next, err = nil, panicError("the reducer", r)
		}
	}()
	return fn(current, write)
}

// listBuf is one length of the list an append-only channel grows in
// place: list never changes once made, and the channel makes a new
// listBuf for each length it reaches.
//
// A task's local read (what its routes see after its own writes) clones
// the channel and applies the task's writes to the clone. One clone may
// borrow list's spare capacity for that instead of copying the list: the
// channel's own update later appends the superstep's writes at the same
// place, and in the usual case — one task appended — they are the very
// same elements, which the channel then keeps. Otherwise it copies its
// list and leaves the borrowed elements to the clone. A borrower that is
// still writing (an attempt abandoned after a timeout) is never waited
// for or overwritten: the channel copies.
type listBuf struct {
	list     []any
	lend     atomic.Int32 // lendFree, lendBusy, lendDone or lendClosed
	borrowed int          // the borrower's length, once lendDone
}

// States of listBuf.lend.
const (
	lendFree   = iota // nobody wrote past len(list)
	lendBusy          // a clone is writing there
	lendDone          // a clone wrote there: elements up to borrowed
	lendClosed        // the channel itself appended there
)

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
	b := c.buf
	if b == nil {
		b, c.lender = c.lender, nil
		if b != nil && len(b.list) == len(cur) && cap(b.list) >= n && b.lend.CompareAndSwap(lendFree, lendBusy) {
			// A clone borrowing its source's spare capacity.
			out := appendWrites(b.list, vals)
			b.borrowed = n
			b.lend.Store(lendDone)
			c.val, c.appended = out[:n:n], len(cur)
			return nil
		}
		b = nil
	}
	var out []any
	if b != nil && len(b.list) == len(cur) && cap(b.list) >= n {
		switch {
		case b.lend.CompareAndSwap(lendFree, lendClosed):
			out = appendWrites(b.list, vals)
		case b.lend.Load() == lendDone && b.borrowed == n && sameWrites(b.list[len(cur):n], vals):
			out = b.list[:n] // what the clone wrote is this update
		}
	}
	if out == nil {
		out = make([]any, len(cur), max(n, 2*len(cur)))
		copy(out, cur)
		out = appendWrites(out, vals)
	}
	c.buf, c.val, c.appended = &listBuf{list: out}, out[:n:n], len(cur)
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
