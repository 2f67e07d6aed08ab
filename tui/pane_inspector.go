package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// lineCap bounds the bytes of one line that get highlighted: a line can be
// a megabyte-long string, and coloring it whole would cost a frame.
const lineCap = 1024

// inspector is a scrollable, highlighted view of one value, readable in
// full: long lines wrap at the pane's width (w turns wrapping off, and
// then ←→ scroll sideways). The value is laid out once when it opens and
// rewrapped only when the width changes; lines are highlighted only when
// they first scroll into view and are kept, so a keypress costs one
// screenful at most.
type inspector struct {
	title   string
	lines   []string
	isJSON  bool
	colored map[int]string
	off     int // first visual row shown

	nowrap bool
	hoff   int // cells scrolled sideways when not wrapping
	width  int // the width vis was laid out for
	vis    []visRow

	// A list of chat messages reads as a conversation (v switches to its
	// JSON and back; ids on demand).
	value    any
	canConvo bool
	convo    bool
	ids      bool
	keys     inspectorKeyMap // made by enableKeys
}

// visRow is one screen row: bytes [from, to) of a logical line.
type visRow struct{ line, from, to int }

func newInspector(title string, v any) inspector {
	p := inspector{title: title, value: v, colored: map[int]string{}}
	_, p.canConvo = conversationLines(v, false)
	p.convo = p.canConvo
	p.relayout()
	return p
}

// relayout builds the lines for the current form (conversation or JSON).
func (p *inspector) relayout() {
	if p.convo {
		p.lines, _ = conversationLines(p.value, p.ids)
		p.isJSON = false
	} else {
		p.lines, p.isJSON = prettyLines(p.value)
	}
	p.colored = map[int]string{}
	w := p.width
	p.vis, p.width, p.off = nil, 0, 0
	if w > 0 {
		p.layout(w)
	}
}

// toggleConvo switches between the conversation and the JSON.
func (p *inspector) toggleConvo() {
	if p.canConvo {
		p.convo = !p.convo
		p.relayout()
	}
}

// toggleIDs shows or hides message ids in the conversation.
func (p *inspector) toggleIDs() {
	if p.convo {
		p.ids = !p.ids
		p.relayout()
	}
}

// layout computes the screen rows for width w, keeping the top row's
// place in the value across a rewrap.
func (p *inspector) layout(w int) {
	w = max(1, w)
	if p.vis != nil && p.width == w {
		return
	}
	top := visRow{}
	if p.off < len(p.vis) {
		top = p.vis[p.off]
	}
	p.width = w
	p.vis = p.vis[:0]
	for i, l := range p.lines {
		if p.nowrap || len(l) <= w { // bytes ≥ cells: it fits
			p.vis = append(p.vis, visRow{i, 0, len(l)})
			continue
		}
		p.vis = wrapLine(p.vis, i, l, w)
	}
	p.off = 0
	for k, r := range p.vis {
		if r.line > top.line || r.line == top.line && r.from >= top.from {
			p.off = k
			break
		}
	}
}

// wrapLine appends the rows of line i, l, at width w: each row ends after
// the last space (or wide character) that fits, so that words, ids and
// numbers stay whole, and a word longer than a row is cut where the row
// ends.
func wrapLine(rows []visRow, i int, l string, w int) []visRow {
	from, cells := 0, 0
	brk, brkCells := -1, 0 // just after the row's last space, and the cells before it
	word := false          // the row has a character that is not a space
	for j, r := range l {
		rw := 1
		if r >= 0x300 { // ASCII and Latin take one cell; measure the rest
			rw = max(0, ansi.StringWidth(string(r)))
		}
		if cells+rw > w && j > from {
			if brk > from {
				rows = append(rows, visRow{i, from, brk})
				// What moves down is the word after the last space.
				from, cells, word = brk, cells-brkCells, j > brk
			} else {
				rows = append(rows, visRow{i, from, j})
				from, cells, word = j, 0, false
			}
			brk = -1
		}
		cells += rw
		switch {
		case r == ' ' && !word:
			// An indent (a panic's frame's file, a nested JSON value)
			// is no place to break: the row would be blank.
		case r == ' ' || rw == 2:
			// A space ends a word; wide (CJK) text breaks between any
			// two of its characters.
			brk, brkCells = j+utf8.RuneLen(r), cells
		}
		if r != ' ' {
			word = true
		}
	}
	return append(rows, visRow{i, from, len(l)})
}

