package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// indexTestGraph has every way a channel changes: a join, a loop through
// a route, a fan-out of Sends, a deferred node and an appended key.
func indexTestGraph(t *testing.T) *Graph {
	t.Helper()
	add := func(v float64) NodeFunc {
		return func(_ context.Context, in any) (any, error) {
			return Update{{Key: "log", Value: []any{v}}}, nil
		}
	}
	g, err := NewStateGraph(LastValueKey("n"), AppendKey("log")).
		AddNode("a", func(_ context.Context, in any) (any, error) {
			n, _ := in.(map[string]any)["n"].(float64)
			return Update{{Key: "n", Value: n + 1}}, nil
		}).
		AddNode("b", add(1)).AddNode("c", add(2)).AddNode("j", add(3)).
		AddNode("w", func(_ context.Context, x any) (any, error) {
			return Update{{Key: "log", Value: []any{x}}}, nil
		}).
		AddNode("d", add(4), WithDefer()).
		AddEdge(Start, "a").AddEdge("a", "b").AddEdge("a", "c").AddEdge("a", "d").
		AddJoin([]string{"b", "c"}, "j").
		AddConditionalEdges("j", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < 3 {
				return []any{"a", Send{Node: "w", Arg: 10.0}, Send{Node: "w", Arg: 11.0}}, nil
			}
			return End, nil
		}).
		AddEdge("w", End).AddEdge("d", End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A run nobody checkpoints keeps versions and versions_seen by channel id
// and trigger slot only; what it shows of them must be what a run with a
// listener (which keeps them by name too) shows, at every phase.
func TestChannelIndex_UncheckpointedRunMatchesNamedState(t *testing.T) {
	ctx := context.Background()
	g := indexTestGraph(t)
	input := map[string]any{"n": 0.0}
	plain, err := g.Start(ctx, input)
	if err != nil {
		t.Fatal(err)
	}
	named, err := g.Start(ctx, input, WithEvents(func(Event) {}))
	if err != nil {
		t.Fatal(err)
	}
	if !plain.l.cs.valuesOff || named.l.cs.valuesOff {
		t.Fatal("want one run keeping state by id only and one by name")
	}
	for i := 0; plain.Status() == StatusRunning; i++ {
		pv, nv := plain.View(), named.View()
		if !reflect.DeepEqual(pv.Versions, nv.Versions) {
			t.Fatalf("move %d: versions %v, with a listener %v", i, pv.Versions, nv.Versions)
		}
		if !reflect.DeepEqual(pv.VersionsSeen, nv.VersionsSeen) {
			t.Fatalf("move %d: versions_seen %v, with a listener %v", i, pv.VersionsSeen, nv.VersionsSeen)
		}
		if err := plain.Next(ctx); err != nil {
			t.Fatal(err)
		}
		if err := named.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if named.Status() != StatusDone || plain.Status() != StatusDone {
		t.Fatalf("status %v and %v, want done", plain.Status(), named.Status())
	}
	pr, nr := plain.Result(), named.Result()
	if !reflect.DeepEqual(pr.Values, nr.Values) {
		t.Fatalf("values %v, with a listener %v", pr.Values, nr.Values)
	}
	// A checkpoint asked for after all is the named run's.
	pc := plain.l.cs.testCheckpoint("x", planHint{}).Materialize()
	nc := named.l.cs.testCheckpoint("x", planHint{}).Materialize()
	if !reflect.DeepEqual(pc.ChannelVersions, nc.ChannelVersions) || !reflect.DeepEqual(pc.VersionsSeen, nc.VersionsSeen) {
		t.Fatalf("late checkpoint versions %v seen %v, want %v %v", pc.ChannelVersions, pc.VersionsSeen, nc.ChannelVersions, nc.VersionsSeen)
	}
}

// Restoring a checkpoint fills the trigger slots planning reads.
func TestChannelIndex_RestoredSeenFillsSlots(t *testing.T) {
	g := testGraph(t)
	cp := &Checkpoint{
		ChannelVersions: map[string]Version{"branch:to:a": 3},
		VersionsSeen:    map[string]map[string]Version{"a": {"branch:to:a": 3, "gone": 1}},
	}
	cs := newChannelState(g, cp)
	if got := cs.seenSlots(g.nodes["a"]); got[0] != 3 {
		t.Fatalf("a's slot = %v, want 3", got)
	}
	if !cs.seenRan[g.nodes["a"].ord] || cs.seenRan[g.nodes["b"].ord] {
		t.Fatal("only a has a versions_seen entry")
	}
	// The entry for a channel the graph lacks stays, by name.
	if m := cs.seenMap()["a"]; m["gone"] != 1 {
		t.Fatalf("a's versions_seen = %v, want gone kept", m)
	}
}

// What a restored checkpoint holds beyond the graph (a channel it lacks, a
// versions_seen entry of a trigger it lacks) goes into every checkpoint
// made after it, through the engine's snapshots of snapshots too.
func TestChannelIndex_ExtrasSurviveSnapshots(t *testing.T) {
	g := testGraph(t)
	cp := &Checkpoint{
		ChannelVersions: map[string]Version{"branch:to:a": 3, "old": 2},
		VersionsSeen:    map[string]map[string]Version{"a": {"branch:to:a": 3, "gone": 1}},
	}
	for i := 0; i < 3; i++ { // foreign, then the engine's own twice
		cs := newChannelState(g, cp)
		cp = cs.testCheckpoint("x", planHint{})
		m := cp.Materialize()
		if m.ChannelVersions["old"] != 2 || m.ChannelVersions["branch:to:a"] != 3 || m.VersionsSeen["a"]["gone"] != 1 {
			t.Fatalf("round %d: versions %v, versions_seen %v: want old and gone kept", i, m.ChannelVersions, m.VersionsSeen)
		}
		if i > 0 && cp.lazyState().more == nil || cp.lazyState().more.extraVer == nil {
			t.Fatalf("round %d: the extras are not in the snapshot", i)
		}
	}
	// A graph's own state has no extras: the checkpoint keeps no room.
	if cp := newChannelState(g, nil).testCheckpoint("y", planHint{}); cp.lazyState().more != nil {
		t.Fatal("a new thread's checkpoint has extras")
	}
}

// TestSortUpdated_SortsByName checks that sorting channel ids by their
// precomputed name rank puts names and ids in the order sorting the
// names themselves gives, for every subset a seeded shuffle picks.
func TestSortUpdated_SortsByName(t *testing.T) {
	g := indexTestGraph(t)
	n := len(g.channelOrder)
	for trial := 0; trial < 200; trial++ {
		var ids []chanID
		var names []string
		for id := 0; id < n; id++ {
			if (id*7+trial*13)%3 != 0 { // a different subset each trial
				ids = append(ids, chanID(id))
				names = append(names, g.channelOrder[id])
			}
		}
		switch trial % 3 {
		case 0: // shuffled: both the same way
			for i := len(ids) - 1; i > 0; i-- {
				j := (i*31 + trial) % (i + 1)
				ids[i], ids[j] = ids[j], ids[i]
				names[i], names[j] = names[j], names[i]
			}
		case 1: // sorted by name, then the last few moved to the front
			slices.SortFunc(ids, func(a, b chanID) int { return strings.Compare(g.channelOrder[a], g.channelOrder[b]) })
			k := trial % 4
			ids = append(slices.Clone(ids[len(ids)-k:]), ids[:len(ids)-k]...)
			for i, id := range ids {
				names[i] = g.channelOrder[id]
			}
		}
		want := slices.Clone(names)
		slices.Sort(want)
		g.sortUpdated(names, ids)
		if !reflect.DeepEqual(names, want) {
			t.Fatalf("trial %d: names %v, want %v", trial, names, want)
		}
		for i, id := range ids {
			if g.channelOrder[id] != names[i] {
				t.Fatalf("trial %d: id %d at %d names %q, not %q", trial, id, i, g.channelOrder[id], names[i])
			}
		}
	}
}

// TestLargeInputWrites_AsUpdatePairs checks that the walk over the state
// keys makes the writes updatePairs and the state-key filter make: the
// same state keys and values, sorted by name, unknown keys dropped.
func TestLargeInputWrites_AsUpdatePairs(t *testing.T) {
	var keys []KeySpec
	for i := 0; i < 40; i++ {
		keys = append(keys, LastValueKey(fmt.Sprintf("k%d", (i*17)%40))) // declared out of name order
	}
	g, err := NewStateGraph(keys...).
		AddNode("n", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(Start, "n").Compile()
	if err != nil {
		t.Fatal(err)
	}
	walked := 0
	for size := 1; size <= 60; size++ {
		in := map[string]any{}
		for i := 0; len(in) < size; i++ {
			if i%5 == 4 {
				in[fmt.Sprintf("other%d", i)] = i // not a state key
			} else {
				in[fmt.Sprintf("k%d", (i*7+size)%40)] = float64(i)
			}
			if i > 400 {
				break
			}
		}
		pairs, err := updatePairs(in)
		if err != nil {
			t.Fatal(err)
		}
		var want []Write
		for _, kv := range pairs {
			if g.IsStateKey(kv.Key) {
				want = append(want, Write{Channel: kv.Key, Value: kv.Value})
			}
		}
		got, ok := g.largeInputWrites(in, 0)
		if !ok {
			continue
		}
		walked++
		if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("%d keys: got %v, want %v", len(in), got, want)
		}
	}
	if walked == 0 {
		t.Fatal("no input was large enough to be walked")
	}
}
