package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// runSettings are the engine options of the runs the debugger starts:
// LangGraph's interrupt_before / interrupt_after ("*" for every node) and
// recursion_limit (0: the engine's default), and durability: when the
// checkpoints reach the disk ("sync", "async", "exit"; "" keeps the
// store's), which the store owns (Options.SetDurability). Unlike the debugger's own
// breakpoints (b, B), these are the engine's: a run stops there with an
// interrupt recorded in the checkpoint, as a server run configured so
// would.
type runSettings struct {
	before, after []string
	limit         int
	durability    string
}

// durabilities are the modes LangGraph's durability run option takes.
var durabilities = []string{"sync", "async", "exit"}

// settingsForm edits runSettings.
type settingsForm struct {
	inputs []textinput.Model // before, after, recursion limit, durability
	sel    int
	err    string
	prev   mode
	// durable: the store's durability can be changed (the last field is
	// shown); current is its mode now.
	durable bool
	current string
	keys    settingsKeyMap // made by enableKeys
}

var settingsLabels = []string{"interrupt before", "interrupt after", "recursion limit", "durability"}

// newSettingsForm fills the form from rs. current is the store's
// durability now, "" when it cannot be changed (the field is left out).
func newSettingsForm(rs runSettings, prev mode, current string) settingsForm {
	vals := []string{strings.Join(rs.before, ", "), strings.Join(rs.after, ", "), "", rs.durability}
	if rs.limit > 0 {
		vals[2] = strconv.Itoa(rs.limit)
	}
	holders := []string{"node, node…  or *", "node, node…  or *", "25 (the engine's default)", current + " (as the database was opened)   sync · async · exit"}
	f := settingsForm{prev: prev, durable: current != "", current: current}
	if !f.durable {
		vals, holders = vals[:3], holders[:3]
	}
	for i, v := range vals {
		ti := lineInput("", holders[i], 0)
		ti.SetValue(v)
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
	if f.durable {
		d := strings.ToLower(strings.TrimSpace(f.inputs[3].Value()))
		if d != "" && !slices.Contains(durabilities, d) {
			return rs, fmt.Errorf("durability: %q is not one of %s", d, strings.Join(durabilities, ", "))
		}
		rs.durability = d
	}
	return rs, nil
}

func (m *Model) openSettings() {
	cur := ""
	if m.opts.Durability != nil && m.opts.SetDurability != nil {
		cur = m.opts.Durability()
	}
	m.settings = newSettingsForm(m.run, m.mode, cur)
	m.mode = modeSettings
}

func (m *Model) settingsKey(msg tea.KeyMsg) tea.Cmd {
	f := &m.settings
	k := &f.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = f.prev
		return nil
	case key.Matches(msg, k.NextField):
		f.move(1)
		return nil
	case key.Matches(msg, k.PrevField):
		f.move(-1)
		return nil
	case msg.Type == tea.KeyEnter:
		rs, err := f.parse(m.graph.nodes[1:])
		if err != nil {
			f.err = err.Error()
			return nil
		}
		old := m.run
		m.run = rs
		m.mode = f.prev
		m.note = "run settings apply from the next step: " + rs.describe()
		// The session takes the engine's options with its next Cmd; the
		// store takes the durability now.
		return tea.Batch(m.saveCmd(), m.durabilityCmd(old.durability, rs.durability))
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
	if rs.durability != "" {
		parts = append(parts, "durability "+rs.durability)
	}
	if len(parts) == 0 {
		return "the graph's own (no interrupts, default recursion limit)"
	}
	return strings.Join(parts, "; ")
}

// settingsView lays the form out in w×h. The explanations wrap to the
// width, so every word of them can be read; the error sits right under
// the fields it is about. When the form is taller than the room, it
// scrolls so the focused field (and the error) stay on screen: a field
// typed into off screen is typed into blind.
func (m Model) settingsView(w, h int) string {
	st := m.styles
	f := m.settings
	var lines []string
	para := func(style func(...string) string, s string) {
		lines = append(lines, wrapLines(style(s), w)...)
	}
	para(st.Label.Render, "Run settings: the engine's options for the runs the debugger starts (LangGraph's interrupt_before / interrupt_after, recursion_limit, durability)")
	lines = append(lines, "")
	first := len(lines)
	for i, in := range f.inputs {
		label := pad(settingsLabels[i], 18)
		if i == f.sel {
			label = st.Key.Render(label)
		}
		lines = append(lines, label+" "+in.View())
	}
	// keep is the last line that must stay in view with the focused field.
	keep := len(lines) - 1
	if f.err != "" {
		para(st.Error.Render, glyphFailed+" "+f.err)
		keep = len(lines) - 1
	}
	lines = append(lines, "")
	para(st.Dim.Render, "The debugger's own breakpoints (b, B, C) stop without writing anything; these interrupts are recorded in the checkpoints.")
	if f.durable {
		para(st.Dim.Render, "Durability: sync commits each checkpoint before the next step, async while it runs, exit when the debugger closes (async and exit keep the database open: other commands wait).")
	} else {
		para(st.Dim.Render, "Durability: this store keeps checkpoints in memory; there is no disk to choose when to write to.")
	}
	if m.lastInput != nil {
		para(st.Dim.Render, "A new thread (T, n) starts from the last input used with this graph: "+preview(m.lastInput, previewBudget))
	}
	room := max(1, h-1)
	off := formOffset(len(lines), room, first+f.sel, keep)
	out := fit(strings.Join(lines[off:], "\n"), w, h-1)
	return out + "\n" + st.Dim.Render(ansi.Truncate("tab/↑↓ field · enter apply · esc cancel", w, "…"))
}

// formOffset is the first of n lines a form shows in room lines: none
// scrolled off when all fit; else the fewest that show every line from
// focus to keep (the fields and the error under them), and never so many
// that the focused line scrolls off the top.
func formOffset(n, room, focus, keep int) int {
	if n <= room {
		return 0
	}
	off := max(0, keep-room+1)
	return clamp(min(off, focus), 0, n-room)
}

// settingsKeyMap is the run settings form's keys: move between its
// fields, apply or cancel.
type settingsKeyMap struct {
	NextField, PrevField, Open, Back key.Binding
}

func newSettingsKeyMap() settingsKeyMap {
	return settingsKeyMap{
		NextField: bind("tab/↓", "next field", "tab", "down"), PrevField: bind("⇧tab/↑", "previous field", "shift+tab", "up"),
		Open: keyOpen(), Back: keyBack(),
	}
}

func (k settingsKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Open, k.Back} }

func (k settingsKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colForms, k.Back)
	cols[colMoving] = []key.Binding{k.NextField, k.PrevField, k.Open}
	return cols
}

// enableKeys enables the settings form's keys.
func (f *settingsForm) enableKeys(hasSess bool) {
	k := &f.keys
	*k = made(newSettingsKeyMap)
	disableAll(k)
	k.Open.SetEnabled(hasSess)
	k.Open.SetHelp("enter", "apply")
	k.Back.SetEnabled(true)
	k.Back.SetHelp("esc", "cancel")
	k.NextField.SetEnabled(true)
	k.PrevField.SetEnabled(true)
}

// durabilityCmd sets the store's durability when the settings changed it
// (from, to: "" is the store's own, left as it is). Flushing what is
// buffered is I/O, so it runs as a Cmd; a failure shows as an error.
func (m *Model) durabilityCmd(from, to string) tea.Cmd {
	set := m.opts.SetDurability
	if set == nil || to == "" || to == from {
		return nil
	}
	return func() tea.Msg {
		if err := set(to); err != nil {
			return settingsMsg{err: fmt.Errorf("durability %s: %w", to, err), durabilityRefused: true}
		}
		return nil
	}
}
