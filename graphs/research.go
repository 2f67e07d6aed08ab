package graphs

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
)

// Research is seed 004's graph: plan_queries fans out one Send per
// sub-query to investigate; human_review asks a person to approve the
// findings (interrupt) and routes with a Command: approve → synthesize,
// revise → plan_queries with a revised question.
func Research(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(
		engine.LastValueKey("question"), engine.LastValueKey("sub_queries"), engine.AppendKey("findings"),
		engine.LastValueKey("approved"), engine.LastValueKey("final_report"),
	).Named("research").
		AddNode("plan_queries", func(_ context.Context, s any) (any, error) {
			q := get[string](s, "question")
			return map[string]any{"sub_queries": []any{q + " - 架构设计", q + " - 性能瓶颈与基准", q + " - 生产故障案例"}}, nil
		}, engine.WithDescription("splits the question into three sub-queries")).
		AddNode("investigate", func(_ context.Context, arg any) (any, error) {
			return map[string]any{"findings": []any{"[证据] 针对《" + get[string](arg, "sub_query") + "》的调研结论摘要"}}, nil
		}, engine.WithDescription("one Send task per sub-query")).
		AddNode("human_review", func(ctx context.Context, s any) (any, error) {
			answer, err := engine.Interrupt(ctx, map[string]any{
				"question":           get[string](s, "question"),
				"collected_findings": get[[]any](s, "findings"),
				"prompt":             "是否批准基于以上证据生成最终报告？（approve / revise）",
			})
			if err != nil {
				return nil, err
			}
			reply, _ := answer.(map[string]any)
			if reply == nil {
				reply = map[string]any{"action": answer}
			}
			switch reply["action"] {
			case "approve":
				return engine.Command{Update: map[string]any{"approved": true}, Goto: []any{"synthesize"}}, nil
			case "revise":
				q := get[string](s, "question")
				if rq, ok := reply["revised_question"].(string); ok && rq != "" {
					q = rq
				}
				return engine.Command{Update: engine.Pairs("approved", false, "question", q), Goto: []any{"plan_queries"}}, nil
			}
			return nil, fmt.Errorf(`human_review: answer {"action": "approve"} or {"action": "revise", "revised_question": "…"}, got %s`, engine.MustEncode(answer))
		}, engine.WithEnds("synthesize", "plan_queries"), engine.WithDescription("asks a person to approve or revise")).
		AddNode("synthesize", func(_ context.Context, s any) (any, error) {
			var lines []string
			for _, f := range get[[]any](s, "findings") {
				lines = append(lines, fmt.Sprint(f))
			}
			return map[string]any{"final_report": "综合报告：\n" + strings.Join(lines, "\n")}, nil
		}).
		AddEdge(engine.Start, "plan_queries").
		AddConditionalEdges("plan_queries", func(_ context.Context, s map[string]any) (any, error) {
			var sends []any
			for _, q := range get[[]any](s, "sub_queries") {
				sends = append(sends, engine.Send{Node: "investigate", Arg: map[string]any{"sub_query": q}})
			}
			return sends, nil
		}, "investigate").
		AddEdge("investigate", "human_review").
		AddEdge("synthesize", engine.End).
		Compile(opts...)
}

func init() {
	mustRegister(Example{
		Name:        "research",
		Description: "Send fan-out to investigate, human_review interrupt, Command goto (seed 004)",
		Build:       Research,
		Input:       map[string]any{"question": "LangGraph 在生产环境的可靠性"},
		Answers:     []string{`{"action":"approve"}`, `{"action":"revise","revised_question":"…"}`},
	})
}
