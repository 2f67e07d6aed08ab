package graphs

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// MapReduce splits a list into one Send per item (the map step runs them in
// one superstep), and summarize reduces the results, which arrive in Send
// order whatever order the tasks finish in.
func MapReduce(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("items"), engine.AppendKey("results"), engine.LastValueKey("summary")).
		Named("mapreduce").
		AddNode("split", func(_ context.Context, s any) (any, error) {
			if get[[]any](s, "items") != nil {
				return nil, nil
			}
			return map[string]any{"items": []any{3.0, 1.0, 2.0}}, nil
		}).
		AddNode("square", func(_ context.Context, arg any) (any, error) {
			n := get[float64](arg, "n")
			return map[string]any{"results": []any{n * n}}, nil
		}).
		AddNode("summarize", func(_ context.Context, s any) (any, error) {
			r := get[[]any](s, "results")
			return map[string]any{"summary": fmt.Sprintf("n=%d results=%v", len(r), r)}, nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(_ context.Context, s map[string]any) (any, error) {
			var sends []any
			for _, it := range get[[]any](s, "items") {
				sends = append(sends, engine.Send{Node: "square", Arg: map[string]any{"n": it}})
			}
			return sends, nil
		}, "square").
		AddEdge("square", "summarize").AddEdge("summarize", engine.End).
		Compile(opts...)
}

func init() {
	mustRegister(Example{Name: "mapreduce", Description: "split sends one task per item to square (Send), summarize reduces in Send order", Build: MapReduce, Input: map[string]any{"items": []any{3.0, 1.0, 2.0}}})
}
