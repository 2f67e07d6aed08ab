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
	ctx := context.Background()
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
		g, err := sg.AddEdge(Start, "n0").AddEdge(fmt.Sprint("n", nodes-1), End).Compile(WithSaver(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// versionsRecorder hides MemorySaver's mark: the engine materializes
	// every checkpoint it puts there, which is the reference.
	lazy, eager := NewMemorySaver(), &versionsRecorder{Saver: NewMemorySaver()}
	for _, s := range []Saver{lazy, eager} {
		res, err := build(s).Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t"), WithRecursionLimit(100))
		if err != nil || res.Status != StatusDone {
			t.Fatal(err, res.Status)
		}
	}
	got, err := lazy.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := eager.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) < 40 {
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
