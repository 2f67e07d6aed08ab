package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// TestStore_SubgraphReadDoesNotHideAnotherWriter: a run that read a
// thread and, while a node of it works, sees another process advance
// the thread is refused when it saves, even when the node invokes a
// subgraph after the other process's commit: the subgraph's read of its
// own namespace is not a reload of the thread, and the run's root state
// is still the one it read before. It was taken for one, and both runs
// succeeded, the second storing a checkpoint on the first's parent.
func TestStore_SubgraphReadDoesNotHideAnotherWriter(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{Writer: "host-a pid 1"})
	b := open(t, u, postgres.Options{Writer: "host-b pid 2"})
	build := func(s *postgres.Store, wait <-chan struct{}, entered chan<- struct{}) *engine.Graph {
		inner, err := engine.NewStateGraph(engine.LastValueKey("n")).
			AddNode("copy", func(_ context.Context, in any) (any, error) {
				return map[string]any{"n": in.(map[string]any)["n"]}, nil
			}).
			AddEdge(engine.Start, "copy").
			Compile()
		if err != nil {
			t.Fatal(err)
		}
		g, err := engine.NewStateGraph(engine.LastValueKey("n")).
			AddNode("first", func(_ context.Context, in any) (any, error) {
				return map[string]any{"n": 1.0}, nil
			}).
			AddNode("work", func(ctx context.Context, in any) (any, error) {
				if wait != nil {
					entered <- struct{}{}
					<-wait
				}
				out, err := engine.InvokeSubgraph(ctx, inner, in)
				if err != nil {
					return nil, err
				}
				return map[string]any{"n": out["n"].(float64) + 1}, nil
			}, engine.UsesSubgraph("inner", inner)).
			AddEdge(engine.Start, "first").
			AddEdge("first", "work").
			Compile(engine.WithSaver(s), engine.WithInterruptBefore("work"))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	on := engine.OnThread("t")
	if _, err := build(a, nil, nil).Invoke(ctx, map[string]any{"n": 0.0}, on); err != nil {
		t.Fatal(err)
	}
	wait, entered := make(chan struct{}), make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := build(b, wait, entered).Invoke(ctx, nil, on)
		done <- err
	}()
	<-entered // b read the thread and runs work
	if _, err := build(a, nil, nil).Invoke(ctx, nil, on); err != nil {
		t.Fatalf("the first writer: %v", err)
	}
	close(wait)
	err := <-done
	var ce *postgres.ConflictError
	if !errors.As(err, &ce) || ce.Holder != "host-a pid 1" {
		hist := mustList(t, a, "t")
		t.Fatalf("the second writer: %v, want a *ConflictError naming host-a; the thread holds %d checkpoints", err, len(hist))
	}
	t.Logf("the second writer sees: %v", err)
	if n := len(mustList(t, a, "t")); n != 4 {
		t.Errorf("the thread holds %d checkpoints, want the first writer's 4", n)
	}
}
