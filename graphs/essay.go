package graphs

import (
	"context"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// EssayState is the state of Essay.
type EssayState struct {
	Topic    string   `json:"topic"`                   // the input
	Outline  string   `json:"outline"`                 // plan's
	Drafts   []string `json:"drafts" reducer:"append"` // every writer's and reviser's draft
	Final    string   `json:"final"`                   // the draft review read last
	Approved bool     `json:"approved"`                // review's verdict: four drafts exist
}

// Essay is seed 000's graph: plan → writer_a ∥ writer_b → (join) review,
// and review loops through revise until four drafts exist.
func Essay(opts ...engine.CompileOption) (*engine.Graph, error) {
	type S = EssayState
	draft := func(prefix string, from func(*S) string) typed.NodeFunc[S] {
		return func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Drafts, []string{prefix + from(s)})), nil
		}
	}
	outline := func(s *S) string { return s.Outline }
	return typed.Engine(typed.NewGraph[S]("essay").
		AddNode("plan", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Outline, s.Topic+"：定义、实现、执行")), nil
		}).
		AddNode("writer_a", draft("版本 A：", outline)).
		AddNode("writer_b", draft("版本 B：", outline)).
		AddNode("review", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.Final, s.Drafts[len(s.Drafts)-1]), typed.Set(&s.Approved, len(s.Drafts) >= 4)), nil
		}).
		AddNode("revise", draft("修订稿：", func(s *S) string { return s.Final })).
		AddEdge(engine.Start, "plan").
		AddEdge("plan", "writer_a").AddEdge("plan", "writer_b").
		AddJoin([]string{"writer_a", "writer_b"}, "review").
		AddConditionalEdges("review", func(_ context.Context, s *S) (string, error) {
			if s.Approved {
				return engine.End, nil
			}
			return "revise", nil
		}, "revise", engine.End).
		AddEdge("revise", "review").
		Compile(opts...))
}

func init() {
	mustRegister(Example{Name: "essay", Description: "plan → two writers in parallel → join → review ⟲ revise until 4 drafts (seed 000)", Build: Essay, Input: map[string]any{"topic": "LangGraph Workflow"}})
}
