package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// S sets the engine's interrupt_before for the runs the debugger starts:
// the run stops there with the interrupt recorded, as a server run would.
func TestModel_Settings_InterruptBefore(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "S", "investigate", "enter")
	if m.mode != modeMain || len(m.run.before) != 1 {
		t.Fatalf("mode %v run %+v (%s)", m.mode, m.run, m.settings.err)
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusInterrupted || len(m.view.Tasks) == 0 || m.view.Tasks[0].Name != "investigate" {
		t.Fatalf("status %v tasks %v", m.view.Status, m.view.Tasks)
	}
	if !strings.Contains(m.note, "engine breakpoint") {
		t.Fatalf("note %q", m.note)
	}
}

func TestModel_Settings_RecursionLimitAndErrors(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 120, 40)
	m = press(t, m, "S", "nope", "enter")
	if m.mode != modeSettings || !strings.Contains(m.settings.err, `no node "nope"`) {
		t.Fatalf("mode %v err %q", m.mode, m.settings.err)
	}
	m = press(t, m, "esc", "S", "tab", "tab", "x", "enter")
	if m.mode != modeSettings || !strings.Contains(m.settings.err, "positive whole number") {
		t.Fatalf("mode %v err %q", m.mode, m.settings.err)
	}
	m = press(t, m, "backspace", "1", "enter", "c")
	var rec *engine.GraphRecursionError
	if m.view.Status != engine.StatusFailed || !errorsAs(m.err, &rec) {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
}

// A new thread starts from the last input used with this graph, kept in
// the database with the graph's settings.
func TestModel_Settings_LastInputAndPersistence(t *testing.T) {
	saver := &settingsSaver{MemorySaver: engine.NewMemorySaver(), docs: map[string][]byte{}}
	m := researchWith(t, saver, "t1", 120, 40)
	m = press(t, m, "S", "*", "enter", "T", "n")
	m.threads.area.SetValue(`{"question": "why is the sky blue?"}`)
	m = press(t, m, "ctrl+s", "s")
	if m.err != nil || m.view.Thread == "t1" || m.view.Values["question"] != "why is the sky blue?" {
		t.Fatalf("new thread: %v %v", m.err, m.view.Values)
	}
	var doc savedBreakpoints
	if err := json.Unmarshal(saver.docs["tui/graph/research"], &doc); err != nil || doc.LastInput["question"] != "why is the sky blue?" || doc.InterruptBefore[0] != "*" {
		t.Fatalf("saved %s (%v)", saver.docs["tui/graph/research"], err)
	}
	m2 := researchWith(t, saver, "t9", 120, 40)
	if len(m2.run.before) != 1 {
		t.Fatalf("run settings not restored: %+v", m2.run)
	}
	m2 = press(t, m2, "T", "n")
	if !strings.Contains(m2.threads.area.Value(), "why is the sky blue?") {
		t.Fatalf("the new-thread form should start from the last input:\n%s", m2.threads.area.Value())
	}
}

func TestModel_Settings_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := researchWith(t, engine.NewMemorySaver(), "t1", sz.w, sz.h)
			m = press(t, m, "S", "human_review", "tab", "*", "tab", "bad")
			m = press(t, m, "enter")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("settings-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
