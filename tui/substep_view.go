package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// subStepLevel is one subgraph run being stepped, as the main view shows
// the root: its graph, channels, versions_seen and tasks, live.
type subStepLevel struct {
	ns     string
	crumbs []string
	view   *engine.StepView
	// ran are the tasks whose writes made the checkpoint shown.
	ran     []engine.TaskView
	info    engine.GraphInfo
	infoErr error
	// bp are the breakpoints compiled into the subgraph, marked on its
	// graph as the root's are: stepping it, they are where it stops.
	bp breakpoints
	stepPanes
}

func newSubStepLevel(p *subPause) *subStepLevel {
	l := &subStepLevel{ns: p.view.Namespace, info: p.info, infoErr: p.infoErr,
		stepPanes: stepPanes{graph: newGraphPane(p.info), chans: newChanPane(), seen: seenPane{info: p.info, live: true}}}
	l.tasks.subgraphs, l.tasks.live = map[string]bool{}, true
	l.bp = breakpoints{before: map[string]bool{}, after: map[string]bool{}}
	for _, n := range p.info.InterruptBefore {
		l.bp.before[n] = true
	}
	for _, n := range p.info.InterruptAfter {
		l.bp.after[n] = true
	}
	for _, n := range p.info.Nodes {
		if n.Subgraph {
			l.tasks.subgraphs[n.Name] = true
		}
	}
	return l
}

// setView shows the run's view; running marks its planned tasks as
// executing (the person released it and it has not paused again).
func (l *subStepLevel) setView(v *engine.StepView, running bool) {
	if prev := l.view; prev != nil && v != prev {
		switch {
		case v.Phase == engine.PhaseCheckpoint && len(v.Tasks) > 0:
			l.ran = v.Tasks
		case v.Phase == engine.PhaseCheckpoint && prev.Phase != engine.PhaseCheckpoint:
			l.ran = prev.Tasks
		case v.Phase == engine.PhaseCheckpoint:
			l.ran = nil
		}
	}
	l.view = v
	l.graph.setTasks(v.Tasks, v.Waiting, running)
	l.chans.setChannels(v.Channels, nil)
	l.seen.setView(v)
	l.tasks.setView(v, l.ran, running)
}

// subStepPane steps subgraph runs live: it holds the setting (stepping
// into on or off), the runs being stepped (outermost first: the
// breadcrumb) and the one held now, and owns the keys that release it.
type subStepPane struct {
	// gate is the session's (nil: the graph runs no subgraphs).
	gate *subStepGate
	// on: the root's n and s step into subgraph runs (>, kept per graph).
	on bool
	// levels are the runs being stepped, outermost first; empty when the
	// run is at the root.
	levels []*subStepLevel
	// held is the innermost run's pause while it waits for a key; nil
	// while it runs.
	held *subPause
	// backFrom names the run whose last view was released last: the
	// next pause, in its parent, says where the screen came back from.
	backFrom string
	focus    paneID
	keys     subStepKeyMap // made by enableKeys
}

// level is the innermost run being stepped, nil at the root.
func (p *subStepPane) level() *subStepLevel {
	if len(p.levels) == 0 {
		return nil
	}
	return p.levels[len(p.levels)-1]
}

// inside reports whether a subgraph run is being stepped.
func (p *subStepPane) inside() bool { return len(p.levels) > 0 }

// hold shows a paused run: the level of its namespace, entered afresh
// (entered) or come back to; runs that are not its parents ended.
func (p *subStepPane) hold(pause *subPause) (entered bool) {
	ns := pause.view.Namespace
	keep := 0
	for _, l := range p.levels {
		if l.ns != ns && !strings.HasPrefix(ns, l.ns+"|") {
			break
		}
		keep++
	}
	p.levels = p.levels[:keep]
	if l := p.level(); l == nil || l.ns != ns {
		p.levels = append(p.levels, newSubStepLevel(pause))
		entered = true
	}
	l := p.level()
	l.crumbs = pause.crumbs
	l.setView(pause.view, false)
	p.held = pause
	return entered
}

// release lets the held run go on as choice says and waits for what
// follows; its last view, once released, goes back to its parent.
func (p *subStepPane) release(choice subStepChoice) tea.Cmd {
	h := p.held
	if h == nil {
		return nil
	}
	p.held = nil
	if h.final() {
		p.levels = p.levels[:len(p.levels)-1]
	} else if l := p.level(); l != nil {
		l.setView(l.view, l.view.Phase == engine.PhasePlanned)
	}
	return func() tea.Msg {
		h.release <- choice
		return h.next()
	}
}

