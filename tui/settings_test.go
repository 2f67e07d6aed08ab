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
			d := &fakeDurability{mode: "sync"}
			m.opts.Durability, m.opts.SetDurability = d.get, d.set
			m = press(t, m, "S", "human_review", "tab", "*", "tab", "bad", "tab", "async")
			m = press(t, m, "enter")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("settings-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// fakeDurability stands for the store's durability control (the command
// line passes persist.Store's).
type fakeDurability struct {
	mode string
	sets []string
}

func (d *fakeDurability) get() string { return d.mode }
func (d *fakeDurability) set(m string) error {
	d.sets = append(d.sets, m)
	d.mode = m
	return nil
}

// S sets the store's durability: checked, applied by a Cmd, kept with the
// graph's settings and set again when the graph is next opened.
func TestModel_Settings_Durability(t *testing.T) {
	saver := &settingsSaver{MemorySaver: engine.NewMemorySaver(), docs: map[string][]byte{}}
	m := researchWith(t, saver, "t1", 120, 40)
	if m = press(t, m, "S"); len(m.settings.inputs) != 3 {
		t.Fatalf("without a durability control the form has %d fields, want 3", len(m.settings.inputs))
	}
	m = press(t, m, "esc")
	d := &fakeDurability{mode: "sync"}
	m.opts.Durability, m.opts.SetDurability = d.get, d.set
	m = press(t, m, "S", "tab", "tab", "tab")
	if !strings.Contains(m.View(), "sync (as the database was opened)") {
		t.Fatalf("the field should show the store's mode:\n%s", m.View())
	}
	m = press(t, m, "never", "enter")
	if m.mode != modeSettings || !strings.Contains(m.settings.err, `"never" is not one of sync, async, exit`) {
		t.Fatalf("mode %v err %q", m.mode, m.settings.err)
	}
	m.settings.inputs[3].SetValue("exit")
	m = press(t, m, "enter")
	if m.mode != modeMain || m.run.durability != "exit" || d.mode != "exit" || !strings.Contains(m.note, "durability exit") {
		t.Fatalf("mode %v run %+v store %q note %q", m.mode, m.run, d.mode, m.note)
	}
	var doc savedBreakpoints
	if err := json.Unmarshal(saver.docs["tui/graph/research"], &doc); err != nil || doc.Durability != "exit" {
		t.Fatalf("saved %s (%v)", saver.docs["tui/graph/research"], err)
	}
	// The graph opened again: its saved durability is set on the store.
	d2 := &fakeDurability{mode: "sync"}
	_, ex, _ := compile(t, "research")
	g, err := ex.Build(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t2", Input: ex.Input, Saver: saver, GraphName: "research", Durability: d2.get, SetDurability: d2.set}
	m2 := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	if m2.run.durability != "exit" || d2.mode != "exit" {
		t.Fatalf("reopened: run %+v store %q", m2.run, d2.mode)
	}
	// A store that refuses says so.
	m2.opts.SetDurability = func(string) error { return errors.New("store is read-only") }
	m2 = press(t, m2, "S", "tab", "tab", "tab")
	m2.settings.inputs[3].SetValue("async")
	m2 = press(t, m2, "enter")
	if m2.err == nil || !strings.Contains(m2.err.Error(), "durability async: store is read-only") {
		t.Fatalf("err %v", m2.err)
	}
	// Refused, it is not kept: the store's own stays.
	var after savedBreakpoints
	if err := json.Unmarshal(saver.docs["tui/graph/research"], &after); err != nil || m2.run.durability != "" || after.Durability != "" {
		t.Fatalf("a refused durability was kept: run %+v saved %s", m2.run, saver.docs["tui/graph/research"])
	}
}
