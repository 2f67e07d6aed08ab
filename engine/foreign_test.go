package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// ForeignNames names the nodes and channels another graph's checkpoint has
// that this graph lacks, and nothing for the graph's own checkpoints.
func TestForeignNames(t *testing.T) {
	ctx := context.Background()
	node := func(key string) engine.NodeFunc {
		return func(context.Context, any) (any, error) { return engine.Pairs(key, 1.0), nil }
	}
	saver := engine.NewMemorySaver()
	other := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x"), engine.LastValueKey("y")).
		AddNode("writer", node("y")).AddNode("second", node("x")).
		AddEdge(engine.Start, "writer").AddEdge("writer", "second"), engine.WithSaver(saver))
	if _, err := other.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	tup, err := saver.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tup == nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	if got := other.ForeignNames(tup.Checkpoint); len(got) != 0 {
		t.Errorf("the graph's own checkpoint names %q as foreign", got)
	}
	mine := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("second", node("x")).AddEdge(engine.Start, "second"))
	want := []string{"node writer", "channel branch:to:writer", "channel y"}
	if got := mine.ForeignNames(tup.Checkpoint); !slices.Equal(got, want) {
		t.Errorf("ForeignNames = %q, want %q", got, want)
	}
}
