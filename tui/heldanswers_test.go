package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// Two questions asked at once, one answered in the box: until the next
// step runs, the answer is the run's alone, not in the checkpoint. The
// tasks pane says which interrupt has an answer held and which still
// waits, where it said "nothing ran here yet"; the step then takes the
// answer and the other question is asked again.
func TestModel_AnswersHeldByID(t *testing.T) {
	ask := func(q string) engine.NodeFunc {
		return func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, q)
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{q + "=" + a.(string)}}, nil
		}
	}
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("p1", ask("p1")).AddNode("p2", ask("p2")).
		AddEdge(engine.Start, "p1").AddEdge(engine.Start, "p2").
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "two", Input: map[string]any{"log": []any{}}, Saver: saver, GraphName: "two"}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.ints) != 2 {
		t.Fatalf("mode %v with %d questions, want the answer box with two", m.mode, len(m.answer.ints))
	}
	answered := 1
	if m.answer.ints[1].Node != "p2" {
		answered = 0
	}
	if answered == 1 {
		m = press(t, m, "down")
	}
	m = press(t, m, "y", "e", "s", "enter")
	if m.err != nil || len(m.view.Answers) != 1 {
		t.Fatalf("after answering p2 alone: err %v, answers held %v", m.err, m.view.Answers)
	}
	v := m.View()
	for _, want := range []string{`answer "yes" for p2, held by this run`, "p1 still waits: no answer given", "n plans step 1, whose tasks take the answers"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the tasks pane does not say %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "nothing ran here yet") {
		t.Fatalf("the tasks pane says nothing is held:\n%s", v)
	}
	m = press(t, m, "esc", "c")
	if m.view.Status != engine.StatusInterrupted || len(m.view.Interrupts) != 1 || m.view.Interrupts[0].Node != "p1" {
		t.Fatalf("after the step: status %v interrupts %+v, want p1 asked again", m.view.Status, m.view.Interrupts)
	}
}

// Copies of one node keep the names the answer box gave them (q[1],
// q[2]): the checkpoint a resumed run stands at has not planned them
// again, and would name both q.
func TestModel_AnswersHeldByID_CopiesKeepTheirNames(t *testing.T) {
	g, saver := scenarioGraph(t, "send_two_interrupts.json")
	opts := Options{Thread: "s", Input: map[string]any{"out": []any{}}, Saver: saver, GraphName: "s"}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.ints) != 2 {
		t.Fatalf("mode %v with %d questions, want the answer box with two", m.mode, len(m.answer.ints))
	}
	m = press(t, m, "down", "y", "e", "s", "enter")
	v := m.View()
	for _, want := range []string{"q[1] still waits: no answer given", `answer "yes" for q[2], held by this run`} {
		if !strings.Contains(v, want) {
			t.Fatalf("the tasks pane does not say %q:\n%s", want, v)
		}
	}
}
