package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A subgraph node whose subgraph fails fails with a NodeError of its own,
// naming it and the parent's step, that wraps the subgraph's: the error
// says where the failure happened in the graph the caller ran, and the
// inner NodeError keeps its node, step and attempts (it stood for the
// parent's task before, and took the parent task's attempts).
func TestSubgraphFailureWrapped(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	sub, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("pre", func(context.Context, any) (any, error) { return engine.Update{{Key: "x", Value: "pre"}}, nil }).
		AddNode("inner", func(context.Context, any) (any, error) { calls++; return nil, boom }, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2})).
		AddEdge(engine.Start, "pre").AddEdge("pre", "inner").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("first", func(context.Context, any) (any, error) { return engine.Update{{Key: "x", Value: "first"}}, nil }).
		AddSubgraph("sub", sub).
		AddEdge(engine.Start, "first").AddEdge("first", "sub").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"x": "in"}, engine.OnThread("t"))
	var outer *engine.NodeError
	if !errors.As(engine.FirstFailure(err), &outer) {
		t.Fatalf("err = %v, want a NodeError", err)
	}
	if outer.Node != "sub" || outer.Step != 2 {
		t.Errorf("outer NodeError: node %q step %d, want sub at step 2 (%v)", outer.Node, outer.Step, err)
	}
	var inner *engine.NodeError
	if !errors.As(outer.Err, &inner) || inner.Node != "inner" || inner.Step != 2 || inner.Attempts != 2 || !errors.Is(inner, boom) {
		t.Errorf("inner error %#v, want inner's NodeError at its step 2 after 2 attempts, wrapping boom", inner)
	}
	if calls != 2 {
		t.Errorf("inner ran %d times, want 2", calls)
	}
	if msg := err.Error(); !strings.Contains(msg, `node "sub" failed at step 2: node "inner" failed at step 2 after 2 attempts: boom`) {
		t.Errorf("message %q does not say where the failure was", msg)
	}
	// What the parent saved for the task says the same.
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range snap.Tasks {
		if task.Name != "sub" {
			continue
		}
		var saved *engine.NodeError
		if !errors.As(task.Err, &saved) || saved.Node != "sub" {
			t.Errorf("saved error of sub: %v, want sub's NodeError", task.Err)
		}
	}
}
