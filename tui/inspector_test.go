package tui

import (
	"encoding/base64"
	"io"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// A value whose one line wraps to more rows than the pane has says where
// in it the view is: "lines 1–1 of 2" alone did not move while pgdn
// scrolled through a 3,000-character line.
func TestInspector_WrappedLineSaysWhichRows(t *testing.T) {
	q := strings.Repeat("长", 3000) + "\n" + strings.Repeat("x", 500)
	p := newInspector("q", q)
	p.setSize(60, 20)
	p.enableKeys()
	top := p.View(DefaultStyles(), 60, 20)
	if !strings.Contains(top, "lines 1–1 of 2 (rows 1–19 of") {
		t.Fatalf("top of the value:\n%s", top)
	}
	p.update(keys("pgdown")[0].(tea.KeyMsg), 19)
	if v := p.View(DefaultStyles(), 60, 20); !strings.Contains(v, "lines 1–1 of 2 (rows 20–38 of") {
		t.Fatalf("after pgdn:\n%s", v)
	}
}

// y in the inspector copies the whole value, not only what is on screen:
// to the terminal's clipboard (OSC 52) and to a file the note names.
func TestInspector_CopyValue(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	m := engineModel(t, "research", 100, 30)
	m = press(t, m, "c", "esc", "tab", "enter") // question, at the interrupt
	if m.mode != modeInspect {
		t.Fatalf("mode %v", m.mode)
	}
	var term strings.Builder
	m.clipboard = func() io.Writer { return &term }
	m = press(t, m, "y")
	if !strings.HasPrefix(m.note, "copied to ") || !strings.Contains(m.note, "of question") {
		t.Fatalf("note %q err %v", m.note, m.err)
	}
	file := strings.Fields(m.note)[2]
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := `"LangGraph 在生产环境的可靠性"` + "\n"
	if string(got) != want {
		t.Fatalf("file %s holds %q, want %q", file, got, want)
	}
	if !strings.Contains(term.String(), "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte(want))) {
		t.Fatalf("no OSC 52 copy sent to the terminal: %q", term.String())
	}
	if m.mode != modeInspect {
		t.Fatalf("y closed the inspector: mode %v", m.mode)
	}
}

// The inspector's last line gives up its keys whole, those the footer
// also has first: at 80 columns it ended "↑↓ pgup pgdn scroll …".
func TestInspector_HintsGiveWayWhole(t *testing.T) {
	p := newInspector("v", map[string]any{"a": 1})
	p.setSize(36, 10)
	for _, c := range []struct {
		w    int
		want string
	}{
		{120, "lines 1–3 of 3 · ↑↓ pgup pgdn scroll · w no wrap · y copy · esc close"},
		{60, "lines 1–3 of 3 · ↑↓ pgup pgdn scroll · w no wrap · y copy"},
		{36, "lines 1–3 of 3 · w no wrap"},
		{10, "lines 1–3 of 3"},
	} {
		if got := p.hints(9, c.w); got != c.want {
			t.Errorf("hints at %d = %q, want %q", c.w, got, c.want)
		}
	}
}
