package tui

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/superstep/superstep/engine"
)

func (m *Model) selectedNode() string {
	var n string
	switch m.focus {
	case paneSeen:
		n = m.seen.selectedNode()
	case paneTasks:
		if r, ok := m.tasks.selected(); ok {
			n = r.node
		}
	}
	if n == "" {
		n = m.graph.selected()
	}
	if n == engine.Start {
		return ""
	}
	return n
}

// mainKeyMap is the main view's keys: stepping the run, breakpoints,
// checkpoints, and moving between and within the four panes. What enter
// and b do depends on the pane focused; its words say so.
type mainKeyMap struct {
	Next, Superstep, Continue, Cancel, Answer, EditWrites key.Binding
	// Break and BreakAfter are on the node selected; b on the channels
	// pane sets a watchpoint on the channel instead.
	Break, BreakAfter key.Binding
	Exprs             breakKeys
	Breakpoints       key.Binding

	Tree, Fork, Parent, Diff, Mark, Rerun, Threads, Settings key.Binding

	NextPane, PrevPane, Up, Down, PageUp, PageDown, Open, Filter, Internal key.Binding
	// GraphView switches the graph pane between its list and the drawing;
	// Left and Right scroll the drawing.
	GraphView, Left, Right key.Binding
	// Back clears the filter, pauses c, or drops the step keys queued.
	Back key.Binding
	// StepInto turns stepping into subgraph runs on or off (substep.go).
	StepInto key.Binding
}

func newMainKeyMap() mainKeyMap {
	return mainKeyMap{
		Next:        bind("n", "next phase", "n"),
		Superstep:   bind("s", "finish superstep", "s"),
		Continue:    bind("c", "continue", "c"),
		Cancel:      bind("X", "cancel running tasks", "X"),
		Answer:      keyAnswer(),
		EditWrites:  bind("a", "edit task's writes", "a"),
		Break:       bind("b", "break before node", "b"),
		BreakAfter:  bind("B", "break after node", "B"),
		Exprs:       newBreakKeys(),
		Breakpoints: bind("L", "list breakpoints", "L"),

		Tree:     bind("t", "checkpoint tree", "t"),
		Fork:     keyFork(),
		Parent:   keyParent(),
		Diff:     keyDiff(),
		Mark:     keyMark(),
		Rerun:    keyRerun(),
		Threads:  bind("T", "threads", "T"),
		Settings: bind("S", "run settings", "S"),

		NextPane:  keyNextPane(),
		PrevPane:  keyPrevPane(),
		Up:        keyUp(),
		Down:      keyDown(),
		PageUp:    keyPageUp(),
		PageDown:  keyPageDown(),
		Open:      keyOpen(),
		Filter:    bind("/", "filter channels and tasks", "/"),
		Internal:  keyInternal(),
		GraphView: keyGraphView(),
		Left:      keyLeft(),
		Right:     keyRight(),
		Back:      keyBack(),
		StepInto:  keyStepInto(),
	}
}

func (k mainKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Superstep, k.Continue, k.Cancel, k.Answer, k.Open, k.Tree, k.Fork, k.Parent, k.Diff, k.Back, k.StepInto}
}

func (k mainKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		colRun:         {k.Next, k.Superstep, k.Continue, k.Cancel, k.Answer, k.EditWrites, k.StepInto, k.Break, k.BreakAfter, k.Exprs.Condition, k.Exprs.Watch, k.Exprs.BreakOnError, k.Breakpoints},
		colCheckpoints: {k.Tree, k.Fork, k.Parent, k.Diff, k.Mark, k.Rerun, k.Threads, k.Settings},
		colMoving:      {k.NextPane, k.PrevPane, k.Up, k.Down, k.PageUp, k.PageDown, k.Open, k.Filter, k.Internal, k.GraphView, k.Left, k.Right},
		colForms:       {k.Back},
	}
}

