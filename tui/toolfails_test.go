package tui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// The bad-case workflow as a person walks it in the debugger: a model
// asks for a tool, the tool fails at step 2 (once), a human approves its
// result, and done logs the end. The person runs it to the failure, runs
// the step again, answers the interrupt, forks with an edited state and
// diffs. Each test here failed on the debugger before the fix it names.
const toolFails = `{"name": "toolfails",
 "state": {"question": null, "draft": null, "result": null, "approved": null, "log": "add"},
 "nodes": [
  {"name": "model", "update": {"draft": "'use search for ' + state.question", "log": "['model']"}},
  {"name": "tool", "fail": {"times": 1, "message": "tool timed out"}, "update": {"result": "'42 results'", "log": "['tool']"}},
  {"name": "approve", "interrupt": "'approve ' + state.result + '?'", "update": {"approved": "resume", "log": "['approve']"}},
  {"name": "done", "update": {"log": "['done']"}}
 ],
 "edges": [["__start__", "model"], ["model", "tool"], ["tool", "approve"], ["approve", "done"], ["done", "__end__"]],
 "ops": []}`

// toolFailsModel opens the graph on a new thread of a fresh MemorySaver.
func toolFailsModel(t *testing.T, w, h int) (Model, *engine.Graph) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g := buildScenario(t, parseScenario(t, "toolfails.json", toolFails), saver)
	opts := Options{Thread: "t1", Input: map[string]any{"question": "why?", "log": []any{}}, Saver: saver}
	return newTestModel(t, newEngineSession(g, opts), opts, w, h), g
}

// toolFailsAnswered walks the run to its end: to the failure at step 2,
// the step again, the approval answered "yes", and on to done.
func toolFailsAnswered(t *testing.T, w, h int) (Model, *engine.Graph) {
	t.Helper()
	m, g := toolFailsModel(t, w, h)
	m = press(t, m, "s", "s", "s")
	if m.view.Status != engine.StatusFailed || failedTask(m.view) == nil || failedTask(m.view).Name != "tool" {
		t.Fatalf("want tool failed at step 2, got status %v step %d:\n%s", m.view.Status, m.view.Step, m.View())
	}
	m = press(t, m, "s", "s")
	if m.mode != modeAnswer {
		t.Fatalf("want the approval asked, mode %v:\n%s", m.mode, m.View())
	}
	m = press(t, m, "yes", "enter", "c")
	if m.view.Status != engine.StatusDone || m.err != nil {
		t.Fatalf("want the run done, status %v err %v:\n%s", m.view.Status, m.err, m.View())
	}
	return m, g
}

// A diff shows what differs for the person: the state's channels and the
// nodes' versions_seen. The engine's bookkeeping — branch:to:… channels,
// the __interrupt__ entries a resumed run adds to versions_seen for every
// channel — is counted and hidden until i lists it after the rest; one
// channel that differs is "1 channel differs".
func TestModel_Diff_HidesInternalDifferences(t *testing.T) {
	m, _ := toolFailsAnswered(t, 120, 40)
	m = press(t, m, "p", "d") // the checkpoint approve wrote after the answer
	if m.mode != modeDiff || m.err != nil {
		t.Fatalf("mode %v err %v", m.mode, m.err)
	}
	v := m.View()
	for _, want := range []string{"approved  - → v", `+ value: "yes"`, "approve · branch:to:approve", "2 channels differ", "internal differences hidden: i shows them"} {
		if !strings.Contains(v, want) {
			t.Errorf("diff lacks %q:\n%s", want, v)
		}
	}
	for _, noise := range []string{"branch:to:done  ", engine.InterruptChannel} {
		if strings.Contains(v, noise) {
			t.Errorf("diff shows the internal %q before i:\n%s", noise, v)
		}
	}
	if !m.diff.keys.Internal.Enabled() || !strings.Contains(m.View(), "i show internal differences") {
		t.Errorf("i is not offered in the help:\n%s", m.View())
	}

	m = press(t, m, "i")
	v = m.View()
	user, internal := strings.Index(v, "approved  - → v"), strings.Index(v, "branch:to:done  ")
	if user < 0 || internal < 0 || internal < user || !strings.Contains(v, engine.InterruptChannel+" · ") {
		t.Fatalf("i should list the internal differences after the state's:\n%s", v)
	}
	if !m.chans.showInternal {
		t.Error("i in the diff is the main view's setting too")
	}
	m = press(t, m, "i")
	if strings.Contains(m.View(), "branch:to:done  ") {
		t.Fatalf("i again hides them:\n%s", m.View())
	}

	// A fork that edits one key: one channel differs.
	m = press(t, m, "esc", "f")
	state := stateJSON(t, m.fork.area.Value())
	state["result"] = "7 results"
	m.fork.area.SetValue(toJSON(state))
	m = press(t, m, "ctrl+s", "d")
	if v := m.View(); !strings.Contains(v, "1 channel differs,") || !strings.Contains(v, `~ value: "42 results" → "7 results"`) {
		t.Fatalf("the fork's diff:\n%s", v)
	}
}

