package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
	"github.com/superstep/superstep/termtext"
)

// treePane draws a thread's checkpoints like `git log --graph`: newest
// first, one lane per branch, a fork's branches joining where they meet
// their common parent. The layout is computed once per history load, so
// moving the cursor over thousands of checkpoints only redraws a window.
//
// The pane holds a head per checkpoint (engine.CheckpointHead: id, parent,
// step, source) and its layout row, nothing more. The tasks and next nodes
// a row shows are planned for the rows drawn only (planner, a window of
// outline snapshots); the checkpoint under the cursor is read whole from
// reader for the panes beside the tree. Neither is read while the screen
// is drawn or a key handled: Cmds read them (tree_reads.go) and their
// answers fill whole and plans; until then a row shows its head and the
// panes beside say they are reading.
type treePane struct {
	snaps   []engine.CheckpointHead // the thread's checkpoints, newest first
	thread  string                  // whose checkpoints: each read's answer names it
	reader  snapshotReader          // nil: no values (the outline is shown)
	changes changeReader            // nil: no channel is marked changed
	planner windowPlanner           // nil: rows show their heads only
	// ctx is the context of the pane's reads: the model's, cancelled when
	// the pane is replaced or the debugger quits (stopReads), so that a
	// read waiting on a slow server does not outlive what asked for it.
	ctx    context.Context
	stop   context.CancelFunc
	whole  wholeSnap
	plans  treeWindow
	asked  treeAsked
	height int // the rows View draws: the window whose plans are read
	rows   []treeRow
	nav    listNav // over rows that are checkpoints (indexes into rows)
	points []int   // row index of each checkpoint, in snaps order
	byID   map[string]int
	// sharedShort are the short ids two or more of snaps share, whose
	// rows show the whole id (rowID); nil in the usual case.
	sharedShort map[string]bool
	current     string
	// recordedEnd is the last checkpoint of the thread's original run
	// (recording.RecordedEnd): what a replay compares with, and where a
	// pulled production run stopped, however many branches are newer.
	recordedEnd string
	marked      string      // the checkpoint marked for diff
	find        treeFind    // the / search
	pick        treeSubPick // o's list, when the step ran several subgraphs
	keys        treeKeyMap  // made by enableKeys
}

// changeReader says which channels a checkpoint the tree shows changed
// (changedIn: reading its parent when it recorded none); the engine
// session is one.
type changeReader interface {
	Changed(ctx context.Context, snap *engine.StateSnapshot) map[string]bool
}

// snapshotReader reads one checkpoint of the thread whole; the engine
// session is one.
type snapshotReader interface {
	Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error)
}

// windowPlanner plans a run of the thread's checkpoints without reading
// their values: at most limit of them, newest first, older than before
// ("" for the newest). The engine session is one.
type windowPlanner interface {
	Outline(ctx context.Context, before string, limit int) ([]*engine.StateSnapshot, error)
}

// wholeSnap is checkpoint id read whole (or why it could not be), with
// the channels it changed: a cache of one, for the checkpoint under the
// cursor.
type wholeSnap struct {
	id      string
	snap    *engine.StateSnapshot
	changed map[string]bool
	err     error
}

// treeWindow holds the outline snapshots of checkpoints [from, to), the
// rows drawn when they were asked for: snaps[i] is checkpoint from+i;
// extra holds parents outside the run (for "by …"). It is replaced, not
// grown, when other rows are drawn, so the pane keeps a screenful of
// plans at most.
type treeWindow struct {
	from, to int
	snaps    []*engine.StateSnapshot
	extra    map[int]*engine.StateSnapshot
	err      error
}

type treeRow struct {
	graph string
	snap  int // -1 for a connector row
}

// newTreePane lays out thread's checkpoints (heads, newest first) with
// current marked; src reads them (a savedThread: any of snapshotReader,
// changeReader and windowPlanner it is), with contexts made from ctx.
func newTreePane(ctx context.Context, heads []engine.CheckpointHead, current, thread string, src any) treePane {
	p := treePane{snaps: heads, thread: thread, byID: make(map[string]int, len(heads)), current: current}
	p.ctx, p.stop = context.WithCancel(ctx)
	p.reader, _ = src.(snapshotReader)
	p.changes, _ = src.(changeReader)
	p.planner, _ = src.(windowPlanner)
	ids := make([]string, len(heads))
	for i, s := range heads {
		p.byID[s.ID] = i
		ids[i] = s.ID
	}
	p.sharedShort = engine.SharedShortIDs(ids)
	if forked := slices.ContainsFunc(heads, func(h engine.CheckpointHead) bool { return !recording.MadeByRun(h.Source) }); forked {
		// Marked only where something branched off the recorded run: on a
		// thread that is one run, its end is plainly the newest.
		p.recordedEnd = recording.RecordedEnd(heads)
	}
	p.layout()
	if i, ok := p.byID[current]; ok {
		p.nav.cur = i
	}
	return p
}

