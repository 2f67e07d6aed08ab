package enginetest

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
)

// AppendLoop compiles a graph that appends n to the list "items" once per
// superstep, counting n in "n" from the input's value up to steps, and
// calls probe (if not nil) with n before each superstep's write. It is the
// growing-list workload of the stores' append tests and benchmarks: each
// superstep appends one small element, whatever the list's length.
func AppendLoop(t testing.TB, s engine.Saver, steps int, probe func(n int)) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.AppendKey("items"), engine.LastValueKey("n")).
		AddNode("add", func(_ context.Context, in any) (any, error) {
			n := in.(map[string]any)["n"].(float64)
			if probe != nil {
				probe(int(n))
			}
			return engine.Update{{Key: "items", Value: []any{n}}, {Key: "n", Value: n + 1}}, nil
		}).
		AddEdge(engine.Start, "add").
		AddConditionalEdges("add", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < float64(steps) {
				return "add", nil
			}
			return engine.End, nil
		}, "add", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