// mainKey handles a key on the main view. While the channels filter is
// open it takes every key; otherwise the key goes to the group it belongs
// to, as the help groups them: running the graph, breakpoints, the
// thread's checkpoints, moving about the panes. No key is bound in two
// groups, so the order they are asked in changes nothing.
func (m *Model) mainKey(msg tea.KeyMsg) tea.Cmd {
	if m.chans.filtering {
		cmd := m.chans.filterKey(msg)
		m.refilter() // the tasks pane filters by the same text
		return cmd
	}
	for _, group := range []func(tea.KeyMsg) (tea.Cmd, bool){m.runKey, m.breakKey, m.checkpointKey, m.paneKey} {
		if cmd, ok := group(msg); ok {
			return cmd
		}
	}
	return nil
}

// runKey handles the keys that run the graph: step, superstep, continue
// and pause, cancel, answer an interrupt, edit a task's writes. A step key
// pressed while a step runs waits in the queue. It reports whether the
// key was one of these, in a state where it applies.
func (m *Model) runKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &m.mainKeys
	if m.isBusy && key.Matches(msg, k.Cancel) {
		if m.cancel != nil {
			m.cancel()
		}
		m.continuing = false
		m.dropQueue("the step was cancelled")
		m.note = "cancelling the tasks still running: each records the cancellation as its error, finished tasks keep their writes"
		return nil, true
	}
	if m.isBusy && !m.continuing && isStepKey(k, msg) {
		m.queueStep(msg.String())
		return nil, true
	}
	switch {
	case m.continuing && key.Matches(msg, k.Continue, k.Back):
		m.pauseReq = true
		m.note = "pausing after this phase…"
	case key.Matches(msg, k.Back) && len(m.queued) > 0:
		m.clearQueue()
	case key.Matches(msg, k.Next) && m.canStep():
		m.refreshPanes(m.view.Phase == engine.PhasePlanned)
		return m.step(opNext), true
	case key.Matches(msg, k.Superstep) && m.canStep():
		m.refreshPanes(m.view.Phase == engine.PhasePlanned)
		return m.step(opSuperstep), true
	case key.Matches(msg, k.Continue) && m.canStep():
		m.continuing, m.pauseReq = true, false
		m.note = "continuing to the next breakpoint, interrupt or end (c or esc pauses)"
		m.refreshPanes(m.view.Phase == engine.PhasePlanned)
		return m.step(opNext), true
	case key.Matches(msg, k.Answer) && k.Answer.Enabled():
		m.openAnswer()
	case pressed(msg, k.Answer) && !m.isBusy:
		// A disabled r must not do nothing silently; the reason replaces
		// the failure's line (the tasks pane keeps the error).
		m.err, m.note = nil, m.whyNoAnswer()
	case key.Matches(msg, k.EditWrites) && k.EditWrites.Enabled():
		m.openEdit()
	case key.Matches(msg, k.StepInto):
		return m.toggleStepInto(), true
	default:
		return nil, false
	}
	return nil, true
}

// breakKey handles the breakpoint keys: b on the channels pane watches
// the channel; b and B on a node break before and after it; C, W and E
// add conditions and watches; L lists them all.
func (m *Model) breakKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &m.mainKeys
	switch {
	case key.Matches(msg, k.Break) && m.focus == paneChannels:
		cv, ok := m.chans.selected()
		if !ok {
			return nil, true
		}
		m.note = m.bp.toggleWatch(cv.Name)
		return m.saveCmd(), true
	case key.Matches(msg, k.Exprs.Condition, k.Exprs.Watch, k.Exprs.BreakOnError):
		return m.addBreakKey(k.Exprs, msg), true
	case key.Matches(msg, k.Breakpoints):
		m.breaks = listNav{}
		m.mode = modeBreaks
	case key.Matches(msg, k.Break, k.BreakAfter):
		n := m.selectedNode()
		if n == "" {
			m.note = "select a node (graph pane) to set a breakpoint"
			return nil, true
		}
		m.note = m.bp.toggleNode(n, key.Matches(msg, k.BreakAfter))
		return m.saveCmd(), true
	default:
		return nil, false
	}
	return nil, true
}