// layout lays the checkpoints out in lanes: a row per checkpoint, and a
// connector row where branches join. A lane holds the id of the
// checkpoint it waits for (the parent of the row drawn last in it), ""
// when free.
func (p *treePane) layout() {
	var lanes []string
	for i, s := range p.snaps {
		col, joins := lanesWaitingFor(lanes, s.ID)
		if len(joins) > 0 {
			p.rows = append(p.rows, treeRow{graph: joinRow(lanes, col, joins), snap: -1})
			for _, j := range joins {
				lanes[j] = ""
			}
			lanes = trimLanes(lanes)
		}
		if col < 0 {
			col = slices.Index(lanes, "")
			if col < 0 {
				col = len(lanes)
				lanes = append(lanes, "")
			}
		}
		p.points = append(p.points, len(p.rows))
		p.rows = append(p.rows, treeRow{graph: laneGraph(len(lanes), col, lanes), snap: i})
		lanes[col] = s.ParentID
		lanes = trimLanes(lanes)
	}
}

// lanesWaitingFor finds the lanes that wait for checkpoint id: the first
// is where it is drawn (col, -1 when none waits), the others (joins) end
// there, its forks' branches joining their parent.
func lanesWaitingFor(lanes []string, id string) (col int, joins []int) {
	col = -1
	for j, want := range lanes {
		switch {
		case want != id:
		case col < 0:
			col = j
		default:
			joins = append(joins, j)
		}
	}
	return col, joins
}

