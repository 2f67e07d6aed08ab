package engine

import (
	"fmt"
	"slices"
	"sort"
)

// barrier waits until every named source has written it (a join of a
// multi-source edge), and resets when the joined node runs. It remembers the
// order sources arrived in, as LangGraph.js checkpoints it.
type barrier struct {
	name  string
	names []string // sorted, each once
	seen  []string // arrival order
}

// newBarrier makes the barrier of a join from sources. A source named twice
// is one name: LangGraph.js builds the channel from new Set(starts)
// (graph/state.js:682), so join [a a] -> j fires once a ran.
func newBarrier(name string, sources []string) *barrier {
	names := slices.Clone(sources)
	sort.Strings(names)
	return &barrier{name: name, names: slices.Compact(names)}
}

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
