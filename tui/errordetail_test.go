package tui

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestErrorDetail_PanicFrames: a task's error opened in the value viewer
// holds the panic's frames under its one-line text; another error is its
// text alone.
func TestErrorDetail_PanicFrames(t *testing.T) {
	err := &engine.NodeError{Node: "tool", Step: 2, Panic: true, Err: &engine.PanicError{Value: "boom", At: "main.tool, tools.go:42", Stack: "main.tool\n\t/src/tools.go:42\n"}}
	got := errorDetail(err)
	if want := err.Error() + "\n\npanicked at:\nmain.tool\n\t/src/tools.go:42\n"; string(got) != want {
		t.Errorf("errorDetail = %q, want %q", got, want)
	}
	plain := &engine.NodeError{Node: "tool", Step: 2, Err: errors.New("bad input")}
	if got := errorDetail(plain); string(got) != plain.Error() || strings.Contains(string(got), "panicked at") {
		t.Errorf("errorDetail of a plain error = %q", got)
	}
}

// A task's error opened from the tasks pane reads as its text, and y
// copies that text: a one-line error was shown and copied as a JSON
// string, node \"summarize\" failed, its quotes escaped.
func TestModel_InspectError_ReadsAsText(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	m, _ := replayedFailure(t, 80, 24)
	m = press(t, m, "esc", "tab", "tab", "tab", "j", "enter")
	if m.mode != modeInspect || m.insp.title != "summarize error" {
		t.Fatalf("mode %v, inspecting %q", m.mode, m.insp.title)
	}
	want := `node "summarize" failed at step 4: upstream model returned 503`
	if got := strings.Join(m.insp.lines, "\n"); got != want {
		t.Fatalf("the inspector shows %q, want %q", got, want)
	}
	m.clipboard = func() io.Writer { return io.Discard }
	m = press(t, m, "y")
	if !strings.HasPrefix(m.note, "copied to ") {
		t.Fatalf("note %q err %v", m.note, m.err)
	}
	got, err := os.ReadFile(strings.Fields(m.note)[2])
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want+"\n" || !strings.HasSuffix(strings.Fields(m.note)[2], ".txt") {
		t.Fatalf("copied %q to %s, want %q", got, strings.Fields(m.note)[2], want+"\n")
	}
}

// e on the recorded run's failure runs summarize alone: the recorded
// error opens as text too (it was the saved error's JSON string).
func TestModel_RerunRecordedError_ReadsAsText(t *testing.T) {
	m, end := replayedFailure(t, 120, 40)
	for m.tree.selected() == nil || m.tree.selected().Config.CheckpointID != end {
		m = press(t, m, "down")
	}
	m = press(t, m, "e")
	if m.mode != modeDiff {
		t.Fatalf("mode %v note %q err %v", m.mode, m.note, m.err)
	}
	for r, ok := m.diff.selected(); !ok || r.name != "summarize recorded error"; r, ok = m.diff.selected() {
		if m.diff.nav.cur == len(m.diff.rows)-1 {
			t.Fatalf("no recorded error row:\n%s", m.View())
		}
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	want := `node "summarize" failed at step 3: upstream model returned 503`
	if got := strings.Join(m.insp.lines, "\n"); m.mode != modeInspect || got != want {
		t.Fatalf("mode %v, the inspector shows %q, want %q", m.mode, got, want)
	}
}
