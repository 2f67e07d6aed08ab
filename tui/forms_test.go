package tui

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

func TestForkForm_UpdateWritesOnlyChanges(t *testing.T) {
	info := engine.GraphInfo{Channels: []engine.ChannelInfo{{Name: "drafts", Reducer: "add"}, {Name: "msgs", Reducer: "add_messages"}, {Name: "final"}}}
	orig := map[string]any{
		"drafts": []any{"a", "b"},
		"msgs":   []any{map[string]any{"id": "1", "content": "hi"}, map[string]any{"id": "2", "content": "yo"}},
		"final":  "b",
		"topic":  "t",
	}
	f := newForkForm("cp", orig, info)
	got, err := f.update(map[string]any{
		"drafts": []any{"a", "b", "c"},
		"msgs":   []any{map[string]any{"id": "1", "content": "hello"}},
		"final":  "c",
		"topic":  "t",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"drafts": []any{"c"},
		"msgs":   []any{map[string]any{"id": "1", "content": "hello"}, map[string]any{"remove": "2"}},
		"final":  "c",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("update %v, want %v", got, want)
	}
	// Items of an appending key changed or removed cannot be sent as
	// items to append: the edit replaces the list (an Overwrite).
	got, err = f.update(map[string]any{"drafts": []any{"x"}, "msgs": orig["msgs"], "final": "b", "topic": "t"})
	if want := map[string]any{"drafts": map[string]any{engine.OverwriteKey: []any{"x"}}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("rewrite an appended: update %v err %v, want %v", got, err, want)
	}
	for name, edited := range map[string]map[string]any{
		"nothing changed": {"drafts": []any{"a", "b"}, "msgs": orig["msgs"], "final": "b", "topic": "t"},
		"not a list":      {"drafts": "x", "msgs": orig["msgs"], "final": "b", "topic": "t"},
		"remove a key":    {"drafts": []any{"a", "b"}, "msgs": orig["msgs"], "final": "b"},
	} {
		if _, err := f.update(edited); err == nil {
			t.Errorf("%s: want an error", name)
		} else if !strings.Contains(err.Error(), " ") {
			t.Errorf("%s: unhelpful error %q", name, err)
		}
	}
}

// An answer typed in a narrow terminal shows from its start once the
// terminal is made wider (the box kept showing only its end).
func TestModel_Answer_WiderTerminalShowsTheWholeAnswer(t *testing.T) {
	m := engineModel(t, "research", 60, 16)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	answer := `{"action":"revise","revised_question":"长问题 ünï"}`
	m = press(t, m, answer)
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	if v := m.View(); !strings.Contains(v, "answer › "+answer) {
		t.Fatalf("the answer is not shown whole at 100 columns:\n%s", v)
	}
	checkFrame(t, m)
}

// A fork with no value changed but a node chosen (ctrl+n) is written, as
// update_state(config, None, as_node) is: the node's edges run next. It
// was refused as "nothing changed"; with no node chosen it still is.
func TestModel_Fork_AsNodeWithoutValues(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
	m = press(t, m, "f", "ctrl+s")
	if m.mode != modeFork || !strings.Contains(m.fork.err, "ctrl+n picks a node") {
		t.Fatalf("no change, no node: mode %v err %q", m.mode, m.fork.err)
	}
	m = press(t, m, "ctrl+n")
	if m.fork.asNode() != "a" {
		t.Fatalf("ctrl+n chose %q", m.fork.asNode())
	}
	m = press(t, m, "ctrl+s")
	if m.mode == modeFork || m.err != nil || m.view.Source != engine.SourceUpdate {
		t.Fatalf("as a, no values: mode %v err %v source %q (%s)", m.mode, m.err, m.view.Source, m.fork.err)
	}
	m = press(t, m, "n")
	if len(m.view.Tasks) != 1 || m.view.Tasks[0].Name != "b" {
		t.Fatalf("after the update as a, planned %+v, want b", m.view.Tasks)
	}
}

// reducers is a graph whose keys fold their writes in other ways than
// appending: a counter, a string joined, a map merged, and a list.
const reducers = `{"name": "reducers",
 "state": {"turn": "sum", "text": "concat", "meta": "merge", "notes": "add", "last": null},
 "nodes": [
  {"name": "a", "update": {"turn": "1", "text": "'ab'", "meta": "{'k': 1}", "notes": "['n1', 'n2']", "last": "'a'"}},
  {"name": "b", "update": {"last": "'b:' + str(state.turn) + ':' + state.text + ':' + str(len(state.notes))"}}
 ],
 "edges": [["__start__", "a"], ["a", "b"], ["b", "__end__"]],
 "ops": []}`

// A fork leaves every key holding what was typed in the form. The edit
// of a reducer key was written as a plain value, which the reducer folded
// into the old one: a counter edited from 1 to 3 held 4, a string "ab"
// edited to "abc" held "ababc"; an appending list could only be added to.
func TestModel_Fork_ReducerKeysHoldWhatWasTyped(t *testing.T) {
	f := parseScenario(t, "reducers.json", reducers)
	saver := engine.NewMemorySaver()
	g := buildScenario(t, f, saver)
	opts := Options{Thread: "r", Input: map[string]any{"last": "in"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "n", "n", "n", "n", "n", "n") // step 0: a ran; b is planned next
	if m.view.CheckpointStep != 1 {
		t.Fatalf("at step %d, state %v (err %v)", m.view.CheckpointStep, m.view.Values, m.err)
	}
	m = press(t, m, "f")
	if m.mode != modeFork {
		t.Fatalf("f: mode %v note %q", m.mode, m.note)
	}
	state := stateJSON(t, m.fork.area.Value())
	state["turn"], state["text"], state["meta"], state["notes"] = 3, "abc", map[string]any{"j": 2}, []any{"n2"}
	m.fork.area.SetValue(toJSON(state))
	m = press(t, m, "ctrl+s")
	if m.mode == modeFork || m.err != nil {
		t.Fatalf("fork: mode %v err %v (%s)", m.mode, m.err, m.fork.err)
	}
	snap := latest(t, g, "r")
	want := map[string]any{"turn": 3, "text": "abc", "meta": map[string]any{"j": 2}, "notes": []any{"n2"}, "last": "a"}
	if !reflect.DeepEqual(engine.Normalize(snap.Values), engine.Normalize(want)) {
		t.Fatalf("after the fork the state is %v, want %v", snap.Values, want)
	}
	m = press(t, m, "c")
	if got := latest(t, g, "r").Values["last"]; got != "b:3:abc:1" {
		t.Fatalf("b read last %v after the fork, want b:3:abc:1", got)
	}
}

// The fork form opens with the cursor at the top of the state, so what is
// typed first goes there. A value longer than the area's width wraps, and
// the cursor stopped as many rows short of the top as the long values
// wrapped to: text typed at once landed in the middle of the JSON.
func TestModel_Fork_OpensWithTheCursorAtTheTop(t *testing.T) {
	m := engineModel(t, "research", 80, 24)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "esc", "f")
	if m.mode != modeFork {
		t.Fatalf("f: mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "#")
	if v := m.fork.area.Value(); !strings.HasPrefix(v, "#{") {
		t.Fatalf("typed at line %d, not the top:\n%s", m.fork.area.Line(), v)
	}
}

// esc in the fork form with the state edited asks first: the edit may be
// minutes of work that nothing brings back, and esc is also the key that
// closes everything else. A second esc discards it, any other key goes on
// editing; an unedited form closes at once. One esc threw the edit away.
func TestModel_Fork_EscAsksBeforeDiscardingAnEdit(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
	m = press(t, m, "f", "esc")
	if m.mode != modeMain {
		t.Fatalf("esc on an unedited form: mode %v", m.mode)
	}
	m = press(t, m, "f")
	state := stateJSON(t, m.fork.area.Value())
	state["total"] = 99
	m.fork.area.SetValue(toJSON(state))
	m = press(t, m, "esc")
	if m.mode != modeFork || !strings.Contains(m.View(), "esc again discards your edit") {
		t.Fatalf("one esc on an edited form: mode %v\n%s", m.mode, m.View())
	}
	m = press(t, m, "end", "esc")
	if m.mode != modeFork {
		t.Fatalf("esc after going on editing closed the form: mode %v", m.mode)
	}
	m = press(t, m, "ctrl+s")
	if m.mode != modeMain || m.err != nil || m.view.Source != engine.SourceUpdate {
		t.Fatalf("ctrl+s after esc: mode %v err %v source %q (%s)", m.mode, m.err, m.view.Source, m.fork.err)
	}
	m = press(t, m, "f")
	m.fork.area.SetValue("{}")
	m = press(t, m, "esc", "esc")
	if m.mode != modeMain || !strings.Contains(m.note, "edit was discarded") {
		t.Fatalf("esc esc: mode %v note %q", m.mode, m.note)
	}
}

// At 80 columns the fork form's lines wrap rather than cut: the node it
// is written as, with what runs next, and an error with its way on
// ("ctrl+n picks a node to write as"), which ended "ctrl+n picks a n…";
// the text area gives up the rows they take, so the frame stays whole.
func TestModel_Fork_NarrowFormWrapsItsLines(t *testing.T) {
	m := engineModel(t, "linear", 80, 24)
	m = press(t, m, "c", "f")
	checkFrame(t, m)
	if got := boxText(m.View()); !strings.Contains(got, "(inferred: it saw the newest channel version; what runs next follows it) (ctrl+n to change)") {
		t.Errorf("the node's line is not whole:\n%s", m.View())
	}
	m = press(t, m, "ctrl+s")
	checkFrame(t, m)
	if got := boxText(m.View()); !strings.Contains(got, glyphFailed+" "+m.fork.err) || m.fork.err == "" {
		t.Errorf("the error %q is not whole:\n%s", m.fork.err, m.View())
	}
	golden(t, "fork-error-80x24.golden", m.View())
	state := stateJSON(t, m.fork.area.Value())
	state["total"] = 99
	m.fork.area.SetValue(toJSON(state))
	m = press(t, m, "esc")
	checkFrame(t, m)
	if got := boxText(m.View()); !strings.Contains(got, "any other key goes on editing") {
		t.Errorf("the discard question is not whole:\n%s", m.View())
	}
}

// The conditional breakpoint's error is whole at 80 columns: the
// expression language says where it stopped, at the line's end.
func TestModel_Prompt_NarrowErrorWraps(t *testing.T) {
	m := engineModel(t, "linear", 80, 24)
	m = press(t, m, "C", "len(state.visited) >= ")
	m = press(t, m, "enter")
	if m.mode != modePrompt || m.prompt.err == "" {
		t.Fatalf("mode %v err %q", m.mode, m.prompt.err)
	}
	checkFrame(t, m)
	if got := boxText(m.View()); !strings.Contains(got, strings.Join(strings.Fields(glyphFailed+" "+m.prompt.err), " ")) {
		t.Errorf("the error %q is not whole:\n%s", m.prompt.err, m.View())
	}
}