// A checkpoint update_state wrote (a fork, an answer's state update)
// records no updated channels, as in LangGraph; the views mark what it
// changed all the same, from its channel versions against its parent's:
// the key edited in a fork has its * in the main view, in the tasks pane
// and in the tree, and the keys left alone have none.
func TestModel_Fork_MarksTheEditedKeys(t *testing.T) {
	m, g := toolFailsAnswered(t, 120, 40)
	m = press(t, m, "f")
	state := stateJSON(t, m.fork.area.Value())
	state["result"] = "7 results"
	m.fork.area.SetValue(toJSON(state))
	m = press(t, m, "ctrl+s")
	if m.err != nil || m.view.Source != engine.SourceUpdate {
		t.Fatalf("fork: err %v source %q", m.err, m.view.Source)
	}
	if cp := latest(t, g, "t1").Checkpoint; cp.UpdatedChannels != nil {
		t.Fatalf("the engine recorded updated channels for update_state: %v", cp.UpdatedChannels)
	}
	marked := func(where string, chans []engine.ChannelView) {
		t.Helper()
		for _, c := range chans {
			if c.Internal {
				continue
			}
			if want := c.Name == "result"; c.Updated != want {
				t.Errorf("%s: %s marked changed %v, want %v", where, c.Name, c.Updated, want)
			}
		}
	}
	marked("main view", m.view.Channels)
	if v := m.View(); !strings.Contains(v, "*result") || strings.Contains(v, "*draft") || !strings.Contains(v, `result = "7 results"`) {
		t.Errorf("the main view does not mark the edit:\n%s", v)
	}
	m = press(t, m, "t")
	if s := m.tree.selected(); s == nil || s.Config.CheckpointID != m.view.CheckpointID {
		t.Fatalf("the tree opens on another checkpoint")
	}
	marked("tree", viewFromSnapshot(m.info, m.tree.selected(), m.tree.selectedChanged()).Channels)
	if v := m.View(); !strings.Contains(v, "*result") {
		t.Errorf("the tree's channels do not mark the edit:\n%s", v)
	}
}

// What n does is what its help says, in every state the run can be in:
// a failed step (live, or a thread reopened at its failure, whose header
// says ERROR as well) is run again; a run waiting for an answer or done
// is not stepped, so n is not offered there.
func TestModel_Help_SaysWhatNDoesAfterAFailure(t *testing.T) {
	helpHere := func(m Model) string {
		t.Helper()
		m = press(t, m, "?")
		here := strings.Join(m.helpLines(m.width-2), "\n")
		here, _, _ = strings.Cut(here, "Keys elsewhere")
		return here
	}
	m, g := toolFailsModel(t, 120, 40)
	m = press(t, m, "s", "s", "s")
	// s and c run it again too, before they go on.
	retries := []string{"n retry failed step", "s retry, finish superstep", "c retry and continue"}
	if h := helpHere(m); !containsAll(h, retries...) {
		t.Fatalf("a live failure: help\n%s", h)
	}

	// The thread reopened at its failure.
	opts := Options{Thread: "t1", Saver: m.opts.Saver}
	m = newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	if label, _ := m.phaseLabel(); label != "ERROR" {
		t.Fatalf("reopened at the failure, the header says %q", label)
	}
	if h := helpHere(m); !containsAll(h, retries...) || strings.Contains(h, "n next phase") {
		t.Fatalf("reopened at the failure: help\n%s", h)
	}
	if f := m.help.ShortHelpView(m.footerKeys()); !strings.Contains(f, "n retry failed step") {
		t.Fatalf("reopened at the failure: footer %q", f)
	}

	// Waiting for the approval (answer box closed), then done.
	m = press(t, m, "n", "n", "n", "s")
	if m.mode != modeAnswer {
		t.Fatalf("want the approval asked, mode %v:\n%s", m.mode, m.View())
	}
	m = press(t, m, "esc")
	offersN := regexp.MustCompile(`(^|\s)n +\S`).MatchString
	if h := helpHere(m); offersN(h) || !strings.Contains(h, "r answer interrupt") {
		t.Fatalf("waiting for an answer: help\n%s", h)
	}
	m = press(t, m, "r", "yes", "enter", "c")
	if h := helpHere(m); m.view.Status != engine.StatusDone || offersN(h) {
		t.Fatalf("done (status %v): help\n%s", m.view.Status, h)
	}
}

