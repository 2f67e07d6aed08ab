package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// diffPane draws engine.DiffCheckpoints: each channel that differs with
// its versions and the structural changes inside its value, then the
// versions_seen entries that moved. The lines are built once per diff;
// rows with a value open it in the inspector.
type diffPane struct {
	title string
	rows  []taskRow
	nav   listNav
	keys  diffKeyMap // made by enableKeys
	// nextTask: a run-alone result opened from the tree on a checkpoint
	// that plans several tasks; e runs the next one alone.
	nextTask bool
	// rerun: the pane shows a task run alone, not a diff.
	rerun bool
}

// stepNote is how a diff names a checkpoint's step beside its id.
func stepNote(step int) string { return fmt.Sprintf("(step %d)", step) }

// newDiffPane lists d; labelA and labelB name its two checkpoints (id and
// step), in the title and in what enter opens, whose side they say.
func newDiffPane(d *engine.CheckpointDiff, labelA, labelB string, convo map[string]bool) diffPane {
	p := diffPane{title: fmt.Sprintf("Diff · a %s → b %s", labelA, labelB)}
	add := func(r taskRow) { p.rows = append(p.rows, r) }
	if len(d.Channels) == 0 && len(d.Seen) == 0 {
		add(taskRow{text: "the two checkpoints hold the same channels, versions and versions_seen", style: dimStyle})
	}
	for _, c := range d.Channels {
		head := fmt.Sprintf("%s  %s → %s", c.Channel, verText(c.VersionA, c.HasVersionA), verText(c.VersionB, c.HasVersionB))
		if len(c.Changes) == 0 {
			head += "  (version only)"
		}
		add(taskRow{text: head, style: updatedStyle, value: c.ValueB, hasValue: c.HasValueB, name: c.Channel + " at " + labelB})
		for _, ch := range c.Changes {
			path := ch.Path
			if path == "" {
				path = "value"
			}
			if convo[c.Channel] {
				path = conversationPath(path, ch)
			}
			switch ch.Kind {
			case engine.Added:
				add(taskRow{text: "  + " + path + ": " + preview(ch.B, previewBudget), style: addedStyle, value: ch.B, hasValue: true, name: c.Channel + " " + path + " (added at " + labelB + ")"})
			case engine.Removed:
				add(taskRow{text: "  - " + path + ": " + preview(ch.A, previewBudget), style: removedStyle, value: ch.A, hasValue: true, name: c.Channel + " " + path + " (removed: at " + labelA + ")"})
			default:
				add(taskRow{text: "  ~ " + path + ": " + preview(ch.A, previewBudget/2) + " → " + preview(ch.B, previewBudget/2),
					value: map[string]any{"a": ch.A, "b": ch.B}, hasValue: true, name: c.Channel + " " + path + " (a " + labelA + " → b " + labelB + ")"})
			}
		}
	}
	if len(d.Seen) > 0 {
		add(taskRow{text: "versions_seen", style: dimStyle})
		for _, s := range d.Seen {
			add(taskRow{text: fmt.Sprintf("  %s · %s  %s → %s", s.Node, s.Channel, verText(s.A, s.HasA), verText(s.B, s.HasB))})
		}
	}
	add(taskRow{text: fmt.Sprintf("%d channels differ, %d unchanged", len(d.Channels), d.Unchanged), style: dimStyle})
	return p
}

// conversationPath names a message change by role, so a diff of a
// messages channel reads as a conversation: [id=m2] → ai m2.
func conversationPath(path string, ch engine.ValueChange) string {
	m, _ := ch.B.(map[string]any)
	if m == nil {
		m, _ = ch.A.(map[string]any)
	}
	if role, ok := m["role"].(string); ok && strings.HasPrefix(path, "[id=") {
		return role + " " + path
	}
	return path
}

func verText(v engine.Version, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("v%d", v)
}

func addedStyle(st Styles) func(...string) string   { return st.Added.Render }
func removedStyle(st Styles) func(...string) string { return st.Removed.Render }

func (p diffPane) selected() (taskRow, bool) {
	if p.nav.cur < len(p.rows) && len(p.rows) > 0 {
		return p.rows[p.nav.cur], true
	}
	return taskRow{}, false
}

// View draws the rows in w×h. A row with a value is one line, cut to the
// width: enter opens the value whole. A row without one (a verdict, a
// note) has nowhere else to be read, so it wraps; the window is worked out
// in lines, so the cursor's row shows to its end.
func (p diffPane) View(st Styles, w, h int) string {
	body := h - 1
	texts, from, to := p.layout(w, body)
	out := make([]string, 0, h)
	for i := from; i < to && len(out) < body; i++ {
		r := p.rows[i]
		for _, line := range texts[i] {
			if len(out) == body {
				break
			}
			if i == p.nav.cur {
				line = st.Cursor.Render(pad(ansi.Strip(line), w))
			} else if r.style != nil {
				line = r.style(st)(line)
			}
			out = append(out, line)
		}
	}
	for len(out) < body {
		out = append(out, "")
	}
	out = append(out, st.Dim.Render(cut("↑↓ move · enter inspect · esc close", w)))
	return strings.Join(out, "\n")
}

// layout wraps every row for w cells and picks the rows that show in
// body lines.
func (p diffPane) layout(w, body int) (texts [][]string, from, to int) {
	texts = make([][]string, len(p.rows))
	for i, r := range p.rows {
		texts[i] = p.rowLines(r, w)
	}
	from, to = p.lineWindow(texts, body)
	return texts, from, to
}

