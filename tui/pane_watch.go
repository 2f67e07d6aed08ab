package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/termtext"
)

// promptKind is what a one-line prompt adds.
type promptKind int

const (
	promptCondition promptKind = iota
	promptWatch
)

// promptForm asks for one expression.
type promptForm struct {
	kind  promptKind
	input textinput.Model
	err   string
	prev  mode
	keys  promptKeyMap // made by enableKeys
}

func (m *Model) openPrompt(kind promptKind) tea.Cmd {
	ti := lineInput(map[promptKind]string{promptCondition: "break when › ", promptWatch: "watch › "}[kind],
		map[promptKind]string{promptCondition: "len(state.findings) >= 3", promptWatch: "state.approved"}[kind], 500)
	m.prompt = promptForm{kind: kind, input: ti, prev: m.mode}
	m.mode = modePrompt
	return m.prompt.input.Focus()
}

func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.prompt.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = m.prompt.prev
		return nil
	case msg.Type == tea.KeyEnter:
		src := strings.TrimSpace(m.prompt.input.Value())
		if src == "" {
			m.prompt.err = "type an expression over state, e.g. " + m.prompt.input.Placeholder
			return nil
		}
		x := m.compileSlot(src)
		if x.cond == nil {
			m.prompt.err = x.err
			return nil
		}
		if v := m.view; v != nil {
			x.eval(v.CheckpointID, v.Values)
			x.evalBase(m.parentValues, m.parentAt == v.CheckpointID && v.ParentID != "")
		}
		if m.prompt.kind == promptCondition {
			m.bp.conds = append(m.bp.conds, x)
			m.note = "conditional breakpoint: c stops where " + src + " becomes true"
			if x.holds {
				m.note += " (it holds already: c stops when it next turns true)"
			}
			if x.err != "" && m.view != nil {
				// Evaluated here it errors: say so now, not never.
				x.errSaid = true
				m.note = fmt.Sprintf("breakpoint added, but it cannot be evaluated at checkpoint %s and stops nothing while it errs (L lists it): %s", shortID(m.view.CheckpointID), x.err)
			}
		} else {
			m.watches = append(m.watches, x)
			m.note = "watching " + src
		}
		m.mode = m.prompt.prev
		return m.saveCmd()
	}
	var cmd tea.Cmd
	m.prompt.input, cmd = m.prompt.input.Update(msg)
	m.prompt.err = ""
	return cmd
}

// breakItem is one row of the breakpoints list, with how to remove it.
type breakItem struct {
	text   string
	remove func(m *Model)
}

func (m *Model) breakItems() []breakItem {
	var out []breakItem
	for _, n := range setList(m.bp.before) {
		n := n
		out = append(out, breakItem{"● before node " + n, func(m *Model) { delete(m.bp.before, n) }})
	}
	for _, n := range setList(m.bp.after) {
		n := n
		out = append(out, breakItem{"○ after node " + n, func(m *Model) { delete(m.bp.after, n) }})
	}
	for _, c := range setList(m.bp.channels) {
		c := c
		out = append(out, breakItem{"◆ when channel " + c + " changes", func(m *Model) { delete(m.bp.channels, c) }})
	}
	for i, x := range m.bp.conds {
		i := i
		out = append(out, breakItem{"? when " + x.src + " becomes true" + slotState(x, true), func(m *Model) {
			m.bp.conds = append(m.bp.conds[:i:i], m.bp.conds[i+1:]...)
		}})
	}
	if m.bp.onError {
		out = append(out, breakItem{glyphFailed + " when a task fails", func(m *Model) { m.bp.onError = false }})
	}
	for i, x := range m.watches {
		i := i
		out = append(out, breakItem{"watch " + x.src + slotState(x, false), func(m *Model) {
			m.watches = append(m.watches[:i:i], m.watches[i+1:]...)
		}})
	}
	return out
}

func slotState(x *exprSlot, cond bool) string {
	switch {
	case x.err != "":
		return "  " + glyphFailed + " " + x.err
	case cond:
		return fmt.Sprintf("  (now %v)", x.holds)
	}
	return "  = " + x.cur
}

func (m *Model) breaksKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.breaksKeys
	items := m.breakItems()
	switch {
	case key.Matches(msg, k.Back):
		m.mode = modeMain
	case key.Matches(msg, k.Up):
		m.breaks.move(-1, len(items))
	case key.Matches(msg, k.Down):
		m.breaks.move(1, len(items))
	case key.Matches(msg, k.Remove):
		if m.breaks.cur < len(items) {
			items[m.breaks.cur].remove(m)
			m.note = "removed: " + items[m.breaks.cur].text
			return m.saveCmd()
		}
	case key.Matches(msg, k.Exprs.Condition, k.Exprs.Watch, k.Exprs.BreakOnError):
		return m.addBreakKey(k.Exprs, msg)
	}
	return nil
}