// leave forgets the runs stepped: the root's step ended, so they did.
func (p *subStepPane) leave() { p.levels, p.held = nil, nil }

// subStepKeyMap is the keys of a subgraph run being stepped: the root's
// stepping keys, which step it, and the main view's moving keys.
type subStepKeyMap struct {
	Next, Superstep, Continue, Cancel, StepInto key.Binding
	// Back clears the step keys queued while the run runs on.
	Back key.Binding

	NextPane, PrevPane, Up, Down, PageUp, PageDown, Open, Internal key.Binding
	GraphView, Left, Right                                         key.Binding
}

func newSubStepKeyMap() subStepKeyMap {
	return subStepKeyMap{
		Next:      bind("n", "next phase", "n"),
		Superstep: bind("s", "finish superstep", "s"),
		Continue:  bind("c", "run subgraph to its end", "c"),
		Cancel:    bind("X", "cancel running tasks", "X"),
		StepInto:  keyStepInto(),
		Back:      keyBack(),
		NextPane:  keyNextPane(),
		PrevPane:  keyPrevPane(),
		Up:        keyUp(),
		Down:      keyDown(),
		PageUp:    keyPageUp(),
		PageDown:  keyPageDown(),
		Open:      keyOpen(),
		Internal:  keyInternal(),
		GraphView: keyGraphView(),
		Left:      keyLeft(),
		Right:     keyRight(),
	}
}

func (k subStepKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Superstep, k.Continue, k.Cancel, k.Back, k.Open, k.NextPane, k.StepInto}
}

func (k subStepKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		colRun:         {k.Next, k.Superstep, k.Continue, k.Cancel, k.StepInto},
		colCheckpoints: nil,
		colMoving:      {k.NextPane, k.PrevPane, k.Up, k.Down, k.PageUp, k.PageDown, k.Open, k.Internal, k.GraphView, k.Left, k.Right},
		colForms:       {k.Back},
	}
}

// keyStepInto is > on the main view and on a subgraph being stepped:
// stepping into subgraph runs on or off.
func keyStepInto() key.Binding { return bind(">", "step into subgraphs", ">") }

// setStepIntoHelp words > for the setting now: what pressing it does.
func setStepIntoHelp(b *key.Binding, on bool) {
	if on {
		b.SetHelp(">", "step over subgraphs")
	} else {
		b.SetHelp(">", "step into subgraphs")
	}
}

// enableKeys enables the keys that apply: stepping while a run is held
// (on its last view n, s and c all take it back to its parent),
// cancelling while the root's step runs (always, here), clearing the
// queued step keys while there are some.
func (p *subStepPane) enableKeys(busy bool, queued int) {
	k := &p.keys
	*k = made(newSubStepKeyMap)
	disableAll(k)
	held := p.held != nil
	k.Next.SetEnabled(held)
	k.Superstep.SetEnabled(held)
	k.Continue.SetEnabled(held)
	if held && p.held.final() {
		// The run's last view: released, it goes back to its parent
		// whichever key releases it, so s and c (a queued one too) do
		// what n does, and their help says so.
		for _, b := range []*key.Binding{&k.Next, &k.Superstep, &k.Continue} {
			b.SetHelp(b.Help().Key, "back to the parent")
		}
	}
	k.Cancel.SetEnabled(busy)
	if queued > 0 {
		// The queue is shown in the header; esc is how to take it back.
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "clear queued keys")
	}
	k.StepInto.SetEnabled(true)
	setStepIntoHelp(&k.StepInto, p.on)
	for _, b := range []*key.Binding{&k.NextPane, &k.PrevPane, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Internal, &k.GraphView} {
		b.SetEnabled(true)
	}
	l := p.level()
	if l == nil {
		return
	}
	k.Left.SetEnabled(p.focus == paneGraph && l.graph.drawn)
	k.Right.SetEnabled(p.focus == paneGraph && l.graph.drawn)
	if l.graph.drawn {
		k.GraphView.SetHelp("g", "graph as list")
	}
	l.enableOpen(p.focus, &k.Open)
}

