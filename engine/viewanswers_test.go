package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestStepView_AnswersByID: a run resumed with answers by interrupt id
// holds them until the tasks that asked run again. Its view at the
// checkpoint names the answered interrupts, and only those; the one
// left unanswered goes on waiting. After the step, nothing is held, and a
// run started anew holds nothing (LangGraph keeps the map in the run's
// config, not in the checkpoint).
func TestStepView_AnswersByID(t *testing.T) {
	ctx := context.Background()
	ask := func(q string) engine.NodeFunc {
		return func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, q)
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{q + "=" + a.(string)}}, nil
		}
	}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("p1", ask("p1")).AddNode("p2", ask("p2")).
		AddEdge(engine.Start, "p1").AddEdge(engine.Start, "p2"))
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if err != nil || len(res.Interrupts) != 2 {
		t.Fatalf("want two pending interrupts, got %+v, %v", res, err)
	}
	byNode := map[string]string{}
	for _, in := range res.Interrupts {
		byNode[in.Node] = in.ID
	}

	st, err := g.Start(ctx, engine.Command{Resume: engine.ResumeMap{byNode["p2"]: "yes", "not-an-interrupt-here": "x"}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	v := st.View()
	if want := (engine.ResumeMap{byNode["p2"]: "yes"}); !reflect.DeepEqual(v.Answers, want) {
		t.Fatalf("held answers %v, want %v (interrupts %+v)", v.Answers, want, v.Interrupts)
	}
	if v.HasSavedAnswer {
		t.Error("answers by id taken for a plain saved answer")
	}
	if _, err := st.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if v := st.View(); len(v.Answers) != 0 || len(v.Interrupts) != 1 || v.Interrupts[0].Node != "p1" {
		t.Fatalf("after the step: answers %v, interrupts %+v; want none held and p1 waiting", v.Answers, v.Interrupts)
	}

	st, err = g.Start(ctx, nil, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if v := st.View(); len(v.Answers) != 0 {
		t.Fatalf("a run started anew holds answers %v", v.Answers)
	}
}
