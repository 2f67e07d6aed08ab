package tui

import (
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