// subStepKey handles a key on a subgraph run being stepped.
func (m *Model) subStepKey(msg tea.KeyMsg) tea.Cmd {
	p := &m.into
	k := &p.keys
	l := p.level()
	if l == nil {
		return nil
	}
	switch {
	case key.Matches(msg, k.Next):
		return m.releaseSubgraph(subNextPhase)
	case key.Matches(msg, k.Superstep):
		return m.releaseSubgraph(subSuperstep)
	case key.Matches(msg, k.Continue):
		return m.releaseSubgraph(subToEnd)
	case isStepKey(&m.mainKeys, msg) && p.held == nil:
		// Typed faster than the run pauses again: the key steps the
		// next pause, as one typed while a root step runs does.
		m.queueStep(msg.String())
	case key.Matches(msg, k.Back):
		m.clearQueue()
	case key.Matches(msg, k.Cancel):
		if m.cancel != nil {
			m.cancel()
		}
		m.dropQueue("the step was cancelled")
		m.note = "cancelling the step: the subgraph runs held and the tasks still running end with the cancellation as their error"
		if h := p.held; h != nil {
			// The held run returns on the cancellation by itself; what
			// comes back is the step's end.
			p.held = nil
			return h.next
		}
	case key.Matches(msg, k.StepInto):
		return m.toggleStepInto()
	case key.Matches(msg, k.NextPane):
		p.focus = (p.focus + 1) % numPanes
	case key.Matches(msg, k.PrevPane):
		p.focus = (p.focus + numPanes - 1) % numPanes
	case key.Matches(msg, k.Up):
		l.move(p.focus, -1)
	case key.Matches(msg, k.Down):
		l.move(p.focus, 1)
	case key.Matches(msg, k.PageUp):
		l.move(p.focus, -10)
	case key.Matches(msg, k.PageDown):
		l.move(p.focus, 10)
	case key.Matches(msg, k.Open):
		m.openSubStepFocused(l)
	case key.Matches(msg, k.Internal):
		l.chans.showInternal = !l.chans.showInternal
		l.chans.refilter()
	default:
		where := ""
		if len(l.view.Tasks) > 0 {
			where = l.view.Tasks[0].Name
		}
		drawKeys := made(newMainKeyMap)
		l.graph.drawingKey(msg, &drawKeys, p.focus == paneGraph, where)
	}
	return nil
}

// releaseSubgraph lets the held run go on and says how.
func (m *Model) releaseSubgraph(choice subStepChoice) tea.Cmd {
	p := &m.into
	if p.held == nil {
		return nil
	}
	name := p.level().crumbs[len(p.level().crumbs)-1]
	switch {
	case p.held.final():
		m.note = "back from " + termtext.Name(name) + ": its parent goes on"
		p.backFrom = name
	case choice == subToEnd:
		m.note = "running " + termtext.Name(name) + " to its end"
	default:
		m.note = ""
	}
	return p.release(choice)
}

// toggleStepInto turns stepping into subgraphs on or off and keeps the
// setting with the graph's. Turned off inside a subgraph run, every run
// of the step in progress runs through, the held one too.
func (m *Model) toggleStepInto() tea.Cmd {
	p := &m.into
	p.on = !p.on
	if p.on {
		m.note = "stepping into subgraphs: n and s at the root stop in each subgraph run a step starts (c runs through them); > steps over again"
		return m.saveCmd()
	}
	m.note = "stepping over subgraphs: a step runs its subgraph tasks whole"
	if p.gate != nil {
		p.gate.stopStepping() // the runs of a step in progress too
	}
	var release tea.Cmd
	if p.inside() {
		release = m.releaseSubgraph(subToEnd)
		m.note = "stepping over subgraphs: the subgraph runs of this step run through"
	}
	return tea.Batch(m.saveCmd(), release)
}

// openSubStepFocused opens the focused row: a value in the inspector, why
// a node runs.
func (m *Model) openSubStepFocused(l *subStepLevel) {
	insp, ok, focus := l.openRow(m.into.focus, func(cv engine.ChannelView) inspector {
		return newInspector(fmt.Sprintf("%s · %s · v%d · subgraph %s", cv.Name, kindName(cv), cv.Version, strings.Join(l.crumbs, " › ")), cv.Value)
	})
	m.into.focus = focus
	if ok {
		m.insp = insp
		m.prevMode, m.mode = m.mode, modeInspect
	}
}

