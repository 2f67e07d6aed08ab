package engine

import (
	"context"
	"reflect"
	"sync/atomic"
)

// The state tasks read is one read-only map per state of the run (see
// channelState.stateView). Each time that map is rebuilt, it is a new
// generation of the view, and the view log keeps which state keys changed
// from one generation to the next. A reader that turns the state into
// something costly to build — package typed decodes it into a struct —
// keeps what it built for one generation and, for a later one, redoes only
// the keys that changed (StateChanges).
//
// Why generations and not channel versions: versions say that a key
// changed, but finding the keys changed since a version means reading
// every key's version (as costly as reading every key), a state snapshot
// applies writes without versioning them, and a fork reuses version
// numbers with other values. The log costs the loop one append per changed
// key, into buffers it reuses.

// viewLogSize is how many generations the view log remembers: a reader
// further behind reads the whole state. Readers are usually one generation
// behind (a chain, a loop) or on the current one (siblings of a superstep).
const viewLogSize = 8

// viewLog records, per generation of the view, which state keys changed,
// by their position in the graph's declared keys (Graph.StateKeys): the
// loop knows it when it refreshes a key, and a reader indexes its fields
// with it without hashing names.
type viewLog struct {
	run uint64 // this channelState's id, unique in the process
	gen uint64 // the current view's generation; 0 before the first
	// pending are the state keys changed since the view was built (with
	// repeats); overflow says some were not recorded.
	pending  []int
	overflow bool
	// deltas[g%viewLogSize] holds the keys changed from generation g-1 to
	// g; whole marks a generation that must be read whole.
	deltas [viewLogSize]viewDelta
}

type viewDelta struct {
	keys  []int
	whole bool
}

var viewRuns atomic.Uint64

// changed records that the state key at position key of keys changed. A
// state changed far more often than it is read stops recording: its next
// reader reads it whole.
func (v *viewLog) changed(key, keys int) {
	if v.overflow {
		return
	}
	if len(v.pending) >= 2*keys+16 {
		v.overflow = true
		v.pending = v.pending[:0]
		return
	}
	v.pending = append(v.pending, key)
}

// built starts a new generation: the view was rebuilt from the state.
func (v *viewLog) built() {
	if v.run == 0 {
		v.run = viewRuns.Add(1)
	}
	v.gen++
	d := &v.deltas[v.gen%viewLogSize]
	d.keys = append(d.keys[:0], v.pending...)
	d.whole = v.overflow || v.gen == 1
	v.pending, v.overflow = v.pending[:0], false
}

// since returns the keys changed from generation from to the current one,
// or false when the log cannot tell (too old, or a whole generation in
// between). One generation's keys are returned shared.
func (v *viewLog) since(from uint64) ([]int, bool) {
	switch {
	case from == v.gen:
		return nil, true
	case from > v.gen || v.gen-from >= viewLogSize:
		return nil, false
	case v.gen-from == 1:
		d := &v.deltas[v.gen%viewLogSize]
		return d.keys, !d.whole
	}
	var keys []int
	for g := from + 1; g <= v.gen; g++ {
		d := &v.deltas[g%viewLogSize]
		if d.whole {
			return nil, false
		}
		keys = append(keys, d.keys...)
	}
	return keys, true
}

// StateMark names one generation of the graph state a run hands its tasks:
// which run, and which of its states. It is comparable; the zero
// StateMark names no state.
type StateMark struct {
	run, gen uint64
}

// StateChanges tells a node or a route which state keys changed since an
// earlier state of the same run, so that code which turns the state map
// into something costly (a decoded struct) can redo only those keys.
//
// state must be the map the node or route running in ctx was given. If it
// is the run's shared state view, now names it; otherwise (a Send's
// argument, a route's state that includes its node's own writes, a map not
// from the engine, ctx not a task's) now is the zero StateMark and nothing
// can be cached. When since is a mark of the same run that the engine still
// remembers, incremental is true and changed lists the keys (perhaps with
// repeats) whose values may differ between since and now, by their
// position in Graph.StateKeys; every other key holds the same value. Otherwise incremental is false and the caller reads
// state whole. changed may be shared: do not modify it.
//
// It is safe for concurrent use by the tasks of a superstep.
func StateChanges(ctx context.Context, state map[string]any, since StateMark) (now StateMark, changed []int, incremental bool) {
	s := scopeOf(ctx)
	if s == nil || s.run == nil || s.run.cs == nil {
		return StateMark{}, nil, false
	}
	cs := s.run.cs
	if cs.view == nil || !sameMap(cs.view, state) {
		return StateMark{}, nil, false
	}
	now = StateMark{run: cs.log.run, gen: cs.log.gen}
	if since.run != now.run {
		return now, nil, false
	}
	changed, incremental = cs.log.since(since.gen)
	return now, changed, incremental
}

// sameMap reports whether a and b are the same map, not equal maps.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
