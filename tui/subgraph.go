package tui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// subgraphRef is one step of the way into a subgraph: the parent's task
// that ran it.
type subgraphRef struct {
	node   string
	taskID string
	label  string // the node, or node[i] when its step ran several copies
	// under is the namespace of the run the task belongs to ("" at the
	// root): a retried subgraph's later run is "<ns>|1", and its tasks'
	// namespaces go on from there.
	under string
}

// ns is the namespace the task's subgraph ran in (its first run).
func (r subgraphRef) ns() string { return engine.TaskNamespace(r.under, r.node, r.taskID) }

// subgraphLevel is what the saver holds for one subgraph namespace, read
// only: its checkpoints, newest first, built into snapshots by the
// subgraph itself.
type subgraphLevel struct {
	ns    string
	snaps []*engine.StateSnapshot
	// runs are the namespaces of the task's subgraph runs, first to last:
	// a retried subgraph node runs again from its input in "<ns>|1", and
	// a function may run subgraphs several times. runOf[i] is the run
	// snaps[i] belongs to; snaps list the last run's checkpoints first.
	runs  []string
	runOf []int
	// subgraphs are the subgraph's own nodes that run subgraphs.
	subgraphs map[string]bool
	// roles are its graph's, which its diffs are drawn with.
	roles diffRoles
}

// Subgraph reads the namespace of the subgraph reached through path. A
// subgraph task's namespace is "node:taskID" below its parent's (joined
// by "|"); the engine says which graph ran there (a subgraph node's, or
// one its function declared with engine.UsesSubgraph) and where it keeps
// its checkpoints (a stateful subgraph keeps one namespace for all runs).
func (s *engineSession) Subgraph(ctx context.Context, path []subgraphRef) (*subgraphLevel, error) {
	base := path[len(path)-1].ns()
	lv := &subgraphLevel{subgraphs: map[string]bool{}}
	own := map[string]bool{}
	// The task's runs: "<ns>", then "<ns>|1", … up to the first that left
	// no checkpoint (the engine's runChild numbers them).
	for k := 0; ; k++ {
		run := engine.SubgraphRunNamespace(base, k)
		g, ns, err := s.g.SubgraphAt(ctx, engine.Config{ThreadID: s.thread, CheckpointNS: run})
		if err != nil {
			if k > 0 {
				break
			}
			return nil, fmt.Errorf("subgraph namespace %s: %w", run, err)
		}
		if own[ns] { // a stateful subgraph keeps one namespace for all runs
			break
		}
		tuples, err := s.saver.List(ctx, engine.Config{ThreadID: s.thread, CheckpointNS: ns}, engine.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("subgraph namespace %s: %w", ns, err)
		}
		if k > 0 && len(tuples) == 0 {
			break
		}
		own[ns] = true
		if k == 0 {
			lv.ns, lv.roles = ns, diffRolesOf(g.Describe())
		}
		var snaps []*engine.StateSnapshot
		for _, t := range tuples {
			snap, err := g.SnapshotOf(t, false)
			if err != nil {
				return nil, fmt.Errorf("subgraph namespace %s, checkpoint %s: %w", ns, shortID(t.Checkpoint.ID), err)
			}
			snaps = append(snaps, snap)
			for _, tk := range snap.Tasks {
				if tk.Subgraph != "" {
					lv.subgraphs[tk.Name] = true
				}
			}
		}
		lv.runs = append(lv.runs, run)
		lv.snaps = append(snaps, lv.snaps...)
		lv.runOf = append(slices.Repeat([]int{k}, len(snaps)), lv.runOf...)
	}
	return lv, nil
}

// runLabel says which of the task's runs checkpoint i belongs to, when
// there were several ("" otherwise).
func (lv *subgraphLevel) runLabel(i int) string {
	if len(lv.runs) < 2 || i >= len(lv.runOf) {
		return ""
	}
	return fmt.Sprintf("run %d of %d", lv.runOf[i]+1, len(lv.runs))
}

