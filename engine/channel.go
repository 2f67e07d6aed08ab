package engine

import (
	"fmt"
	"slices"
	"sort"
)

// Channel kinds, as shown by the debugger and in graph descriptions.
const (
	KindLastValue = "LastValue"
	KindReducer   = "BinaryOperatorAggregate"
	KindEphemeral = "EphemeralValue"
	KindTopic     = "Topic"
	KindBarrier   = "NamedBarrierValue"
)

// channel is one named slot of graph state with LangGraph's update rules.
// update is called at most once per superstep with all of that step's writes
// in task order; a true result means "changed", and the caller then gives the
// channel the step's version. Channels are owned by one goroutine (the loop).
type channel interface {
	kind() string
	// get returns the value and whether the channel is available.
	get() (any, bool)
	update(vals []any) (bool, error)
	consume() bool
	finish() bool
	// snapshot returns what a checkpoint stores, and false when nothing is
	// stored (an empty LastValue or EphemeralValue).
	snapshot() (any, bool)
	// restore sets the channel from a stored snapshot.
	restore(v any)
	clone() channel
}

// lastValue holds the one value written in a superstep.
type lastValue struct {
	name string
	val  any
	has  bool
}

func (c *lastValue) kind() string     { return KindLastValue }
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
func (c *lastValue) consume() bool              { return false }
func (c *lastValue) finish() bool               { return false }
func (c *lastValue) snapshot() (any, bool)      { return c.val, c.has }
func (c *lastValue) restore(v any)              { c.val, c.has = v, true }
func (c *lastValue) clone() channel             { cp := *c; return &cp }
func newLastValue(name string) *lastValue       { return &lastValue{name: name} }
func (c *lastValue) String() string             { return c.name }
func newEphemeral(name string) *ephemeral       { return &ephemeral{name: name} }
func newTopic(name string) *topic               { return &topic{name: name} }
func (c *ephemeral) consume() bool              { return false }
func (c *ephemeral) finish() bool               { return false }
func (c *ephemeral) kind() string               { return KindEphemeral }
func (c *ephemeral) get() (any, bool)           { return c.val, c.has }
func (c *ephemeral) snapshot() (any, bool)      { return c.val, c.has }
func (c *ephemeral) restore(v any)              { c.val, c.has = v, true }
func (c *ephemeral) clone() channel             { cp := *c; return &cp }
func (c *topic) kind() string                   { return KindTopic }
func (c *topic) consume() bool                  { return false }
func (c *topic) finish() bool                   { return false }
func (c *reducerChannel) kind() string          { return KindReducer }
func (c *reducerChannel) consume() bool         { return false }
func (c *reducerChannel) finish() bool          { return false }
func (c *reducerChannel) get() (any, bool)      { return c.val, c.has }
func (c *reducerChannel) snapshot() (any, bool) { return c.val, c.has }
func (c *reducerChannel) restore(v any)         { c.val, c.has = v, true }
func (c *reducerChannel) clone() channel        { cp := *c; return &cp }

// ephemeral holds a value for exactly one superstep: the next superstep that
// does not write it clears it. Branch triggers and __start__ are ephemeral.
type ephemeral struct {
	name  string
	guard bool
	val   any
	has   bool
}

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

// topic collects Send packets for one superstep (a non-accumulating Topic).
type topic struct {
	name string
	vals []any
}

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
func (c *topic) snapshot() (any, bool) {
	if c.vals == nil {
		return []any{}, true
	}
	return c.vals, true
}
func (c *topic) restore(v any) {
	l, _ := v.([]any)
	c.vals = slices.Clone(l)
}
func (c *topic) clone() channel {
	return &topic{name: c.name, vals: slices.Clone(c.vals)}
}

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
			return false, &InvalidUpdateError{Channel: c.name, Msg: err.Error()}
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

// barrier waits until every named source has written it (a join of a
// multi-source edge), and resets when the joined node runs. It remembers the
// order sources arrived in, as LangGraph.js checkpoints it.
type barrier struct {
	name  string
	names []string // sorted
	seen  []string // arrival order
}

func newBarrier(name string, sources []string) *barrier {
	names := slices.Clone(sources)
	sort.Strings(names)
	return &barrier{name: name, names: names}
}

func (c *barrier) kind() string   { return KindBarrier }
func (c *barrier) complete() bool { return len(c.seen) == len(c.names) }
func (c *barrier) get() (any, bool) {
	return nil, c.complete()
}
func (c *barrier) update(vals []any) (bool, error) {
	changed := false
	for _, v := range vals {
		s, _ := v.(string)
		if _, ok := slices.BinarySearch(c.names, s); !ok {
			return false, &InvalidUpdateError{Channel: c.name, Msg: fmt.Sprintf("value %v is not one of %v", v, c.names)}
		}
		if !slices.Contains(c.seen, s) {
			c.seen = append(c.seen, s)
			changed = true
		}
	}
	return changed, nil
}
func (c *barrier) consume() bool {
	if c.complete() {
		c.seen = nil
		return true
	}
	return false
}
func (c *barrier) finish() bool { return false }
func (c *barrier) snapshot() (any, bool) {
	out := make([]any, len(c.seen))
	for i, n := range c.seen {
		out[i] = n
	}
	return out, true
}
func (c *barrier) restore(v any) {
	c.seen = nil
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(string); ok && !slices.Contains(c.seen, s) {
			c.seen = append(c.seen, s)
		}
	}
}
func (c *barrier) clone() channel {
	cp := *c
	cp.seen = slices.Clone(c.seen)
	return &cp
}