// At 80 columns the header gives way whole parts, never a word cut in
// two ("bud…"): a long thread id pushes out the graph's name (the graph
// pane's title has it) before the budget.
func TestModel_Header_NarrowDropsWholeParts(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := buildScenario(t, parseScenario(t, "toolfails.json", toolFails), saver)
	opts := Options{Thread: "bad-case-from-production-42", Input: map[string]any{"question": "why?", "log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 80, 24)
	m = press(t, m, "s", "s", "s")
	head, _, _ := strings.Cut(m.View(), "\n")
	for _, want := range []string{"thread bad-case-from-production-42", "cp ", "step 2", "ERROR", "budget 24"} {
		if !strings.Contains(head, want) {
			t.Errorf("header lacks %q: %q", want, head)
		}
	}
	if strings.Contains(head, "…") || strings.Contains(head, "toolfails") {
		t.Errorf("header should drop the graph's name, not cut a part: %q", head)
	}
	checkFrame(t, m)
	// Narrower still, the thread's id gives up its middle, not the state.
	m = send(t, m, tea.WindowSizeMsg{Width: 50, Height: 14})
	head, _, _ = strings.Cut(m.View(), "\n")
	if !strings.Contains(head, "thread bad-case") || !strings.Contains(head, "-42 · ") || !strings.HasSuffix(strings.TrimRight(head, " "), "ERROR") {
		t.Errorf("header at 50 columns: %q", head)
	}
	checkFrame(t, m)
}

// At 80 columns the threads list keeps every column whole: its columns
// are as wide as the threads need, and UPDATED drops its year and seconds
// before anything is cut ("2026-12-…").
func TestModel_Threads_FitEightyColumns(t *testing.T) {
	list := []ThreadSummary{
		{ID: "bad-case-from-prod-42", Graph: "toolfails", Status: "interrupted", Step: 3, Source: "loop", Updated: fixedNow},
		{ID: "t1", Graph: "toolfails", Status: "done", Step: 12, Source: "update", Updated: fixedNow},
	}
	m := pickerOver(t, list, 80, 24)
	checkFrame(t, m)
	var rows []string
	for _, line := range strings.Split(m.View(), "\n") {
		if strings.Contains(line, "UPDATED") || strings.Contains(line, "toolfails ") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 3 {
		t.Fatalf("want the heading and two rows:\n%s", m.View())
	}
	for _, r := range rows {
		if strings.Contains(r, "…") {
			t.Errorf("a cell is cut: %q", r)
		}
	}
	for _, r := range rows[1:] {
		if !strings.Contains(r, "01-02 03:04") || !strings.Contains(r, "bad-case-from-prod-42") && !strings.Contains(r, "t1 ") {
			t.Errorf("row %q lacks its id or its time", r)
		}
	}
}

// At 50×14 every screen of the workflow fits the window: no line wider
// than it, none missing, no panic.
func TestModel_Workflow_SmallWindowFits(t *testing.T) {
	m, _ := toolFailsModel(t, 50, 14)
	screens := [][]string{{"s", "s", "s"}, {"?"}, {"esc", "d"}, {"i"}, {"esc", "t"}, {"esc", "T"}, {"esc", "s", "s"}, {"esc", "r"}, {"yes", "enter", "c", "f"}}
	for _, keys := range screens {
		m = press(t, m, keys...)
		checkFrame(t, m)
	}
}

// containsAll reports whether s holds every part.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