// joinRow draws the connector row where the lanes joins (ascending, right
// of col) end in lane col: "├" there, "┴" and "┘" where they end, and the
// lanes between crossed.
func joinRow(lanes []string, col int, joins []int) string {
	last := joins[len(joins)-1]
	var b strings.Builder
	for j := range lanes {
		inSpan := j > col && j < last
		var c string
		switch {
		case j == col:
			c = "├"
		case j == last:
			c = "┘"
		case slices.Contains(joins, j):
			c = "┴"
		case inSpan && lanes[j] != "":
			c = "┼"
		case inSpan:
			c = "─"
		case lanes[j] != "":
			c = "│"
		default:
			c = " "
		}
		b.WriteString(c)
		if j == col || inSpan { // the join runs on to the right
			b.WriteString("─")
		} else {
			b.WriteString(" ")
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// trimLanes drops the free lanes at the right.
func trimLanes(lanes []string) []string {
	for len(lanes) > 0 && lanes[len(lanes)-1] == "" {
		lanes = lanes[:len(lanes)-1]
	}
	return lanes
}

// oneLane is the graph of every row of a thread without forks, shared.
const oneLane = "● "

// laneGraph draws a checkpoint's row: its dot in lane col, a line through
// every other lane that waits for a checkpoint.
func laneGraph(n, col int, lanes []string) string {
	if n == 1 {
		return oneLane
	}
	var b strings.Builder
	for j := range lanes {
		switch {
		case j == col:
			b.WriteString("● ")
		case lanes[j] != "":
			b.WriteString("│ ")
		default:
			b.WriteString("  ")
		}
	}
	return b.String()
}

// fitLanes keeps a row's lanes within maxw cells (at least 8), so that on
// a thread with many forks every row still shows its checkpoint: the
// first lanes are drawn as they are, the rest fold into "…", and a
// checkpoint whose own lane is folded is drawn just after it ("…● ").
func fitLanes(g string, maxw int) string {
	maxw = max(maxw, 8)
	r := []rune(g)
	if len(r) <= maxw {
		return g
	}
	keep := (maxw - 3) / 2 // lanes drawn as they are, two cells each
	head := string(r[:keep*2])
	for i := keep * 2; i < len(r); i++ {
		if r[i] == '●' {
			return head + "…● "
		}
	}
	return head + "… "
}

// head is checkpoint i as a snapshot without anything read: what the pane
// shows when nothing more can be.
func (p treePane) head(i int) *engine.StateSnapshot {
	h := p.snaps[i]
	return &engine.StateSnapshot{Config: engine.Config{CheckpointID: h.ID}, ParentID: h.ParentID, Metadata: engine.Metadata{Step: h.Step, Source: h.Source}}
}

// plan returns checkpoint i's outline snapshot (its tasks and next nodes,
// no values) when the last window planned it, else nil.
func (p treePane) plan(i int) *engine.StateSnapshot {
	return p.plans.plan(i, p.snaps[i].ID)
}

// plan returns checkpoint i's outline snapshot when the window holds it
// and it is checkpoint id: the thread may have changed since its heads
// were read, and a plan is only ever shown on its own checkpoint.
func (w treeWindow) plan(i int, id string) *engine.StateSnapshot {
	s := w.extra[i]
	if j := i - w.from; j >= 0 && j < len(w.snaps) {
		s = w.snaps[j]
	}
	if s == nil || s.Config.CheckpointID != id {
		return nil
	}
	return s
}

// selected returns the snapshot under the cursor as far as it is known:
// read whole, else its outline, else its head (reading says whether its
// values are still to come; describe says why they could not be read).
func (p treePane) selected() *engine.StateSnapshot {
	if p.nav.cur >= len(p.snaps) || len(p.snaps) == 0 {
		return nil
	}
	if s := p.selectedWhole(); s != nil {
		return s
	}
	if s := p.plan(p.nav.cur); s != nil {
		return s
	}
	return p.head(p.nav.cur)
}

// selectedWhole returns the checkpoint under the cursor with its values,
// nil until its read has come back, or when it could not be read.
func (p treePane) selectedWhole() *engine.StateSnapshot {
	if p.nav.cur < len(p.snaps) && p.whole.id == p.snaps[p.nav.cur].ID {
		return p.whole.snap
	}
	return nil
}

// reading reports that the values of the checkpoint under the cursor are
// being read (or are about to be): there is a reader and no answer yet.
func (p treePane) reading() bool {
	return p.reader != nil && p.nav.cur < len(p.snaps) && p.whole.id != p.snaps[p.nav.cur].ID
}

// tasksKnown reports that selected's tasks are the checkpoint's: it was
// read whole or planned, or nothing can read it.
func (p treePane) tasksKnown() bool {
	return p.reader == nil || p.selectedWhole() != nil || p.nav.cur < len(p.snaps) && p.plan(p.nav.cur) != nil
}

// selectedChanged names the channels the checkpoint under the cursor
// changed, once it has been read whole (nil before, or when it could not
// be read).
func (p treePane) selectedChanged() map[string]bool {
	if p.nav.cur < len(p.snaps) && p.whole.id == p.snaps[p.nav.cur].ID {
		return p.whole.changed
	}
	return nil
}

// jumpParent moves the cursor to the selected checkpoint's parent.
func (p *treePane) jumpParent() bool {
	if p.nav.cur >= len(p.snaps) {
		return false
	}
	if i, ok := p.byID[p.snaps[p.nav.cur].ParentID]; ok {
		p.nav.cur = i
		return true
	}
	return false
}

// follow keeps the cursor's row in an h-row window; rows and checkpoints
// differ by the connector rows, so the window is over rows.
func (p *treePane) follow(h int) {
	p.nav.cur = clamp(p.nav.cur, 0, len(p.snaps)-1)
	if len(p.snaps) == 0 {
		return
	}
	r := p.points[p.nav.cur]
	rows := listNav{cur: r, off: p.nav.off}
	rows.follow(h, len(p.rows))
	p.nav.off = rows.off
}

// describe is checkpoint i's row: its id, step and source, what made it,
// what runs next, and what its tasks left (interrupts, failures).
func (p treePane) describe(i int) string {
	var b strings.Builder
	for _, part := range p.rowParts(i, false) {
		b.WriteString(part.text)
	}
	return b.String()
}

// Turns to give way in a narrow tree (headerPart.drop): what made a
// checkpoint goes first (the row above says what runs next, the same
// tasks), then what runs next, then which branch the row is on (the
// recorded run's end, a replay's mark: the lanes still draw the branch),
// then whether a fork's writes were edited. The id, step and source and
// what the tasks left (interrupts, failures: what a bad case is pulled
// for) never give way; past them the row is cut at its end.
const (
	dropEdited = 1
	dropBranch = 2
	dropNext   = 3
	dropMadeBy = 4
)

// narrowTree is the tree pane's inner width below which every row names
// its step by its number alone ("efdbd78c  3 loop"): at 80 columns the
// pane has 42 cells, and "step " is what a failed row's "✗ summarize
// failed" was cut for. All rows take the same form, so the columns stay
// aligned.
const narrowTree = 50

// rowParts is describe in parts, each with its turn to give way when
// the row does not fit (fitRow); narrow rows name the step by its number
// alone (narrowTree).
func (p treePane) rowParts(i int, narrow bool) []headerPart {
	h := p.snaps[i]
	format := "%s step %-2d %-6s"
	if narrow {
		format = "%s %2d %-6s"
	}
	parts := []headerPart{{fmt.Sprintf(format, termtext.Name(p.rowID(h.ID)), h.Step, termtext.Name(h.Source)), 0}}
	add := func(text string, drop int) {
		if text != "" {
			parts = append(parts, headerPart{text, drop})
		}
	}
	s := p.plan(i)
	// First, which branch is the recorded run (its end, however many
	// branches are newer) and which ones a replay wrote, told from a
	// person's forks; a row too narrow for them and what its tasks left
	// keeps the latter.
	switch {
	case h.ID == p.recordedEnd:
		add(" [recorded end]", dropBranch)
	case s != nil:
		if _, ok := recording.ReplayOf(s.Metadata); ok {
			add(" [replay]", dropBranch)
		}
	}
	by, edited := p.madeBy(h, s)
	add(by, dropMadeBy)
	add(edited, dropEdited)
	switch {
	case s == nil && p.plans.err != nil && i >= p.plans.from && i < p.plans.to:
		add(" "+glyphAttention+" tasks unreadable: "+termtext.Name(p.plans.err.Error()), 0)
	case s == nil:
	case len(s.Next) > 0:
		var ts []engine.TaskView
		for _, n := range s.Next {
			ts = append(ts, engine.TaskView{Name: n})
		}
		add(" → "+taskNames(ts), dropNext)
	case len(s.Tasks) == 0:
		add(" ■ end", dropNext)
	}
	if s != nil {
		add(outcome(s), 0)
	}
	if w := p.whole; w.id == h.ID && w.err != nil {
		add(" "+glyphAttention+" values unreadable: "+termtext.Name(w.err.Error()), 0)
	}
	return parts
}

// fitRow joins a tree row's parts into at most w cells, followed by its
// marks (" ← current", " ◆ marked"), which are never cut: the parts that
// may give way do, whole, the highest drop first, except that the marks
// give up their words (short: " ←", " ◆"; the lane's ◉ marks the current
// checkpoint too) before what runs next, the branch's tag or the edit's
// note does; what is left is cut at its end.
func fitRow(parts []headerPart, marks, short string, w int) string {
	parts = slices.Clone(parts)
	join := func() string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.text)
		}
		return b.String()
	}
	for lipgloss.Width(join()+marks) > w {
		worst := -1
		for i, p := range parts {
			if p.drop > 0 && (worst < 0 || p.drop > parts[worst].drop) {
				worst = i
			}
		}
		if worst < 0 || parts[worst].drop <= dropNext && marks != short {
			if marks == short {
				break
			}
			marks = short
			continue
		}
		parts = slices.Delete(parts, worst, worst+1)
	}
	text := join()
	if room := w - lipgloss.Width(marks); lipgloss.Width(text) > room {
		text = ansi.Truncate(text, max(room, 0), "…")
	}
	return ansi.Truncate(text+marks, max(w, 0), "…")
}

