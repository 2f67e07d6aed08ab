package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// A full snapshot of values lists only the channels that have one when
// most have none (a long chain has a branch channel per node, nearly all
// empty), and every checkpoint still reads as a materialized one.
func TestValuesBase_SparseOverNoValues(t *testing.T) {
	build := func(s Saver) *Graph {
		sg := NewStateGraph(LastValueKey("n"), AppendKey("log"))
		const nodes = 40
		for i := 0; i < nodes; i++ {
			sg.AddNode(fmt.Sprint("n", i), func(_ context.Context, in any) (any, error) {
				n, _ := in.(map[string]any)["n"].(float64)
				return Update{{Key: "n", Value: n + 1}, {Key: "log", Value: []any{n}}}, nil
			})
			if i > 0 {
				sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
			}
		}
		// Round the chain four times: a kept run takes its next base
		// only after several bases' worth of changes (idKeptBases).
		last := fmt.Sprint("n", nodes-1)
		sg.AddConditionalEdges(last, func(_ context.Context, s map[string]any) (any, error) {
			if n, _ := s["n"].(float64); n < 4*nodes {
				return "n0", nil
			}
			return End, nil
		}, "n0", End)
		g, err := sg.AddEdge(Start, "n0").Compile(WithSaver(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	got, want := keptAndMaterialized(t, build, 1)
	if len(got) != len(want) || len(got) < 160 {
		t.Fatalf("%d and %d checkpoints", len(got), len(want))
	}
	sparse := 0
	for i := range got {
		g, w := got[i].Checkpoint, want[i].Checkpoint
		if !reflect.DeepEqual(g.ChannelValues, w.ChannelValues) || !reflect.DeepEqual(g.ChannelVersions, w.ChannelVersions) {
			t.Fatalf("checkpoint %d: values %v versions %v, want %v %v", i, g.ChannelValues, g.ChannelVersions, w.ChannelValues, w.ChannelVersions)
		}
		if lz := g.lazyState(); lz != nil && lz.values.parent != nil && lz.values.parent == lz.g.noValues {
			sparse++
		}
	}
	if sparse < 2 {
		t.Fatalf("%d sparse bases in %d checkpoints: want the first and later ones", sparse, len(got))
	}
}

// A full snapshot of versions lists only the versions and versions_seen
// slots that are set when at most half are (a run's first checkpoint; a
// graph with many nodes a run does not reach), over the graph's snapshot
// of none, and every checkpoint still reads as a materialized one.
func TestVersionsBase_SparseOverNone(t *testing.T) {
	const nodes, idle = 60, 120
	build := func(s Saver) *Graph {
		sg := NewStateGraph(LastValueKey("n"))
		for i := 0; i < nodes; i++ {
			sg.AddNode(fmt.Sprint("n", i), func(_ context.Context, in any) (any, error) {
				n, _ := in.(map[string]any)["n"].(float64)
				return Update{{Key: "n", Value: n + 1}}, nil
			})
			if i > 1 {
				sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
			}
		}
		// Nodes a route could take but never does: their versions and
		// versions_seen slots stay unset.
		targets := []string{"n1"}
		for i := 0; i < idle; i++ {
			targets = append(targets, fmt.Sprint("idle", i))
			sg.AddNode(targets[i+1], func(context.Context, any) (any, error) { return nil, nil })
			sg.AddEdge(targets[i+1], End)
		}
		sg.AddConditionalEdges("n0", func(context.Context, map[string]any) (any, error) { return "n1", nil }, targets...)
		g, err := sg.AddEdge(Start, "n0").AddEdge(fmt.Sprint("n", nodes-1), End).Compile(WithSaver(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// Two runs on the thread: the second restores the first's last
	// checkpoint, so its first base has nodes' versions_seen set.
	got, want := keptAndMaterialized(t, build, 2)
	if len(got) != len(want) || len(got) < 2*nodes {
		t.Fatalf("%d and %d checkpoints", len(got), len(want))
	}
	sparse, seenSet := 0, false
	for i := range got {
		g, w := got[i].Checkpoint, want[i].Checkpoint
		if !reflect.DeepEqual(g.ChannelVersions, w.ChannelVersions) || !reflect.DeepEqual(g.VersionsSeen, w.VersionsSeen) {
			t.Fatalf("checkpoint %d: versions %v seen %v, want %v %v", i, g.ChannelVersions, g.VersionsSeen, w.ChannelVersions, w.VersionsSeen)
		}
		if lz := g.lazyState(); lz != nil && lz.versions.parent != nil && lz.versions.parent == lz.g.noVersions {
			sparse++
			seenSet = seenSet || len(g.VersionsSeen) > 2

		}
	}
	if sparse < 2 || !seenSet {
		t.Fatalf("%d sparse versions bases in %d checkpoints (one with nodes' versions_seen: %v): want each run's first", sparse, len(got), seenSet)
	}
}

// A versions base reads back as the state it snapshotted (allIndexed),
// sparse or dense, whichever slots are set: channel versions, nodes'
// versions_seen, nodes that ran.
func TestVersionsBase_ReadsAsAllIndexed(t *testing.T) {
	sg := NewStateGraph(LastValueKey("n"))
	for i := 0; i < 30; i++ {
		sg.AddNode(fmt.Sprint("n", i), func(context.Context, any) (any, error) { return nil, nil })
		if i > 0 {
			sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
		}
	}
	g, err := sg.AddEdge(Start, "n0").AddEdge("n29", End).Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, every := range []int{1, 2, 3, 4, 5, 7, 100} { // set one slot in every
		cs := newChannelState(g, nil)
		k := 0
		set := func() bool { k++; return k%every == 0 }
		for i := range cs.ver {
			if set() {
				cs.ver[i] = Version(10 + i)
			}
		}
		for i := range cs.seenV {
			if set() {
				cs.seenV[i] = Version(1000 + i)
			}
		}
		for i := range cs.seenRan {
			cs.seenRan[i] = set()
		}
		base := cs.versionsBase()
		if got, want := base.flat(), cs.allIndexed(); !reflect.DeepEqual(got, want) {
			t.Fatalf("one slot in %d set: base reads %v, want %v", every, got, want)
		}
		if sparse := base.parent == g.noVersions; sparse != (every > 1) {
			t.Fatalf("one slot in %d set: sparse %v", every, sparse)
		}
	}
}

// setSlots and appendSet, which skip zeros four at a time, find every
// version that is set, wherever it is.
func TestSetSlots_EveryPlace(t *testing.T) {
	for n := 0; n < 13; n++ {
		for mask := 0; mask < 1<<n; mask++ {
			vs := make([]Version, n)
			var want []idEntry[Version]
			for i := range vs {
				if mask&(1<<i) != 0 {
					vs[i] = Version(i + 1)
					want = append(want, idEntry[Version]{int32(100 + i), vs[i]})
				}
			}
			if got := setSlots(vs); got != len(want) {
				t.Fatalf("%v: %d set, want %d", vs, got, len(want))
			}
			if got := appendSet(nil, vs, 100); !reflect.DeepEqual(got, want) {
				t.Fatalf("%v: %v, want %v", vs, got, want)
			}
		}
	}
}

// keptAndMaterialized runs the graph build makes runs times on thread "t"
// with a MemorySaver, which keeps the engine's snapshots, and with one
// behind versionsRecorder, which hides MemorySaver's mark so that the
// engine materializes every checkpoint it puts there (the reference), and
// returns both histories, newest first.
func keptAndMaterialized(t *testing.T, build func(Saver) *Graph, runs int) (got, want []*CheckpointTuple) {
	t.Helper()
	ctx := context.Background()
	lazy, eager := NewMemorySaver(), &versionsRecorder{Saver: NewMemorySaver()}
	for _, s := range []Saver{lazy, eager} {
		g := build(s)
		for range runs {
			res, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t"), WithRecursionLimit(1000))
			if err != nil || res.Status != StatusDone {
				t.Fatal(err, res.Status)
			}
		}
	}
	got, err := lazy.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err = eager.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}
