package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// SubgraphNamespaces names where a subgraph node's task keeps its
// subgraph's checkpoints: its own namespace, a stateful subgraph's one
// without task ids; a node that runs no subgraph has none.
func TestSubgraphNamespaces(t *testing.T) {
	ctx := context.Background()
	for _, stateful := range []bool{false, true} {
		var opts []engine.CompileOption
		if stateful {
			opts = append(opts, engine.AsStatefulSubgraph())
		}
		sub, err := engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("ask", func(ctx context.Context, _ any) (any, error) {
				a, err := engine.Interrupt(ctx, "ok?")
				if err != nil {
					return nil, err
				}
				return engine.Pairs("log", []any{a}), nil
			}).
			AddEdge(engine.Start, "ask").Compile(opts...)
		if err != nil {
			t.Fatal(err)
		}
		g, err := engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("plan", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"plan"}), nil }).
			AddSubgraph("sub", sub).
			AddEdge(engine.Start, "plan").AddEdge("plan", "sub").
			Compile(engine.WithSaver(engine.NewMemorySaver()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t")); err != nil {
			t.Fatal(err)
		}
		snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
		if err != nil || len(snap.Tasks) != 1 {
			t.Fatalf("state: %v, %d tasks", err, len(snap.Tasks))
		}
		nss, err := g.SubgraphNamespaces(ctx, "t", snap.Tasks[0])
		want := []string{snap.Tasks[0].Subgraph}
		if stateful {
			want = []string{"sub"}
		}
		if err != nil || !slices.Equal(nss, want) {
			t.Fatalf("stateful %v: %q, %v; want %q", stateful, nss, err, want)
		}
		if sub, err := g.GetState(ctx, engine.Config{ThreadID: "t", CheckpointNS: nss[0]}); err != nil || len(sub.Interrupts()) != 1 {
			t.Fatalf("the namespace does not hold the subgraph's state: %v", err)
		}
		hist, err := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hist {
			for _, task := range h.Tasks {
				if nss, err := g.SubgraphNamespaces(ctx, "t", task); task.Name != "sub" && (len(nss) > 0 || err != nil) {
					t.Fatalf("%s runs no subgraph: %q, %v", task.Name, nss, err)
				}
			}
		}
	}
}