// checkpointKey handles the keys about the thread's checkpoints: the
// tree, the threads, fork, run a task alone, mark and diff, the parent,
// and the run settings the next steps take.
func (m *Model) checkpointKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &m.mainKeys
	switch {
	case key.Matches(msg, k.Tree) && m.sess != nil && m.view != nil:
		return m.loadTree(), true
	case key.Matches(msg, k.Threads) && m.sess != nil:
		return m.loadThreads(), true
	case key.Matches(msg, k.Fork) && k.Fork.Enabled():
		return m.openFork(m.view.CheckpointID, m.view.Values), true
	case key.Matches(msg, k.Rerun) && k.Rerun.Enabled():
		r, _ := m.tasks.selected()
		return m.rerunTask(m.view.CheckpointID, r.taskID, r.node), true
	case key.Matches(msg, k.Mark) && k.Mark.Enabled():
		m.setMark(m.view.CheckpointID)
	case key.Matches(msg, k.Diff) && k.Diff.Enabled():
		return m.diffWith(m.view.CheckpointID, m.view.ParentID), true
	case key.Matches(msg, k.Parent) && k.Parent.Enabled():
		id := m.view.ParentID
		return m.do(opCheckout, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.Checkout(ctx, id)
			return opDoneMsg{view: v, err: err}
		}), true
	case key.Matches(msg, k.Settings) && m.sess != nil:
		m.openSettings()
	case unwritten(m.view) && !m.isBusy && (pressed(msg, k.Tree) || pressed(msg, k.Fork) || pressed(msg, k.Parent) || pressed(msg, k.Diff) || pressed(msg, k.Mark)):
		// These keys are off on a new thread: it has no checkpoint to
		// show, fork, diff or go back from, which would otherwise go
		// unsaid.
		m.err, m.note = nil, "a new thread has no checkpoints yet: n, s or c writes its input checkpoint, then "+msg.String()+" applies"
	default:
		return nil, false
	}
	return nil, true
}

// paneKey handles the keys that move about the panes: the graph pane's
// own (its drawing), focus, the cursor, open, the filter, internal
// channels.
func (m *Model) paneKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &m.mainKeys
	var where string // the first task's node: where the run is
	if m.view != nil && len(m.view.Tasks) > 0 {
		where = m.view.Tasks[0].Name
	}
	if m.graph.drawingKey(msg, k, m.focus == paneGraph, where) {
		return nil, true
	}
	switch {
	case key.Matches(msg, k.NextPane):
		m.focus = (m.focus + 1) % numPanes
	case key.Matches(msg, k.PrevPane):
		m.focus = (m.focus + numPanes - 1) % numPanes
	case key.Matches(msg, k.Up):
		m.moveFocused(-1)
	case key.Matches(msg, k.Down):
		m.moveFocused(1)
	case key.Matches(msg, k.PageUp):
		m.moveFocused(-10)
	case key.Matches(msg, k.PageDown):
		m.moveFocused(10)
	case key.Matches(msg, k.Open):
		if r, ok := m.tasks.selected(); ok && m.focus == paneTasks && r.header && m.tasks.subgraphs[r.node] && r.taskID != "" {
			m.sub = subgraphPane{root: m.opts.GraphName, prev: m.mode}
			return m.enterSubgraph(subgraphRef{node: r.node, taskID: r.taskID, label: r.label}), true
		}
		m.openFocused()
	case key.Matches(msg, k.Filter):
		if m.focus != paneTasks {
			m.focus = paneChannels
		}
		m.chans.filtering = true
		return m.chans.filter.Focus(), true
	case key.Matches(msg, k.Internal):
		m.setShowInternal(!m.chans.showInternal)
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) moveFocused(d int) { m.move(m.focus, d) }

