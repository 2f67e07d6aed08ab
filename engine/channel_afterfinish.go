package engine

import (
	"slices"
)

// The after-finish channels trigger deferred nodes (AddNode with
// WithDefer): they hold what was written but become available only after
// finish, which the superstep algorithm calls when a superstep leaves
// nothing else to run (applyWrites; LangGraph.js pregel/algo.ts:423, Python
// pregel/_algo.py:335). Their checkpoint is [value, finished], as
// LangGraph.js stores them.

// lastValueAfterFinish is the trigger channel branch:to:<node> of a deferred
// node (LangGraph.js channels/last_value.ts LastValueAfterFinish; Python
// channels/last_value.py LastValueAfterFinish).
type lastValueAfterFinish struct {
	name     string
	val      any
	has      bool
	finished bool
}

func (c *lastValueAfterFinish) get() (any, bool) { return c.val, c.has && c.finished }

func (c *lastValueAfterFinish) update(vals []any) (bool, error) {
	if len(vals) == 0 {
		return false, nil
	}
	c.finished = false
	c.val, c.has = vals[len(vals)-1], true
	return true, nil
}

// consume clears a finished value once the deferred node ran.
func (c *lastValueAfterFinish) consume() bool {
	if c.finished {
		c.val, c.has, c.finished = nil, false, false
		return true
	}
	return false
}

func (c *lastValueAfterFinish) finish() bool {
	if !c.finished && c.has {
		c.finished = true
		return true
	}
	return false
}

// snapshot stores null for an empty channel: LangGraph.js's checkpoint()
// returns undefined without raising (channels/last_value.ts), and
// createCheckpoint keeps the key (channels/base.ts:271), so the channel is
// listed with no value; restore reads null back as empty.
func (c *lastValueAfterFinish) snapshot() (any, bool) {
	if !c.has {
		return nil, true
	}
	return []any{c.val, c.finished}, true
}

func (c *lastValueAfterFinish) restore(v any) {
	c.val, c.has, c.finished = nil, false, false
	if l, ok := v.([]any); ok && len(l) == 2 {
		c.val, c.has = l[0], true
		c.finished, _ = l[1].(bool)
	}
}

func (c *lastValueAfterFinish) clone() channel { cp := *c; return &cp }

// waiting reports whether the channel holds a write that waits for finish.
func (c *lastValueAfterFinish) waiting() bool { return c.has && !c.finished }

// barrierAfterFinish is the join channel of a multi-source edge into a
// deferred node: complete when every source wrote, available once finished
// (LangGraph.js channels/named_barrier_value.ts NamedBarrierValueAfterFinish).
type barrierAfterFinish struct {
	barrier  // names, arrival order, update and complete as a plain join
	finished bool
}

func newBarrierAfterFinish(name string, sources []string) *barrierAfterFinish {
	return &barrierAfterFinish{barrier: *newBarrier(name, sources)}
}

func (c *barrierAfterFinish) get() (any, bool) { return nil, c.finished && c.complete() }

func (c *barrierAfterFinish) consume() bool {
	if c.finished && c.complete() {
		c.seen, c.finished = nil, false
		return true
	}
	return false
}

func (c *barrierAfterFinish) finish() bool {
	if !c.finished && c.complete() {
		c.finished = true
		return true
	}
	return false
}

func (c *barrierAfterFinish) snapshot() (any, bool) {
	seen, _ := c.barrier.snapshot()
	return []any{seen, c.finished}, true
}

func (c *barrierAfterFinish) restore(v any) {
	c.finished = false
	l, _ := v.([]any)
	if len(l) != 2 {
		c.barrier.restore(nil)
		return
	}
	c.barrier.restore(l[0])
	c.finished, _ = l[1].(bool)
}

func (c *barrierAfterFinish) clone() channel {
	cp := *c
	cp.seen = slices.Clone(c.seen)
	return &cp
}

// waiting reports whether every source wrote and only finish is missing.
func (c *barrierAfterFinish) waiting() bool { return !c.finished && c.complete() }

// triggersNextStep reports whether a channel updated by a superstep
// triggers some node, so the run is not finished yet (LangGraph.js
// pregel/algo.ts:98 triggersNextStep).
func triggersNextStep(g *Graph, updated []string) bool {
	for _, c := range updated {
		if len(g.triggerToNodes[c]) > 0 {
			return true
		}
	}
	return false
}

// waitingNodes lists the deferred nodes whose trigger or join holds writes
// that wait for finish, sorted (what a debugger shows as waiting).
func (cs *channelState) waitingNodes() []string {
	var out []string
	for _, c := range cs.g.finishable {
		w, ok := cs.channel(c).(interface{ waiting() bool })
		if ok && w.waiting() {
			out = append(out, cs.g.triggerToNodes[c]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
