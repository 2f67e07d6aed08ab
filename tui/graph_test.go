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
