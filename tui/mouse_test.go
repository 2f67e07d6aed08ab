package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func click(x, y int) tea.MouseMsg {
	return tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
}

func wheel(x, y, d int) tea.MouseMsg {
	b := tea.MouseButtonWheelDown
	if d < 0 {
		b = tea.MouseButtonWheelUp
	}
	return tea.MouseMsg{X: x, Y: y, Button: b, Action: tea.MouseActionPress}
}

// A click focuses the pane under the pointer and selects the row clicked;
// the wheel scrolls what is under it.
func TestModel_Mouse(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := engineModel(t, "research", sz.w, sz.h)
			m = press(t, m, "s", "s", "s")
			// The third channel row: body starts at row 2, the border takes one.
			m = send(t, m, click(m.leftWidth()+5, bodyTop+1+2))
			if m.focus != paneChannels || m.chans.selectedName() != "findings" {
				t.Fatalf("focus %v channel %q", m.focus, m.chans.selectedName())
			}
			// The second node of the graph list.
			m = send(t, m, click(3, bodyTop+1+1))
			if m.focus != paneGraph || m.graph.selected() != "plan_queries" {
				t.Fatalf("focus %v node %q", m.focus, m.graph.selected())
			}
			// Wheel over versions_seen moves its cursor.
			y := bodyTop + m.topHeight() + 3
			before := m.seen.nav.cur
			m = send(t, m, wheel(2, y, 1))
			if m.focus != paneSeen || m.seen.nav.cur != min(before+3, len(m.seen.rows)-1) {
				t.Fatalf("focus %v seen cursor %d", m.focus, m.seen.nav.cur)
			}
			// In the tree a click selects the checkpoint on that row.
			m = press(t, m, "t")
			m = send(t, m, click(2, bodyTop+1+m.tree.points[2]-m.tree.nav.off))
			if m.tree.nav.cur != 2 {
				t.Fatalf("tree cursor %d", m.tree.nav.cur)
			}
			checkFrame(t, m)
		})
	}
}

// Goldens after a click in the channels pane (focus and the row selected)
// and the wheel over versions_seen, then a click in the tree.
func TestModel_Mouse_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := engineModel(t, "research", sz.w, sz.h)
			m = press(t, m, "s", "s", "s")
			m = send(t, m, click(m.leftWidth()+5, bodyTop+1+2), wheel(2, bodyTop+m.topHeight()+3, 1))
			if m.focus != paneSeen || m.chans.selectedName() != "findings" {
				t.Fatalf("focus %v channel %q", m.focus, m.chans.selectedName())
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("mouse-main-%dx%d.golden", sz.w, sz.h), m.View())
			m = press(t, m, "t")
			m = send(t, m, click(2, bodyTop+1+m.tree.points[1]-m.tree.nav.off))
			if m.tree.nav.cur != 1 {
				t.Fatalf("tree cursor %d", m.tree.nav.cur)
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("mouse-tree-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}
