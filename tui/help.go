package tui

import (
	"reflect"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The ? overlay (f1 also opens it from a text box, where ? is typed)
// lists every key of the debugger: first those that do something on the
// screen it was opened over, then the rest, which apply elsewhere. It
// scrolls when the window is too short; any other key closes it.

// helpKeyMap scrolls the overlay; any key outside it closes the overlay.
type helpKeyMap struct {
	Up, Down, PageUp, PageDown key.Binding
}

func newHelpKeyMap() helpKeyMap {
	return helpKeyMap{Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown()}
}

func (k helpKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown}
}

func (k helpKeyMap) FullHelp() [][]key.Binding {
	return helpColumns(colMoving, k.Up, k.Down, k.PageUp, k.PageDown)
}

// openHelp shows the overlay over the current screen.
func (m *Model) openHelp() {
	m.helpPrev, m.mode, m.helpOff = m.mode, modeHelp, 0
}

// helpKey scrolls the overlay or closes it.
func (m *Model) helpKey(msg tea.KeyMsg) {
	k := &m.helpKeys
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

// helpSections lists every key of every component: "here" the keys the
// screen under the overlay has on now (its component's and the global
// ones), "elsewhere" the keys of every other screen and those this one
// turns on later, each once (shown enabled, so the help model renders
// them). A key is the same key elsewhere when its letters and its words,
// as its component makes it, are the same.
func (m Model) helpSections() (here, elsewhere [][]key.Binding) {
	here = make([][]key.Binding, numHelpColumns)
	elsewhere = make([][]key.Binding, numHelpColumns)
	listed := map[string]bool{}
	id := func(b key.Binding) string { return b.Help().Key + "\x00" + b.Help().Desc }
	for _, live := range []help.KeyMap{m.activeKeys(), m.global} {
		plain := madeAs(live).FullHelp()
		for c, col := range live.FullHelp() {
			for i, b := range col {
				if b.Enabled() {
					here[c] = append(here[c], b)
					listed[id(plain[c][i])] = true
				}
			}
		}
	}
	for _, km := range componentKeyMaps() {
		for c, col := range km.FullHelp() {
			for _, b := range col {
				if !listed[id(b)] {
					listed[id(b)] = true
					b.SetEnabled(true)
					elsewhere[c] = append(elsewhere[c], b)
				}
			}
		}
	}
	return here, elsewhere
}

// madeAs is a key map as its component makes it: every key with the words
// it has when the component is not on screen.
func madeAs(km help.KeyMap) help.KeyMap {
	for _, plain := range componentKeyMaps() {
		if reflect.TypeOf(plain) == reflect.TypeOf(km) {
			return plain
		}
	}
	return km
}

// columns lays groups side by side, or two by two, or one under another
// when the window is too narrow for more of them in a row.
func (m Model) columns(groups [][]key.Binding, w int) string {
	hm := m.help
	hm.Width = 0
	var nonEmpty [][]key.Binding
	for _, g := range groups {
		if len(g) > 0 {
			nonEmpty = append(nonEmpty, g)
		}
	}
	for _, per := range []int{len(groups), (len(nonEmpty) + 1) / 2, 1} {
		if per < 1 {
			break
		}
		src := nonEmpty
		if per == len(groups) {
			src = groups
		}
		var rows []string
		for i := 0; i < len(src); i += per {
			rows = append(rows, hm.FullHelpView(src[i:min(i+per, len(src))]))
		}
		text := strings.Join(rows, "\n\n")
		if lipgloss.Width(text) <= w || per == 1 {
			return text
		}
	}
	return ""
}

// helpLines is the overlay's whole text, w cells wide.
func (m Model) helpLines(w int) []string {
	st := m.styles
	here, elsewhere := m.helpSections()
	wrap := func(s string) string { return ansi.Wordwrap(s, max(1, w), " ") }
	text := st.Label.Render("Keys here") + "\n" + m.columns(here, w) + "\n\n" +
		st.Label.Render(wrap("Keys elsewhere (other screens, or once the run is there)")) + "\n" + st.Dim.Render(m.columns(elsewhere, w)) + "\n\n" +
		st.Dim.Render(wrap("Mouse: a click focuses a pane and selects a row, the wheel scrolls (shift+drag selects text).")+"\n"+wrap("f1 opens this help from a text box. ↑↓ pgup pgdn scroll it; any other key closes it."))
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
