package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

func TestModel_View_Golden(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"input", nil},
		{"plan", []string{"n", "n", "n", "n"}},
		{"execute", []string{"n", "n", "n", "n", "n", "n", "n", "n"}},
		{"update", []string{"s", "s", "s"}},
		{"interrupt", []string{"c", "{", "\"", "a"}},
		{"interrupt-invalid", []string{"c", "{", "x", "enter"}},
		{"tree", []string{"c", "esc", "t", "down"}},
		{"inspect", []string{"s", "s", "s", "tab", "down", "down", "enter"}},
		{"help", []string{"?"}},
	}
	for _, c := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				m := engineModel(t, "research", sz.w, sz.h)
				m = press(t, m, c.keys...)
				checkFrame(t, m)
				golden(t, fmt.Sprintf("%s-%dx%d.golden", c.name, sz.w, sz.h), m.View())
			})
		}
	}
}

func TestModel_Phases_Research(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	want := []struct {
		phase engine.Phase
		label string
	}{
		{engine.PhasePlanned, "PLAN done"},
		{engine.PhaseExecuted, "EXECUTE done"},
		{engine.PhaseCheckpoint, "UPDATE done"},
	}
	for _, w := range want {
		m = press(t, m, "n")
		if m.view.Phase != w.phase {
			t.Fatalf("phase %v, want %v", m.view.Phase, w.phase)
		}
		if !strings.Contains(m.View(), w.label) {
			t.Fatalf("header lacks %q:\n%s", w.label, m.View())
		}
	}
	// Step 1 plans plan_queries; the Send fan-out shows as ×3 after step 2's plan.
	m = press(t, m, "s", "n")
	if !strings.Contains(m.View(), "investigate ×3") {
		t.Fatalf("Send tasks not counted:\n%s", m.View())
	}
}

func TestModel_Interrupt_AnswerResumesToFinalReport(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer || m.view.Status != engine.StatusInterrupted {
		t.Fatalf("want the answer box open at the interrupt, mode %v status %v", m.mode, m.view.Status)
	}
	m = press(t, m, `{"action":"approve"}`, "enter")
	if m.mode != modeMain || m.err != nil {
		t.Fatalf("resume: mode %v err %v", m.mode, m.err)
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v, want done (err %v)", m.view.Status, m.err)
	}
	if m.view.Values["final_report"] == nil {
		t.Fatalf("no final_report: %v", m.view.Values)
	}
	if !strings.Contains(m.View(), "final_report") || !strings.Contains(m.View(), "DONE") {
		t.Fatalf("final screen:\n%s", m.View())
	}
}

func TestModel_Interrupt_InvalidJSONSendsNothing(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c", `{"action":`, "enter")
	if m.mode != modeAnswer || m.answer.err == "" {
		t.Fatalf("want an error in the answer box, mode %v err %q", m.mode, m.answer.err)
	}
	if m.view.Status != engine.StatusInterrupted {
		t.Fatalf("something was sent: status %v", m.view.Status)
	}
	// esc closes, r reopens.
	m = press(t, m, "esc")
	if m.mode != modeMain {
		t.Fatal("esc did not close the answer box")
	}
	m = press(t, m, "r")
	if m.mode != modeAnswer {
		t.Fatal("r did not reopen the answer box")
	}
}

