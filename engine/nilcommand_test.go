package engine_test

import (
	"context"
	"errors"
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