// subgraphPane browses a subgraph's namespace read-only: its checkpoints
// on the left, the selected one's state, versions, versions_seen, tasks
// and interrupts on the right. enter on a task that runs a subgraph goes
// one level deeper; esc comes back out.
type subgraphPane struct {
	root   string        // the root graph's name, the breadcrumb's start
	path   []subgraphRef // the way in
	levels []*subgraphLevel
	cps    listNav // the selected checkpoint
	rows   []taskRow
	nav    listNav // the selected detail row
	// detail: the detail rows have the focus (tab switches).
	detail bool
	prev   mode // where esc at the top level returns to
	// mark is the checkpoint of this namespace marked with m: d diffs
	// against it instead of the parent.
	mark string
	keys subgraphKeyMap // made by enableKeys
}

func (p *subgraphPane) level() *subgraphLevel {
	if len(p.levels) == 0 {
		return nil
	}
	return p.levels[len(p.levels)-1]
}

// breadcrumb is "research › investigate[2] › search".
func (p *subgraphPane) breadcrumb() string {
	parts := []string{termtext.Name(p.root)}
	for _, r := range p.path {
		parts = append(parts, termtext.Name(r.label))
	}
	return strings.Join(parts, " › ")
}

// push enters one more level, read by the session.
func (p *subgraphPane) push(r subgraphRef, lv *subgraphLevel) {
	p.path = append(p.path, r)
	p.levels = append(p.levels, lv)
	p.cps, p.nav, p.detail, p.mark = listNav{}, listNav{}, false, ""
	p.refresh()
}

// pop leaves the innermost level; false when it was the last one.
func (p *subgraphPane) pop() bool {
	if len(p.levels) <= 1 {
		return false
	}
	p.path, p.levels = p.path[:len(p.path)-1], p.levels[:len(p.levels)-1]
	p.cps, p.nav, p.detail, p.mark = listNav{}, listNav{}, false, ""
	p.refresh()
	return true
}

func (p *subgraphPane) selectedSnap() *engine.StateSnapshot {
	lv := p.level()
	if lv == nil || p.cps.cur >= len(lv.snaps) {
		return nil
	}
	return lv.snaps[p.cps.cur]
}