func (p *inspector) scroll(d, h int) {
	p.off = clamp(p.off+d, 0, max(0, len(p.vis)-h))
}

// toggleWrap switches between wrapped rows and sideways scrolling.
func (p *inspector) toggleWrap() {
	p.nowrap, p.hoff = !p.nowrap, 0
	w := p.width
	p.vis, p.width = nil, 0
	if w > 0 {
		p.layout(w)
	}
}

// side scrolls sideways by d cells when not wrapping.
func (p *inspector) side(d int) {
	if p.nowrap {
		p.hoff = max(0, p.hoff+d)
	}
}

// prepare lays out for a w×h window and highlights the whole lines in it
// that are not yet; rows of a wrapped line stay plain, since a fragment of
// JSON does not lex.
func (p *inspector) prepare(w, h int) {
	p.layout(w)
	p.off = clamp(p.off, 0, max(0, len(p.vis)-h))
	if !p.isJSON {
		return
	}
	for k := p.off; k < min(len(p.vis), p.off+h); k++ {
		r := p.vis[k]
		if r.from != 0 || r.to != len(p.lines[r.line]) || len(p.lines[r.line]) > lineCap {
			continue
		}
		if _, ok := p.colored[r.line]; !ok {
			p.colored[r.line] = highlightJSONLine(p.lines[r.line])
		}
	}
}

func (p inspector) row(k, w int) string {
	r := p.vis[k]
	l := p.lines[r.line]
	whole := r.from == 0 && r.to == len(l)
	if c, ok := p.colored[r.line]; ok && whole && p.hoff == 0 {
		return ansi.Truncate(c, w, "…")
	}
	s := l[r.from:r.to]
	if p.nowrap {
		// Cut a window of cells out of a line that may be a megabyte.
		s = ansi.Cut(s[:min(len(s), byteBudget(s, p.hoff+w))], p.hoff, p.hoff+w)
	}
	return ansi.Truncate(s, w, "…")
}

// byteBudget is an upper bound on the bytes that hold the first n cells of
// s: no cell takes more than 4 bytes.
func byteBudget(s string, n int) int { return min(len(s), 4*n+4) }

func (p inspector) View(st Styles, w, h int) string {
	out := make([]string, 0, max(h, 0))
	body := h - 1
	if p.vis == nil {
		p.layout(w)
	}
	for k := p.off; k < min(len(p.vis), p.off+body); k++ {
		out = append(out, p.row(k, w))
	}
	for len(out) < body {
		out = append(out, "")
	}
	out = append(out, st.Dim.Render(cut(p.hints(body, w), w)))
	return strings.Join(out, "\n")
}

// hints is the inspector's last line: where in the value it is, then its
// keys, each whole or not at all; those the footer also has (y, esc) give
// way first, then scrolling, then the form's own (v, I, w). At 80
// columns it was cut in the middle of "scroll".
func (p inspector) hints(body, w int) string {
	type part = headerPart
	parts := []part{{p.position(body), 0}}
	switch {
	case p.nowrap:
		parts = append(parts, part{fmt.Sprintf("col %d", p.hoff+1), 0}, part{"←→ scroll", 3}, part{"w wrap", 2})
	case p.convo:
		parts = append(parts, part{"v JSON", 1}, part{"I ids", 1})
	case p.canConvo:
		parts = append(parts, part{"v conversation", 1})
	}
	if !p.nowrap {
		parts = append(parts, part{"↑↓ pgup pgdn scroll", 3}, part{"w no wrap", 2})
	}
	parts = append(parts, part{"y copy", 4}, part{"esc close", 5})
	var texts []string
	for _, pt := range fitParts(parts, " · ", w) {
		texts = append(texts, pt.text)
	}
	return strings.Join(texts, " · ")
}

// lineSpan says which lines of the value body rows show, counted from 1:
// "lines 3–9 of 40".
func (p inspector) lineSpan(body int) string {
	first, last := 0, 0
	if len(p.vis) > 0 {
		first = p.vis[clamp(p.off, 0, len(p.vis)-1)].line + 1
		last = p.vis[clamp(min(len(p.vis), p.off+body)-1, 0, len(p.vis)-1)].line + 1
	}
	return fmt.Sprintf("lines %d–%d of %d", first, last, len(p.lines))
}

