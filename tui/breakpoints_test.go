package tui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
)

// scenarioCompile is what the command line passes as Options.Compile.
func scenarioCompile(src string) (Condition, error) {
	e, err := scenario.Compile(src)
	if err != nil {
		return nil, err
	}
	return condFunc(func(state map[string]any) (any, bool, error) {
		v, err := e.Eval(scenario.Env{State: state})
		return v, scenario.Truthy(v), err
	}), nil
}

type condFunc func(map[string]any) (any, bool, error)

func (f condFunc) Eval(s map[string]any) (any, bool, error) { return f(s) }

// settingsSaver is a MemorySaver with the SettingsStore capability.
type settingsSaver struct {
	*engine.MemorySaver
	mu   sync.Mutex
	docs map[string][]byte
}

func (s *settingsSaver) Setting(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[key], nil
}

func (s *settingsSaver) PutSetting(_ context.Context, key string, doc []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[key] = doc
	return nil
}

// researchWith opens the research graph on saver with the expression
// language.
func researchWith(t testing.TB, saver engine.Saver, thread string, w, h int) Model {
	t.Helper()
	_, ex, _ := compile(t, "research")
	g, err := ex.Build(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: thread, Input: ex.Input, Saver: saver, Answers: ex.Answers, Compile: scenarioCompile, GraphName: "research"}
	return newTestModel(t, newEngineSession(g, opts), opts, w, h)
}

// The issue's own case: a conditional breakpoint on len(state.findings) >= 3
// in the research graph stops at the superstep where it first holds (the
// checkpoint of step 2, where the three investigate tasks appended), not
// one later.
func TestModel_ConditionalBreakpoint_StopsWhereItFirstHolds(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "C", "len(state.findings) >= 3", "enter")
	if m.mode != modeMain || len(m.bp.conds) != 1 {
		t.Fatalf("mode %v conds %d (%s)", m.mode, len(m.bp.conds), m.prompt.err)
	}
	m = press(t, m, "c")
	if m.view.Phase != engine.PhaseCheckpoint || m.view.CheckpointStep != 2 {
		t.Fatalf("stopped at checkpoint step %d phase %v, want the checkpoint of step 2", m.view.CheckpointStep, m.view.Phase)
	}
	if n := len(m.view.Values["findings"].([]any)); n != 3 {
		t.Fatalf("findings has %d items", n)
	}
	if !strings.Contains(m.View(), "len(state.findings) >= 3 became true") {
		t.Fatalf("no note:\n%s", m.View())
	}
	// c goes on; the condition stays true and does not stop again.
	m = press(t, m, "c")
	if m.view.Status != engine.StatusInterrupted {
		t.Fatalf("status %v, want the interrupt", m.view.Status)
	}
}

func TestModel_Prompt_BadExpressionStays(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 100, 30)
	m = press(t, m, "C", "len(state.findings >= ", "enter")
	if m.mode != modePrompt || m.prompt.err == "" {
		t.Fatalf("mode %v err %q", m.mode, m.prompt.err)
	}
	m = press(t, m, "esc")
	if m.mode != modeMain || len(m.bp.conds) != 0 {
		t.Fatalf("mode %v conds %d", m.mode, len(m.bp.conds))
	}
}

// Watches show their value and mark the ones that changed this superstep.
func TestModel_Watches_MarkChanges(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "W", "len(state.findings)", "enter", "W", "state.question", "enter")
	m = press(t, m, "s", "s", "s")
	v := m.View()
	if !strings.Contains(v, "*len(state.findings) = 3") || !strings.Contains(v, " state.question = ") {
		t.Fatalf("watches:\n%s", v)
	}
	checkFrame(t, m)
}

// b on a channel is a watchpoint: c stops when it changes.
func TestModel_Watchpoint_Channel(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "tab") // channels
	for cv, _ := m.chans.selected(); cv.Name != "sub_queries"; cv, _ = m.chans.selected() {
		m = press(t, m, "down")
	}
	m = press(t, m, "b", "c")
	if m.view.Phase != engine.PhaseCheckpoint || m.view.CheckpointStep != 1 || !strings.Contains(m.note, "watchpoint: sub_queries") {
		t.Fatalf("stopped at step %d phase %v note %q", m.view.CheckpointStep, m.view.Phase, m.note)
	}
}