// refresh rebuilds the detail rows for the selected checkpoint.
func (p *subgraphPane) refresh() {
	p.rows = p.rows[:0]
	add := func(r taskRow) { p.rows = append(p.rows, r) }
	s := p.selectedSnap()
	if s == nil {
		add(taskRow{text: "no checkpoints in this namespace: the task has not run here yet", style: dimStyle})
		p.nav.cur = 0
		return
	}
	head := fmt.Sprintf("checkpoint %s · step %d · %s · %s", shortID(s.Config.CheckpointID), s.Metadata.Step, termtext.Name(s.Metadata.Source), s.Status())
	if r := p.level().runLabel(p.cps.cur); r != "" {
		head += " · " + r
	}
	add(taskRow{text: head, style: dimStyle})
	add(taskRow{text: "state", style: updatedStyle})
	for _, k := range sortedKeys(s.Values) {
		add(taskRow{text: "  " + k + " = " + preview(s.Values[k], previewBudget), value: s.Values[k], hasValue: true, name: k})
	}
	if s.Checkpoint != nil {
		add(taskRow{text: "versions", style: updatedStyle})
		for _, k := range sortedKeys(s.Checkpoint.ChannelVersions) {
			add(taskRow{text: fmt.Sprintf("  %s v%d", k, s.Checkpoint.ChannelVersions[k])})
		}
		add(taskRow{text: "versions_seen", style: updatedStyle})
		for _, n := range sortedKeys(s.Checkpoint.VersionsSeen) {
			var seen []string
			for _, c := range sortedKeys(s.Checkpoint.VersionsSeen[n]) {
				seen = append(seen, fmt.Sprintf("%s v%d", c, s.Checkpoint.VersionsSeen[n][c]))
			}
			add(taskRow{text: "  " + n + ": " + strings.Join(seen, ", ")})
		}
	}
	if len(s.Tasks) > 0 {
		add(taskRow{text: "next tasks", style: updatedStyle})
	}
	labels := copyLabels(snapshotTaskViews(s.Tasks)) // as stepping names them
	// What each task saved (a finished sibling of a task that asks, a
	// task that failed after some writes): the writes the parent's run
	// applies when the subgraph goes on.
	saved := engine.ReadSavedWrites(s.PendingWrites)
	for _, t := range s.Tasks {
		label := labels[t.ID]
		text := "  " + label
		if p.level().subgraphs[t.Name] {
			text += "  ⤷ enter: its subgraph"
		}
		if t.Finished {
			text += "  (finished)"
		}
		add(taskRow{text: text, value: t.Input, hasValue: true, name: label + " input", node: t.Name, taskID: t.ID, header: true, label: label})
		if st, ok := saved.Task(t.ID); ok {
			for _, w := range st.Writes {
				add(taskRow{text: "    " + writeText(w), value: w.Value, hasValue: true, name: label + " → " + w.Channel, node: t.Name})
			}
		}
		if t.Err != nil {
			add(taskRow{text: "    " + glyphFailed + " failed: " + firstLine(errorCause(t.Name, t.Err)), style: taskStyle(engine.TaskFailed, false), value: errorDetail(t.Err), hasValue: true, name: label + " error", node: t.Name})
		}
		for _, in := range t.Interrupts {
			st := "answered"
			if t.Waiting {
				st = "waiting"
			}
			add(taskRow{text: "    " + glyphAttention + " interrupt (" + st + ") " + preview(in.Value, previewBudget), style: taskStyle(engine.TaskInterrupted, false), value: in.Value, hasValue: true, name: label + " interrupt", node: t.Name})
		}
		if st, ok := saved.Task(t.ID); ok {
			p.rows = append(p.rows, taskAnswerRows("    ", label, t.Name, st.Answers)...)
		}
	}
	p.nav.cur = clamp(p.nav.cur, 0, len(p.rows)-1)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// View draws the checkpoints (left) and the selected one's details.
func (p *subgraphPane) View(st Styles, w, h int) string {
	lv := p.level()
	if lv == nil {
		return ""
	}
	lw := subLeftWidth(w)
	rw := w - lw
	from, to := p.cps.window(h-2, len(lv.snaps))
	var rows [][]string
	for i := from; i < to; i++ {
		s := lv.snaps[i]
		mark := " "
		if s.Config.CheckpointID == p.mark {
			mark = "◆"
		}
		run := ""
		if len(lv.runs) > 1 {
			run = fmt.Sprintf("run %d", lv.runOf[i]+1)
		}
		rows = append(rows, subCheckpointRow(mark, s, run))
	}
	left := subListLines(rows, lw-2)
	for i := from; i < to; i++ {
		line := left[i-from]
		if i == p.cps.cur {
			if p.detail {
				line = st.Current.Render(line)
			} else {
				line = st.Cursor.Render(pad(ansi.Strip(line), lw-2))
			}
		}
		left[i-from] = line
	}
	title := fmt.Sprintf("Checkpoints · %d", len(lv.snaps))
	cp := st.box(title, strings.Join(left, "\n"), lw, h, !p.detail)
	rp := tasksPane{rows: p.rows, nav: p.nav}
	det := st.box("read only · state, versions, tasks", rp.View(st, p.detail, rw-2, h-2), rw, h, p.detail)
	return lipgloss.JoinHorizontal(lipgloss.Top, cp, det)
}

// subListGiveWay lists the columns of a row of the namespace's checkpoint
// list (mark, id, run, step, source, status: see subCheckpointRow) that a
// narrower list keeps, from the whole row on. A narrow list gives way from
// its least telling column: the source first, then the id (the details
// beside name the selected checkpoint whole), and only then is a row cut,
// so that the run, the step and the status stay in view.
var subListGiveWay = [][]int{{0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 5}, {0, 2, 3, 5}}

// subCheckpointRow is checkpoint s's columns in the namespace's list:
// mark, id, run (when the task ran its subgraph several times, else ""),
// step, source and status.
func subCheckpointRow(mark string, s *engine.StateSnapshot, run string) []string {
	return []string{mark, shortID(s.Config.CheckpointID), run, fmt.Sprintf("step %d", s.Metadata.Step), termtext.Name(s.Metadata.Source), s.Status().String()}
}

// subListLines draws rows (subCheckpointRow) in w cells each, all keeping
// the same columns, the most that every row holds, each column as wide as
// its widest cell so that they line up ("step 0" beside "step -1" pushed
// the status a cell over; a column no row has is left out).
func subListLines(rows [][]string, w int) []string {
	var widths []int
	for _, r := range rows {
		for c, cell := range r {
			if c >= len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], lipgloss.Width(cell))
		}
	}
	join := func(row []string, keep []int) string {
		var cols []string
		for i, c := range keep[1:] {
			if widths[c] == 0 {
				continue
			}
			cell := row[c]
			if i < len(keep)-2 { // the last column is not padded
				cell = pad(cell, widths[c])
			}
			cols = append(cols, cell)
		}
		return row[0] + strings.Join(cols, "  ")
	}
	keep := subListGiveWay[len(subListGiveWay)-1]
	for _, k := range subListGiveWay {
		if !slices.ContainsFunc(rows, func(r []string) bool { return lipgloss.Width(join(r, k)) > w }) {
			keep = k
			break
		}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = cut(join(r, keep), w)
	}
	return out
}

