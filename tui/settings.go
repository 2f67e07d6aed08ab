package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// runSettings are the engine options of the runs the debugger starts:
// LangGraph's interrupt_before / interrupt_after ("*" for every node) and
// recursion_limit (0: the engine's default). Unlike the debugger's own
// breakpoints (b, B), these are the engine's: a run stops there with an
// interrupt recorded in the checkpoint, as a server run configured so
// would.
type runSettings struct {
	before, after []string
	limit         int
}

// settingsForm edits runSettings.
type settingsForm struct {
	inputs []textinput.Model // before, after, recursion limit
	sel    int
	err    string
	prev   mode
}

var settingsLabels = []string{"interrupt before", "interrupt after", "recursion limit"}

func newSettingsForm(rs runSettings, prev mode) settingsForm {
	vals := []string{strings.Join(rs.before, ", "), strings.Join(rs.after, ", "), ""}
	if rs.limit > 0 {
		vals[2] = strconv.Itoa(rs.limit)
	}
	holders := []string{"node, node…  or *", "node, node…  or *", "25 (the engine's default)"}
	f := settingsForm{prev: prev}
	for i, v := range vals {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = holders[i]
		ti.SetValue(v)
		ti.Cursor.SetMode(cursor.CursorStatic)
		f.inputs = append(f.inputs, ti)
	}
	f.inputs[0].Focus()
	return f
}

func (f *settingsForm) move(d int) {
	f.inputs[f.sel].Blur()
	f.sel = (f.sel + d + len(f.inputs)) % len(f.inputs)
	f.inputs[f.sel].Focus()
}

// parse checks the form against the graph's nodes.
func (f settingsForm) parse(nodes []string) (runSettings, error) {
	known := map[string]bool{"*": true}
	for _, n := range nodes {
		known[n] = true
	}
	list := func(i int) ([]string, error) {
		var out []string
		for _, n := range strings.Split(f.inputs[i].Value(), ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if !known[n] {
				return nil, fmt.Errorf("%s: the graph has no node %q", settingsLabels[i], n)
			}
			out = append(out, n)
		}
		return out, nil
	}
	var rs runSettings
	var err error
	if rs.before, err = list(0); err != nil {
		return rs, err
	}
	if rs.after, err = list(1); err != nil {
		return rs, err
	}
	if s := strings.TrimSpace(f.inputs[2].Value()); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return rs, fmt.Errorf("recursion limit: %q is not a positive whole number", s)
		}
		rs.limit = n
	}
	return rs, nil
}

func (m *Model) openSettings() {
	m.settings = newSettingsForm(m.run, m.mode)
	m.mode = modeSettings
}

func (m *Model) settingsKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	f := &m.settings
	switch {
	case key.Matches(msg, k.Back):
		m.mode = f.prev
		return nil
	case msg.Type == tea.KeyTab || msg.Type == tea.KeyDown:
		f.move(1)
		return nil
	case msg.Type == tea.KeyShiftTab || msg.Type == tea.KeyUp:
		f.move(-1)
		return nil
	case msg.Type == tea.KeyEnter || key.Matches(msg, k.Submit):
		rs, err := f.parse(m.graph.nodes[1:])
		if err != nil {
			f.err = err.Error()
			return nil
		}
		m.run = rs
		m.mode = f.prev
		m.note = "run settings apply from the next step: " + rs.describe()
		return m.saveCmd() // the session takes them with its next Cmd
	}
	var cmd tea.Cmd
	f.inputs[f.sel], cmd = f.inputs[f.sel].Update(msg)
	f.err = ""
	return cmd
}

func (rs runSettings) describe() string {
	var parts []string
	if len(rs.before) > 0 {
		parts = append(parts, "interrupt before "+strings.Join(rs.before, ", "))
	}
	if len(rs.after) > 0 {
		parts = append(parts, "interrupt after "+strings.Join(rs.after, ", "))
	}
	if rs.limit > 0 {
		parts = append(parts, fmt.Sprintf("recursion limit %d", rs.limit))
	}
	if len(parts) == 0 {
		return "the graph's own (no interrupts, default recursion limit)"
	}
	return strings.Join(parts, "; ")
}

func (m Model) settingsView(w, h int) string {
	st := m.styles
	f := m.settings
	lines := []string{st.Label.Render(cut("Run settings: the engine's options for the runs the debugger starts (LangGraph's interrupt_before / interrupt_after, recursion_limit)", w)), ""}
	for i, in := range f.inputs {
		label := pad(settingsLabels[i], 18)
		if i == f.sel {
			label = st.Key.Render(label)
		}
		lines = append(lines, label+" "+in.View())
	}
	lines = append(lines, "", st.Dim.Render(cut("The debugger's own breakpoints (b, B, C) stop without writing anything; these interrupts are recorded in the checkpoints.", w)))
	if m.lastInput != nil {
		lines = append(lines, st.Dim.Render(cut("A new thread (T, n) starts from the last input used with this graph: "+preview(m.lastInput, previewBudget), w)))
	}
	if f.err != "" {
		lines = append(lines, st.Error.Render(cut("✗ "+f.err, w)))
	}
	out := fit(strings.Join(lines, "\n"), w, h-1)
	return out + "\n" + st.Dim.Render(ansi.Truncate("tab/↑↓ field · enter apply · esc cancel", w, "…"))
}

// enableKeys enables the settings form's keys.
func (f *settingsForm) enableKeys(k *KeyMap, hasSess bool) {
	k.Open.SetEnabled(hasSess)
	k.Open.SetHelp("enter", "apply")
	k.Back.SetEnabled(true)
	k.Back.SetHelp("esc", "cancel")
}
