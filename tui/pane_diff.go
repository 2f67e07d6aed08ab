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
// versions_seen entries of the graph's nodes that moved. What differs
// only in the engine's bookkeeping (its internal channels, versions_seen
// entries of no node such as __interrupt__) is what a person diffing two
// checkpoints rarely asks about and what makes every diff look alike: it
// is counted and hidden, as the main view hides internal channels, and i
// lists it after the rest. The lines are built once per diff (and per
// i); rows with a value open it in the inspector.
type diffPane struct {
	title string
	rows  []taskRow
	nav   listNav
	keys  diffKeyMap // made by enableKeys
	// of is the checkpoint diff drawn, kept so that i draws it again;
	// nil when the pane shows a task run alone.
	of *checkpointDiff
	// showInternal lists the internal differences after the others.
	showInternal bool
	// nextTask: a run-alone result opened from the tree on a checkpoint
	// that plans several tasks; e runs the next one alone.
	nextTask bool
	// rerun: the pane shows a task run alone, not a diff.
	rerun bool
}

// checkpointDiff is a diff of two checkpoints with what the pane needs to
// draw it: the names of its two sides (id and step, in the title and in
// what enter opens) and the graph's roles.
type checkpointDiff struct {
	d              *engine.CheckpointDiff
	labelA, labelB string
	roles          diffRoles
}

// diffRoles is what a diff knows of the graph its checkpoints belong to:
// which channels hold messages (their changes read as a conversation),
// which are the engine's own (engine.ChannelInfo.Internal: __start__,
// branch:to:…, join:…, the task topic) and which names are the graph's
// nodes: versions_seen also keys entries by names that are not
// (__interrupt__: the versions the last interrupt check saw; __start__,
// the input), which are the engine's bookkeeping as well.
type diffRoles struct {
	convo, internal, nodes map[string]bool
}

// diffRolesOf reads info's roles.
func diffRolesOf(info engine.GraphInfo) diffRoles {
	r := diffRoles{convo: conversationChannels(info), internal: map[string]bool{}, nodes: map[string]bool{}}
	for _, c := range info.Channels {
		if c.Internal {
			r.internal[c.Name] = true
		}
	}
	for _, n := range info.Nodes {
		r.nodes[n.Name] = true
	}
	return r
}

// stepNote is how a diff names a checkpoint's step beside its id.
func stepNote(step int) string { return fmt.Sprintf("(step %d)", step) }

// newDiffPane lists d; labelA and labelB name its two checkpoints (id and
// step), in the title and in what enter opens, whose side they say.
// showInternal lists the internal differences too (the i setting the
// main view has).
func newDiffPane(d *engine.CheckpointDiff, labelA, labelB string, roles diffRoles, showInternal bool) diffPane {
	p := diffPane{title: fmt.Sprintf("Diff · a %s → b %s", labelA, labelB), of: &checkpointDiff{d: d, labelA: labelA, labelB: labelB, roles: roles}, showInternal: showInternal}
	p.build()
	return p
}

// split parts the diff's channels and versions_seen entries into what the
// graph's state and nodes show and the engine's bookkeeping.
func (c *checkpointDiff) split() (chans, internalChans []engine.ChannelDiff, seen, internalSeen []engine.SeenDiff) {
	for _, ch := range c.d.Channels {
		if c.roles.internal[ch.Channel] {
			internalChans = append(internalChans, ch)
		} else {
			chans = append(chans, ch)
		}
	}
	for _, s := range c.d.Seen {
		if c.roles.nodes[s.Node] {
			seen = append(seen, s)
		} else {
			internalSeen = append(internalSeen, s)
		}
	}
	return chans, internalChans, seen, internalSeen
}

// internalCount is how many differences are the engine's bookkeeping.
func (c *checkpointDiff) internalCount() int {
	_, ic, _, is := c.split()
	return len(ic) + len(is)
}

// build lays the diff out as rows: the channels that differ, the nodes'
// versions_seen, then (when shown) the internal differences, and a
// summary that counts what is hidden.
func (p *diffPane) build() {
	c := p.of
	d := c.d
	p.rows = nil
	chans, internalChans, seen, internalSeen := c.split()
	hidden := len(internalChans) + len(internalSeen)
	if len(d.Channels) == 0 && len(d.Seen) == 0 {
		p.add(taskRow{text: "the two checkpoints hold the same channels, versions and versions_seen", style: dimStyle})
	}
	p.addChannels(chans)
	p.addSeen("versions_seen", seen)
	if p.showInternal && hidden > 0 {
		p.add(taskRow{text: "internal: the engine's own channels and bookkeeping (i hides them)", style: dimStyle})
		p.addChannels(internalChans)
		p.addSeen("versions_seen (not of a node)", internalSeen)
	}
	verb := "differ"
	if len(chans) == 1 {
		verb = "differs"
	}
	// What is unchanged is counted as the differences are: the engine's
	// own channels only when they are shown.
	unchanged := d.Unchanged
	if !p.showInternal {
		unchanged -= d.UnchangedInternal
	}
	sum := fmt.Sprintf("%s %s, %d unchanged", plural(len(chans), "channel"), verb, unchanged)
	switch {
	case hidden > 0 && p.showInternal:
		sum += " · " + plural(hidden, "internal difference") + " listed last"
	case hidden > 0:
		sum += " · " + plural(hidden, "internal difference") + " hidden: i shows them"
	}
	p.add(taskRow{text: sum, style: dimStyle})
	p.nav.cur = clamp(p.nav.cur, 0, max(0, len(p.rows)-1))
}