func (p *subgraphPane) selectedRow() (taskRow, bool) {
	if p.nav.cur < len(p.rows) && len(p.rows) > 0 {
		return p.rows[p.nav.cur], true
	}
	return taskRow{}, false
}

// enterSubgraph reads one level deeper than the pane's path: r's
// namespace, from the saver, without running anything.
func (m *Model) enterSubgraph(r subgraphRef) tea.Cmd {
	path := append(slices.Clone(m.sub.path), r)
	m.subNext = r
	return m.do(opSubgraph, func(ctx context.Context, s session) opDoneMsg {
		lv, err := s.Subgraph(ctx, path)
		return opDoneMsg{sub: lv, err: err}
	})
}

func (m *Model) subgraphKey(msg tea.KeyMsg) tea.Cmd {
	p := &m.sub
	k := &p.keys
	h := m.bodyHeight() - 3
	move := func(d int) {
		if p.detail {
			p.nav.move(d, len(p.rows))
			return
		}
		p.cps.move(d, len(p.level().snaps))
		p.refresh()
	}
	switch {
	case key.Matches(msg, k.Back):
		if !p.pop() {
			m.mode = p.prev
		}
	case key.Matches(msg, k.NextPane):
		p.detail = !p.detail
	case key.Matches(msg, k.Up):
		move(-1)
	case key.Matches(msg, k.Down):
		move(1)
	case key.Matches(msg, k.PageUp):
		move(-h)
	case key.Matches(msg, k.PageDown):
		move(h)
	case key.Matches(msg, k.Diff):
		return m.subgraphDiff()
	case key.Matches(msg, k.Mark):
		if s := p.selectedSnap(); s != nil {
			p.mark = map[bool]string{true: "", false: s.Config.CheckpointID}[p.mark == s.Config.CheckpointID]
		}
	case key.Matches(msg, k.Answer):
		m.openSubgraphAnswer()
	case key.Matches(msg, k.Open) && !p.detail:
		return m.subgraphTimeTravel()
	case key.Matches(msg, k.Open):
		r, ok := p.selectedRow()
		switch {
		case !ok:
		case r.header && p.level().subgraphs[r.node] && r.taskID != "":
			lv := p.level()
			return m.enterSubgraph(subgraphRef{node: r.node, taskID: r.taskID, label: r.label, under: lv.runs[lv.runOf[p.cps.cur]]})
		case r.hasValue:
			m.insp = newInspector(r.name, r.value)
			m.prevMode, m.mode = m.mode, modeInspect
		}
	default:
		if !m.subgraphOwnWhyNot(msg) {
			m.subgraphWhyNot(msg)
		}
	}
	return nil
}

