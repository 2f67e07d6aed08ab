package tui

import (
	"fmt"
	"strings"
	"testing"
)

// g draws the graph as boxes and arrows in the graph pane; moving the
// selection scrolls the drawing to the selected box.
func TestModel_GraphDrawn(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := engineModel(t, "research", sz.w, sz.h)
			m = press(t, m, "s", "s", "n", "g")
			if !m.graph.drawn {
				t.Fatal("g did not switch to the drawing")
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("graph-%dx%d.golden", sz.w, sz.h), m.View())
			// Select synthesize at the bottom: the window follows it.
			for m.graph.selected() != "synthesize" {
				m = press(t, m, "down")
			}
			if v := m.View(); !strings.Contains(v, "│ synthesize │") {
				t.Fatalf("the drawing did not scroll to the selected box:\n%s", v)
			}
			checkFrame(t, m)
			m = press(t, m, "g")
			if m.graph.drawn || !strings.Contains(m.View(), "→ __end__") {
				t.Fatal("g again goes back to the list")
			}
		})
	}
}

// The graph list's legend names the edge kinds the graph has and the
// breakpoint marks while one is set, so that at 80 columns it ends with
// its key, g: it listed every kind and was cut at "●…" on every graph.
func TestModel_GraphLegend_NamesWhatIsDrawn(t *testing.T) {
	m := engineModel(t, "linear", 80, 24)
	legend := func() string {
		lines := strings.Split(m.View(), "\n")
		return lines[2+m.topHeight()-2] // the graph box's last inner row
	}
	if l := legend(); !strings.Contains(l, "│→ edge · g draw ") || strings.Contains(l, "conditional") || strings.Contains(l, "before") {
		t.Errorf("a graph of plain edges, no breakpoint: %q", l)
	}
	m = press(t, m, "j", "b", "tab") // a breakpoint before a; the focus away
	if !m.bp.before["a"] {
		t.Fatalf("b set no breakpoint: %+v", m.bp)
	}
	if l := legend(); !strings.Contains(l, "→ edge  ● before ○ after · g draw") {
		t.Errorf("with a breakpoint: %q", l)
	}
	m = press(t, m, "shift+tab", "b", "tab")
	if l := legend(); m.bp.before["a"] || strings.Contains(l, "before") {
		t.Errorf("the breakpoint removed, the legend kept its marks: %q", l)
	}
	m = engineModel(t, "research", 80, 24)
	if l := legend(); !strings.Contains(l, "⇢ conditional") || !strings.Contains(l, "g draw") {
		t.Errorf("research: %q", l)
	}
}
