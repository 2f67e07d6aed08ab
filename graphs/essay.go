package graphs

import (
	"context"

	"github.com/superstep/superstep/engine"
)

// Essay is seed 000's graph: plan → writer_a ∥ writer_b → (join) review,
// and review loops through revise until four drafts exist.
func Essay(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(
		engine.LastValueKey("topic"), engine.LastValueKey("outline"), engine.AppendKey("drafts"),
		engine.LastValueKey("final"), engine.LastValueKey("approved"),
	).Named("essay").
		AddNode("plan", func(_ context.Context, s any) (any, error) {
			return map[string]any{"outline": get[string](s, "topic") + "：定义、实现、执行"}, nil
		}).
		AddNode("writer_a", func(_ context.Context, s any) (any, error) {
			return map[string]any{"drafts": []any{"版本 A：" + get[string](s, "outline")}}, nil
		}).
		AddNode("writer_b", func(_ context.Context, s any) (any, error) {
			return map[string]any{"drafts": []any{"版本 B：" + get[string](s, "outline")}}, nil
		}).
		AddNode("review", func(_ context.Context, s any) (any, error) {
			drafts := get[[]any](s, "drafts")
			return engine.Pairs("final", drafts[len(drafts)-1], "approved", len(drafts) >= 4), nil
		}).
		AddNode("revise", func(_ context.Context, s any) (any, error) {
			return map[string]any{"drafts": []any{"修订稿：" + get[string](s, "final")}}, nil
		}).
		AddEdge(engine.Start, "plan").
		AddEdge("plan", "writer_a").AddEdge("plan", "writer_b").
		AddJoin([]string{"writer_a", "writer_b"}, "review").
		AddConditionalEdges("review", func(_ context.Context, s map[string]any) (any, error) {
			if get[bool](s, "approved") {
				return engine.End, nil
			}
			return "revise", nil
		}, "revise", engine.End).
		AddEdge("revise", "review").
		Compile(opts...)
}

func init() {
	mustRegister(Example{Name: "essay", Description: "plan → two writers in parallel → join → review ⟲ revise until 4 drafts (seed 000)", Build: Essay, Input: map[string]any{"topic": "LangGraph Workflow"}})
}
