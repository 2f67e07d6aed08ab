package typed_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// A typed node's failures reach the caller as the engine's *NodeError,
// which names the node: the typed layer's wrapping adds no second name
// (a Send node's DecodeError keeps its own, for a caller that reads only
// it), and a Send of another type to a node added with AddNode says what
// it read and points at AddSendNode.
func TestNodeErrors_NameTheNodeOnce(t *testing.T) {
	type S struct {
		N int `json:"n"`
	}
	type Other struct{ X int }
	inc := func(_ context.Context, s *S) (typed.Update[S], error) {
		return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
	}
	ctx := context.Background()
	var in S
	input := typed.Write(&in, typed.Set(&in.N, 1))

	notAField := func() (*typed.Graph[S], error) {
		var o Other
		return typed.NewGraph[S]("g").
			AddNode("setter", func(_ context.Context, s *S) (typed.Update[S], error) {
				return typed.Write(s, typed.Set(&s.N, 1), typed.Set(&o.X, 2)), nil
			}).
			AddEdge(engine.Start, "setter").Compile()
	}
	sentToStateNode := func() (*typed.Graph[S], error) {
		g := typed.NewGraph[S]("g").AddNode("split", inc).AddNode("worker", inc).AddEdge(engine.Start, "split")
		typed.AddFanOut(g, "split", "worker", func(context.Context, *S) ([]int, error) { return []int{7}, nil })
		return g.Compile()
	}
	wrongArgType := func() (*typed.Graph[S], error) {
		g := typed.NewGraph[S]("g").AddNode("split", inc).AddEdge(engine.Start, "split")
		typed.AddSendNode(g, "worker", func(_ context.Context, word string, out *S) (typed.Update[S], error) {
			return typed.Update[S]{}, nil
		})
		typed.AddFanOut(g, "split", "worker", func(context.Context, *S) ([]int, error) { return []int{7}, nil })
		return g.Compile()
	}
	for _, c := range []struct {
		name, node string
		build      func() (*typed.Graph[S], error)
		names      int // how many times the message names the node
		want       []string
	}{
		{"not a field", "setter", notAField, 1, []string{"not the address of a state field"}},
		{"sent to a state node", "worker", sentToStateNode, 1, []string{"Send argument, read as the state", "AddSendNode", "number 7"}},
		{"wrong argument type", "worker", wrongArgType, 2, []string{`node "worker": Send argument`, "number 7 into string"}},
	} {
		g, err := c.build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = g.Run(ctx, input)
		var ne *engine.NodeError
		if !errors.As(err, &ne) || ne.Node != c.node {
			t.Fatalf("%s: want a NodeError of %s, got %v", c.name, c.node, err)
		}
		msg := err.Error()
		if n := strings.Count(msg, `"`+c.node+`"`); n != c.names {
			t.Errorf("%s: %q names the node %d times, want %d", c.name, msg, n, c.names)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
	}
}