// subgraphOwnWhyNot says why one of the namespace's own keys, pressed
// where it does not apply, does nothing; it reports whether msg was one.
func (m *Model) subgraphOwnWhyNot(msg tea.KeyMsg) bool {
	p := &m.sub
	k := &p.keys
	s := p.selectedSnap()
	switch {
	case m.sess == nil && (pressed(msg, k.Answer) || pressed(msg, k.Open)):
		m.note = "wait: the debugger is busy with the run (esc back to it)"
	case pressed(msg, k.Answer):
		m.note = m.subgraphNoAnswer()
	case pressed(msg, k.Diff) && s != nil:
		m.note = "d: checkpoint " + shortID(s.Config.CheckpointID) + " is this namespace's first and nothing else is marked: m marks one to diff it with"
	case pressed(msg, k.Open) && !p.detail && s != nil:
		m.note = "enter: checkpoint " + shortID(s.Config.CheckpointID) + " names no checkpoint of the run to time-travel to"
	case pressed(msg, k.Open) && p.detail:
		m.note = "enter: this row has no value to inspect"
	default:
		return false
	}
	return true
}

// subgraphNoAnswer says why r has nothing to answer in this namespace:
// no interrupt waits, or those that wait were raised in a subgraph below
// it, whose namespace answers them.
func (m *Model) subgraphNoAnswer() string {
	lv := m.sub.level()
	if lv != nil && len(lv.snaps) > 0 {
		for _, t := range lv.snaps[0].Tasks {
			if lv.subgraphs[t.Name] && t.Waiting && len(t.Interrupts) > 0 {
				return "r answers the interrupts raised in " + m.sub.breadcrumb() + ": " + t.Name + "'s was raised in its subgraph below (tab, enter on " + t.Name + ", then r), or esc back and r answers every one"
			}
		}
	}
	return "no interrupt of the run is waiting in " + m.sub.breadcrumb()
}

// subgraphWhyNot answers a main-view key pressed in a namespace, which is
// read only, with where it applies instead of with nothing.
func (m *Model) subgraphWhyNot(msg tea.KeyMsg) {
	mk := newMainKeyMap()
	switch {
	case pressed(msg, mk.Next), pressed(msg, mk.Superstep), pressed(msg, mk.Continue):
		m.note = "a subgraph's namespace is read only: its run steps from the root graph (esc back to it, then n s c)"
	case pressed(msg, mk.Fork):
		m.note = "a subgraph's namespace is read only: fork at the root graph (esc back, f), or enter time-travels to the checkpoint it was written under"
	case pressed(msg, mk.Break), pressed(msg, mk.BreakAfter):
		m.note = "breakpoints are set on the root graph's nodes (esc back to it, b or B)"
	case pressed(msg, mk.Tree):
		m.note = "this view is the namespace's checkpoint list; the thread's tree is the root graph's (esc back, t)"
	case pressed(msg, mk.Rerun):
		m.note = "run a task alone from the root graph's tasks pane or tree (esc back, e)"
	}
}

// subLeftWidth is the width of the checkpoint list in a w-wide body.
func subLeftWidth(w int) int { return clamp(w*2/5, min(30, w/2), w-20) }

// mouse: a click selects a checkpoint (left) or a detail row (right) and
// focuses that side; the wheel moves in the side under the pointer. The
// body's first row is the breadcrumb, then each box's top border.
func (p *subgraphPane) mouse(x, y, w, wheel int) {
	lv := p.level()
	if lv == nil {
		return
	}
	p.detail = x >= subLeftWidth(w)
	switch {
	case wheel != 0 && p.detail:
		p.nav.move(wheel, len(p.rows))
	case wheel != 0:
		p.cps.move(wheel, len(lv.snaps))
		p.refresh()
	case p.detail:
		if r := y - 2 + p.nav.off; r >= 0 && r < len(p.rows) {
			p.nav.cur = r
		}
	default:
		if r := y - 2 + p.cps.off; r >= 0 && r < len(lv.snaps) {
			p.cps.cur = r
			p.refresh()
		}
	}
}

