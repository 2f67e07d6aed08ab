package engine

import (
	"context"
	"slices"
)

// A reader that turns the state view into something else key by key —
// package typed decodes each state key into a struct field — finds each
// key's value in the state map by its name: a hash of the name and a
// lookup per key, for every task. The loop knows each key's position in
// the graph's declared keys (Graph.StateKeys) whenever it sets a key, so
// it can keep the state's values by position as well, and hand them to
// such a reader (StateByKey): reading a key is then an index.
//
// The values by position mirror the state map exactly: both are set in
// putState, from the same value (the map is only ever changed there), and
// a lent map is copied together with them (setState), so a reader holding
// the old map (an attempt abandoned by its timeout) holds the old values
// too. Keeping them costs a run 16 bytes per state key and a store per
// changed key, so a run keeps them only for a graph compiled to be read
// that way (WithStateByKey, which package typed's Compile passes): a
// map-API graph nobody reads by position pays nothing. putState is
// inlined into the loop's refresh of a superstep's keys: keep it small.

// WithStateByKey makes the graph's runs keep the state's values by key
// position beside the state map, so that nodes and routes can read them
// with StateByKey and a run's result with Result.ValuesByKey: an index
// per key instead of a map lookup. It costs each run 16 bytes per state
// key and a store per changed key; graphs whose nodes read the map need
// not pay it. Package typed compiles every graph with it.
func WithStateByKey() CompileOption { return func(g *Graph) { g.keyedState = true } }

// KeyedState is the state view of a node or a route read by key position:
// Value(i) is the value of the key Graph.StateKeys()[i], as the state map
// the task was given holds it. It is valid as long as that map is (until
// the node or route returns) and, like the map, read-only.
type KeyedState struct {
	vals []any // by key position; noValue: the key has no value
}

// noValue stands for a key without a value in the values by position (a
// key may hold nil). Its type is zero-size: boxing it allocates nothing.
var noValue any = keyedNone{}

type keyedNone struct{}

// Len is the number of state keys (len(Graph.StateKeys())).
func (k KeyedState) Len() int { return len(k.vals) }

// Value returns the value of the state key at position key of
// Graph.StateKeys, and whether it has one (a key may hold nil).
func (k KeyedState) Value(key int) (any, bool) {
	v := k.vals[key]
	if _, none := v.(keyedNone); none {
		return nil, false
	}
	return v, true
}

// StateByKey returns state, the map the node or route running in ctx was
// given, read by key position, when that map is the run's shared state
// view and the run keeps its values by position. Otherwise ok is false and
// the caller reads the map: a Send's argument, a route's state that
// includes its node's own writes, a map not from the engine, ctx not a
// task's, or a graph compiled without WithStateByKey.
//
// It is safe for concurrent use by the tasks of a superstep.
func StateByKey(ctx context.Context, state map[string]any) (k KeyedState, ok bool) {
	s := scopeOf(ctx)
	if s == nil || s.run == nil || s.run.cs == nil {
		return KeyedState{}, false
	}
	cs := s.run.cs
	if cs.view.stale || mapID(cs.state) != mapID(state) {
		return KeyedState{}, false
	}
	if cs.keyed == nil {
		return KeyedState{}, false
	}
	return KeyedState{vals: cs.keyed}, true
}

// ValuesByKey returns Values read by key position (Graph.StateKeys), as
// the run left them, when the run kept them that way: a run of Invoke on
// a graph compiled WithStateByKey. Otherwise ok is false. It
// does not see changes made to Values since the run returned: read it
// first, as a typed layer decoding the result does.
func (r *Result) ValuesByKey() (k KeyedState, ok bool) {
	return KeyedState{vals: r.keyed}, r.keyed != nil
}

// keepKeyed starts the run's values by position when its graph was
// compiled WithStateByKey, before any key is set.
func (cs *channelState) keepKeyed() {
	if cs.g.keyedState {
		cs.keyed = make([]any, len(cs.g.keys))
		for i := range cs.keyed {
			cs.keyed[i] = noValue
		}
	}
}

// copyKeyed gives the state its own values by position, when the map was
// lent and is copied: whoever holds the old map may hold the old values.
func (cs *channelState) copyKeyed() {
	if cs.keyed != nil {
		cs.keyed = slices.Clone(cs.keyed)
	}
}