func (m *Model) openFocused() {
	insp, ok, focus := m.openRow(m.focus, func(cv engine.ChannelView) inspector {
		title := fmt.Sprintf("%s · %s · v%d", cv.Name, kindName(cv), cv.Version)
		if !cv.Available {
			title += " · not available"
		}
		val := cv.Value
		if pv, ok := m.pending[cv.Name]; ok {
			// What the finished tasks wrote, which no checkpoint holds yet.
			title = fmt.Sprintf("%s · pending write (checkpoint has v%d)", cv.Name, cv.Version)
			val = pv.Value
		}
		return newInspector(title, val)
	})
	m.focus = focus
	if ok {
		m.insp = insp
		m.prevMode, m.mode = m.mode, modeInspect
	}
}

// setShowInternal is i on the main view, the tree and the diff: one
// setting, so that the internal channels a person asked for on one
// screen are there on the others. A subgraph run stepped live keeps its
// own (its graph's channels are others).
func (m *Model) setShowInternal(on bool) {
	m.chans.showInternal = on
	m.chans.refilter()
	m.treeChan.showInternal = on
	m.treeChan.refilter()
	m.diff.toggleInternal(on)
}

// conversationChannels are the channels of info that hold messages
// (add_messages).
func conversationChannels(info engine.GraphInfo) map[string]bool {
	out := map[string]bool{}
	for _, c := range info.Channels {
		if c.Reducer == "add_messages" {
			out[c.Name] = true
		}
	}
	return out
}

// tasksAndWatches is the bottom-right column: the watches box, when
// there are watches, above the tasks.
func (m Model) tasksAndWatches(w, h int, mode mode) string {
	st := m.styles
	focused := m.focus == paneTasks && mode == modeMain
	wh := 0
	if len(m.watches) > 0 {
		wh = min(len(m.watches)+2, h/2)
	}
	tasks := st.box(m.tasks.heading(), m.tasks.View(st, focused, w-2, h-wh-2), w, h-wh, focused)
	if live := m.liveRows(); live != nil {
		p := tasksPane{rows: live}
		title := fmt.Sprintf("Tasks · step %d running · X cancels", m.view.Step)
		tasks = st.box(title, p.View(st, false, w-2, h-wh-2), w, h-wh, focused)
	}
	if wh == 0 {
		return tasks
	}
	watch := st.box("Watches (* changed)", m.watchesView(w-2, wh-2), w, wh, false)
	return lipgloss.JoinVertical(lipgloss.Left, watch, tasks)
}

// liveRows are the running step's tasks as the feed reports them, or nil
// when no step is executing.
func (m Model) liveRows() []taskRow {
	if !m.isBusy || m.feed == nil || m.view == nil || (m.busy != opNext && m.busy != opSuperstep) {
		return nil
	}
	if m.view.Phase != engine.PhasePlanned && m.busy != opSuperstep {
		return nil
	}
	var planned []engine.TaskView
	if m.view.Phase == engine.PhasePlanned {
		planned = m.view.Tasks
	}
	return m.feed.rows(planned)
}

// topHeight gives the graph and channels row what it needs and the rest to
// versions_seen and tasks, which grow with the run; never more than 3/5.
func (m *Model) topHeight() int {
	bh := m.bodyHeight()
	graphNeed := len(m.graph.nodes) + 3
	if m.graph.drawn && m.graph.chosen {
		graphNeed = len(m.graph.drawing.Lines) + 3
	}
	need := max(graphNeed, len(m.chans.shown)+2, 6)
	if m.chans.filtering {
		need++
	}
	// The bottom row keeps what its content needs, up to half the body;
	// the room it does not need goes to the channels.
	botNeed := max(len(m.seen.rows)+5, len(m.tasks.rows)+2, 6)
	return clamp(need, min(5, bh/2), bh-clamp(botNeed, min(5, bh/2), bh/2))
}

// layout sizes: header, status line and footer take a line each.
func (m *Model) bodyHeight() int { return max(3, m.height-3) }

