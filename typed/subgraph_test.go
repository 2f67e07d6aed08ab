package typed_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

type counter struct {
	N int `json:"n"`
}

// TestAddSubgraph_RunsAMapGraphOnTheSameKeys: a typed graph's subgraph
// node runs a compiled map-API graph on the keys they share, and the
// result decodes into the struct's field types; Decode reads a state map
// the same way and names the field a value does not fit.
func TestAddSubgraph_RunsAMapGraphOnTheSameKeys(t *testing.T) {
	sub, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("double", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) * 2}}, nil
		}).
		AddEdge(engine.Start, "double").AddEdge("double", engine.End).Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := typed.NewGraph[counter]("outer").
		AddNode("inc", func(_ context.Context, s *counter) (typed.Update[counter], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).
		AddSubgraph("sub", sub).
		AddEdge(engine.Start, "inc").AddEdge("inc", "sub").AddEdge("sub", engine.End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in counter
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.State.N != 4 {
		t.Fatalf("(1 + 1) doubled by the subgraph: n = %d, want 4", res.State.N)
	}
	s, err := g.Decode(res.Values)
	if err != nil || s.N != 4 {
		t.Fatalf("Decode of the result's values: %+v, %v", s, err)
	}
	_, err = g.Decode(map[string]any{"n": "four"})
	var de *typed.DecodeError
	if !errors.As(err, &de) || !strings.Contains(de.Where, `"n"`) {
		t.Fatalf("Decode of a string into an int field: %v, want a *DecodeError naming n", err)
	}
}
