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
	for name, edited := range map[string]map[string]any{
		"nothing changed":     {"drafts": []any{"a", "b"}, "msgs": orig["msgs"], "final": "b", "topic": "t"},
		"rewrite an appended": {"drafts": []any{"x"}, "msgs": orig["msgs"], "final": "b", "topic": "t"},
		"remove a key":        {"drafts": []any{"a", "b"}, "msgs": orig["msgs"], "final": "b"},
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
