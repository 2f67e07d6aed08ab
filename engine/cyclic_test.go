package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestCyclicValues: a value that contains itself is refused as nested too
// deeply wherever it is written (a node's update, the run's input, a
// state update, a resume value), where it overflowed the stack in
// Normalize, a fatal error no recover catches.
func TestCyclicValues(t *testing.T) {
	ctx := context.Background()
	cyclic := func() map[string]any {
		m := map[string]any{}
		m["self"] = m
		return m
	}
	list := []any{nil}
	list[0] = list
	build := func(node engine.NodeFunc) *engine.Graph {
		g, err := engine.NewStateGraph(engine.LastValueKey("x")).
			AddNode("a", node).
			AddEdge(engine.Start, "a").
			Compile(engine.WithSaver(engine.NewMemorySaver()))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tooDeep := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, engine.ErrValueTooDeep) {
			t.Errorf("%s: %v, want ErrValueTooDeep", what, err)
		}
	}
	writes := build(func(context.Context, any) (any, error) { return map[string]any{"x": cyclic()}, nil })
	_, err := writes.Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("node"))
	tooDeep("a node's update", err)
	_, err = build(func(context.Context, any) (any, error) { return map[string]any{"x": list}, nil }).Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("list"))
	tooDeep("a node's update of a list", err)

	plain := build(func(context.Context, any) (any, error) { return nil, nil })
	_, err = plain.Invoke(ctx, map[string]any{"x": cyclic()}, engine.OnThread("input"))
	tooDeep("the run's input", err)
	if _, err := plain.Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("u")); err != nil {
		t.Fatal(err)
	}
	_, err = plain.UpdateState(ctx, engine.Config{ThreadID: "u"}, map[string]any{"x": cyclic()}, "a")
	tooDeep("a state update", err)

	asks := build(func(ctx context.Context, _ any) (any, error) {
		v, err := engine.Interrupt(ctx, "?")
		if err != nil {
			return nil, err
		}
		return map[string]any{"x": v}, nil
	})
	if _, err := asks.Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("r")); err != nil {
		t.Fatal(err)
	}
	_, err = asks.Invoke(ctx, engine.Command{Resume: cyclic()}, engine.OnThread("r"))
	tooDeep("a resume value", err)
}