func (p *diffPane) add(r taskRow) { p.rows = append(p.rows, r) }

// addChannels adds a row per channel with its versions (its value on b's
// side opens), and one per change inside its value.
func (p *diffPane) addChannels(chans []engine.ChannelDiff) {
	la, lb := p.of.labelA, p.of.labelB
	for _, c := range chans {
		head := fmt.Sprintf("%s  %s → %s", c.Channel, verText(c.VersionA, c.HasVersionA), verText(c.VersionB, c.HasVersionB))
		if len(c.Changes) == 0 {
			head += "  (version only)"
		}
		p.add(taskRow{text: head, style: updatedStyle, value: c.ValueB, hasValue: c.HasValueB, name: c.Channel + " at " + lb})
		for _, ch := range c.Changes {
			path := ch.Path
			if path == "" {
				path = "value"
			}
			if p.of.roles.convo[c.Channel] {
				path = conversationPath(path, ch)
			}
			switch ch.Kind {
			case engine.Added:
				p.add(taskRow{text: "  + " + path + ": " + preview(ch.B, previewBudget), style: addedStyle, value: ch.B, hasValue: true, name: c.Channel + " " + path + " (added at " + lb + ")"})
			case engine.Removed:
				p.add(taskRow{text: "  - " + path + ": " + preview(ch.A, previewBudget), style: removedStyle, value: ch.A, hasValue: true, name: c.Channel + " " + path + " (removed: at " + la + ")"})
			default:
				p.add(taskRow{text: "  ~ " + path + ": " + preview(ch.A, previewBudget/2) + " → " + preview(ch.B, previewBudget/2),
					value: map[string]any{"a": ch.A, "b": ch.B}, hasValue: true, name: c.Channel + " " + path + " (a " + la + " → b " + lb + ")"})
			}
		}
	}
}

// addSeen adds the versions_seen entries under heading, if there are any.
func (p *diffPane) addSeen(heading string, seen []engine.SeenDiff) {
	if len(seen) == 0 {
		return
	}
	p.add(taskRow{text: heading, style: dimStyle})
	for _, s := range seen {
		p.add(taskRow{text: fmt.Sprintf("  %s · %s  %s → %s", s.Node, s.Channel, verText(s.A, s.HasA), verText(s.B, s.HasB))})
	}
}

// toggleInternal shows or hides the internal differences, the cursor
// staying on a row.
func (p *diffPane) toggleInternal(on bool) {
	if p.of == nil || p.showInternal == on {
		return
	}
	p.showInternal = on
	p.build()
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
	out = append(out, st.Dim.Render(cut(p.footer(), w)))
	return strings.Join(out, "\n")
}

// footer is the pane's last line: its keys, i when it applies.
func (p diffPane) footer() string {
	if p.of != nil && p.of.internalCount() > 0 {
		if p.showInternal {
			return "↑↓ move · enter inspect · i hide internal · esc close"
		}
		return "↑↓ move · enter inspect · i show internal · esc close"
	}
	return "↑↓ move · enter inspect · esc close"
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
	case key.Matches(msg, k.Internal):
		m.setShowInternal(!m.diff.showInternal)
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
// diff pane shows): move, open a value in the inspector, show the
// internal differences, close.
type diffKeyMap struct {
	Up, Down, PageUp, PageDown, Open, Internal, Back key.Binding
	Next                                             key.Binding // run-alone: the checkpoint's next task
}

func newDiffKeyMap() diffKeyMap {
	return diffKeyMap{Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown(), Open: keyOpen(), Internal: keyInternal(), Back: keyBack(), Next: keyRerun()}
}

func (k diffKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Open, k.Internal, k.Back}
}

func (k diffKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colMoving, k.Up, k.Down, k.PageUp, k.PageDown, k.Open, k.Internal)
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
	// i applies when the diff has internal differences to show or hide.
	k.Internal.SetEnabled(p.of != nil && p.of.internalCount() > 0)
	if p.showInternal {
		k.Internal.SetHelp("i", "hide internal differences")
	} else {
		k.Internal.SetHelp("i", "show internal differences")
	}
}
