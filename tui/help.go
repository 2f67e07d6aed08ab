package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// The ? overlay (f1 also opens it from a text box, where ? is typed)
// lists every key of the debugger: first those that do something on the
// screen it was opened over, then the rest, which apply elsewhere. It
// scrolls when the window is too short; any other key closes it.

// openHelp shows the overlay over the current screen.
func (m *Model) openHelp() {
	m.helpPrev, m.mode, m.helpOff = m.mode, modeHelp, 0
}

// helpKey scrolls the overlay or closes it.
func (m *Model) helpKey(msg tea.KeyMsg) {
	k := &m.keys
	h := m.bodyHeight() - 2
	switch {
	case key.Matches(msg, k.Up):
		m.helpOff--
	case key.Matches(msg, k.Down):
		m.helpOff++
	case key.Matches(msg, k.PageUp):
		m.helpOff -= h
	case key.Matches(msg, k.PageDown):
		m.helpOff += h
	default:
		m.mode = m.helpPrev
		return
	}
	m.helpOff = clamp(m.helpOff, 0, max(0, len(m.helpLines(m.width-2))-h))
}

// helpSections splits the key groups into the bindings enabled now and
// the others (shown enabled, so the help model renders them).
func (m Model) helpSections() (here, elsewhere [][]key.Binding) {
	for _, g := range m.keys.FullHelp() {
		var h, e []key.Binding
		for _, b := range g {
			if b.Enabled() {
				h = append(h, b)
				continue
			}
			b.SetEnabled(true)
			e = append(e, b)
		}
		here, elsewhere = append(here, h), append(elsewhere, e)
	}
	return here, elsewhere
}

// columns lays groups side by side, or two by two when the window is too
// narrow for all of them in a row.
func (m Model) columns(groups [][]key.Binding, w int) string {
	hm := m.help
	hm.Width = 0
	all := hm.FullHelpView(groups)
	if lipgloss.Width(all) <= w {
		return all
	}
	half := (len(groups) + 1) / 2
	return hm.FullHelpView(groups[:half]) + "\n\n" + hm.FullHelpView(groups[half:])
}

// helpLines is the overlay's whole text, w cells wide.
func (m Model) helpLines(w int) []string {
	st := m.styles
	here, elsewhere := m.helpSections()
	text := st.Label.Render("Keys here") + "\n" + m.columns(here, w) + "\n\n" +
		st.Label.Render("Keys elsewhere (other screens, or once the run is there)") + "\n" + st.Dim.Render(m.columns(elsewhere, w)) + "\n\n" +
		st.Dim.Render("Mouse: a click focuses a pane and selects a row, the wheel scrolls (shift+drag selects text).\nf1 opens this help from a text box. ↑↓ pgup pgdn scroll it; any other key closes it.")
	return strings.Split(text, "\n")
}

// helpView is the overlay, scrolled to helpOff.
func (m Model) helpView(w, bh int) string {
	st := m.styles
	lines := m.helpLines(w - 2)
	h := bh - 2
	off := clamp(m.helpOff, 0, max(0, len(lines)-h))
	end := min(len(lines), off+h)
	title := "Keys"
	if len(lines) > h {
		title += " · ↑↓ more"
	}
	return st.box(title, strings.Join(lines[off:end], "\n"), w, bh, true)
}
