package tui

import (
	"context"
	"fmt"
	tea "github.com/charmbracelet/bubbletea"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// a at the Execute pause edits a finished task's writes; Update applies
// them and the checkpoint says they were edited and by whom.
func TestModel_EditWrites(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := engineModel(t, "linear", sz.w, sz.h)
			m = press(t, m, "s", "n", "n") // step 1 executed: a wrote total
			if m.view.Phase != engine.PhaseExecuted {
				t.Fatalf("phase %v", m.view.Phase)
			}
			m = press(t, m, "tab", "tab", "tab", "a") // focus the tasks pane
			if m.mode != modeEdit {
				t.Fatalf("mode %v note %q", m.mode, m.note)
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("editwrites-%dx%d.golden", sz.w, sz.h), m.View())
			m.edit.area.SetValue(`[["total", 1000], ["visited", ["edited"]], ["branch:to:b", null]]`)
			m = press(t, m, "ctrl+s")
			if m.mode != modeMain || m.err != nil || !strings.Contains(m.View(), "✱ writes edited") {
				t.Fatalf("mode %v err %v\n%s", m.mode, m.err, m.View())
			}
			m = press(t, m, "n")
			if m.view.Values["total"] != 1000.0 || m.view.Source != engine.SourceUpdate {
				t.Fatalf("after Update: %v source %q", m.view.Values, m.view.Source)
			}
			heads, err := m.sess.History(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			snap, err := m.sess.(*engineSession).Snapshot(context.Background(), heads[0].ID)
			if err != nil || snap.Metadata.Extra[engine.MetaEditedWrites] != "a" || !strings.Contains(fmt.Sprint(snap.Metadata.Extra[engine.MetaEditedBy]), "superstep debugger") {
				t.Fatalf("metadata %+v (%v)", snap.Metadata, err)
			}
		})
	}
}

func TestModel_EditWrites_BadInputStays(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "s", "n", "n")
	m = press(t, m, "tab", "tab", "tab", "a")
	m.edit.area.SetValue(`[["total"]]`)
	m = press(t, m, "ctrl+s")
	if m.mode != modeEdit || !strings.Contains(m.edit.err, "expected [channel, value]") {
		t.Fatalf("mode %v err %q", m.mode, m.edit.err)
	}
	// A channel the graph lacks is the engine's to refuse (CheckWrites),
	// and the form stays open with the user's text.
	m.edit.area.SetValue(`[["no_such", 1]]`)
	m = press(t, m, "ctrl+s")
	if m.mode != modeEdit || !strings.Contains(m.edit.err, `"no_such": write 1: the graph has no such channel`) || m.edit.area.Value() != `[["no_such", 1]]` {
		t.Fatalf("mode %v err %q text %q", m.mode, m.edit.err, m.edit.area.Value())
	}
}

// The writes are edited by typing: the cursor starts on the first line,
// so a person goes down to the value to change it.
func TestModel_EditWrites_Typed(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "s", "n", "n", "tab", "tab", "tab", "a")
	m = press(t, m, "down", "end", "left", "left", "backspace", "backspace", "9", "9", "9", "ctrl+s")
	if m.mode != modeMain || m.err != nil {
		t.Fatalf("mode %v err %v edit err %q", m.mode, m.err, m.edit.err)
	}
	m = press(t, m, "n")
	if m.view.Values["total"] != 999.0 {
		t.Fatalf("total %v after the typed edit", m.view.Values["total"])
	}
	// The tree says so, and by whom.
	m = send(t, m, tea.WindowSizeMsg{Width: 200, Height: 40})
	m = press(t, m, "t")
	if v := m.View(); !strings.Contains(v, "✱ writes of a edited by") || !strings.Contains(v, "superstep debugger") {
		t.Fatalf("the tree does not say the writes were edited:\n%s", v)
	}
}

// A fan-out's Sends survive the edit form: accepting plan_queries' writes
// as they are still plans the three investigate tasks (the form showed a
// Send in the display form, which read back as a plain map the engine
// drops from the tasks channel, so the run silently ended). A Send to a
// node the graph lacks, or a tasks write that is no Send, is refused.
func TestModel_EditWrites_KeepsSends(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	m = press(t, m, "n", "n", "n", "n", "n") // step 1 executed: plan_queries sent
	if m.view.Phase != engine.PhaseExecuted || m.view.Tasks[0].Name != "plan_queries" {
		t.Fatalf("phase %v tasks %v", m.view.Phase, m.view.Tasks)
	}
	m = press(t, m, "tab", "tab", "tab", "a")
	if m.mode != modeEdit {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	text := m.edit.area.Value()
	for _, bad := range []string{
		strings.Replace(text, `"node":"investigate"`, `"node":"nosuch"`, 1),
		strings.Replace(text, `{"$send":`, `{"send":`, 1),
	} {
		m.edit.area.SetValue(bad)
		m = press(t, m, "ctrl+s")
		if m.mode != modeEdit || !strings.Contains(m.edit.err, `"__pregel_tasks": write 2`) {
			t.Fatalf("mode %v err %q for\n%s", m.mode, m.edit.err, bad)
		}
	}
	m.edit.area.SetValue(text)
	m = press(t, m, "ctrl+s")
	if m.mode != modeMain || m.err != nil {
		t.Fatalf("mode %v err %v edit %q", m.mode, m.err, m.edit.err)
	}
	m = press(t, m, "n", "n") // Update, then Plan step 2
	n := 0
	for _, tk := range m.view.Tasks {
		if tk.Name == "investigate" {
			n++
		}
	}
	if m.view.Phase != engine.PhasePlanned || n != 3 {
		t.Fatalf("phase %v status %v: %d investigate tasks planned after the edit, want 3", m.view.Phase, m.view.Status, n)
	}
}