// onSubPause takes a subgraph run's pause: the screen goes to it, and
// the oldest step key queued while the run ran on steps it. A run that
// stopped at an interrupt or failed drops the queue, as the root does:
// the keys were typed for a run that has since stopped.
func (m *Model) onSubPause(msg subPauseMsg) tea.Cmd {
	entered := m.into.hold(msg.pause)
	v := msg.pause.view
	name := termtext.Name(strings.Join(msg.pause.crumbs, " › "))
	switch {
	case v.Status == engine.StatusInterrupted && len(v.Interrupts) == 0:
		// A breakpoint compiled into the subgraph: no question waits,
		// and the root stops there too (its note says how to go on).
		m.note = name + " stopped at a breakpoint" + heldCallsText(v.HeldCalls, v.Namespace) + ": n goes back; the root stops there too"
	case v.Status == engine.StatusInterrupted:
		m.note = name + " stopped at an interrupt: n goes back, and the root asks for the answer when its step ends"
	case v.Status == engine.StatusFailed:
		m.note = name + " failed: " + firstLine(fmt.Sprint(v.Err)) + "; n goes back to its parent"
	case v.Status == engine.StatusDone:
		m.note = name + " is done: n goes back to its parent"
	case entered:
		m.note = "stepped into " + name + ": n next phase · s its superstep · c to its end"
	case m.into.backFrom != "":
		m.note = "back in " + name + " from " + termtext.Name(m.into.backFrom) + ", which ended"
	default:
		m.note = ""
	}
	m.into.backFrom = ""
	if msg.pause.infoErr != nil {
		m.err = msg.pause.infoErr
	}
	if v.Status == engine.StatusInterrupted && len(v.Interrupts) > 0 || v.Status == engine.StatusFailed {
		m.dropQueue(m.note) // "2 queued step key(s) dropped: mid stopped at an interrupt: n goes back…"
	}
	return m.drainQueue()
}

// heldCallsText names the Task calls a subgraph's breakpoint held
// (", which held s0's call to m (interrupt_after s0)"; the call returned
// nothing and the step's writes wait to be applied), in the subgraph run
// of namespace ns, where its name goes without saying.
func heldCallsText(held []engine.HeldCall, ns string) string {
	if len(held) == 0 {
		return ""
	}
	return ", which held " + heldCallList(held, ns)
}

// syncSubStepMode shows a subgraph run being stepped where the main view
// would be shown (and the main view again once it ended), under the
// overlays too.
func (m *Model) syncSubStepMode() {
	from, to := modeSubStep, modeMain
	if m.into.inside() {
		from, to = modeMain, modeSubStep
	}
	for _, md := range []*mode{&m.mode, &m.helpPrev, &m.quitPrev, &m.prevMode} {
		if *md == from {
			*md = to
		}
	}
}

// sizeSubStep keeps the panes' cursors in view.
func (m *Model) sizeSubStep() {
	l := m.into.level()
	if l == nil {
		return
	}
	topH, botH := m.subStepHeights(l)
	lw := m.leftWidth()
	l.graph.nav.follow(topH-3, len(l.graph.nodes))
	l.graph.fit(lw-2, topH-2)
	l.graph.follow(lw-2, topH-2)
	l.chans.nav.follow(topH-2, len(l.chans.shown))
	l.seen.nav.follow(max(1, botH-3-botH/3), len(l.seen.rows))
	l.tasks.nav.follow(botH-2, len(l.tasks.rows))
}

// subStepHeights splits the body under the breadcrumb between the panes
// as the main view does.
func (m *Model) subStepHeights(l *subStepLevel) (top, bottom int) {
	bh := m.bodyHeight() - 1
	graphNeed := len(l.graph.nodes) + 3
	if l.graph.drawn && l.graph.chosen {
		graphNeed = len(l.graph.drawing.Lines) + 3
	}
	need := max(graphNeed, len(l.chans.shown)+2, 6)
	botNeed := max(len(l.seen.rows)+5, len(l.tasks.rows)+2, 6)
	top = clamp(need, min(5, bh/2), bh-clamp(botNeed, min(5, bh/2), bh/2))
	return top, bh - top
}

// subStepView is the breadcrumb and the held run's four panes.
func (m Model) subStepView(w, bh int) string {
	st := m.styles
	p := &m.into
	l := p.level()
	if l == nil {
		return fit("", w, bh)
	}
	crumb := strings.Join(append([]string{m.opts.GraphName}, escapeAll(l.crumbs)...), " › ")
	// Whether the run is held comes first: in a narrow window the
	// waiters' names and the namespace are cut at the edge, not it.
	state := "  live · running"
	if p.held != nil {
		state = "  live · paused"
	}
	if ws := p.gate.waiters(); len(ws) > 0 {
		wait := "more wait their turn"
		if len(ws) == 1 {
			wait = "more waits its turn"
		}
		state += fmt.Sprintf(" · %d %s: %s", len(ws), wait, strings.Join(escapeAll(ws), ", "))
	}
	state += " · namespace " + termtext.Name(l.ns)
	line := st.Header.Render(cut(crumb, w)) + st.Dim.Render(cut(state, max(0, w-lipgloss.Width(crumb))))

	graph, chans, seen, tasks := m.subStepPanes(l, w, bh-1)
	return lipgloss.JoinVertical(lipgloss.Left, pad(line, w),
		lipgloss.JoinHorizontal(lipgloss.Top, graph, chans),
		lipgloss.JoinHorizontal(lipgloss.Top, seen, tasks))
}

