package postgres_test

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// loopSteps is how many supersteps a concurrency test thread runs.
const loopSteps = 6

// loopGraph counts n up to loopSteps, appending to a log at each step.
func loopGraph(s engine.Saver) (*engine.Graph, error) {
	inc := func(_ context.Context, in any) (any, error) {
		n := int(in.(map[string]any)["n"].(float64))
		return map[string]any{"n": float64(n + 1), "log": []any{fmt.Sprintf("step %d", n)}}, nil
	}
	route := func(_ context.Context, st map[string]any) (any, error) {
		if st["n"].(float64) < loopSteps {
			return "inc", nil
		}
		return engine.End, nil
	}
	return engine.NewStateGraph(engine.LastValueKey("n"), engine.AppendKey("log")).
		AddNode("inc", inc).
		AddEdge(engine.Start, "inc").
		AddConditionalEdges("inc", route, "inc", engine.End).
		Compile(engine.WithSaver(s))
}
