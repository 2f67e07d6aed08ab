package graphs_test

// The built-in graphs as they were written in the map API before the typed
// rewrite: the reference the typed graphs must trace identically to.

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
)

// get reads a typed value from a node's input map.
func get[T any](state any, key string) T {
	m, _ := state.(map[string]any)
	v, _ := m[key].(T)
	return v
}

// mapLinear is START → a → b → END: a doubles total, b adds one; visited
// collects the path (seed 003).
func mapLinear(opts ...engine.CompileOption) (*engine.Graph, error) {
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

// mapRouter routes from a to b when total > 5, else to c (seed 003).
func mapRouter(opts ...engine.CompileOption) (*engine.Graph, error) {
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

// mapEssay is seed 000's graph: plan → writer_a ∥ writer_b → (join) review,
// and review loops through revise until four drafts exist.
func mapEssay(opts ...engine.CompileOption) (*engine.Graph, error) {
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

// mapMapReduce splits a list into one Send per item (the map step runs them in
// one superstep), and summarize reduces the results, which arrive in Send
// order whatever order the tasks finish in.
func mapMapReduce(opts ...engine.CompileOption) (*engine.Graph, error) {
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

// mapResearch is seed 004's graph: plan_queries fans out one Send per
// sub-query to investigate; human_review asks a person to approve the
// findings (interrupt) and routes with a Command: approve → synthesize,
// revise → plan_queries with a revised question.
func mapResearch(opts ...engine.CompileOption) (*engine.Graph, error) {
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
