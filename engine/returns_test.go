package engine_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestNode_ReturnsNilCommandPointer: a node that returns a typed nil
// *Command gets an invalid-update error that says so, not a nil
// dereference reported as the node's panic.
func TestNode_ReturnsNilCommandPointer(t *testing.T) {
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", func(context.Context, any) (any, error) {
			var cmd *engine.Command
			return cmd, nil
		}).
		AddEdge(engine.Start, "a").Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"x": 1.0})
	var iu *engine.InvalidUpdateError
	var ne *engine.NodeError
	if !errors.As(err, &iu) || !strings.Contains(err.Error(), "nil *Command") || (errors.As(err, &ne) && ne.Panic) {
		t.Fatalf("Invoke: %v, want an InvalidUpdateError about the nil *Command", err)
	}
}

// TestRoute_ReturnsSendSlice: a route may return a []engine.Send, the
// fan-out as Go code builds it, where only []any was taken.
func TestRoute_ReturnsSendSlice(t *testing.T) {
	g, err := engine.NewStateGraph(engine.AppendKey("got"), engine.LastValueKey("bad")).
		AddNode("fan", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", func(_ context.Context, in any) (any, error) { return map[string]any{"got": []any{in}}, nil }).
		AddEdge(engine.Start, "fan").
		AddConditionalEdges("fan", func(_ context.Context, st map[string]any) (any, error) {
			if st["bad"] != nil {
				return []engine.Send{{Node: "work", Arg: 1.0}, {Node: "nope", Arg: 2.0}}, nil
			}
			return []engine.Send{{Node: "work", Arg: 1.0}, {Node: "work", Arg: 2.0}}, nil
		}, "work").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{"got": []any{}})
	if err != nil || len(res.Values["got"].([]any)) != 2 {
		t.Fatalf("fan-out of []Send: %v %v", res, err)
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"got": []any{}, "bad": true}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("a Send to an unknown node: %v", err)
	}
}

// TestFormatNumber_NotFinite: a number JSON cannot hold still prints, as
// JavaScript prints it; it panicked (the debugger showing a node's
// 1/0, and a node whose emit printed it failed with the panic).
func TestFormatNumber_NotFinite(t *testing.T) {
	for f, want := range map[float64]string{math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 1e21: "1e+21", 2.5: "2.5"} {
		if got := engine.FormatNumber(f); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", f, got, want)
		}
	}
	if got := engine.FormatNumber(math.NaN()); got != "NaN" {
		t.Errorf("FormatNumber(NaN) = %q, want NaN", got)
	}
}
