package engine

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// The state map is lent to tasks, not copied for them: a node reads it until
// it returns, and the loop then changes the same map in place for the next
// superstep (a copy of a wide state per superstep was most of what a run
// allocated). That is safe only while nobody reads the map once the
// superstep's tasks have returned, so the loop copies the map before
// changing it (and lends the copy from then on) when the map was lent for
// longer:
//
//   - a node attempt abandoned by its timeout may still be reading it;
//   - a value the engine keeps holds it: a write to a state key, a Send's
//     argument, an interrupt's value, a custom stream event, a Task's
//     argument, a Command for the parent graph, the input of a run started
//     from the node (a subgraph), an UpdateState called from the node;
//   - the engine published it: a task event carries the task's input to
//     a listener, or a Stepper its caller may view at any phase lists it.
//
// What a node does with the map itself — keep it past its return, hand it
// to a goroutine that outlives the node, modify it — the engine cannot
// see: the rule for node code is that the state map is valid until the
// node returns (NodeFunc).

// viewLending is what the loop knows of who may read the state map.
type viewLending struct {
	// stale says the state changed since the current generation of the
	// view began; the next stateView starts a new one.
	stale bool
	// id is the state map's identity, which escape checks compare the
	// maps inside a value with; read from task goroutines.
	id atomic.Uintptr
	// lent says the map may be read after the superstep's tasks returned:
	// the loop copies it before its next change.
	lent atomic.Bool
}

// mapID is m's identity: the address of its header, which a map value is.
func mapID(m map[string]any) uintptr { return *(*uintptr)(unsafe.Pointer(&m)) }

// setState sets (ok) or removes the state key name at position key of the
// declared keys, copying the map first if it was lent for longer.
func (cs *channelState) setState(name string, key int, v any, ok bool) {
	if cs.view.lent.Load() {
		cs.state = maps.Clone(cs.state)
		cs.view.id.Store(mapID(cs.state))
		cs.view.lent.Store(false)
		cs.copyKeyed()
	}
	cs.putState(name, key, v, ok)
}

// putState is setState for a map known not to be lent.
func (cs *channelState) putState(name string, key int, v any, ok bool) {
	if ok {
		cs.state[name] = v
	} else {
		delete(cs.state, name)
		v = noValue // for keyed
	}
	if cs.keyed != nil {
		cs.keyed[key] = v
	}
	cs.view.stale = true
	cs.log.changed(key, len(cs.g.keyIndex))
}

// lend marks the state map as lent for longer than the superstep.
func (v *viewLending) lend() { v.lent.Store(true) }

// escapes marks the state map as lent for longer when x holds it. Safe
// from any goroutine.
func (v *viewLending) escapes(x any) {
	if x != nil && !v.lent.Load() && holdsMap(x, v.id.Load(), 0) {
		v.lend()
	}
}

// lentIn marks the state map as lent for longer when x is it: a task's
// input handed to a listener.
func (v *viewLending) lentIn(x any) {
	if m, ok := x.(map[string]any); ok && mapID(m) == v.id.Load() {
		v.lend()
	}
}

// holdsMap reports whether x is or holds the map whose identity is id. It
// looks into the engine's value forms and, through reflection, into any
// other Go value; a value nested too deep to search counts as holding it.
func holdsMap(x any, id uintptr, depth int) bool {
	if depth > MaxValueDepth {
		return true
	}
	switch y := x.(type) {
	case nil, bool, string, float64, float32, int, int64, int32, uint64, json.Number:
		return false
	case map[string]any:
		if mapID(y) == id {
			return true
		}
		for _, e := range y {
			if holdsMap(e, id, depth+1) {
				return true
			}
		}
		return false
	case []any:
		for _, e := range y {
			if holdsMap(e, id, depth+1) {
				return true
			}
		}
		return false
	case Send:
		return holdsMap(y.Arg, id, depth+1)
	case Interruption:
		return holdsMap(y.Value, id, depth+1)
	case Overwrite:
		return holdsMap(y.Value, id, depth+1)
	case Command:
		return holdsMap(y.Update, id, depth+1) || holdsMap(y.Goto, id, depth+1) || holdsMap(y.Resume, id, depth+1)
	case Update:
		for _, kv := range y {
			if holdsMap(kv.Value, id, depth+1) {
				return true
			}
		}
		return false
	case *OrderedMap:
		return y != nil && holdsMap(y.Values, id, depth+1)
	}
	return reflectHolds(reflect.ValueOf(x), id, map[uintptr]bool{}, depth)
}

// reflectHolds is holdsMap for a Go value of another type: it follows
// pointers, interfaces, structs, slices, arrays and maps, each pointer
// once.
func reflectHolds(v reflect.Value, id uintptr, seen map[uintptr]bool, depth int) bool {
	if depth > MaxValueDepth {
		return true
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return false
		}
		return reflectHolds(v.Elem(), id, seen, depth+1)
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return false
		}
		p := uintptr(v.UnsafePointer())
		if v.Kind() == reflect.Map && p == id {
			return true
		}
		if v.Kind() != reflect.Slice {
			if seen[p] {
				return false
			}
			seen[p] = true
		}
		switch v.Kind() {
		case reflect.Pointer:
			return reflectHolds(v.Elem(), id, seen, depth+1)
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				if reflectHolds(it.Key(), id, seen, depth+1) || reflectHolds(it.Value(), id, seen, depth+1) {
					return true
				}
			}
			return false
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if reflectHolds(v.Index(i), id, seen, depth+1) {
				return true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if reflectHolds(v.Field(i), id, seen, depth+1) {
				return true
			}
		}
	}
	return false
}

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
	if v.overflow || v.gen == 0 {
		return // the first generation is read whole
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
	if cs.view.stale || mapID(cs.state) != mapID(state) {
		return StateMark{}, nil, false
	}
	now = StateMark{run: cs.log.run, gen: cs.log.gen}
	if since.run != now.run {
		return now, nil, false
	}
	changed, incremental = cs.log.since(since.gen)
	return now, changed, incremental
}
