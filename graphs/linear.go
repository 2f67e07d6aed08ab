package graphs

import (
	"context"

	"github.com/superstep/superstep/engine"
)

// Linear is START → a → b → END: a doubles total, b adds one; visited
// collects the path (seed 003).
func Linear(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("visited")).
		Named("linear").
		AddNode("a", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", get[float64](s, "total")*2, "visited", []any{"a"}), nil
		}).
		AddNode("b", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", get[float64](s, "total")+1, "visited", []any{"b"}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(opts...)
}

// Router routes from a to b when total > 5, else to c (seed 003).
func Router(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("visited")).
		Named("router").
		AddNode("a", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", get[float64](s, "total")*2, "visited", []any{"a"}), nil
		}).
		AddNode("b", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", get[float64](s, "total")+1, "visited", []any{"b"}), nil
		}).
		AddNode("c", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", 0.0, "visited", []any{"c"}), nil
		}).
		AddEdge(engine.Start, "a").
		AddConditionalEdges("a", func(_ context.Context, s map[string]any) (any, error) {
			if get[float64](s, "total") > 5 {
				return "b", nil
			}
			return "c", nil
		}, "b", "c").
		AddEdge("b", engine.End).AddEdge("c", engine.End).
		Compile(opts...)
}

func init() {
	mustRegister(Example{Name: "linear", Description: "START → a → b → END; total is LastValue, visited appends (seed 003)", Build: Linear, Input: map[string]any{"total": 10.0, "visited": []any{}}})
	mustRegister(Example{Name: "router", Description: "a routes to b when total > 5, else to c (seed 003)", Build: Router, Input: map[string]any{"total": 3.0}})
}