// madeBy says what made checkpoint h (whose plan is s, nil if not read):
// the tasks of its parent's superstep, or the checkpoint a fork or an
// update started from; and, apart (edited), for edited writes whose and
// by whom.
func (p treePane) madeBy(h engine.CheckpointHead, s *engine.StateSnapshot) (by, edited string) {
	switch h.Source {
	case engine.SourceLoop:
		j, ok := p.byID[h.ParentID]
		if !ok {
			return "", ""
		}
		var names []engine.TaskView
		if parent := p.plan(j); parent != nil {
			for _, t := range parent.Tasks {
				names = append(names, engine.TaskView{Name: t.Name})
			}
		}
		if len(names) == 0 {
			return "", ""
		}
		return " by " + taskNames(names), ""
	case engine.SourceFork, engine.SourceUpdate:
		if h.ParentID != "" {
			by = " of " + termtext.Name(p.rowID(h.ParentID))
		}
		if s == nil {
			return by, ""
		}
		if ed, ok := s.Metadata.Extra[engine.MetaEditedWrites]; ok {
			// Never indistinguishable from a real run: say whose writes
			// were edited, and by whom.
			edited = fmt.Sprintf(" "+glyphEdited+" writes of %s edited by %s", termtext.Name(fmt.Sprint(ed)), termtext.Name(fmt.Sprint(s.Metadata.Extra[engine.MetaEditedBy])))
		}
		return by, edited
	}
	return "", ""
}

