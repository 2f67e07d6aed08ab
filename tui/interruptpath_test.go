package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A retried subgraph node runs its subgraph again in a fresh namespace
// ("<ns>|1"), which asks again: the answer box names the question by the
// run that asks it (child run 2 › ask), as stepping names that run on its
// breadcrumb, not by the first run, whose checkpoints hold no interrupt
// (it named the question "child", its path cut short).
func TestModel_AnswerBox_NamesRetriedSubgraphRun(t *testing.T) {
	m := substepModel(t, "../../../testdata/conformance/own/subgraph_retry_interrupt.json", map[string]any{"log": []any{}}, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || m.answer.where(0) != "child › ask" {
		t.Fatalf("mode %v, the first question named %q, want child › ask:\n%s", m.mode, m.answer.where(0), m.View())
	}
	// Plan, then Execute steps into child's first run, resumed from its
	// checkpoint.
	m = press(t, m, "yes", "enter", "n", "n")
	at(t, m, "child")
	m = stepToEnd(t, m)
	at(t, m, "child", "ERROR") // s2 fails: the node is retried
	m = press(t, m, "n")
	at(t, m, "child run 2", "INPUT checkpoint", "|1")
	m = stepToEnd(t, m)
	at(t, m, "child run 2", "INTERRUPTED")
	m = press(t, m, "n")
	if m.mode != modeAnswer || m.answer.where(0) != "child run 2 › ask" {
		t.Fatalf("mode %v, the retried run's question named %q, want child run 2 › ask:\n%s", m.mode, m.answer.where(0), m.View())
	}
	m = press(t, m, "again", "enter", "c")
	if m.err != nil || m.view.Status != engine.StatusDone {
		t.Fatalf("after the answer: %v %v %v", m.err, m.view.Status, m.view.Values)
	}
}

// A node that invokes its subgraph twice: the first run ends, the second
// asks. InterruptPaths names the question by the second run and the task
// in it that asks ("twice run 2 › ask"); it read the first run's
// checkpoints, found no interrupt there and stopped at "twice".
func TestEngineSession_InterruptPaths_SecondInvokeOfSubgraph(t *testing.T) {
	saver := engine.NewMemorySaver()
	sub, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, in any) (any, error) {
			if len(in.(map[string]any)["log"].([]any)) == 0 {
				return engine.Pairs("log", []any{"first"}), nil // the first run asks nothing
			}
			v, err := engine.Interrupt(ctx, "ok?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{"ask:" + fmt.Sprint(v)}), nil
		}).
		AddEdge(engine.Start, "ask").AddEdge("ask", engine.End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("twice", func(ctx context.Context, _ any) (any, error) {
			first, err := engine.InvokeSubgraph(ctx, sub, map[string]any{"log": []any{}})
			if err != nil {
				return nil, err
			}
			second, err := engine.InvokeSubgraph(ctx, sub, first)
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", second["log"]), nil
		}, engine.UsesSubgraph("sub", sub)).
		AddEdge(engine.Start, "twice").AddEdge("twice", engine.End).
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.ints) != 1 {
		t.Fatalf("mode %v with %d interrupts, want the answer box on 1:\n%s", m.mode, len(m.answer.ints), m.View())
	}
	if got := m.answer.where(0); got != "twice run 2 › ask" {
		t.Fatalf("the question is named %q, want twice run 2 › ask:\n%s", got, m.View())
	}
	if v := m.View(); !strings.Contains(v, "twice run 2 › ask is waiting") {
		t.Fatalf("the answer box does not name the second run:\n%s", v)
	}
	m = press(t, m, "yes", "enter", "c")
	if m.err != nil || m.view.Status != engine.StatusDone || fmt.Sprint(m.view.Values["log"]) != "[first ask:yes]" {
		t.Fatalf("after the answer: %v %v %v", m.err, m.view.Status, m.view.Values)
	}
}
