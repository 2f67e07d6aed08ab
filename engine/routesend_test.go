package engine

import (
	"context"
	"errors"
	"testing"
)

// TestRouteSends_EverySendIsChecked: a route's list of Sends is checked
// Send by Send, first or after Sends to a valid node: a Send to an unknown
// node, to the empty name, to Start or to End fails the route's node.
func TestRouteSends_EverySendIsChecked(t *testing.T) {
	for _, c := range []struct {
		bad   string
		first bool
	}{{"ghost", false}, {"", false}, {"", true}, {Start, false}, {End, false}, {End, true}} {
		bad := c.bad
		sends := []any{Send{Node: "work", Arg: 1.0}, Send{Node: "work", Arg: 2.0}, Send{Node: bad, Arg: 3.0}}
		if c.first {
			sends = []any{Send{Node: bad, Arg: 3.0}, Send{Node: bad, Arg: 4.0}}
		}
		sg := NewStateGraph(AppendKey("out")).
			AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
			AddNode("work", func(_ context.Context, x any) (any, error) { return Update{{Key: "out", Value: []any{x}}}, nil }).
			AddEdge(Start, "split").AddEdge("work", End).
			AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
				return sends, nil
			}, "work")
		g, err := sg.Compile()
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Invoke(context.Background(), map[string]any{"out": []any{}})
		var iu *InvalidUpdateError
		if !errors.As(err, &iu) {
			t.Errorf("Send to %q (first: %v): err = %v, want an InvalidUpdateError", bad, c.first, err)
		}
	}
}