// leftWidth splits the screen: even halves on narrow terminals, where the
// graph and versions_seen need every cell, 2/5 on wide ones, where the
// value previews on the right profit from the room.
func (m *Model) leftWidth() int {
	if m.width < 110 {
		return m.width / 2
	}
	return clamp(m.width*9/20, min(30, m.width/2), m.width-20)
}

// sizeMain keeps the four panes' cursors in view for the room the next
// View gives them.
func (m *Model) sizeMain() {
	bh := m.bodyHeight()
	topH := m.topHeight()
	botH := bh - topH
	m.graph.nav.follow(topH-3, len(m.graph.nodes))
	m.graph.fit(m.leftWidth()-2, topH-2)
	m.graph.follow(m.leftWidth()-2, topH-2)
	chH := topH - 2
	if m.chans.filtering {
		chH--
	}
	m.chans.nav.follow(chH, len(m.chans.shown))
	m.seen.nav.follow(max(1, botH-3-botH/3), len(m.seen.rows))
	m.tasks.nav.follow(botH-m.watchesHeight(botH)-2, len(m.tasks.rows))
}

// watchesHeight is the room the watches box takes above the tasks: none
// without watches, never more than half the bottom row.
func (m *Model) watchesHeight(botH int) int {
	if len(m.watches) == 0 {
		return 0
	}
	return min(len(m.watches)+2, botH/2)
}

// enableMainKeys enables the keys of the main view, as mainKey groups
// them: running, checkpoints, breakpoints, and the panes (what enter does
// on the focused one). While the channels filter is open only its keys
// are.
func (m *Model) enableMainKeys() {
	k := &m.mainKeys
	*k = made(newMainKeyMap)
	disableAll(k)
	if m.chans.filtering {
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "clear filter")
		k.Open.SetEnabled(true)
		k.Open.SetHelp("enter", "keep filter")
		return
	}
	m.enableRunKeys()
	m.enableCheckpointKeys()
	m.enableBreakKeys()
	m.enablePaneKeys()
}

// enableRunKeys enables runKey's keys that apply now.
func (m *Model) enableRunKeys() {
	k := &m.mainKeys
	hasSess := m.sess != nil
	step := m.canStep()
	k.Cancel.SetEnabled(m.isBusy && (m.busy == opNext || m.busy == opSuperstep))
	k.Next.SetEnabled(step)
	k.Superstep.SetEnabled(step)
	k.Continue.SetEnabled(step)
	if step && failedHere(m.view) {
		// Each step key runs the failed step again first (Model.step).
		k.Next.SetHelp("n", "retry failed step")
		k.Superstep.SetHelp("s", "retry, finish superstep")
		k.Continue.SetHelp("c", "retry and continue")
		if failedTask(m.view) == nil {
			k.Next.SetHelp("n", "go on (resume)")
			k.Superstep.SetHelp("s", "go on, finish superstep")
			k.Continue.SetHelp("c", "go on and continue")
		}
	}
	if len(m.queued) > 0 {
		// The queue is shown in the header; esc is how to take it back.
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "clear queued keys")
	}
	if m.continuing {
		k.Continue.SetEnabled(true)
		k.Continue.SetHelp("c", "pause")
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "pause")
	}
	k.StepInto.SetEnabled(m.into.gate != nil)
	setStepIntoHelp(&k.StepInto, m.into.on)
	k.Answer.SetEnabled(hasSess && m.view != nil && m.view.Status == engine.StatusInterrupted && len(m.view.Interrupts) > 0)
	if r, ok := m.tasks.selected(); ok && m.focus == paneTasks && r.node != "" && hasSess && m.view.Phase == engine.PhaseExecuted && m.view.Status == engine.StatusRunning {
		k.EditWrites.SetEnabled(true)
	}
}