// setSize keeps both sides' cursors in view.
func (p *subgraphPane) setSize(bh int) {
	if lv := p.level(); lv != nil {
		p.cps.follow(bh-3, len(lv.snaps))
	}
	p.nav.follow(bh-3, len(p.rows))
}

// subgraphKeyMap is the subgraph view's keys: tab between its checkpoints
// and their details, diff and mark, answer the interrupts raised here,
// enter (time travel, a value, a deeper subgraph), esc back out.
type subgraphKeyMap struct {
	NextPane, Up, Down, PageUp, PageDown key.Binding
	Answer, Diff, Mark, Open, Back       key.Binding
}

func newSubgraphKeyMap() subgraphKeyMap {
	return subgraphKeyMap{
		NextPane: keyNextPane(), Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown(),
		Answer: keyAnswer(), Diff: keyDiff(), Mark: keyMark(), Open: keyOpen(), Back: keyBack(),
	}
}

func (k subgraphKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Answer, k.Open, k.Diff, k.Back}
}

func (k subgraphKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colRun, k.Answer)
	cols[colCheckpoints] = []key.Binding{k.Diff, k.Mark}
	cols[colMoving] = []key.Binding{k.NextPane, k.Up, k.Down, k.PageUp, k.PageDown, k.Open}
	cols[colForms] = []key.Binding{k.Back}
	return cols
}

// enableKeys enables the subgraph view's keys; waiting is how many of
// the run's pending interrupts were raised in this namespace.
func (p *subgraphPane) enableKeys(hasSess bool, waiting int) {
	k := &p.keys
	*k = made(newSubgraphKeyMap)
	disableAll(k)
	for _, b := range []*key.Binding{&k.NextPane, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Back} {
		b.SetEnabled(true)
	}
	k.NextPane.SetHelp("tab", "checkpoints / details")
	k.Back.SetHelp("esc", "out")
	s := p.selectedSnap()
	k.Mark.SetEnabled(s != nil)
	k.Diff.SetEnabled(s != nil && (s.ParentID != "" || p.mark != "" && p.mark != s.Config.CheckpointID))
	k.Answer.SetEnabled(hasSess && waiting > 0)
	k.Answer.SetHelp("r", "answer here")
	r, ok := p.selectedRow()
	if !p.detail {
		k.Open.SetEnabled(hasSess && s != nil && s.Metadata.Parents[""] != "")
		k.Open.SetHelp("enter", "time travel")
		return
	}
	k.Open.SetEnabled(ok && (r.hasValue || r.header))
	k.Open.SetHelp("enter", "inspect value")
	if p.detail && ok && r.header && p.level().subgraphs[r.node] {
		k.Open.SetEnabled(hasSess)
		k.Open.SetHelp("enter", "into its subgraph")
	}
}

// subgraphView is the breadcrumb over the namespace's two sides.
func (m Model) subgraphView(w, bh int) string {
	st := m.styles
	crumb := m.sub.breadcrumb()
	ns := "  read only"
	if lv := m.sub.level(); lv != nil {
		at := lv.ns
		if s := m.sub.selectedSnap(); s != nil {
			at = s.Config.CheckpointNS // the selected checkpoint's run
		}
		if r := lv.runLabel(m.sub.cps.cur); r != "" {
			ns += " · " + r
		}
		ns += " · namespace " + termtext.Name(at)
	}
	line := st.Header.Render(cut(crumb, w)) + st.Dim.Render(cut(ns, max(0, w-lipgloss.Width(crumb))))
	return lipgloss.JoinVertical(lipgloss.Left, pad(line, w), m.sub.View(st, w, bh-1))
}
