package graphs

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// MapReduceState is the state of MapReduce.
type MapReduceState struct {
	Items   []int                 `json:"items"`   // the input list (split's default when absent)
	Results typed.AppendList[int] `json:"results"` // each square, appended in Send order
	Summary string                `json:"summary"` // summarize's
}

// Square is the argument of one Send to MapReduce's square node.
type Square struct {
	N int `json:"n"` // the item to square
}

// MapReduce splits a list into one Send per item (the map step runs them in
// one superstep), and summarize reduces the results, which arrive in Send
// order whatever order the tasks finish in.
func MapReduce(opts ...engine.CompileOption) (*engine.Graph, error) {
	type S = MapReduceState
	g := typed.NewGraph[S]("mapreduce").
		AddNode("split", func(_ context.Context, s *S) (typed.Update[S], error) {
			if s.Items != nil {
				return typed.Update[S]{}, nil
			}
			return typed.Write(s, typed.Set(&s.Items, []int{3, 1, 2})), nil
		})
	typed.AddSendNode(g, "square", func(_ context.Context, arg Square, out *S) (typed.Update[S], error) {
		return typed.Write(out, typed.Append(&out.Results, arg.N*arg.N)), nil
	})
	g.AddNode("summarize", func(_ context.Context, s *S) (typed.Update[S], error) {
		return typed.Write(s, typed.Set(&s.Summary, fmt.Sprintf("n=%d results=%v", len(s.Results), s.Results))), nil
	}).
		AddEdge(engine.Start, "split")
	typed.AddFanOut(g, "split", "square", func(_ context.Context, s *S) (args []Square, _ error) {
		for _, n := range s.Items {
			args = append(args, Square{N: n})
		}
		return args, nil
	})
	return typed.Engine(g.AddEdge("square", "summarize").AddEdge("summarize", engine.End).Compile(opts...))
}

func init() {
	mustRegister(Example{Name: "mapreduce", Description: "split sends one task per item to square (Send), summarize reduces in Send order", Build: MapReduce, Input: map[string]any{"items": []any{3.0, 1.0, 2.0}}})
}