// outcome says what the tasks of s's superstep left: the interrupts that
// wait (or that they were answered), and where a failed thread failed, as
// an interrupt is shown where it asks: the failure is what a bad case is
// pulled for. A task stopped by its sibling's failure, or by the caller,
// saved its cancellation: it is named as cancelled, not as a failure.
func outcome(s *engine.StateSnapshot) string {
	var b strings.Builder
	if ints := s.Interrupts(); len(ints) > 0 {
		b.WriteString(" " + glyphAttention + " " + plural(len(ints), "interrupt"))
	} else if answered(s) {
		b.WriteString(" " + glyphOK + " answered")
	}
	var failed, cancelled []engine.TaskView
	for _, t := range s.Tasks {
		switch {
		case t.Error == "":
		case engine.IsCancellation(t.Err):
			cancelled = append(cancelled, engine.TaskView{Name: t.Name})
		default:
			failed = append(failed, engine.TaskView{Name: t.Name})
		}
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, taskNames(failed)+" failed")
	}
	if len(cancelled) > 0 { // alone when the caller stopped the run
		parts = append(parts, taskNames(cancelled)+" cancelled")
	}
	if len(parts) > 0 {
		b.WriteString(" " + glyphFailed + " " + strings.Join(parts, ", "))
	}
	return b.String()
}

