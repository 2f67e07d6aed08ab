package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// d on a checkpoint diffs it with its parent, channel by channel, with the
// change inside the value and versions_seen.
func TestModel_Diff_WithParent(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "s", "s", "s") // checkpoint of step 2: findings appended
	m = press(t, m, "d")
	if m.mode != modeDiff || m.err != nil {
		t.Fatalf("mode %v err %v", m.mode, m.err)
	}
	v := m.View()
	// The unchanged are counted as the differences are: the state's
	// (question, sub_queries), the engine's own channels only with i.
	for _, want := range []string{"findings  - → v4", "+ [2]:", "1 channel differs, 2 unchanged · 2 internal differences hidden: i shows them"} {
		if !strings.Contains(v, want) {
			t.Fatalf("diff lacks %q:\n%s", want, v)
		}
	}
	if v := press(t, m, "i").View(); !strings.Contains(v, "1 channel differs, 4 unchanged · 2 internal differences listed last") {
		t.Fatalf("with the internal channels shown the summary does not count theirs:\n%s", v)
	}
	m = press(t, m, "esc")
	if m.mode != modeMain {
		t.Fatalf("esc: mode %v", m.mode)
	}
}

// m marks a checkpoint on one branch; d on a checkpoint of another branch
// diffs the two.
func TestModel_Diff_MarkedAcrossBranches(t *testing.T) {
	m := engineModel(t, "linear", 120, 40)
	m = press(t, m, "c")
	m = press(t, m, "t")
	head := m.tree.selected().Config.CheckpointID
	m = press(t, m, "m")
	if !strings.Contains(m.View(), "◆ marked") {
		t.Fatalf("the mark is not shown:\n%s", m.View())
	}
	// Fork an older checkpoint with another total.
	m = press(t, m, "down", "down", "f")
	m.fork.area.SetValue(`{"total": 99, "visited": []}`)
	m = press(t, m, "ctrl+n", "ctrl+s")
	if m.err != nil || m.mode != modeMain {
		t.Fatalf("fork: %v %s", m.err, m.fork.err)
	}
	m = press(t, m, "d")
	if m.mode != modeDiff || !strings.Contains(m.diff.title, "marked "+shortID(head)) {
		t.Fatalf("mode %v title %q", m.mode, m.diff.title)
	}
	if !strings.Contains(m.View(), "~ value: 21 → 99") {
		t.Fatalf("the fork's total against the marked head:\n%s", m.View())
	}
	// enter opens a change in the inspector; esc comes back to the diff.
	for i := 0; i < len(m.diff.rows) && !strings.HasPrefix(strings.TrimSpace(m.diff.rows[m.diff.nav.cur].text), "~"); i++ {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if m.mode != modeInspect {
		t.Fatalf("enter: mode %v", m.mode)
	}
	m = press(t, m, "esc")
	if m.mode != modeDiff {
		t.Fatalf("esc from the inspector: mode %v", m.mode)
	}
}

func TestModel_Diff_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := engineModel(t, "research", sz.w, sz.h)
			m = press(t, m, "s", "s", "s", "d")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("diff-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// Messages diff by id and read as a conversation (role and id).
func TestDiffPane_Messages(t *testing.T) {
	d := engine.DiffCheckpoints(
		&engine.Checkpoint{ID: "a", ChannelValues: map[string]any{"messages": []any{map[string]any{"id": "m1", "role": "human", "content": "hi"}}}, ChannelVersions: map[string]engine.Version{"messages": 1}},
		&engine.Checkpoint{ID: "b", ChannelValues: map[string]any{"messages": []any{map[string]any{"id": "m1", "role": "human", "content": "hi"}, map[string]any{"id": "m2", "role": "ai", "content": "hello"}}}, ChannelVersions: map[string]engine.Version{"messages": 2}},
	)
	p := newDiffPane(d, "a", "b", diffRoles{convo: map[string]bool{"messages": true}}, false)
	got := p.View(DefaultStyles(), 80, 10)
	if !strings.Contains(got, "+ ai [id=m2]:") {
		t.Fatalf("message diff:\n%s", got)
	}
}

// What enter opens from a diff names the checkpoint its value is from, by
// id and step, as the diff's title names them: it said "at b", and the
// inspector does not show the title.
func TestModel_Diff_InspectorNamesTheCheckpoints(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "s", "s", "s")
	b, parent, step := m.view.CheckpointID, m.view.ParentID, m.view.CheckpointStep
	m = press(t, m, "d")
	atB := fmt.Sprintf("%s (step %d)", shortID(b), step)
	atA := fmt.Sprintf("parent %s (step %d)", shortID(parent), step-1)
	if !strings.Contains(m.diff.title, "a "+atA+" → b "+atB) {
		t.Fatalf("title %q, want it to name %q and %q", m.diff.title, atA, atB)
	}
	opened := map[string]bool{}
	for i := range m.diff.rows {
		m.diff.nav.cur = i
		if !m.diff.rows[i].hasValue {
			continue
		}
		m = press(t, m, "enter")
		opened[m.insp.title] = true
		m = press(t, m, "esc")
	}
	for _, want := range []string{"findings at " + atB, "findings [2] (added at " + atB + ")"} {
		if !opened[want] {
			t.Errorf("no inspector titled %q among %v", want, opened)
		}
	}
	for title := range opened {
		if strings.HasSuffix(title, " at b") || strings.Contains(title, "(a → b)") {
			t.Errorf("inspector title %q names a side, not a checkpoint", title)
		}
	}
}
