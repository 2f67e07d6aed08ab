package tui

import (
	"context"
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
)

// ticker counts n up to 30 in as many supersteps: more than the engine's
// default recursion limit (25).
func ticker(t *testing.T) *engine.StateGraph {
	t.Helper()
	return engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("tick", func(_ context.Context, s any) (any, error) {
			n, _ := s.(map[string]any)["n"].(float64)
			return map[string]any{"n": n + 1}, nil
		}).
		AddEdge(engine.Start, "tick").
		AddConditionalEdges("tick", func(_ context.Context, s map[string]any) (any, error) {
			if n, _ := s["n"].(float64); n < 30 {
				return "tick", nil
			}
			return engine.End, nil
		}, "tick", engine.End)
}

// The graph's own recursion limit (a scenario file's, as `superstep run`
// uses it) governs the debugger's runs and `e` when the run settings set
// none: a scenario that needs 40 supersteps failed at 25 in the debugger
// alone, and `e` on its subgraph node ran the subgraph under 25.
func TestSession_GraphRecursionLimit(t *testing.T) {
	ctx := context.Background()
	inner, err := ticker(t).Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 40} {
		saver := engine.NewMemorySaver()
		g, err := ticker(t).Compile(engine.WithSaver(saver))
		if err != nil {
			t.Fatal(err)
		}
		s := newEngineSession(g, Options{Saver: saver, RecursionLimit: limit})
		if _, err := s.Start(ctx, "t", map[string]any{"n": 0.0}); err != nil {
			t.Fatal(err)
		}
		var runErr error
		for s.View().Status == engine.StatusRunning && runErr == nil {
			_, runErr = s.Superstep(ctx)
		}
		var rec *engine.GraphRecursionError
		if got := errors.As(runErr, &rec); got != (limit == 0) {
			t.Fatalf("limit %d: run ended with %v", limit, runErr)
		}

		// A node running the ticker as its subgraph, rerun alone.
		psaver := engine.NewMemorySaver()
		parent, err := engine.NewStateGraph(engine.LastValueKey("n")).
			AddSubgraph("sub", inner).AddEdge(engine.Start, "sub").
			Compile(engine.WithSaver(psaver))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parent.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("p"), engine.WithRecursionLimit(40)); err != nil {
			t.Fatal(err)
		}
		ps := newEngineSession(parent, Options{Saver: psaver, RecursionLimit: limit})
		ps.thread = "p"
		hist, err := parent.History(ctx, engine.Config{ThreadID: "p"}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var planned *engine.StateSnapshot
		for _, h := range hist {
			if len(h.Next) == 1 && h.Next[0] == "sub" {
				planned = h
			}
		}
		if planned == nil {
			t.Fatalf("no checkpoint plans sub: %d in history", len(hist))
		}
		r, err := ps.RerunTask(ctx, planned.Config.CheckpointID, planned.Tasks[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if failed := r.Err != nil; failed != (limit == 0) {
			t.Fatalf("limit %d: e on the subgraph node: %v", limit, r.Err)
		}
	}
}