func TestModel_Interrupt_PlainTextIsAString(t *testing.T) {
	for in, want := range map[string]any{`approve`: "approve", `{"a":1}`: map[string]any{"a": 1.0}, `3`: 3.0, `"x"`: "x"} {
		got, err := parseAnswer(in)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("parseAnswer(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", `{"a":`, `[1,`} {
		if _, err := parseAnswer(bad); err == nil {
			t.Errorf("parseAnswer(%q) accepted", bad)
		}
	}
}

func TestModel_Breakpoints_ContinueStops(t *testing.T) {
	m := engineModel(t, "essay", 120, 40)
	// Select review in the graph pane and break before it.
	for i, n := range m.graph.nodes {
		if n == "review" {
			m.graph.nav.cur = i
		}
	}
	m = press(t, m, "b")
	if !m.bp.before["review"] {
		t.Fatal("b did not set a breakpoint")
	}
	m = press(t, m, "c")
	if m.view.Phase != engine.PhasePlanned || len(m.view.Tasks) == 0 || m.view.Tasks[0].Name != "review" {
		t.Fatalf("continue did not stop before review: %+v", m.view.Tasks)
	}
	if !strings.Contains(m.note, "before review") {
		t.Fatalf("note %q", m.note)
	}
	// An after-breakpoint on revise stops after the Update that ran it.
	for i, n := range m.graph.nodes {
		if n == "revise" {
			m.graph.nav.cur = i
		}
	}
	m = press(t, m, "B", "c")
	if m.view.Phase != engine.PhaseCheckpoint || len(m.ran) == 0 || m.ran[0].Name != "revise" {
		t.Fatalf("continue did not stop after revise: phase %v ran %+v note %q", m.view.Phase, m.ran, m.note)
	}
}

func TestModel_Essay_StepsToDone(t *testing.T) {
	m := engineModel(t, "essay", 80, 24)
	for i := 0; i < 100 && m.view.Status == engine.StatusRunning; i++ {
		m = press(t, m, "s")
		checkFrame(t, m)
	}
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
	if m.mainKeys.Next.Enabled() {
		t.Fatal("n still enabled after the run is done")
	}
}

func TestModel_Tree_TimeTravelAndFork(t *testing.T) {
	m := engineModel(t, "linear", 120, 40)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v", m.view.Status)
	}
	m = press(t, m, "t")
	if m.mode != modeTree || len(m.tree.snaps) != 4 {
		t.Fatalf("tree: mode %v, %d checkpoints", m.mode, len(m.tree.snaps))
	}
	// p from the head walks to its parent.
	head := m.tree.selected().Config.CheckpointID
	m = press(t, m, "p")
	if m.tree.selected().Config.CheckpointID == head || m.tree.selected().Config.CheckpointID != m.tree.snaps[0].ParentID {
		t.Fatal("p did not move to the parent")
	}
	// enter makes it current and writes nothing until a step is taken.
	parent := m.tree.selected().Config.CheckpointID
	m = press(t, m, "enter")
	if m.mode != modeMain || m.view.CheckpointID != parent || m.err != nil {
		t.Fatalf("time travel: mode %v checkpoint %q err %v", m.mode, m.view.CheckpointID, m.err)
	}
	if h, _ := m.sess.History(context.Background()); len(h) != 4 {
		t.Fatalf("enter in the tree wrote a checkpoint: %d in history, want 4", len(h))
	}
	// The first step from there is what forks.
	m = press(t, m, "n")
	if m.view.Source != engine.SourceFork || m.err != nil {
		t.Fatalf("stepping from a past checkpoint: source %q err %v", m.view.Source, m.err)
	}
	// f on the tree edits the state and writes it with UpdateState.
	m = press(t, m, "t", "f")
	if m.mode != modeFork {
		t.Fatalf("mode %v, want fork", m.mode)
	}
	m.fork.area.SetValue(`{"total": 100}`)
	m = press(t, m, "ctrl+n", "ctrl+s")
	if m.err != nil || m.mode != modeMain {
		t.Fatalf("fork: err %v mode %v (%s)", m.err, m.mode, m.fork.err)
	}
	if m.view.Source != engine.SourceUpdate || m.view.Values["total"] != 100.0 {
		t.Fatalf("fork not current: source %q values %v", m.view.Source, m.view.Values)
	}
	m = press(t, m, "t")
	if !strings.Contains(m.View(), "├─┘") {
		t.Fatalf("forks should draw as branches:\n%s", m.View())
	}
}

func TestModel_Fork_InvalidJSONStays(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "f")
	m.fork.area.SetValue("{\n  \"total\": 1,\n}")
	m = press(t, m, "ctrl+s")
	// Where it is wrong, as the command line says it: line and column.
	if m.mode != modeFork || !strings.Contains(m.fork.err, "invalid JSON at line 3, column 1") {
		t.Fatalf("mode %v err %q", m.mode, m.fork.err)
	}
}