// rowAt is the row drawn on line y (0: the first) of a w×h View, or -1:
// a click lands on the row it shows, however many lines the rows above
// it wrapped to.
func (p diffPane) rowAt(y, w, h int) int {
	if y < 0 || y >= h-1 {
		return -1
	}
	texts, from, to := p.layout(w, h-1)
	for i := from; i < to; i++ {
		if y < len(texts[i]) {
			return i
		}
		y -= len(texts[i])
	}
	return -1
}

// rowLines is row r as it shows in w cells: one cut line when it has a
// value, else its text wrapped, the later lines indented as its first.
func (p diffPane) rowLines(r taskRow, w int) []string {
	text := termtext.Name(r.text)
	if r.hasValue || lipgloss.Width(text) <= w {
		return []string{cut(text, w)}
	}
	body := strings.TrimLeft(text, " ")
	indent := strings.Repeat(" ", min(len(text)-len(body), w/2))
	lines := strings.Split(ansi.Wrap(body, max(1, w-len(indent)), " "), "\n")
	for i := range lines {
		lines[i] = indent + lines[i]
	}
	return lines
}

// lineWindow returns the rows [from, to) to draw in body lines, rows
// being texts[i] tall: from the offset the model follows the cursor with
// (by rows), moved down until the cursor's row ends on screen, and up
// while the rows after it leave lines blank.
func (p diffPane) lineWindow(texts [][]string, body int) (from, to int) {
	n := len(texts)
	if n == 0 {
		return 0, 0
	}
	cur := clamp(p.nav.cur, 0, n-1)
	from = clamp(p.nav.off, 0, cur)
	height := func(a, b int) int {
		s := 0
		for i := a; i < b; i++ {
			s += len(texts[i])
		}
		return s
	}
	for from < cur && height(from, cur+1) > body {
		from++
	}
	for from > 0 && height(from-1, n) <= body {
		from--
	}
	to = from
	for used := 0; to < n && used < body; to++ {
		used += len(texts[to])
	}
	return from, to
}

// setMark marks checkpoint id for d (or unmarks it when it is marked).
func (m *Model) setMark(id string) {
	if m.mark == id {
		m.mark = ""
		m.note = "mark cleared: d diffs with the parent"
		return
	}
	m.mark = id
	m.note = "marked " + shortID(id) + ": d on any checkpoint diffs it with this one"
}

// diffWith diffs checkpoint b with the marked checkpoint, or with parent
// when none is marked (or b is the mark).
func (m *Model) diffWith(b, parent string) tea.Cmd {
	a, la := parent, "parent "+shortID(parent)
	if m.mark != "" && m.mark != b {
		a, la = m.mark, "marked "+shortID(m.mark)
	}
	if a == "" {
		m.note = "this checkpoint has no parent: m marks a checkpoint to diff with"
		return nil
	}
	m.diffAB = [2]string{la, shortID(b)}
	return m.do(opDiff, func(ctx context.Context, s session) opDoneMsg {
		d, steps, err := s.Diff(ctx, a, b)
		return opDoneMsg{diff: d, diffSteps: steps, err: err}
	})
}

func (m *Model) diffKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.diff.keys
	h := m.bodyHeight() - 3
	switch {
	case key.Matches(msg, k.Back):
		m.mode = m.diffPrev
	case key.Matches(msg, k.Up):
		m.diff.nav.move(-1, len(m.diff.rows))
	case key.Matches(msg, k.Down):
		m.diff.nav.move(1, len(m.diff.rows))
	case key.Matches(msg, k.PageUp):
		m.diff.nav.move(-h, len(m.diff.rows))
	case key.Matches(msg, k.PageDown):
		m.diff.nav.move(h, len(m.diff.rows))
	case key.Matches(msg, k.Next):
		return m.rerunTreeTask()
	case key.Matches(msg, k.Open):
		if r, ok := m.diff.selected(); ok && r.hasValue {
			m.insp = newInspector(r.name, r.value)
			m.prevMode, m.mode = m.mode, modeInspect
		}
	}
	return nil
}

// setSize keeps the cursor in view.
func (p *diffPane) setSize(bh int) { p.nav.follow(bh-3, len(p.rows)) }

// diffKeyMap is the diff's keys (and the run-alone result's, which the
// diff pane shows): move, open a value in the inspector, close.
type diffKeyMap struct {
	Up, Down, PageUp, PageDown, Open, Back key.Binding
	Next                                   key.Binding // run-alone: the checkpoint's next task
}

func newDiffKeyMap() diffKeyMap {
	return diffKeyMap{Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown(), Open: keyOpen(), Back: keyBack(), Next: keyRerun()}
}

func (k diffKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Next, k.Open, k.Back} }

func (k diffKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colMoving, k.Up, k.Down, k.PageUp, k.PageDown, k.Open)
	cols[colForms] = []key.Binding{k.Back}
	cols[colCheckpoints] = []key.Binding{k.Next}
	return cols
}

// enableKeys enables the diff's keys.
func (p *diffPane) enableKeys() {
	k := &p.keys
	*k = made(newDiffKeyMap)
	disableAll(k)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Back} {
		b.SetEnabled(true)
	}
	r, ok := p.selected()
	k.Open.SetEnabled(ok && r.hasValue)
	k.Open.SetHelp("enter", "inspect value")
	k.Back.SetHelp("esc", "close diff")
	if p.rerun {
		k.Back.SetHelp("esc", "close")
	}
	k.Next.SetEnabled(p.nextTask)
	k.Next.SetHelp("e", "next task alone")
}