func (p treePane) View(st Styles, w, h int) string {
	if len(p.snaps) == 0 {
		return st.Dim.Render("no checkpoints yet")
	}
	out := make([]string, 0, max(h, 0))
	end := min(len(p.rows), p.nav.off+h)
	for r := p.nav.off; r < end; r++ {
		row := p.rows[r]
		if row.snap < 0 {
			out = append(out, st.Branch.Render(fitLanes(row.graph, w/3)))
			continue
		}
		g := fitLanes(row.graph, w/3)
		id := p.snaps[row.snap].ID
		marks, short := "", ""
		if id == p.current {
			g = strings.Replace(g, "●", "◉", 1)
			marks, short = marks+" ← current", short+" ←"
		}
		if id == p.marked {
			marks, short = marks+" ◆ marked", short+" ◆"
		}
		text := fitRow(p.rowParts(row.snap, w < narrowTree), marks, short, w-lipgloss.Width(g))
		line := st.Branch.Render(g) + text
		if row.snap == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		} else if id == p.current {
			line = st.Branch.Render(g) + st.Current.Render(text)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// checkpointsIn returns the checkpoints drawn on rows [from, to) as
// [first, last).
func (p treePane) checkpointsIn(from, to int) (first, last int) {
	first, last = -1, -1
	for r := from; r < to; r++ {
		if i := p.rows[r].snap; i >= 0 {
			if first < 0 {
				first = i
			}
			last = i + 1
		}
	}
	return max(first, 0), max(last, 0)
}

// viewFromSnapshot turns a stored checkpoint into the view the channels
// and versions_seen panes draw, so a tree checkpoint reads like a live one.
// Availability is inferred from the stored values: a checkpoint stores the
// value of every channel that has one. changed names the channels the
// checkpoint changed (changedIn), which its view marks as updated.
func viewFromSnapshot(info engine.GraphInfo, s *engine.StateSnapshot, changed map[string]bool) *engine.StepView {
	cp := s.Checkpoint
	v := &engine.StepView{
		Thread: s.Config.ThreadID, Step: s.Metadata.TaskStep(), CheckpointStep: s.Metadata.Step, Phase: engine.PhaseCheckpoint,
		// No run holds this checkpoint yet, so no recursion budget is
		// known: the header leaves it out until a step starts one.
		RecursionLeft: -1,
		CheckpointID:  s.Config.CheckpointID, ParentID: s.ParentID, Source: s.Metadata.Source,
		Versions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}, Values: s.Values,
	}
	if len(s.Tasks) == 0 {
		v.Status = engine.StatusDone
	}
	if cp == nil {
		return v
	}
	v.Versions, v.VersionsSeen = cp.ChannelVersions, cp.VersionsSeen
	for _, ci := range info.Channels {
		ver, hasVer := cp.ChannelVersions[ci.Name]
		val, hasVal := cp.ChannelValues[ci.Name]
		if sv, ok := s.Values[ci.Name]; ok && !hasVal && !ci.Internal {
			// A store may keep no value for a channel never written (the
			// bbolt store keeps one per version); the engine's state
			// still holds its start value, as a reducer's [] is held and
			// available live (BinaryOperatorAggregate starts from its
			// type's zero value).
			val, hasVal = sv, true
		}
		v.Channels = append(v.Channels, engine.ChannelView{
			Name: ci.Name, Kind: ci.Kind, Reducer: ci.Reducer, Internal: ci.Internal,
			Version: ver, HasVer: hasVer, Available: hasVal, Value: val, HasValue: hasVal, Updated: changed[ci.Name],
		})
	}
	return v
}

// shortID is the engine's one short form of a checkpoint id, the one the
// command line shows and resolves.
func shortID(id string) string { return engine.ShortID(id) }

// rowID is how the tree names checkpoint id: its short form, or its whole
// id where checkpoints of the thread share that short form.
func (p treePane) rowID(id string) string { return engine.ShortIDAmong(id, p.sharedShort) }

// navKey moves the tree's cursor for one of its navigation keys, page
// rows for a page key, and says whether msg was one; note is what to tell
// the user when the move cannot be made.
func (p *treePane) navKey(msg tea.KeyMsg, page int) (handled bool, note string) {
	k := &p.keys
	n := len(p.snaps)
	switch {
	case key.Matches(msg, k.Top):
		p.nav.cur = 0
	case key.Matches(msg, k.Bottom):
		p.nav.cur = n - 1
	case key.Matches(msg, k.Up):
		p.nav.move(-1, n)
	case key.Matches(msg, k.Down):
		p.nav.move(1, n)
	case key.Matches(msg, k.PageUp):
		p.nav.move(-page, n)
	case key.Matches(msg, k.PageDown):
		p.nav.move(page, n)
	case key.Matches(msg, k.Parent):
		if !p.jumpParent() {
			note = "this checkpoint has no parent"
		}
	default:
		return false, ""
	}
	return true, note
}

// treeKey handles a key of the checkpoint tree: the pane's own search
// and navigation, then what acts on the session (make current, fork,
// replay, rerun, diff) or on the other panes.
func (m *Model) treeKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.tree.keys
	if m.tree.find.on {
		cmd := m.tree.findKey(msg)
		m.refreshTreePreview()
		return cmd
	}
	if m.tree.pick.on() {
		return m.pickKey(msg)
	}
	if moved, note := m.tree.navKey(msg, m.bodyHeight()-2); moved {
		if note != "" {
			m.note = note
		}
		m.refreshTreePreview()
		return nil
	}
	switch {
	case key.Matches(msg, k.Find):
		return m.tree.openFind()
	case key.Matches(msg, k.Back):
		m.mode = modeMain
		return nil
	case key.Matches(msg, k.Internal):
		m.setShowInternal(!m.treeChan.showInternal)
		m.refreshTreePreview()
		return nil
	case key.Matches(msg, k.Open):
		return m.checkoutSelected()
	case key.Matches(msg, k.Subgraph):
		return m.openTreeSubgraph()
	case key.Matches(msg, k.Fork):
		return m.forkSelected()
	case key.Matches(msg, k.Replay):
		return m.replaySelected()
	case key.Matches(msg, k.Rerun):
		return m.rerunTreeTask()
	case key.Matches(msg, k.Mark):
		if s := m.tree.selected(); s != nil {
			m.setMark(s.Config.CheckpointID)
			m.tree.marked = m.mark
		}
		return nil
	case key.Matches(msg, k.Diff):
		if s := m.tree.selected(); s != nil && m.sess != nil {
			return m.diffWith(s.Config.CheckpointID, s.ParentID)
		}
	}
	return nil
}

