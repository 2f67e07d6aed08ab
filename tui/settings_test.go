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

// boxText is the words of a boxed screen's lines, borders dropped and
// wrapped lines joined, so a test can look for a sentence however it wraps.
func boxText(view string) string {
	var words []string
	for _, l := range strings.Split(view, "\n") {
		l = strings.Trim(l, "│ ")
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// The explanations wrap to the width: at common sizes each can be read to
// its end (they were cut with an ellipsis at 120 columns).
func TestModel_Settings_ExplanationsWrap(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m := researchWith(t, engine.NewMemorySaver(), "t1", sz.w, sz.h)
		d := &fakeDurability{mode: "sync"}
		m.opts.Durability, m.opts.SetDurability = d.get, d.set
		m = press(t, m, "S")
		checkFrame(t, m)
		text := boxText(m.View())
		for _, want := range []string{
			"(LangGraph's interrupt_before / interrupt_after, recursion_limit, durability)",
			"these interrupts are recorded in the checkpoints.",
			"(async and exit keep the database open: other commands wait).",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%dx%d: %q is not shown whole:\n%s", sz.w, sz.h, want, m.View())
			}
		}
	}
}

// In a small window the form scrolls so the focused field, and the error
// under the fields, stay on screen: the person never types blind.
func TestModel_Settings_SmallWindowShowsFocusedField(t *testing.T) {
	m := researchWith(t, engine.NewMemorySaver(), "t1", 30, 10)
	d := &fakeDurability{mode: "sync"}
	m.opts.Durability, m.opts.SetDurability = d.get, d.set
	m = press(t, m, "S")
	if v := m.View(); !strings.Contains(v, "interrupt before") {
		t.Fatalf("the first field is off screen:\n%s", v)
	}
	m = press(t, m, "tab", "tab", "x")
	checkFrame(t, m)
	if v := m.View(); !hasLine(v, "recursion limit", " x ") {
		t.Fatalf("the focused recursion limit is off screen:\n%s", v)
	}
	m = press(t, m, "enter")
	if v := m.View(); !hasLine(v, "recursion limit", " x ") || !strings.Contains(v, "✗ recursion") {
		t.Fatalf("the field and its error should both show:\n%s", v)
	}
	m = press(t, m, "tab", "exit")
	checkFrame(t, m)
	if v := m.View(); !hasLine(v, "durability", " exit ") {
		t.Fatalf("the focused durability is off screen:\n%s", v)
	}
	m = press(t, m, "shift+tab", "shift+tab", "shift+tab")
	if v := m.View(); !strings.Contains(v, "interrupt before") {
		t.Fatalf("back on the first field, it is off screen:\n%s", v)
	}
}

// hasLine reports whether a line of view holds both a and b.
func hasLine(view, a, b string) bool {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, a) && strings.Contains(l, b) {
			return true
		}
	}
	return false
}

func TestFormOffset(t *testing.T) {
	for _, c := range []struct{ n, room, focus, keep, want int }{
		{10, 12, 5, 8, 0}, // all fits
		{20, 4, 7, 10, 7}, // the fields 7..10 exactly fill the room
		{20, 4, 9, 10, 7},
		{20, 4, 7, 11, 7}, // an error below does not push the focus off the top
		{20, 4, 9, 11, 8},
		{20, 6, 2, 5, 0}, // the title stays while there is room for it
		{5, 4, 4, 4, 1},
	} {
		if got := formOffset(c.n, c.room, c.focus, c.keep); got != c.want {
			t.Errorf("formOffset(%d, %d, %d, %d) = %d, want %d", c.n, c.room, c.focus, c.keep, got, c.want)
		}
	}
}
