package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// reopenedResearch runs research to its interrupt outside the debugger
// (superstep run), then opens the debugger on that thread.
func reopenedResearch(t *testing.T, w, h int) (Model, *engine.Graph) {
	t.Helper()
	g, ex, saver := compile(t, "research")
	if _, err := g.Invoke(context.Background(), ex.Input, engine.OnThread("t1")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t1", Saver: saver, Answers: ex.Answers}
	m := newTestModel(t, newEngineSession(g, opts), opts, w, h)
	if m.view == nil || m.view.Status != engine.StatusInterrupted {
		t.Fatalf("reopened thread: view %v err %v", m.view, m.err)
	}
	return m, g
}

// selectTask focuses the tasks pane on node's row.
func selectTask(t *testing.T, m Model, node string) Model {
	t.Helper()
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for r, ok := m.tasks.selected(); !ok || r.node != node || !r.header; r, ok = m.tasks.selected() {
		if m.tasks.nav.cur == len(m.tasks.rows)-1 {
			t.Fatalf("no %s task row:\n%s", node, m.View())
		}
		m = press(t, m, "down")
	}
	return m
}

// A thread interrupted earlier and reopened shows what its waiting task
// reads, as the live run showed it: the state at the checkpoint. The
// engine's snapshot carried the input of Send tasks only, and the
// inspector showed null.
func TestModel_Reopened_TaskInputIsTheState(t *testing.T) {
	m, g := reopenedResearch(t, 120, 40)
	m = press(t, m, "esc")
	m = selectTask(t, m, "human_review")
	m = press(t, m, "enter")
	if m.mode != modeInspect || !strings.Contains(m.insp.title, "human_review input") {
		t.Fatalf("mode %v inspector %q", m.mode, m.insp.title)
	}
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Join(m.insp.lines, "\n")
	if body == "null" || !strings.Contains(body, `"question": "`+snap.Values["question"].(string)+`"`) {
		t.Fatalf("human_review's input:\n%s", body)
	}
}

// stepOf is the header's step label.
func stepOf(t *testing.T, m Model) string {
	t.Helper()
	for _, part := range strings.Split(viewHeaderOf(m), " · ") {
		if strings.HasPrefix(part, "step ") {
			return part
		}
	}
	t.Fatalf("no step in the header: %s", viewHeaderOf(m))
	return ""
}

// The checkpoint a run stopped at for an answer reads the same in the
// header whether the run stopped there live, was reopened there, or was
// travelled back to: live it said "step 3", the others "step 2 → 3".
func TestModel_InterruptedCheckpoint_SameStepEverywhere(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c")
	live, cp := stepOf(t, m), m.view.CheckpointID
	m = press(t, m, "esc", "t", "enter")
	if m.view.CheckpointID != cp {
		t.Fatalf("time travel to %s, want %s", m.view.CheckpointID, cp)
	}
	travelled := stepOf(t, m)
	reopened, _ := reopenedResearch(t, 120, 40)
	if live != "step 2 → 3" || travelled != live || stepOf(t, reopened) != live {
		t.Fatalf("live %q, time travel %q, reopened %q: want step 2 → 3 for each", live, travelled, stepOf(t, reopened))
	}
}

// A root task's answers show in the main tasks pane, as a subgraph
// namespace's list them (one owner of the rows, taskAnswerRows): a node
// that asks twice, answered once, waits on its second question with its
// first answer under it, live and reopened; an answered task that
// finished shows its answer under its writes.
func TestModel_Tasks_ShowRootAnswers(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			first, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			second, err := engine.Interrupt(ctx, "second?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{first, second}), nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "a", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 36)
	m = press(t, m, "c", "one", "enter")
	m = press(t, m, "c")
	if m.mode != modeAnswer || !strings.Contains(m.View(), `"second?"`) {
		t.Fatalf("the second question: mode %v\n%s", m.mode, m.View())
	}
	m = press(t, m, "esc")
	if !containsLine(m.View(), `✓ answer 1: "one"`) {
		t.Fatalf("live: the first answer is not under ask:\n%s", m.View())
	}
	reopened := newTestModel(t, newEngineSession(g, Options{Thread: "a", Saver: saver}), Options{Thread: "a", Saver: saver}, 120, 36)
	reopened = press(t, reopened, "esc")
	if !containsLine(reopened.View(), `✓ answer 1: "one"`) {
		t.Fatalf("reopened: the first answer is not under ask:\n%s", reopened.View())
	}
	m = press(t, m, "r", "two", "enter")
	m = press(t, m, "n")
	m = press(t, m, "n")
	v := m.View()
	if !containsLine(v, `✓ answer 1: "one"`) || !containsLine(v, `✓ answer 2: "two"`) || !containsLine(v, `log ← ["one", "two"]`) {
		t.Fatalf("the finished task's answers:\n%s", v)
	}
}

// tasksRows is the tasks pane's rows as text.
func tasksRows(m Model) string {
	var b strings.Builder
	for _, r := range m.tasks.rows {
		b.WriteString(r.text + "\n")
	}
	return b.String()
}

// An answer sent and not yet run (the run is left right after r, or the
// thread is reopened then) is said in the tasks pane with its value: the
// checkpoint read "nothing ran here yet", and nothing on screen showed
// that the next step would take an answer. Once the task took it, the
// line is gone.
func TestModel_SavedAnswerNotYetTaken(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "t1", Input: ex.Input, Saver: saver, Answers: ex.Answers}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, `{"action":"approve"}`, "enter")
	const want = `answer {action: "approve"} saved, not taken yet: n plans step 3`
	if rows := tasksRows(m); !strings.Contains(rows, want) {
		t.Fatalf("answered, not run: tasks pane\n%s\nwant %q", rows, want)
	}
	reopenOpts := Options{Thread: "t1", Saver: saver, Answers: ex.Answers}
	r := newTestModel(t, newEngineSession(g, reopenOpts), reopenOpts, 120, 40)
	if rows := tasksRows(r); !strings.Contains(rows, want) {
		t.Fatalf("reopened: tasks pane\n%s\nwant %q", rows, want)
	}
	r = press(t, r, "s")
	if rows := tasksRows(r); strings.Contains(rows, "saved, not taken yet") || r.view.Status == engine.StatusInterrupted {
		t.Fatalf("after the step: status %v, tasks pane\n%s", r.view.Status, rows)
	}
}