// addBreakKey handles C, W and E (k, the map of the view they were
// pressed in), in the main view and in the list of breakpoints alike.
func (m *Model) addBreakKey(k breakKeys, msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, k.Condition):
		return m.openPrompt(promptCondition)
	case key.Matches(msg, k.Watch):
		return m.openPrompt(promptWatch)
	}
	m.bp.onError = !m.bp.onError
	m.note = map[bool]string{true: "break on error: c stops after an Execute where a task failed", false: "break on error off"}[m.bp.onError]
	return m.saveCmd()
}

// saveCmd persists the breakpoints and watches (nil without a store).
func (m *Model) saveCmd() tea.Cmd {
	save := m.saveBreakpoints()
	if save == nil {
		return nil
	}
	return func() tea.Msg { return save() }
}

func (m Model) breaksView(w, h int) string {
	st := m.styles
	items := m.breakItems()
	out := []string{}
	if len(items) == 0 {
		out = append(out, st.Dim.Render("no breakpoints or watches: b/B on a node, b on a channel, C a condition, W a watch, E on errors"))
	}
	from, to := m.breaks.window(h-2, len(items))
	for i := from; i < to; i++ {
		line := cut(termtext.Name(items[i].text), w)
		if i == m.breaks.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		}
		out = append(out, line)
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = append(out, st.Dim.Render(cut("x remove · C condition · W watch · E break on error · esc back", w)))
	return strings.Join(out, "\n")
}

// watchesView lists the watches with their values at the checkpoint on
// screen; * marks those whose value differs at the checkpoint's parent.
func (m Model) watchesView(w, h int) string {
	st := m.styles
	var out []string
	for _, x := range m.watches {
		mark := " "
		if x.changed() {
			mark = st.Updated.Render("*")
		}
		val := x.cur
		if x.err != "" {
			val = st.Error.Render(glyphFailed + " " + x.err)
		}
		line := cut(x.src+" = "+val, w-1)
		if x.changed() {
			line = st.Updated.Render(line)
		}
		out = append(out, mark+line)
	}
	return fit(strings.Join(out, "\n"), w, h)
}

func (m Model) promptView(w, h int) string {
	st := m.styles
	what := "Conditional breakpoint: c stops at the checkpoint where the expression becomes true"
	if m.prompt.kind == promptWatch {
		what = "Watch: the expression's value at each checkpoint, marked when it changes"
	}
	lines := append(wrapLines(st.Label.Render(what), w), wrapLines(st.Dim.Render("the scenario files' expressions over state: len(state.messages) > 6, state.approved == false"), w)...)
	lines = append(lines, "", m.prompt.input.View())
	if m.prompt.err != "" {
		// Whole: the expression language's error says where it stopped.
		lines = append(lines, wrapLines(st.Error.Render(glyphFailed+" "+m.prompt.err), w)...)
	}
	return fit(strings.Join(lines, "\n"), w, h)
}

// setSize gives the expression line the box's width.
func (f *promptForm) setSize(w int) { setLineWidth(&f.input, max(10, w-20)) }

// promptKeyMap is the expression prompt's keys: add or cancel.
type promptKeyMap struct {
	Open, Back key.Binding
}

func newPromptKeyMap() promptKeyMap { return promptKeyMap{Open: keyOpen(), Back: keyBack()} }

func (k promptKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Open, k.Back} }

func (k promptKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colForms, k.Back)
	cols[colMoving] = []key.Binding{k.Open}
	return cols
}

// enableKeys enables the prompt's keys.
func (f *promptForm) enableKeys() {
	k := &f.keys
	*k = made(newPromptKeyMap)
	disableAll(k)
	k.Open.SetEnabled(true)
	k.Open.SetHelp("enter", "add")
	k.Back.SetEnabled(true)
	k.Back.SetHelp("esc", "cancel")
}

// breaksKeyMap is the keys of the list of breakpoints and watches.
type breaksKeyMap struct {
	Up, Down key.Binding
	Exprs    breakKeys
	Remove   key.Binding
	Back     key.Binding
}

func newBreaksKeyMap() breaksKeyMap {
	return breaksKeyMap{Up: keyUp(), Down: keyDown(), Exprs: newBreakKeys(), Remove: bind("x", "remove", "x", "delete"), Back: keyBack()}
}

func (k breaksKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Back} }

func (k breaksKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colRun, k.Exprs.Condition, k.Exprs.Watch, k.Exprs.BreakOnError, k.Remove)
	cols[colMoving] = []key.Binding{k.Up, k.Down}
	cols[colForms] = []key.Binding{k.Back}
	return cols
}

// enableKeys enables the keys of the list of breakpoints and watches,
// which has n items.
func (k *breaksKeyMap) enableKeys(n int) {
	*k = made(newBreaksKeyMap)
	disableAll(k)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Exprs.Condition, &k.Exprs.Watch, &k.Exprs.BreakOnError, &k.Back} {
		b.SetEnabled(true)
	}
	k.Remove.SetEnabled(n > 0)
	k.Back.SetHelp("esc", "back")
}