// subStepPanes renders the four panes of run l in w×h, as mainPanes does
// the root's.
func (m Model) subStepPanes(l *subStepLevel, w, h int) (graph, chans, seen, tasks string) {
	st := m.styles
	p := &m.into
	lw := m.leftWidth()
	rw := w - lw
	topH, _ := (&m).subStepHeights(l)
	botH := h - topH
	main := m.baseMode() == modeSubStep
	focused := func(id paneID) bool { return p.focus == id && main }
	title := "Graph · " + termtext.Name(l.crumbs[len(l.crumbs)-1])
	graph = st.box(title, l.graph.View(st, l.bp, focused(paneGraph), lw-2, topH-2), lw, topH, focused(paneGraph))
	chans = st.box(l.chans.title(), l.chans.View(st, nil, focused(paneChannels), rw-2, topH-2), rw, topH, focused(paneChannels))
	seen = st.box("versions_seen · why a node runs", l.seen.View(st, focused(paneSeen), lw-2, botH-2), lw, botH, focused(paneSeen))
	tasks = st.box(l.tasks.heading(), l.tasks.View(st, focused(paneTasks), rw-2, botH-2), rw, botH, focused(paneTasks))
	return graph, chans, seen, tasks
}

// showsSubStep reports whether the screen is about a subgraph run being
// stepped: its own, or the inspector opened from it.
func (m Model) showsSubStep() bool {
	md := m.baseMode()
	return m.into.level() != nil && (md == modeSubStep || md == modeInspect && m.prevMode == modeSubStep)
}

// subStepHeader is the header while a subgraph run is stepped: where it
// is held, and that the root's step waits for it. In a narrow window the
// parts the screen says elsewhere give way whole, as the root's header's
// do (viewHeader): the graph's name and the run's breadcrumb (the line
// under the header has both), then the checkpoint id, then the root's
// step; where the run is held (step, phase) and the keys queued stay.
func (m Model) subStepHeader() string {
	st := m.styles
	l := m.into.level()
	v := l.view
	label, ls := "RUNNING", st.Running
	if m.into.held != nil {
		label, ls = viewLabel(st, v)
	}
	thread := termtext.Name(m.thread)
	parts := []headerPart{{st.Header.Render(m.opts.GraphName), 5}, {"thread " + thread, 0}}
	if m.width >= 100 {
		parts = append([]headerPart{{st.Header.Render("superstep"), 6}}, parts...)
	}
	parts = append(parts, headerPart{"⤷ " + termtext.Name(strings.Join(l.crumbs, " › ")), 4}, headerPart{"cp " + shortID(v.CheckpointID), 3},
		headerPart{stepLabel(v), 0}, headerPart{ls.Render(" " + label + " "), 0})
	if m.view != nil {
		parts = append(parts, headerPart{st.HeaderDim.Render(fmt.Sprintf("root step %d executing", m.view.Step)), 2})
	}
	if q := m.queuedLabel(); q != "" {
		parts = append(parts, headerPart{q, 0})
	}
	return fitHeader(st, parts, thread, "", m.width)
}

// escapeAll makes names safe to show.
func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = termtext.Name(s)
	}
	return out
}

// mouseSubStep focuses the pane clicked (under the breadcrumb line, the
// grid is the main view's) and scrolls the focused one with the wheel.
func (m *Model) mouseSubStep(msg tea.MouseMsg, wheel int) {
	l := m.into.level()
	if l == nil {
		return
	}
	if wheel != 0 {
		l.move(m.into.focus, wheel)
		return
	}
	y := msg.Y - bodyTop - 1
	if y < 0 {
		return
	}
	top, _ := m.subStepHeights(l)
	right := msg.X >= m.leftWidth()
	switch {
	case y < top && !right:
		m.into.focus = paneGraph
	case y < top:
		m.into.focus = paneChannels
	case !right:
		m.into.focus = paneSeen
	default:
		m.into.focus = paneTasks
	}
}
