package tui

import (
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestValueLines_EscapeTerminalControls: a stored string reaches the
// inspector and the answer box as text a terminal shows, whatever it
// holds: escape sequences, C1 controls, bidirectional overrides. A
// string with a line break was split into lines and written raw: an
// imported interrupt cleared the screen and turned it red.
func TestValueLines_EscapeTerminalControls(t *testing.T) {
	hostile := "\x1b[2J\x1b[31mred\a\r\n\ttab\u009b31m\u202eRTL"
	check := func(what string, lines []string) {
		t.Helper()
		for _, l := range lines {
			if strings.ContainsAny(l, "\x1b\a\r\t\u009b\u202e") {
				t.Errorf("%s: line %q reaches the terminal raw", what, l)
			}
		}
	}
	text, _ := prettyLines(hostile)
	check("text", text)
	if len(text) != 2 || text[1] != `    tab\u009b31m\u202eRTL` {
		t.Errorf("text lines %q: want two, the second with its tab as spaces", text)
	}
	js, isJSON := prettyLines(map[string]any{"v": "one line \u009b31m\u202e"})
	check("json", js)
	if !isJSON {
		t.Error("a map is not shown as JSON")
	}
	convo, ok := conversationLines([]any{map[string]any{
		"role": "ai\x1b[31m", "name": "n\x1b]0;t\a", "id": "i\u202e", "content": hostile,
		"tool_calls": []any{map[string]any{"name": "f\x1b[2J", "id": "c\x1b", "args": map[string]any{"a": hostile}}},
	}}, true)
	if !ok {
		t.Fatal("not read as a conversation")
	}
	check("conversation", convo)
}

// TestDiffPane_EscapesStoredNames: a channel name or a map key from a
// stored checkpoint is shown, not acted on.
func TestDiffPane_EscapesStoredNames(t *testing.T) {
	d := &engine.CheckpointDiff{Channels: []engine.ChannelDiff{{
		Channel: "ch\x1b[2J", HasVersionB: true, VersionB: 1,
		Changes: []engine.ValueChange{{Path: "k\x1b]0;title\a", Kind: engine.Added, B: "v"}},
	}}}
	out := newDiffPane(d, "a", "b", diffRoles{}, false).View(DefaultStyles(), 80, 10)
	if strings.ContainsAny(out, "\a") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]0") {
		t.Fatalf("the diff writes stored names raw:\n%q", out)
	}
}