func TestModel_Threads_OpenAndNew(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "c", "T")
	if m.mode != modeThreads || len(m.threads.list) != 1 || m.threads.list[0].ID != "t1" {
		t.Fatalf("threads: mode %v list %+v err %q", m.mode, m.threads.list, m.threads.err)
	}
	m = press(t, m, "n")
	m.threads.area.SetValue(`{"total": 1}`)
	m = press(t, m, "ctrl+s")
	if m.mode != modeMain || m.thread == "t1" || m.view.Source != engine.SourceInput {
		t.Fatalf("new thread: mode %v thread %q values %v err %v", m.mode, m.thread, m.view.Values, m.err)
	}
	m = press(t, m, "T")
	for i, th := range m.threads.list {
		if th.ID == "t1" {
			m.threads.nav.cur = i
		}
	}
	m = press(t, m, "enter")
	if m.thread != "t1" || m.view.Status != engine.StatusDone {
		t.Fatalf("reopen: thread %q status %v", m.thread, m.view.Status)
	}
}

func TestModel_OpenExisting_InterruptedThread(t *testing.T) {
	g, ex, saver := compile(t, "research")
	if _, err := g.Invoke(t.Context(), ex.Input, engine.OnThread("old")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "old", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	if m.view.Status != engine.StatusInterrupted || m.mode != modeAnswer {
		t.Fatalf("status %v mode %v", m.view.Status, m.mode)
	}
	m = press(t, m, "approve", "enter", "c")
	if m.view.Status != engine.StatusDone || m.view.Values["final_report"] == nil {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
}

func TestModel_Channels_FilterAndInternal(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	n := len(m.chans.shown)
	m = press(t, m, "i")
	if len(m.chans.shown) <= n {
		t.Fatal("i did not show internal channels")
	}
	m = press(t, m, "/", "f", "i", "n", "enter")
	if len(m.chans.shown) != 2 { // findings, final_report
		t.Fatalf("filter kept %d channels", len(m.chans.shown))
	}
	m = press(t, m, "/", "esc")
	if m.chans.filter.Value() != "" {
		t.Fatal("esc did not clear the filter")
	}
}

func TestExplainNode(t *testing.T) {
	v := &engine.StepView{
		Phase:        engine.PhaseCheckpoint,
		Versions:     map[string]engine.Version{"join:a+b:review": 4, "branch:to:plan": 3},
		VersionsSeen: map[string]map[string]engine.Version{"review": {}, "plan": {"branch:to:plan": 2}},
		Channels: []engine.ChannelView{
			{Name: "join:a+b:review", Available: true}, {Name: "branch:to:plan", Available: false},
		},
	}
	if got, want := explainNode(v, "review", []string{"join:a+b:review"}), "review will run: join:a+b:review is at v4, which review has never seen."; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got, want := explainNode(v, "plan", []string{"branch:to:plan"}), "plan will not run: branch:to:plan was cleared at v3, after the v2 plan saw."; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	v.Channels[1].Available = true
	if got, want := explainNode(v, "plan", []string{"branch:to:plan"}), "plan will run: branch:to:plan is at v3, plan last saw v2."; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestModel_Keys_BurstIsSplit(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	m = press(t, m, "jjj")
	if m.graph.nav.cur != 3 {
		t.Fatalf("cursor %d after jjj, want 3", m.graph.nav.cur)
	}
}

// The footer keeps the global keys whatever the width: the screen's keys
// give way before ? help and q quit (at 80 and 120 columns the main
// view's footer was cut before them, so ? was never named).
func TestModel_Footer_KeepsGlobalKeys(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}, {200, 50}} {
		for _, ks := range [][]string{{"n"}, {"c", "esc", "t"}} {
			m := engineModel(t, "research", sz.w, sz.h)
			m = press(t, m, ks...)
			checkFrame(t, m)
			lines := strings.Split(m.View(), "\n")
			foot := strings.TrimRight(lines[len(lines)-1], " ")
			if !strings.HasSuffix(foot, "• ? help • q quit") {
				t.Errorf("%dx%d after %v: the footer %q does not end with the global keys", sz.w, sz.h, ks, foot)
			}
		}
	}
}

// enter on a versions_seen row opens why its node runs as the sentence it
// is; it was shown as a quoted JSON string.
func TestModel_WhyInspector_ShowsProse(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "n", "enter", "enter") // the graph's node, then its versions_seen row
	if m.mode != modeInspect || !strings.HasPrefix(m.insp.title, "why ") {
		t.Fatalf("mode %v title %q:\n%s", m.mode, m.insp.title, m.View())
	}
	if got := strings.Join(m.insp.lines, " "); !strings.HasPrefix(got, "__start__ is planned") || strings.Contains(got, `"`) {
		t.Errorf("the explanation reads %q", got)
	}
}
