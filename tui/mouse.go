package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// The screen's geometry, as View lays it out: the header and status line
// take the first two rows, the body starts below them.
const bodyTop = 2

// mouse handles a click or the wheel: a click focuses the pane under the
// pointer and selects the row clicked; the wheel scrolls what is under the
// pointer (in the main view) or the open overlay (inspector, tree, diff).
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	wheel := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		wheel = -3
	case tea.MouseButtonWheelDown:
		wheel = 3
	case tea.MouseButtonLeft:
		if msg.Action != tea.MouseActionPress {
			return nil
		}
	default:
		return nil
	}
	switch m.mode {
	case modeMain:
		return m.mouseMain(msg, wheel)
	case modeInspect:
		if wheel != 0 {
			m.insp.scroll(wheel, m.bodyHeight()-3)
		}
	case modeDiff:
		if wheel != 0 {
			m.diff.nav.move(wheel, len(m.diff.rows))
		} else if row := m.diff.rowAt(msg.Y-bodyTop-1, m.width-2, m.bodyHeight()-2); row >= 0 {
			m.diff.nav.cur = row
		}
	case modeSubgraph:
		m.sub.mouse(msg.X, msg.Y-bodyTop, m.width, wheel)
	case modeSubStep:
		m.mouseSubStep(msg, wheel)
	case modeTree:
		if wheel != 0 {
			m.tree.nav.move(wheel, len(m.tree.snaps))
		} else if r := msg.Y - bodyTop - 1 + m.tree.nav.off; r >= 0 && r < len(m.tree.rows) && m.tree.rows[r].snap >= 0 {
			m.tree.nav.cur = m.tree.rows[r].snap
		}
		m.refreshTreePreview()
	}
	return nil
}

// mouseMain finds the pane under the pointer in the 2×2 grid.
func (m *Model) mouseMain(msg tea.MouseMsg, wheel int) tea.Cmd {
	y := msg.Y - bodyTop
	if y < 0 || y >= m.bodyHeight() {
		return nil
	}
	topH := m.topHeight()
	right := msg.X >= m.leftWidth()
	var pane paneID
	var row int // the row inside the pane's border
	switch {
	case y < topH && !right:
		pane, row = paneGraph, y-1
	case y < topH:
		pane, row = paneChannels, y-1
	case !right:
		pane, row = paneSeen, y-topH-2 // its first row is the column header
	default:
		pane, row = paneTasks, y-topH-1
		if len(m.watches) > 0 {
			row -= min(len(m.watches)+2, (m.bodyHeight()-topH)/2)
		}
	}
	m.focus = pane
	if wheel != 0 {
		m.moveFocused(wheel)
		return nil
	}
	if row < 0 {
		return nil
	}
	switch pane {
	case paneGraph:
		if !m.graph.drawn {
			m.graph.nav.cur = clamp(m.graph.nav.off+row, 0, len(m.graph.nodes)-1)
			return nil
		}
		// A click on a box selects its node.
		x, dy := msg.X-1+m.graph.ox, row+m.graph.oy
		for name, b := range m.graph.drawing.Boxes {
			if x >= b.X && x < b.X+b.W && dy >= b.Y && dy < b.Y+b.H {
				m.graph.selectNode(name)
			}
		}
	case paneChannels:
		m.chans.nav.cur = clamp(m.chans.nav.off+row, 0, len(m.chans.shown)-1)
	case paneSeen:
		m.seen.nav.cur = clamp(m.seen.nav.off+row, 0, len(m.seen.rows)-1)
		m.seen.pinned = true
	case paneTasks:
		m.tasks.nav.cur = clamp(m.tasks.nav.off+row, 0, len(m.tasks.rows)-1)
	}
	return nil
}
