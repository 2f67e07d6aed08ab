package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
)

// The seen and now columns show whole in a narrow pane: at 60 columns the
// versions_seen pane is 28 cells wide and the now column was cut
// ("5    …"). The trigger column gives way first.
func TestSeenPane_View_NarrowKeepsVersions(t *testing.T) {
	m := engineModel(t, "research", 60, 20)
	m = press(t, m, "n", "n", "n") // some versions past 0
	checkFrame(t, m)
	row := regexp.MustCompile(`^\S+ +\S+ +(-|\d+) +\d+( \S)? *$`)
	for _, w := range []int{28, 24, 20} {
		lines := strings.Split(m.seen.View(m.styles, true, w, 30), "\n")
		rows := lines[1 : 1+len(m.seen.rows)] // under the header, above the explanation
		for _, l := range rows {
			l = ansi.Strip(l)
			if lipgloss.Width(l) > w {
				t.Errorf("w %d: %q is %d cells wide", w, l, lipgloss.Width(l))
			}
			if !row.MatchString(l) {
				t.Errorf("w %d: the versions are cut in %q", w, l)
			}
		}
		if len(rows) == 0 {
			t.Fatalf("w %d: no rows:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	if v := m.View(); !strings.Contains(v, "seen  now") {
		t.Errorf("the header's now is cut at 60 columns:\n%s", v)
	}
}

// At the end of a run, a node whose trigger is newer than what it saw but
// cleared (an ephemeral branch channel its own run consumed) is explained
// as such: the pane said no trigger was newer, beside "5  6" in its row.
func TestExplainNode_DoneSaysWhyEachNodeStops(t *testing.T) {
	v := &engine.StepView{Status: engine.StatusDone, Phase: engine.PhaseCheckpoint,
		Channels:     []engine.ChannelView{{Name: "branch:to:a", Version: 6, HasVer: true}, {Name: "branch:to:b", Version: 2, HasVer: true}},
		Versions:     map[string]engine.Version{"branch:to:a": 6, "branch:to:b": 2},
		VersionsSeen: map[string]map[string]engine.Version{"a": {"branch:to:a": 5}, "b": {"branch:to:b": 2}},
	}
	for node, want := range map[string]string{
		"a": "a will not run: branch:to:a was cleared at v6, after the v5 a saw.",
		"b": "b will not run: branch:to:b is at v2 and b already saw it.",
	} {
		if got := explainNode(v, node, []string{"branch:to:" + node}); got != want {
			t.Errorf("%s: %q, want %q", node, got, want)
		}
	}
}

// At an interrupt the tasks that finished ran and the one that asks is
// interrupted: the pane said each "is planned".
func TestExplainNode_InterruptedSaysHowEachTaskEnded(t *testing.T) {
	v := &engine.StepView{Status: engine.StatusInterrupted, Phase: engine.PhasePlanned, Step: 1, Tasks: []engine.TaskView{
		{Name: "r", State: engine.TaskDone}, {Name: "sub", State: engine.TaskInterrupted},
		{Name: "q", State: engine.TaskDone, Push: true}, {Name: "q", State: engine.TaskInterrupted, Push: true}, {Name: "q", State: engine.TaskInterrupted, Push: true},
		{Name: "c", State: engine.TaskCached},
	}}
	for node, want := range map[string]string{
		"r":   "r ran in step 1.",
		"sub": "sub is interrupted in step 1: r answers it.",
		"q":   "q has 3 tasks (Send) in step 1: 1 ran, 2 is interrupted.",
		"c":   "c took its writes from the node cache in step 1: it did not run.",
		"x":   "x has no task in step 1.",
	} {
		if got := explainNode(v, node, nil); got != want {
			t.Errorf("%s: %q, want %q", node, got, want)
		}
	}
}

// An explanation longer than the room under the rows is cut with a mark,
// the rows kept in view, and enter on the pane shows it whole (it was cut
// without a mark, and enter there did nothing).
func TestModel_Seen_EnterShowsTheWholeExplanation(t *testing.T) {
	m := engineModel(t, "essay", 80, 24)
	m = press(t, m, "c")
	for m.focus != paneSeen {
		m = press(t, m, "tab")
	}
	for m.seen.selectedNode() != "review" {
		m = press(t, m, "down")
	}
	whole := m.seen.explanation()
	if !strings.Contains(whole, "join:writer_a+writer_b:review was cleared at") {
		t.Fatalf("explanation %q", whole)
	}
	v := m.View()
	if !strings.Contains(v, "(enter)") || !strings.Contains(v, "__start__ __start__") {
		t.Fatalf("the cut explanation is not marked, or rows are hidden:\n%s", v)
	}
	m = press(t, m, "enter")
	if m.mode != modeInspect || m.insp.value != prose(whole) {
		t.Fatalf("enter on the versions_seen pane: mode %v", m.mode)
	}
	checkFrame(t, m)
}

// TestCutTrigger: a trigger too long for its column keeps what tells: a
// branch:to:… channel is named →node, never cut to "…nch:to:approve",
// and what still does not fit is cut in the middle, as ids are.
func TestCutTrigger(t *testing.T) {
	for _, c := range []struct {
		name string
		w    int
		want string
	}{
		{"branch:to:approve", 17, "branch:to:approve"},
		{"branch:to:approve", 15, "→approve"},
		{"branch:to:approve", 6, "→a…ove"},
		{"join:a+b:c", 8, "joi…+b:c"},
	} {
		if got := cutTrigger(c.name, c.w); got != c.want {
			t.Errorf("cutTrigger(%q, %d) = %q, want %q", c.name, c.w, got, c.want)
		}
	}
}

// Why a planned node runs is said while it is planned, when it matters
// most, from the facts Plan used: its trigger's version against what the
// node saw of it (versions_seen is written at Update, so at Plan it still
// holds the old one). A Send says so instead.
func TestExplainTasks_PlannedSaysWhy(t *testing.T) {
	v := &engine.StepView{
		Step: 3, Phase: engine.PhasePlanned, Status: engine.StatusRunning,
		Versions: map[string]engine.Version{"branch:to:a": 5, "branch:to:b": 4},
		VersionsSeen: map[string]map[string]engine.Version{
			"a": {"branch:to:a": 2},
		},
		Tasks: []engine.TaskView{
			{ID: "1", Name: "a", Triggers: []string{"branch:to:a"}},
			{ID: "2", Name: "b", Triggers: []string{"branch:to:b"}},
			{ID: "3", Name: "s", Push: true},
			{ID: "4", Name: "s", Push: true},
		},
	}
	for node, want := range map[string]string{
		"a": "a is planned in step 3: branch:to:a is at v5, a last saw v2.",
		"b": "b is planned in step 3: branch:to:b is at v4, which b has never seen.",
		"s": "s is planned in step 3 as 2 tasks (Send).",
	} {
		if got := explainTasks(v, node, ""); got != want {
			t.Errorf("%s: %q, want %q", node, got, want)
		}
	}
}
