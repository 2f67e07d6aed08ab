package graphs

import (
	"context"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// Counter is the state of Linear and Router: total is LastValue, visited
// appends the path.
type Counter struct {
	Total   int      `json:"total"`                    // the running number (LastValue)
	Visited []string `json:"visited" reducer:"append"` // the nodes run, in order
}

// Linear is START → a → b → END: a doubles total, b adds one; visited
// collects the path (seed 003).
func Linear(opts ...engine.CompileOption) (*engine.Graph, error) {
	return typed.Engine(typed.NewGraph[Counter]("linear").
		AddNode("a", double).
		AddNode("b", addOne).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(opts...))
}

// Router routes from a to b when total > 5, else to c (seed 003).
func Router(opts ...engine.CompileOption) (*engine.Graph, error) {
	return typed.Engine(typed.NewGraph[Counter]("router").
		AddNode("a", double).
		AddNode("b", addOne).
		AddNode("c", func(_ context.Context, s *Counter) (typed.Update[Counter], error) {
			return typed.Write(s, typed.Set(&s.Total, 0), typed.Set(&s.Visited, []string{"c"})), nil
		}).
		AddEdge(engine.Start, "a").
		AddConditionalEdges("a", func(_ context.Context, s *Counter) (string, error) {
			if s.Total > 5 {
				return "b", nil
			}
			return "c", nil
		}, "b", "c").
		AddEdge("b", engine.End).AddEdge("c", engine.End).
		Compile(opts...))
}

func double(_ context.Context, s *Counter) (typed.Update[Counter], error) {
	return typed.Write(s, typed.Set(&s.Total, s.Total*2), typed.Set(&s.Visited, []string{"a"})), nil
}

func addOne(_ context.Context, s *Counter) (typed.Update[Counter], error) {
	return typed.Write(s, typed.Set(&s.Total, s.Total+1), typed.Set(&s.Visited, []string{"b"})), nil
}

func init() {
	mustRegister(Example{Name: "linear", Description: "START → a → b → END; total is LastValue, visited appends (seed 003)", Build: Linear, Input: map[string]any{"total": 10.0, "visited": []any{}}})
	mustRegister(Example{Name: "router", Description: "a routes to b when total > 5, else to c (seed 003)", Build: Router, Input: map[string]any{"total": 3.0}})
}