// checkoutSelected makes the checkpoint selected in the tree current.
func (m *Model) checkoutSelected() tea.Cmd {
	s := m.tree.selected()
	if s == nil || m.sess == nil {
		return nil
	}
	id := s.Config.CheckpointID
	// A step from the thread's latest checkpoint goes on from it
	// unless update_state or a fork wrote it (LangGraph.js
	// pregel/loop.ts:666-672 resumeAtHead; engine/loop.go).
	head := m.tree.snaps[0] // newest first
	atHead := id == head.ID && head.Source != engine.SourceUpdate && head.Source != engine.SourceFork
	// From the head, stepping plans its superstep again and reuses what
	// its tasks saved before it was cut off: the checkout says so, from
	// the checkpoint read whole (the tree's, or read here).
	whole, read := m.tree.selectedWhole(), m.tree.reader
	return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
		v, err := ss.Checkout(ctx, id)
		msg := opDoneMsg{view: v, err: err, atHead: atHead}
		if err != nil || !atHead || v.Status != engine.StatusRunning {
			return msg
		}
		if whole == nil && read != nil {
			whole, _ = read.Snapshot(ctx, id) // unread, the checkout says what it did before
		}
		if whole != nil {
			msg.cutOff = savedDone(cutOffTasks(whole))
		}
		return msg
	})
}

// forkSelected opens the fork form on the checkpoint selected in the
// tree, with its values: at once when they have been read, else once its
// own Cmd has read them (treeActMsg).
func (m *Model) forkSelected() tea.Cmd {
	s := m.tree.selected()
	if s == nil || m.sess == nil {
		return nil
	}
	id := s.Config.CheckpointID
	if whole := m.tree.selectedWhole(); whole != nil || m.tree.reader == nil {
		return m.openFork(id, s.Values)
	}
	m.note = "reading checkpoint " + shortID(id) + " for the fork…"
	return m.tree.readFor(treeActFork, id)
}

// replaySelected starts a replay from the checkpoint selected in the
// tree: a fresh checkout of it, whose steps are judged against the
// recording. The replay is made in the Cmd: finding what it compares
// may read the recording's last checkpoint.
func (m *Model) replaySelected() tea.Cmd {
	s := m.tree.selected()
	if s == nil || m.sess == nil {
		return nil
	}
	id := s.Config.CheckpointID
	heads, read := m.tree.snaps, m.tree.reader
	return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
		r, err := newReplayRun(ctx, heads, id, read)
		if err != nil {
			return opDoneMsg{err: err}
		}
		checkout := ss.Checkout
		if fs, ok := ss.(freshCheckouter); ok {
			checkout = fs.CheckoutFresh
		}
		v, err := checkout(ctx, id)
		return opDoneMsg{view: startView(v), err: err, replay: r}
	})
}

// refreshTreePreview shows the selected checkpoint's channels and
// versions_seen beside the tree, once it has been read whole. Until then
// the panes keep the rows of the checkpoint shown before (drawn as
// "reading…"), so that their cursors stay on the same channel and node
// when the values come.
func (m *Model) refreshTreePreview() {
	s := m.tree.selected()
	if s == nil || m.tree.reading() {
		return
	}
	v := viewFromSnapshot(m.info, s, m.tree.selectedChanged())
	m.treeChan.setChannels(v.Channels, nil)
	m.treeSeen.setView(v)
}

// sizeTree keeps the tree's cursor and its preview panes' in view.
func (m *Model) sizeTree(bh int) {
	rows := bh - 2
	if m.tree.find.on {
		rows-- // the search box's line
	}
	if m.tree.pick.on() {
		rows -= min(len(m.tree.pick.refs)+1, max(bh-3, 0)) // o's list
	}
	m.tree.follow(rows)
	m.tree.height = bh - 2 // as treeView draws it, the search box's row included
	th := bh / 2
	m.treeChan.nav.follow(th-2, len(m.treeChan.shown))
	m.treeSeen.nav.follow(bh-th-3, len(m.treeSeen.rows))
}

// enableKeys enables the tree's keys for the checkpoint selected;
// subgraphs says whether the graph has nodes that run subgraphs (o).
func (p *treePane) enableKeys(hasSess, subgraphs bool) {
	k := &p.keys
	*k = made(newTreeKeyMap)
	disableAll(k)
	sel := p.selected()
	has := sel != nil
	k.Open.SetEnabled(has && hasSess)
	k.Open.SetHelp("enter", "make current")
	k.Subgraph.SetEnabled(has && hasSess && subgraphs && p.reader != nil)
	k.Fork.SetEnabled(has && hasSess)
	k.Parent.SetEnabled(has)
	k.Mark.SetEnabled(has)
	k.Diff.SetEnabled(has && hasSess)
	k.Replay.SetEnabled(has && hasSess)
	// Until the checkpoint is planned, e reads its tasks (rerunTreeTask).
	k.Rerun.SetEnabled(has && hasSess && (len(sel.Tasks) > 0 || !p.tasksKnown()))
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom, &k.Find, &k.Internal, &k.Back} {
		b.SetEnabled(true)
	}
	k.Back.SetHelp("esc", "close tree")
	if p.find.on {
		k.listOnly("↑", "previous match", "↓", "next match", "go there", "back to where it was")
		// Typing the search takes the letters: only the arrows move.
		k.Up.SetKeys("up")
		k.Down.SetKeys("down")
	}
	if p.pick.on() {
		k.listOnly("↑/k", "previous subgraph", "↓/j", "next subgraph", "open its subgraph", "back to the tree")
	}
}