// enableCheckpointKeys enables checkpointKey's keys that apply now.
func (m *Model) enableCheckpointKeys() {
	k := &m.mainKeys
	hasSess := m.sess != nil
	k.Tree.SetEnabled(hasSess && m.view != nil && !unwritten(m.view)) // a new thread has no checkpoints yet
	k.Fork.SetEnabled(hasSess && m.view != nil && m.view.CheckpointID != "")
	k.Parent.SetEnabled(hasSess && m.view != nil && m.view.ParentID != "")
	k.Mark.SetEnabled(m.view != nil && m.view.CheckpointID != "")
	if r, ok := m.tasks.selected(); ok && m.focus == paneTasks && r.taskID != "" && hasSess && m.view.Phase == engine.PhasePlanned {
		k.Rerun.SetEnabled(true)
	}
	k.Diff.SetEnabled(hasSess && m.view != nil && m.view.CheckpointID != "" && (m.view.ParentID != "" || m.mark != "" && m.mark != m.view.CheckpointID))
	k.Threads.SetEnabled(hasSess)
	k.Settings.SetEnabled(hasSess)
}

// enableBreakKeys enables breakKey's keys that apply now.
func (m *Model) enableBreakKeys() {
	k := &m.mainKeys
	k.Break.SetEnabled(len(m.graph.nodes) > 1 || m.focus == paneChannels)
	k.BreakAfter.SetEnabled(len(m.graph.nodes) > 1)
	if m.focus == paneChannels {
		k.Break.SetHelp("b", "watchpoint on channel")
	} else {
		k.Break.SetHelp("b", "break before node")
	}
	for _, b := range []*key.Binding{&k.Exprs.Condition, &k.Exprs.Watch, &k.Exprs.BreakOnError, &k.Breakpoints} {
		b.SetEnabled(true)
	}
}

// enablePaneKeys enables paneKey's keys, and says what enter does on the
// focused pane.
func (m *Model) enablePaneKeys() {
	k := &m.mainKeys
	hasSess := m.sess != nil
	if m.graph.drawn {
		k.GraphView.SetHelp("g", "graph as list")
	} else {
		k.GraphView.SetHelp("g", "draw graph")
	}
	k.Left.SetEnabled(m.focus == paneGraph && m.graph.drawn)
	k.Right.SetEnabled(m.focus == paneGraph && m.graph.drawn)
	for _, b := range []*key.Binding{&k.GraphView, &k.NextPane, &k.PrevPane, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Filter, &k.Internal} {
		b.SetEnabled(true)
	}
	m.enableOpen(m.focus, &k.Open)
	if r, ok := m.tasks.selected(); m.focus == paneTasks && ok && r.header && m.tasks.subgraphs[r.node] && r.taskID != "" {
		k.Open.SetEnabled(hasSess)
		k.Open.SetHelp("enter", "into its subgraph")
	}
}

// mainPanes renders the four panes of the main view, each focused only
// when the main view has the keyboard.
func (m Model) mainPanes() (graph, chans, seen, tasks string) {
	st := m.styles
	w, bh := m.width, m.bodyHeight()
	lw := m.leftWidth()
	rw := w - lw
	topH := (&m).topHeight()
	botH := bh - topH
	main := m.baseMode() == modeMain
	graph = st.box("Graph · "+m.opts.GraphName, m.graph.View(st, m.bp, m.focus == paneGraph && main, lw-2, topH-2), lw, topH, m.focus == paneGraph && main)
	chans = st.box(m.chans.title(), m.chans.View(st, m.bp.channels, m.focus == paneChannels && main, rw-2, topH-2), rw, topH, m.focus == paneChannels && main)
	seen = st.box("versions_seen · why a node runs", m.seen.View(st, m.focus == paneSeen && main, lw-2, botH-2), lw, botH, m.focus == paneSeen && main)
	tasks = m.tasksAndWatches(rw, botH, m.baseMode())
	return graph, chans, seen, tasks
}

// mainView is the 2×2 grid: graph and channels above, versions_seen and
// tasks below.
func (m Model) mainView() string {
	graph, chans, seen, tasks := m.mainPanes()
	return lipgloss.JoinVertical(lipgloss.Left,
		lipgloss.JoinHorizontal(lipgloss.Top, graph, chans),
		lipgloss.JoinHorizontal(lipgloss.Top, seen, tasks))
}
