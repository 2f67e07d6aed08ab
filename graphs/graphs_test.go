package graphs_test

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
)

func TestAll_BuildAndRun(t *testing.T) {
	for _, ex := range graphs.All() {
		t.Run(ex.Name, func(t *testing.T) {
			g, err := ex.Build(engine.WithSaver(engine.NewMemorySaver()))
			if err != nil {
				t.Fatal(err)
			}
			res, err := g.Invoke(context.Background(), ex.Input, engine.OnThread("t"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != engine.StatusDone && res.Status != engine.StatusInterrupted {
				t.Fatalf("status %v", res.Status)
			}
		})
	}
}

func TestResearch_ReviseThenApprove(t *testing.T) {
	ctx := context.Background()
	g, err := graphs.Research(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(ctx, map[string]any{"question": "Q"}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusInterrupted || len(res.Interrupts) != 1 || res.Interrupts[0].Node != "human_review" {
		t.Fatalf("want one interrupt at human_review, got %+v", res)
	}
	if got := len(res.Values["findings"].([]any)); got != 3 {
		t.Fatalf("findings: got %d, want 3", got)
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: map[string]any{"action": "revise", "revised_question": "Q2"}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("revise: %v %+v", err, res)
	}
	if res.Values["question"] != "Q2" || len(res.Values["findings"].([]any)) != 6 {
		t.Fatalf("after revise: %v", res.Values)
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: map[string]any{"action": "approve"}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("approve: %v %+v", err, res)
	}
	if res.Values["final_report"] == nil || res.Values["approved"] != true {
		t.Fatalf("final state: %v", res.Values)
	}
}

func TestRegister_RejectsDuplicates(t *testing.T) {
	if err := graphs.Register(graphs.Example{Name: "linear", Build: graphs.Linear}); err == nil {
		t.Fatal("registering a taken name must fail")
	}
}
