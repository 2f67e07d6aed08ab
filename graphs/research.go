package graphs

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// ResearchState is the state of Research.
type ResearchState struct {
	Question    string                   `json:"question"`     // the input, or the person's revision
	SubQueries  []string                 `json:"sub_queries"`  // plan_queries's, one Send each
	Findings    typed.AppendList[string] `json:"findings"`     // each investigation's, appended in Send order
	Approved    bool                     `json:"approved"`     // human_review's verdict
	FinalReport string                   `json:"final_report"` // synthesize's
}

// ReviewRequest is what human_review shows the person it asks.
type ReviewRequest struct {
	Question          string   `json:"question"`           // the question researched
	CollectedFindings []string `json:"collected_findings"` // the findings to approve
	Prompt            string   `json:"prompt"`             // what the person is asked
}

// ReviewAnswer is the person's reply: {"action": "approve"}, {"action":
// "revise", "revised_question": "…"}, or just the action as a string.
type ReviewAnswer struct {
	Action          string // "approve" or "revise"
	RevisedQuestion string // revise's new question ("" keeps the old one)
	raw             any    // the reply as given, for the error about a bad one
}

// UnmarshalJSON reads any reply; human_review rejects one without a known
// action.
func (a *ReviewAnswer) UnmarshalJSON(b []byte) error {
	v, err := engine.DecodeValue(b)
	if err != nil {
		return err
	}
	*a = ReviewAnswer{raw: v}
	switch x := v.(type) {
	case string:
		a.Action = x
	case map[string]any:
		a.Action, _ = x["action"].(string)
		a.RevisedQuestion, _ = x["revised_question"].(string)
	}
	return nil
}

// subQuery is the argument of one Send to investigate.
type subQuery struct {
	SubQuery string `json:"sub_query"`
}

// Research is seed 004's graph: plan_queries fans out one Send per
// sub-query to investigate; human_review asks a person to approve the
// findings (interrupt) and routes with a Command: approve → synthesize,
// revise → plan_queries with a revised question.
func Research(opts ...engine.CompileOption) (*engine.Graph, error) {
	type S = ResearchState
	g := typed.NewGraph[S]("research").
		AddNode("plan_queries", func(_ context.Context, s *S) (typed.Update[S], error) {
			q := s.Question
			return typed.Write(s, typed.Set(&s.SubQueries, []string{q + " - 架构设计", q + " - 性能瓶颈与基准", q + " - 生产故障案例"})), nil
		}, engine.WithDescription("splits the question into three sub-queries"))
	typed.AddSendNode(g, "investigate", func(_ context.Context, arg subQuery, out *S) (typed.Update[S], error) {
		return typed.Write(out, typed.Append(&out.Findings, "[证据] 针对《"+arg.SubQuery+"》的调研结论摘要")), nil
	}, engine.WithDescription("one Send task per sub-query"))
	g.
		AddNode("human_review", func(ctx context.Context, s *S) (typed.Update[S], error) {
			reply, err := typed.Interrupt[ReviewAnswer](ctx, ReviewRequest{
				Question: s.Question, CollectedFindings: s.Findings,
				Prompt: "是否批准基于以上证据生成最终报告？（approve / revise）",
			})
			if err != nil {
				return typed.Update[S]{}, err
			}
			switch reply.Action {
			case "approve":
				return typed.Write(s, typed.Set(&s.Approved, true)).Goto("synthesize"), nil
			case "revise":
				q := s.Question
				if reply.RevisedQuestion != "" {
					q = reply.RevisedQuestion
				}
				return typed.Write(s, typed.Set(&s.Approved, false), typed.Set(&s.Question, q)).Goto("plan_queries"), nil
			}
			return typed.Update[S]{}, fmt.Errorf(`human_review: answer {"action": "approve"} or {"action": "revise", "revised_question": "…"}, got %s`, engine.MustEncode(reply.raw))
		}, engine.WithEnds("synthesize", "plan_queries"), engine.WithDescription("asks a person to approve or revise")).
		AddNode("synthesize", func(_ context.Context, s *S) (typed.Update[S], error) {
			return typed.Write(s, typed.Set(&s.FinalReport, "综合报告：\n"+strings.Join(s.Findings, "\n"))), nil
		}).
		AddEdge(engine.Start, "plan_queries")
	typed.AddFanOut(g, "plan_queries", "investigate", func(_ context.Context, s *S) (args []subQuery, _ error) {
		for _, q := range s.SubQueries {
			args = append(args, subQuery{q})
		}
		return args, nil
	})
	return typed.Engine(g.AddEdge("investigate", "human_review").AddEdge("synthesize", engine.End).Compile(opts...))
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
