package tui

import (
	"github.com/charmbracelet/lipgloss"
)

// fullHelp lays the help columns side by side, or in two rows of two when
// the window is too narrow for four.
func (m Model) fullHelp(w int) string {
	groups := m.keys.FullHelp()
	hm := m.help
	hm.Width = 0
	all := hm.FullHelpView(groups)
	if lipgloss.Width(all) <= w {
		return all
	}
	return hm.FullHelpView(groups[:2]) + "\n\n" + hm.FullHelpView(groups[2:])
}

// helpView is the ? overlay: every key that applies where it was opened.
func (m Model) helpView(w, bh int) string {
	st := m.styles
	return st.box("Keys", m.fullHelp(w-2)+"\n\n"+st.Dim.Render("Mouse: a click focuses a pane and selects a row, the wheel scrolls (shift+drag selects text).\nKeys that do not apply right now are hidden. Any key closes this help."), w, bh, true)
}