// E stops after an Execute where a task errored, even when a retry made
// it succeed.
func TestModel_BreakOnError(t *testing.T) {
	saver := engine.NewMemorySaver()
	calls := 0
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("ok", func(context.Context, any) (any, error) { return engine.Pairs("x", 1.0), nil }).
		AddNode("flaky", func(context.Context, any) (any, error) {
			calls++
			if calls == 1 {
				return nil, errors.New("tool returned garbage")
			}
			return engine.Pairs("x", 2.0), nil
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2})).
		AddEdge(engine.Start, "ok").AddEdge("ok", "flaky").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "e", Input: map[string]any{"x": 0.0}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("without E the retried task does not stop the run: %v", m.view.Status)
	}
	calls = 0
	opts.Thread = "e2"
	m = newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	m = press(t, m, "E", "c")
	if m.view.Phase != engine.PhaseExecuted || !strings.Contains(m.note, "flaky failed and was retried (2 attempts): tool returned garbage") {
		t.Fatalf("phase %v note %q err %v", m.view.Phase, m.note, m.err)
	}
	// The tasks pane says why it was retried, under the task.
	if got := m.View(); !strings.Contains(got, "attempt 1 failed: tool returned garbage") {
		t.Fatalf("the first attempt's failure is not shown:\n%s", got)
	}
}

// Breakpoints and watches are saved per graph and back the next time the
// graph is opened; the list removes them.
func TestModel_Breakpoints_PersistPerGraph(t *testing.T) {
	saver := &settingsSaver{MemorySaver: engine.NewMemorySaver(), docs: map[string][]byte{}}
	m := researchWith(t, saver, "t1", 120, 40)
	m = press(t, m, "down", "b") // before plan_queries
	m = press(t, m, "C", "state.approved == true", "enter", "W", "len(state.findings)", "enter", "E")
	if _, ok := saver.docs["tui/graph/research"]; !ok {
		t.Fatalf("nothing saved: %v", saver.docs)
	}
	m2 := researchWith(t, saver, "t2", 120, 40)
	if !m2.bp.before["plan_queries"] || len(m2.bp.conds) != 1 || len(m2.watches) != 1 || !m2.bp.onError {
		t.Fatalf("not restored: %+v conds %d watches %d", m2.bp, len(m2.bp.conds), len(m2.watches))
	}
	m2 = press(t, m2, "L")
	if m2.mode != modeBreaks || len(m2.breakItems()) != 4 {
		t.Fatalf("mode %v items %d", m2.mode, len(m2.breakItems()))
	}
	m2 = press(t, m2, "x")
	if m2.bp.before["plan_queries"] {
		t.Fatal("x did not remove the first breakpoint")
	}
	m3 := researchWith(t, saver, "t3", 120, 40)
	if m3.bp.before["plan_queries"] {
		t.Fatal("the removal was not saved")
	}
}