// listOnly leaves up, down, enter and esc the tree's only keys, with the
// help a list shown within the tree (the find's matches, the subgraphs
// to open) gives them.
func (k *treeKeyMap) listOnly(upKey, up, downKey, down, open, back string) {
	disableAll(k)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Open, &k.Back} {
		b.SetEnabled(true)
	}
	k.Up.SetHelp(upKey, up)
	k.Down.SetHelp(downKey, down)
	k.Open.SetHelp("enter", open)
	k.Back.SetHelp("esc", back)
}

// treeView is the checkpoint tree with the selected checkpoint's channels
// and versions_seen beside it.
func (m Model) treeView(w, bh int) string {
	st := m.styles
	tw := clamp(w*11/20, min(40, w-20), w-20)
	pw := w - tw
	th := bh / 2
	title := fmt.Sprintf("Checkpoints · %s · %d", m.thread, len(m.tree.snaps))
	body := m.tree.View(st, tw-2, bh-2)
	if m.tree.find.on {
		// The search box takes the pane's last line.
		lines := strings.Split(body, "\n")
		lines = append(lines[:min(len(lines), max(bh-3, 0))], cut(m.tree.findLine(), tw-2))
		body = strings.Join(lines, "\n")
	}
	if p := m.tree.pick; p.on() {
		// o's list takes the pane's last lines.
		pick := p.lines(st, tw-2)
		pick = pick[:min(len(pick), max(bh-2, 0))]
		lines := strings.Split(body, "\n")
		lines = append(lines[:min(len(lines), max(bh-2-len(pick), 0))], pick...)
		body = strings.Join(lines, "\n")
	}
	tree := st.box(title, body, tw, bh, true)
	sel := "checkpoint"
	if s := m.tree.selected(); s != nil {
		sel = "at " + shortID(s.Config.CheckpointID)
	}
	chans, seen := m.treeChan.View(st, m.bp.channels, false, pw-2, th-2), m.treeSeen.View(st, false, pw-2, bh-th-2)
	if m.tree.reading() {
		chans, seen = st.Dim.Render("reading…"), ""
	}
	pc := st.box(m.treeChan.titleAt(sel), chans, pw, th, false)
	ps := st.box("versions_seen "+sel, seen, pw, bh-th, false)
	return lipgloss.JoinHorizontal(lipgloss.Top, tree, lipgloss.JoinVertical(lipgloss.Left, pc, ps))
}

// rerunTreeTask runs the selected checkpoint's next planned task alone
// (rerunTaskOf); a checkpoint not planned yet is read in a Cmd first.
func (m *Model) rerunTreeTask() tea.Cmd {
	s := m.tree.selected()
	if s != nil && m.sess != nil && !m.tree.tasksKnown() {
		m.note = "reading checkpoint " + shortID(s.Config.CheckpointID) + "'s tasks…"
		return m.tree.readFor(treeActRerun, s.Config.CheckpointID)
	}
	return m.rerunTaskOf(s)
}

// rerunTaskOf runs checkpoint s's next planned task alone: the first, or
// after the one e last ran there. When the checkpoint plans several, the
// title numbers the task, since a fan-out's tasks share the node's name.
func (m *Model) rerunTaskOf(s *engine.StateSnapshot) tea.Cmd {
	if s == nil || m.sess == nil || len(s.Tasks) == 0 {
		m.note = "no task is planned from this checkpoint"
		return nil
	}
	i := 0
	if m.rerunAt == s.Config.CheckpointID {
		i = (m.rerunIdx + 1) % len(s.Tasks)
	}
	m.rerunAt, m.rerunIdx = s.Config.CheckpointID, i
	t := s.Tasks[i]
	name := t.Name
	if len(s.Tasks) > 1 {
		name = fmt.Sprintf("%s (task %d of %d)", t.Name, i+1, len(s.Tasks))
	}
	return m.rerunTask(s.Config.CheckpointID, t.ID, name)
}