// position is lineSpan, and with wrapped lines the rows shown of them.
func (p inspector) position(body int) string {
	pos := p.lineSpan(body)
	if len(p.vis) > len(p.lines) && len(p.vis) > body {
		// Wrapped lines longer than the pane: where in them the view is.
		pos += fmt.Sprintf(" (rows %d–%d of %d)", p.off+1, min(len(p.vis), p.off+body), len(p.vis))
	}
	return pos
}

// cutOff reports whether body rows show less than the whole value.
func (p inspector) cutOff(body int) bool { return p.off > 0 || len(p.vis) > body }

// setSize lays the value out for the room the inspector has.
func (p *inspector) setSize(w, h int) { p.prepare(w, h) }

// inspectorKeyMap is the inspector's keys: scrolling, wrapping, and a
// messages value shown as a conversation or as JSON.
type inspectorKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Wrap wraps long lines, or lets Left and Right scroll them sideways.
	Wrap, Left, Right key.Binding
	// Conversation switches a messages value between conversation and
	// JSON; IDs shows or hides the message ids.
	Conversation, IDs key.Binding
	// Copy copies the value to the clipboard and a file.
	Copy key.Binding
	Back key.Binding
}

func newInspectorKeyMap() inspectorKeyMap {
	return inspectorKeyMap{
		Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown(),
		Top: bind("home/g", "top", "home", "g"), Bottom: bind("end/G", "bottom", "end", "G"),
		Wrap: bind("w", "wrap long lines", "w"), Left: keyLeft(), Right: keyRight(),
		Conversation: bind("v", "as JSON", "v"), IDs: bind("I", "message ids", "I"),
		Copy: bind("y", "copy the value", "y"), Back: keyBack(),
	}
}

func (k inspectorKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Copy, k.Back} }

func (k inspectorKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colMoving, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Wrap, k.Left, k.Right, k.Conversation, k.IDs, k.Copy)
	cols[colForms] = []key.Binding{k.Back}
	return cols
}

// enableKeys enables the inspector's keys.
func (p *inspector) enableKeys() {
	k := &p.keys
	*k = made(newInspectorKeyMap)
	disableAll(k)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom, &k.Wrap, &k.Copy, &k.Back} {
		b.SetEnabled(true)
	}
	k.Left.SetEnabled(p.nowrap)
	k.Right.SetEnabled(p.nowrap)
	k.Conversation.SetEnabled(p.canConvo)
	if p.convo {
		k.Conversation.SetHelp("v", "as JSON")
	} else {
		k.Conversation.SetHelp("v", "as conversation")
	}
	k.IDs.SetEnabled(p.convo)
	k.Back.SetHelp("esc", "close")
}

// update handles a key in the inspector; h is the rows it shows. It
// reports whether the key closes it.
func (p *inspector) update(msg tea.KeyMsg, h int) (closed bool) {
	k := &p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.scroll(-1, h)
	case key.Matches(msg, k.Down):
		p.scroll(1, h)
	case key.Matches(msg, k.PageUp):
		p.scroll(-h, h)
	case key.Matches(msg, k.PageDown):
		p.scroll(h, h)
	case key.Matches(msg, k.Top):
		p.off = 0
	case key.Matches(msg, k.Bottom):
		p.scroll(len(p.vis), h)
	case key.Matches(msg, k.Wrap):
		p.toggleWrap()
	case key.Matches(msg, k.Conversation):
		p.toggleConvo()
	case key.Matches(msg, k.IDs):
		p.toggleIDs()
	case key.Matches(msg, k.Left):
		p.side(-max(1, p.width/2))
	case key.Matches(msg, k.Right):
		p.side(max(1, p.width/2))
	case key.Matches(msg, k.Back):
		return true
	}
	return false
}

// inspectView puts the inspector where the channels and tasks were, the
// graph and versions_seen staying beside it.
func (m Model) inspectView(w, bh int) string {
	st := m.styles
	rw := w - m.leftWidth()
	graph, _, seen, _ := m.mainPanes()
	if m.showsSubStep() { // opened from a subgraph run being stepped
		graph, _, seen, _ = m.subStepPanes(m.into.level(), w, bh)
	}
	insp := st.box("Inspect · "+m.insp.title, m.insp.View(st, rw-2, bh-2), rw, bh, true)
	return lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.JoinVertical(lipgloss.Left, graph, seen), insp)
}