func TestModel_Breakpoints_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := researchWith(t, engine.NewMemorySaver(), "t1", sz.w, sz.h)
			m = press(t, m, "C", "len(state.findings) >= 3", "enter", "W", "len(state.findings)", "enter", "c")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("watches-%dx%d.golden", sz.w, sz.h), m.View())
			m = press(t, m, "L")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("breakpoints-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// The title shown (header, graph pane, breadcrumb) and the key the
// settings are kept under are separate: a scenario file shows its short
// name while its settings stay under the key that finds the file again.
func TestModel_TitleAndSettingsKeyApart(t *testing.T) {
	saver := &settingsSaver{MemorySaver: engine.NewMemorySaver(), docs: map[string][]byte{}}
	_, ex, _ := compile(t, "research")
	g, err := ex.Build(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	const key = "/home/u/flows/research-flow.json"
	open := func(thread string) Model {
		opts := Options{Thread: thread, Input: ex.Input, Saver: saver, Compile: scenarioCompile, GraphName: "research-flow", SettingsKey: key}
		return newTestModel(t, newEngineSession(g, opts), opts, 160, 48)
	}
	m := open("t1")
	v := m.View()
	if !strings.Contains(v, "research-flow · thread t1") || !strings.Contains(v, "Graph · research-flow") || strings.Contains(v, "/home/u") {
		t.Fatalf("the header and graph title should show the short name, not the key:\n%s", v)
	}
	m = press(t, m, "W", "len(state.findings)", "enter")
	if _, ok := saver.docs["tui/graph/"+key]; !ok || len(saver.docs) != 1 {
		t.Fatalf("the watch should be saved under the settings key only: %v", slices.Collect(maps.Keys(saver.docs)))
	}
	if m2 := open("t2"); len(m2.watches) != 1 {
		t.Fatalf("the watch is not back under the same key: %d watches", len(m2.watches))
	}
}

// A stop reports only what happened at the checkpoint just reached: c from
// the checkpoint where a watched channel changed runs on, and the run that
// then ends there (nothing left to plan) does not report that change again.
func TestModel_Watchpoint_NotReportedTwice(t *testing.T) {
	m := engineModel(t, "mapreduce", 100, 30)
	m = press(t, m, "tab") // channels
	for cv, _ := m.chans.selected(); cv.Name != "summary"; cv, _ = m.chans.selected() {
		m = press(t, m, "down")
	}
	m = press(t, m, "b", "c")
	if !strings.Contains(m.note, "watchpoint: summary") || m.view.Status != engine.StatusRunning {
		t.Fatalf("first c: status %v note %q", m.view.Status, m.note)
	}
	at := m.view.CheckpointID
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("second c: status %v note %q", m.view.Status, m.note)
	}
	if m.view.CheckpointID != at || strings.Contains(m.note, "watchpoint") {
		t.Fatalf("second c ended at %s (was %s) saying %q: the change was reported at the stop before", m.view.CheckpointID, at, m.note)
	}
}

// A breakpoint before a node stops once for its task: after the stop the
// task interrupts, and the superstep resumed with the answer plans it
// again, where c stopped a second time "before human_review". Time travel
// back to the checkpoint stops there again.
func TestModel_BreakpointBefore_StopsOncePerTask(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	for m.graph.selected() != "human_review" {
		m = press(t, m, "down")
	}
	m = press(t, m, "b", "c")
	if m.note != "breakpoint: before human_review" {
		t.Fatalf("first c: %q", m.note)
	}
	at := m.view.CheckpointID
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("second c: mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, `{"action":"approve"}`, "enter", "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("c after the answer stopped at step %d phase %v: %q", m.view.Step, m.view.Phase, m.note)
	}
	m = press(t, m, "t")
	for m.tree.selected().Config.CheckpointID != at {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter", "c")
	if m.note != "breakpoint: before human_review" {
		t.Fatalf("c after time travel: %q", m.note)
	}
}

// A condition that cannot be evaluated (nil > 3, a string against a
// number) never holds: it is said when it is added, if it errors there,
// and else the first time a step reaches a checkpoint where it errors —
// c stops there once, as gdb does — naming it and the checkpoint.
func TestModel_ConditionalBreakpoint_SaysWhenItCannotBeEvaluated(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "C", "state.question > 3", "enter")
	if len(m.bp.conds) != 1 || !strings.Contains(m.note, "cannot be evaluated at checkpoint "+shortID(m.view.CheckpointID)) {
		t.Fatalf("adding a condition that errors here says %q", m.note)
	}
	m = press(t, m, "c") // said once: c runs on to the interrupt
	if m.view.Status != engine.StatusInterrupted {
		t.Fatalf("status %v, want the interrupt", m.view.Status)
	}

	m = researchWith(t, engine.NewMemorySaver(), "t2", 120, 40)
	m = press(t, m, "C", "len(state.findings) > 0 && state.nosuch > 3", "enter")
	if strings.Contains(m.note, "cannot be evaluated") {
		t.Fatalf("the condition evaluates at the input checkpoint, yet: %q", m.note)
	}
	m = press(t, m, "c")
	if m.view.Phase != engine.PhaseCheckpoint || m.view.CheckpointStep != 2 {
		t.Fatalf("stopped at checkpoint step %d phase %v status %v, want the checkpoint of step 2", m.view.CheckpointStep, m.view.Phase, m.view.Status)
	}
	want := "breakpoint len(state.findings) > 0 && state.nosuch > 3 cannot be evaluated at checkpoint " + shortID(m.view.CheckpointID)
	if !strings.Contains(m.note, want) {
		t.Fatalf("note %q lacks %q", m.note, want)
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusInterrupted {
		t.Fatalf("c stopped again for the same error: %q", m.note)
	}
	// Stepping with n says it too, once per breakpoint.
	m = researchWith(t, engine.NewMemorySaver(), "t3", 120, 40)
	m = press(t, m, "C", "len(state.findings) > 0 && state.nosuch > 3", "enter", "s", "s")
	if strings.Contains(m.note, "cannot be evaluated") {
		t.Fatalf("said before it errs: %q", m.note)
	}
	m = press(t, m, "s")
	if !strings.Contains(m.note, "cannot be evaluated at checkpoint "+shortID(m.view.CheckpointID)) {
		t.Fatalf("s to the checkpoint where it errs says %q", m.note)
	}
}

// A watch's * compares its value with the checkpoint's parent, as the
// channels pane does, not with whatever checkpoint was shown before: after
// time travel back from where findings filled, the parent's checkpoint is
// unchanged from its own parent.
func TestModel_Watches_MarkComparesWithParent(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "W", "len(state.findings)", "enter", "s", "s", "s")
	if v := m.View(); !strings.Contains(v, "*len(state.findings) = 3") {
		t.Fatalf("at the checkpoint that filled findings:\n%s", v)
	}
	m = press(t, m, "p")
	v := m.View()
	if !strings.Contains(v, " len(state.findings) = 0") || strings.Contains(v, "*len(state.findings)") {
		t.Fatalf("at its parent, where findings did not change:\n%s", v)
	}
	checkFrame(t, m)
}
