package tui

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestSession_RuntimeContext: the debugger's runs get the runtime context
// it was given (a scenario file's, as run gives it), which its nodes
// read; they ran without one.
func TestSession_RuntimeContext(t *testing.T) {
	ctx := context.Background()
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", func(ctx context.Context, _ any) (any, error) {
			c, _ := engine.RuntimeContext(ctx).(map[string]any)
			return map[string]any{"x": c["k"]}, nil
		}).
		AddEdge(engine.Start, "a").Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	s := newEngineSession(g, Options{Saver: engine.NewMemorySaver(), RuntimeContext: map[string]any{"k": 42.0}})
	v, err := s.Start(ctx, "t", map[string]any{"x": 0.0})
	for err == nil && v.Status == engine.StatusRunning {
		v, err = s.Next(ctx)
	}
	if err != nil || v.Values["x"] != 42.0 {
		t.Fatalf("after the run: x = %v (%v), want the context's 42", v.Values["x"], err)
	}
}
