package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
)

// nestedModel runs nested_subgraph.json (pre → mid{m1 → deep{b1}} → post)
// in the debugger until b1's interrupt stops it, closes the answer box and
// focuses the tasks pane, on mid's task.
func nestedModel(t *testing.T, w, h int) (Model, *engine.MemorySaver) {
	t.Helper()
	g, saver := nestedGraph(t)
	opts := Options{Thread: "nested", Input: map[string]any{"out": []any{}}, Saver: saver, GraphName: "nested"}
	m := newTestModel(t, newEngineSession(g, opts), opts, w, h)
	m = press(t, m, "c", "esc")
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	if r, ok := m.tasks.selected(); !ok || r.node != "mid" || !r.header {
		t.Fatalf("tasks pane cursor on %+v, want mid's task", r)
	}
	return m, saver
}

// enter on a subgraph task opens its namespace read-only from the saver:
// its checkpoints, state, versions, versions_seen and interrupts, with a
// breadcrumb; enter on its own subgraph task goes deeper and esc comes
// back out one level at a time. Nothing is written.
func TestModel_Subgraph_EnterAndBack(t *testing.T) {
	m, saver := nestedModel(t, 120, 40)
	before := countCheckpoints(t, saver)
	m = press(t, m, "enter")
	if m.mode != modeSubgraph || m.err != nil {
		t.Fatalf("mode %v err %v", m.mode, m.err)
	}
	v := m.View()
	for _, want := range []string{"nested › mid  read only · namespace mid:", "Checkpoints · 3", "step 1   loop   interrupted", "out = [\"pre\", \"m1\"]", "branch:to:deep v3", "m1: branch:to:m1 v2", "deep  ⤷ enter: its subgraph", "△ interrupt (waiting) \"n=2\""} {
		if !strings.Contains(v, want) {
			t.Fatalf("subgraph view lacks %q:\n%s", want, v)
		}
	}
	// The checkpoint list selects which checkpoint the details show.
	m = press(t, m, "down", "down")
	if v := m.View(); !strings.Contains(v, "step -1 · input") || strings.Contains(v, "next tasks\n") {
		t.Fatalf("details do not follow the selected checkpoint:\n%s", v)
	}
	m = press(t, m, "up", "up", "tab", "pgdown", "up", "enter")
	v = m.View()
	for _, want := range []string{"nested › mid › deep  read only · namespace mid:", "|deep:", "Checkpoints · 2", "b1", "△ interrupt (waiting) \"n=2\""} {
		if !strings.Contains(v, want) {
			t.Fatalf("nested subgraph view lacks %q:\n%s", want, v)
		}
	}
	m = press(t, m, "esc")
	if m.mode != modeSubgraph || !strings.Contains(m.View(), "nested › mid  read only") {
		t.Fatalf("esc should come back to mid:\n%s", m.View())
	}
	m = press(t, m, "esc")
	if m.mode != modeMain {
		t.Fatalf("esc at the top level: mode %v", m.mode)
	}
	if n := countCheckpoints(t, saver); n != before {
		t.Fatalf("browsing wrote checkpoints: %d, was %d", n, before)
	}
	// The interrupt is still answered from the parent, where it was
	// raised; at the checkpoint mid's step wrote, its finished run is
	// browsable from the tasks pane.
	m = press(t, m, "r", "ok", "enter", "s")
	if m.err != nil || m.view.Phase != engine.PhaseCheckpoint {
		t.Fatalf("after the answer: phase %v err %v", m.view.Phase, m.err)
	}
	for i := 0; i < 10 && !strings.HasPrefix(m.tasks.rows[m.tasks.nav.cur].text, "⤷ mid"); i++ {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	v = m.View()
	for _, want := range []string{"nested › mid  read only", "step 2   loop   done", `"m1", "b1:ok"]`, "n = 20"} {
		if !strings.Contains(v, want) {
			t.Fatalf("finished subgraph view lacks %q:\n%s", want, v)
		}
	}
}

func countCheckpoints(t *testing.T, s *engine.MemorySaver) int {
	t.Helper()
	ts, err := s.List(t.Context(), engine.Config{ThreadID: "nested"}, engine.ListOptions{AllNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(ts)
}

func TestModel_Subgraph_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, _ := nestedModel(t, sz.w, sz.h)
			m = press(t, m, "enter", "tab", "pgdown", "up", "enter")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("subgraph-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// A click on a checkpoint selects it; a click on the right focuses the
// details.
func TestModel_Subgraph_Mouse(t *testing.T) {
	m, _ := nestedModel(t, 120, 40)
	m = press(t, m, "enter")
	// Body row 0 is the breadcrumb, row 1 the box border, row 2 the
	// newest checkpoint: the third is two rows further.
	m = send(t, m, tea.MouseMsg{X: 5, Y: bodyTop + 4, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if m.sub.cps.cur != 2 || !strings.Contains(m.View(), "step -1 · input") {
		t.Fatalf("click selected checkpoint %d:\n%s", m.sub.cps.cur, m.View())
	}
	m = send(t, m, tea.MouseMsg{X: 80, Y: bodyTop + 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if !m.sub.detail || m.sub.nav.cur != 1 {
		t.Fatalf("click on the details: detail %v row %d", m.sub.detail, m.sub.nav.cur)
	}
}

// Send copies of a subgraph node are named node[i] in the tasks pane and
// in the breadcrumb of the run the row opens, in task order; a namespace
// with no checkpoints says so.
func TestModel_Subgraph_CopiesNamedByIndex(t *testing.T) {
	info := fakeInfo()
	info.Nodes[1].Subgraph = true // b
	view := &engine.StepView{
		Thread: "f", Step: 1, Phase: engine.PhasePlanned, Status: engine.StatusRunning, CheckpointID: "cp",
		Tasks: []engine.TaskView{
			{ID: "t1", Name: "b", Push: true, Input: 1.0},
			{ID: "t2", Name: "b", Push: true, Input: 2.0},
			{ID: "t3", Name: "a", Triggers: []string{"branch:to:a"}},
		},
	}
	f := &fakeSession{info: info, view: view}
	m := newTestModel(t, f, Options{Thread: "f"}, 100, 30)
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	if v := m.View(); !containsLine(v, "b[1] ← Send  ⤷") || !containsLine(v, "b[2] ← Send  ⤷") || containsLine(v, "a ← branch:to:a  ⤷") {
		t.Fatalf("subgraph tasks not marked ⤷ (and only they):\n%s", v)
	}
	m = press(t, m, "down", "enter")
	v := m.View()
	if m.mode != modeSubgraph || !strings.Contains(v, "fake › b[2]  read only") || !strings.Contains(v, "no checkpoints in this namespace") {
		t.Fatalf("mode %v:\n%s", m.mode, v)
	}
}

// A stateful subgraph (engine.AsStatefulSubgraph) keeps one namespace,
// the node's name without a task id, for all its runs: entering its task
// reads that one, and it holds the runs of earlier tasks too.
func TestModel_Subgraph_Stateful(t *testing.T) {
	g, saver := scenarioGraph(t, "subgraph_stateful.json")
	opts := Options{Thread: "st", Input: map[string]any{"myKey": ""}, Saver: saver, GraphName: "stateful"}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "s", "s", "s") // inner ran twice
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for i := 0; i < 10 && !strings.HasPrefix(m.tasks.rows[m.tasks.nav.cur].text, "⤷ inner"); i++ {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	v := m.View()
	if m.mode != modeSubgraph || !containsLine(v, "stateful › inner  read only · namespace inner ") {
		t.Fatalf("mode %v err %v:\n%s", m.mode, m.err, v)
	}
	if !strings.Contains(v, "got here and there got here and there") {
		t.Fatalf("the stateful namespace should hold both runs' state:\n%s", v)
	}
}

// Inside a subgraph's namespace: d diffs a checkpoint with its parent there
// (or with the one marked by m) with the diff engine of the main view; r
// answers the interrupt where it was raised, resuming the run by id; enter
// on a checkpoint makes current the run's checkpoint it was written under.
func TestModel_Subgraph_DiffAnswerTimeTravel(t *testing.T) {
	m, saver := nestedModel(t, 120, 40)
	m = press(t, m, "enter") // mid's namespace, newest checkpoint selected
	if !m.sub.keys.Diff.Enabled() || m.sub.keys.Answer.Enabled() {
		t.Fatalf("in mid: diff %v, answer %v (b1's interrupt is raised deeper)", m.sub.keys.Diff.Enabled(), m.sub.keys.Answer.Enabled())
	}
	m = press(t, m, "d")
	if m.mode != modeDiff || !strings.Contains(m.diff.title, "nested › mid · parent ") {
		t.Fatalf("mode %v diff %q", m.mode, m.diff.title)
	}
	if v := m.View(); !strings.Contains(v, "out") {
		t.Fatalf("diff lacks the out channel:\n%s", v)
	}
	m = press(t, m, "esc")
	// Mark the input checkpoint, diff the newest with it.
	m = press(t, m, "down", "down", "m", "up", "up", "d")
	if m.mode != modeDiff || !strings.Contains(m.diff.title, "marked ") {
		t.Fatalf("mode %v diff %q", m.mode, m.diff.title)
	}
	m = press(t, m, "esc", "tab", "pgdown", "up", "enter") // into deep
	if n := len(m.subgraphInterrupts()); n != 1 || !m.sub.keys.Answer.Enabled() {
		t.Fatalf("deep: %d interrupts raised here, answer key %v", n, m.sub.keys.Answer.Enabled())
	}
	m = press(t, m, "r")
	if m.mode != modeAnswer || !strings.Contains(m.View(), "nested › mid › deep") || !strings.Contains(m.View(), "Interrupts raised here") {
		t.Fatalf("answer box in the subgraph:\n%s", m.View())
	}
	m = press(t, m, "esc")
	if m.mode != modeSubgraph {
		t.Fatalf("esc should return to the subgraph view, mode %v", m.mode)
	}
	m = press(t, m, "r", "ok", "enter")
	if m.err != nil || m.mode != modeMain || m.view.Status == engine.StatusInterrupted {
		t.Fatalf("after answering in deep: mode %v status %v err %v", m.mode, m.view.Status, m.err)
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone || !strings.Contains(fmt.Sprint(m.view.Values["out"]), "b1:ok") {
		t.Fatalf("the run should finish with b1's answer: %v %v", m.view.Status, m.view.Values["out"])
	}
	// Time travel from a subgraph checkpoint: the run's checkpoint it was
	// written under becomes current, nothing is written.
	m, saver = nestedModel(t, 120, 40)
	before := countCheckpoints(t, saver)
	m = press(t, m, "enter", "down")
	snap := m.sub.selectedSnap()
	parent := snap.Metadata.Parents[""]
	if parent == "" {
		t.Fatalf("subgraph checkpoint %s names no parent checkpoint: %+v", snap.Config.CheckpointID, snap.Metadata)
	}
	m = press(t, m, "enter")
	// That checkpoint holds b1's interrupt (mid's task stopped there), so
	// the answer box opens on it, as for any interrupted checkpoint.
	if m.mode != modeAnswer || m.view.CheckpointID != parent || m.err != nil {
		t.Fatalf("mode %v cp %s (want %s) note %q err %v", m.mode, m.view.CheckpointID, parent, m.note, m.err)
	}
	if n := countCheckpoints(t, saver); n != before {
		t.Fatalf("time travel wrote %d checkpoints", n-before)
	}
}

func TestModel_Subgraph_AnswerGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, _ := nestedModel(t, sz.w, sz.h)
			m = press(t, m, "enter", "tab", "pgdown", "up", "enter", "r", "ok")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("subgraph-answer-%dx%d.golden", sz.w, sz.h), m.View())
			m = press(t, m, "esc", "esc", "d")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("subgraph-diff-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// nestedGraph builds nested_subgraph.json: pre → mid{m1 → deep{b1}} → post.
func nestedGraph(t testing.TB) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	return scenarioGraph(t, "nested_subgraph.json")
}

// scenarioGraph builds one of the repository's own scenarios on a fresh
// MemorySaver with counter ids and a fixed clock.
func scenarioGraph(t testing.TB, name string) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	f, err := scenario.Load("../testdata/conformance/own/" + name)
	if err != nil {
		t.Fatal(err)
	}
	saver := engine.NewMemorySaver()
	g := buildScenario(t, f, saver)
	return g, saver
}

// After time travel to a checkpoint a subgraph task's step wrote, that
// task can be entered too (the tasks that wrote a checkpoint are read
// from its parent).
func TestModel_Subgraph_EnterAfterTimeTravel(t *testing.T) {
	m, _ := nestedModel(t, 120, 40)
	m = press(t, m, "r", "ok", "enter", "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
	m = press(t, m, "p") // the checkpoint mid's step wrote
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for i := 0; i < len(m.tasks.rows) && !strings.HasPrefix(m.tasks.rows[m.tasks.nav.cur].text, "⤷ mid"); i++ {
		m = press(t, m, "down")
	}
	if !strings.HasPrefix(m.tasks.rows[m.tasks.nav.cur].text, "⤷ mid") {
		t.Fatalf("no ⤷ mid row after time travel:\n%s", m.View())
	}
	m = press(t, m, "enter")
	if m.mode != modeSubgraph || !strings.Contains(m.View(), "nested › mid") {
		t.Fatalf("mode %v err %v\n%s", m.mode, m.err, m.View())
	}
}

// A retried subgraph node runs its subgraph again from its input in a
// fresh namespace ("<ns>|1"). enter on the task opened only the first,
// failed run, whose checkpoints end in the error, while the task's writes
// came from the second: now both runs are listed, the last first, each
// checkpoint saying which run it belongs to.
func TestModel_Subgraph_RetriedRuns(t *testing.T) {
	g, saver := scenarioGraph(t, "subgraph_retry.json")
	opts := Options{Thread: "r", Input: map[string]any{"log": []any{}}, Saver: saver, GraphName: "retry"}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "n", "n", "n", "n", "n") // step 1 executed: child ran twice
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	m = press(t, m, "enter")
	v := m.View()
	if m.mode != modeSubgraph || m.err != nil {
		t.Fatalf("mode %v err %v\n%s", m.mode, m.err, v)
	}
	for _, want := range []string{"read only · run 2 of 2 · namespace", "Checkpoints · 7", "run 2  step 2   loop   done", "namespace child:b468b256-0c94-684d-f9d0-15238e2e9ffe|1", `log = ["s1", "s2"]`, "run 1  step 1   loop   error"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the retried subgraph's view lacks %q:\n%s", want, v)
		}
	}
	checkFrame(t, m)
	// At 80 columns the run still shows, in the list and the header, with
	// the status (the source gives way first).
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View(); !strings.Contains(v, "run 1  step 1   error") || !strings.Contains(v, "run 2 of 2") {
		t.Fatalf("at 80 columns the runs are cut off:\n%s", v)
	}
}

// A checkpoint of the namespace whose next task failed says so, with the
// error: it read "error" and listed the task as if it were still to run.
func TestModel_Subgraph_FailedTaskShowsItsError(t *testing.T) {
	g, saver := scenarioGraph(t, "subgraph_retry.json")
	opts := Options{Thread: "r", Input: map[string]any{"log": []any{}}, Saver: saver, GraphName: "retry"}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "n", "n", "n", "n", "n")
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	m = press(t, m, "enter")
	for s := m.sub.selectedSnap(); s != nil && fmt.Sprint(s.Status()) != "error"; s = m.sub.selectedSnap() {
		m = press(t, m, "down")
	}
	if v := m.View(); !strings.Contains(v, "✗ failed: ") || !strings.Contains(v, "flaky") {
		t.Fatalf("the failed task's error is not shown:\n%s", v)
	}
	// enter on it reads the error as text, as the root's tasks pane
	// does: it showed a JSON string.
	m = press(t, m, "tab")
	for r, ok := m.sub.selectedRow(); !ok || !strings.HasSuffix(r.name, " error"); r, ok = m.sub.selectedRow() {
		if m.sub.nav.cur == len(m.sub.rows)-1 {
			t.Fatalf("no error row:\n%s", m.View())
		}
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if got := strings.Join(m.insp.lines, "\n"); m.mode != modeInspect || strings.HasPrefix(got, `"`) || !strings.Contains(got, "flaky") {
		t.Fatalf("mode %v, the inspector shows %q", m.mode, got)
	}
}

// A subgraph's checkpoint shows what its finished tasks saved: at subb's
// question, its sibling note has finished and saved log ← ["note:b"],
// which the subgraph applies when it goes on. The view said only
// "note (finished)": the write was nowhere on screen.
func TestModel_Subgraph_ShowsSavedWrites(t *testing.T) {
	g, saver := scenarioGraph(t, "stream_sends_sub_interrupt.json")
	opts := Options{Thread: "s", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c", "esc")
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for i := 0; i < 10; i++ {
		if r, ok := m.tasks.selected(); ok && r.node == "subb" && r.header {
			break
		}
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if m.mode != modeSubgraph {
		t.Fatalf("mode %v err %v", m.mode, m.err)
	}
	v := m.View()
	for _, want := range []string{"note  (finished)", `log ← ["note:b"]`, `△ interrupt (waiting) "ok b?"`} {
		if !strings.Contains(v, want) {
			t.Fatalf("subgraph view lacks %q:\n%s", want, v)
		}
	}
}

// A namespace's tasks show the answers they were resumed with: p1's,
// which it finished with, and p2's first, before the question it asks
// next; they were not shown anywhere on screen.
func TestModel_Subgraph_ShowsTheAnswersGiven(t *testing.T) {
	g, saver := scenarioGraph(t, "sub_parallel_interrupts_plain.json")
	opts := Options{Thread: "sp", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.ints) != 3 {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "R1", "down", "P1", "down", "P2a", "enter", "c", "esc")
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for r, ok := m.tasks.selected(); !ok || r.node != "sub" || !r.header; r, ok = m.tasks.selected() {
		if m.tasks.nav.cur == len(m.tasks.rows)-1 {
			t.Fatalf("no sub task row:\n%s", m.View())
		}
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	v := m.View()
	for _, want := range []string{`✓ answer 1: "P1"`, `✓ answer 1: "P2a"`, `△ interrupt (waiting) "p2b?"`} {
		if !strings.Contains(v, want) {
			t.Fatalf("the namespace lacks %q:\n%s", want, v)
		}
	}
}
