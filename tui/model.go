package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// mode is what takes the keyboard: the main panes or one overlay.
type mode int

const (
	modeMain mode = iota
	modeInspect
	modeAnswer
	modeTree
	modeFork
	modeThreads
	modeHelp
	modeQuit
	modeDiff
	modePrompt   // one line of input: a condition or a watch expression
	modeBreaks   // the list of breakpoints and watches
	modeSettings // run settings
	modeEdit     // a task's writes at the Execute pause
	modeSubgraph // a subgraph task's namespace, read only
)

// paneID orders the main panes for tab: reading order of the 2×2 grid.
type paneID int

const (
	paneGraph paneID = iota
	paneChannels
	paneSeen
	paneTasks
	numPanes
)

// opKind names the engine call a Cmd made.
type opKind int

const (
	opInit opKind = iota
	opOpen
	opStart
	opNext
	opSuperstep
	opResume
	opCheckout
	opHistory
	opUpdate
	opThreads
	opInfer
	opDiff
	opSubgraph
	opRerun
	opEdit
)

// stepQueueCap bounds the step keys (n, s, c) kept while a step runs: a
// held key must not run the graph for minutes after it is released.
const stepQueueCap = 8

// opDoneMsg is the result of a session call. It carries the session back:
// while the Cmd ran, the model had none (see Model.take).
type opDoneMsg struct {
	sess    session
	op      opKind
	view    *engine.StepView
	hist    []engine.CheckpointHead
	threads []ThreadSummary
	pending map[string]engine.ChannelView
	paths   map[string]string // interrupt id → where it was raised
	diff    *engine.CheckpointDiff
	sub     *subgraphLevel
	rerun   *engine.TaskRerun
	text    string
	err     error
}

// Model is the debugger's single tea.Model.
type Model struct {
	ctx    context.Context
	cancel context.CancelFunc // cancels the engine call in flight
	sess   session            // nil while a Cmd owns it
	info   engine.GraphInfo
	opts   Options
	thread string

	keys   KeyMap
	styles Styles
	help   help.Model
	spin   spinner.Model
	// now and static make the screen deterministic in tests: a fixed clock
	// and no animation (no spinner ticks, no cursor blink).
	now    func() time.Time
	static bool

	width, height int
	mode          mode
	prevMode      mode // where the inspector and the fork form return to
	helpPrev      mode // where the help returns to
	quitPrev      mode // where a declined quit returns to
	focus         paneID

	view *engine.StepView
	ran  []engine.TaskView // the tasks of the superstep the last Update applied
	// pending are channels an interrupted step's finished tasks wrote,
	// which no checkpoint holds yet (shown marked, beside the saved value).
	pending map[string]engine.ChannelView
	// paths name where each pending interrupt was raised (mid › deep › b1).
	paths map[string]string

	busy       opKind
	isBusy     bool
	busySince  time.Time
	continuing bool
	pauseReq   bool
	// queued are step keys pressed while a step ran, oldest first.
	queued []string

	note string
	err  error

	// feed is what the running tasks report (nil when the session has no
	// feed); read on each frame while a step runs.
	feed    *liveFeed
	bp      breakpoints
	watches []*exprSlot
	prompt  promptForm
	breaks  listNav // cursor of the breakpoints list
	// run is the engine options of the runs started (S edits them);
	// lastInput is the input of the last new thread of this graph.
	edit      editForm
	edited    []string // ids of tasks whose writes were edited this step
	run       runSettings
	settings  settingsForm
	lastInput map[string]any

	graph    graphPane
	chans    chanPane
	seen     seenPane
	tasks    tasksPane
	insp     inspector
	answer   answerForm
	tree     treePane
	treeChan chanPane
	treeSeen seenPane
	fork     forkForm
	threads  threadsPane
	diff     diffPane
	diffPrev mode        // where the diff returns to
	subNext  subgraphRef // the level being read
	sub      subgraphPane
	diffAB   [2]string // labels of the two sides of the diff being loaded
	// replay is the step-by-step replay in progress (R in the tree), and
	// replayNext the one that starts when its checkout is done.
	replay, replayNext *replayRun
	// rerunAt and rerunIdx are the checkpoint and task e last ran alone.
	rerunAt  string
	rerunIdx int
	// mark is the checkpoint marked with m: d diffs against it instead of
	// the parent, on any branch.
	mark string
}

func newModel(ctx context.Context, s session, opts Options) Model {
	info := s.Info()
	if opts.GraphName == "" {
		opts.GraphName = info.Name
	}
	// GraphName is only ever shown: escape it once.
	opts.GraphName = termtext.Name(opts.GraphName)
	h := help.New()
	m := Model{
		ctx: ctx, sess: s, info: info, opts: opts, thread: opts.Thread,
		keys: DefaultKeyMap(), styles: DefaultStyles(), help: h,
		spin:  spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		now:   time.Now,
		bp:    newBreakpoints(),
		graph: newGraphPane(info), chans: newChanPane(), seen: seenPane{info: info},
		treeChan: newChanPane(), treeSeen: seenPane{info: info},
		width: 80, height: 24,
	}
	m.tasks.subgraphs = map[string]bool{}
	for _, n := range info.Nodes {
		if n.Subgraph {
			m.tasks.subgraphs[n.Name] = true
		}
	}
	m.feed = s.Live()
	if m.thread == "" {
		m.thread = "default"
		if opts.Input != nil {
			m.thread = m.now().Format("run-20060102-150405")
		}
	}
	for _, n := range info.InterruptBefore {
		m.bp.before[n] = true
	}
	for _, n := range info.InterruptAfter {
		m.bp.after[n] = true
	}
	return m
}

// Init opens the thread (or starts it) as the first Cmd, and loads the
// graph's saved breakpoints and watches.
func (m Model) Init() tea.Cmd {
	open := m.open()
	if load := m.loadBreakpoints(); load != nil {
		// Either may arrive first: breakpoints apply to whatever view is
		// on screen, or to the first one.
		return tea.Batch(func() tea.Msg { return load() }, open)
	}
	return open
}

func (m Model) open() tea.Cmd {
	thread, input := m.thread, m.opts.Input
	return m.do(opInit, func(ctx context.Context, s session) opDoneMsg {
		v, err := s.Open(ctx, thread)
		if errors.Is(err, engine.ErrNoCheckpoint) {
			if input == nil {
				return opDoneMsg{err: fmt.Errorf("thread %q has no checkpoints yet: press T to start one", thread)}
			}
			v, err = s.Start(ctx, thread, input)
			return opDoneMsg{op: opStart, view: v, err: err}
		}
		return opDoneMsg{view: v, err: err}
	})
}

// take hands the session to a Cmd. The model has none until the Cmd's
// message brings it back, so nothing can touch the Stepper meanwhile.
func (m *Model) take() session {
	s := m.sess
	m.sess = nil
	return s
}

// do builds the Cmd for one session call. Init's copy of the model is
// thrown away by bubbletea, so the session is captured, not taken, there.
func (m *Model) do(op opKind, fn func(context.Context, session) opDoneMsg) tea.Cmd {
	s := m.take()
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	m.isBusy, m.busy, m.busySince = true, op, m.now()
	m.err = nil
	rs := m.run
	run := func() tea.Msg {
		defer cancel()
		s.SetRunSettings(rs) // a no-op unless they changed
		msg := fn(ctx, s)
		if msg.op == 0 {
			msg.op = op
		}
		if msg.view != nil {
			msg.pending = s.Pending()
			if len(msg.view.Interrupts) > 0 {
				msg.paths = s.InterruptPaths(ctx, msg.view.Interrupts)
			}
		}
		msg.sess = s
		return msg
	}
	if m.static {
		return run
	}
	return tea.Batch(run, m.spin.Tick)
}

func (m *Model) step(op opKind) tea.Cmd {
	if m.feed != nil && m.view != nil && (m.view.Phase == engine.PhasePlanned || op == opSuperstep) {
		m.feed.reset() // the tasks about to execute report afresh
	}
	return m.do(op, func(ctx context.Context, s session) opDoneMsg {
		var v *engine.StepView
		var err error
		if op == opSuperstep {
			v, err = s.Superstep(ctx)
		} else {
			v, err = s.Next(ctx)
		}
		return opDoneMsg{view: v, err: err}
	})
}

// Update implements tea.Model.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
	case opDoneMsg:
		cmd = m.onDone(msg)
	case settingsMsg:
		if msg.err != nil {
			m.err = msg.err
		}
		if msg.saved != nil {
			m.applySaved(*msg.saved)
			m.run = msg.saved.savedRun() // the session takes them with its next Cmd
		}
	case tea.MouseMsg:
		cmd = m.mouse(msg)
	case spinner.TickMsg:
		if m.isBusy && !m.static {
			m.spin, cmd = m.spin.Update(msg)
		}
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.typing() {
			// Keys pressed faster than the terminal is read arrive as one
			// message ("jjj"); outside a text box each is a command.
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
				m.sync()
			}
			cmd = tea.Batch(cmds...)
			break
		}
		cmd = m.onKey(msg)
	}
	m.sync()
	return m, cmd
}

func (m *Model) onDone(msg opDoneMsg) tea.Cmd {
	m.sess, m.isBusy = msg.sess, false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	if msg.op == opInfer {
		if m.mode == modeFork {
			m.fork.inferred, m.fork.inferErr = msg.text, errText(msg.err)
		}
		return nil
	}
	if msg.err != nil && msg.view == nil {
		m.dropQueue("the last step failed")
		m.err = msg.err
		m.continuing = false
		if m.mode == modeFork {
			m.fork.err = msg.err.Error()
		}
		if m.mode == modeThreads && m.threads.creating {
			m.threads.newErr = msg.err.Error()
		}
		if msg.op == opThreads {
			m.mode = modeThreads
			m.threads.list, m.threads.err = nil, msg.err.Error()
		}
		return nil
	}
	switch msg.op {
	case opRerun:
		m.diff = newRerunPane(msg.rerun, m.diffAB[0], m.diffAB[1])
		m.note = ""
		m.diffPrev, m.mode = m.mode, modeDiff
		return nil
	case opSubgraph:
		m.sub.push(m.subNext, msg.sub)
		m.note, m.mode = "", modeSubgraph
		return nil
	case opDiff:
		m.diff = newDiffPane(msg.diff, m.diffAB[0], m.diffAB[1], m.conversationChannels())
		m.diffPrev, m.mode = m.mode, modeDiff
		return nil
	case opHistory:
		cur := ""
		if m.view != nil {
			cur = m.view.CheckpointID
		}
		m.tree = newTreePane(msg.hist, cur, m.sess)
		m.tree.marked = m.mark
		m.refreshTreePreview()
		m.mode = modeTree
		return nil
	case opThreads:
		sel := m.threads.nav.cur
		m.threads.list, m.threads.err = msg.threads, ""
		m.threads.nav.cur = sel
		m.mode = modeThreads
		return nil
	}
	prev := m.view
	m.pending, m.paths = msg.pending, msg.paths
	m.setView(msg.view, prev, msg.op)
	m.err = msg.err
	switch msg.op {
	case opInit, opOpen, opStart, opCheckout, opUpdate:
		m.replay, m.replayNext = m.replayNext, nil
		m.mode = modeMain
		m.note = map[opKind]string{
			opInit: "opened thread " + termtext.Name(m.thread), opOpen: "opened thread " + termtext.Name(m.thread),
			opStart:    "new run on thread " + termtext.Name(m.thread) + ": paused after the input checkpoint, n plans step 0",
			opCheckout: "time travel: checkpoint " + shortID(msg.view.CheckpointID) + " is current; nothing is written until you step (n s c), which forks there",
			opUpdate:   "forked: checkpoint " + shortID(msg.view.CheckpointID) + " written and current",
		}[msg.op]
	case opEdit:
		m.mode = modeMain
		m.note = "writes edited: n applies them (the checkpoint will say they were edited), a edits them again"
	case opResume:
		m.mode = modeMain
		m.note = fmt.Sprintf("answered: n steps on, c continues (a resumed run has its own recursion budget: %d supersteps)", msg.view.RecursionLeft)
	default:
		m.note = ""
	}
	if m.replay != nil && msg.op == opCheckout {
		m.note = "replay from " + shortID(m.replay.from) + ": each step is compared with the recording; c runs to the first divergence"
	}
	v := m.view
	if m.replay != nil && (msg.op == opNext || msg.op == opSuperstep) {
		if stop := m.judgeReplay(v); stop {
			return nil
		}
	}
	if v.Status == engine.StatusInterrupted && len(v.Interrupts) > 0 {
		m.continuing = false
		m.dropQueue("an interrupt is waiting")
		m.openAnswer()
		return nil
	}
	if msg.err != nil || v.Status == engine.StatusFailed {
		m.dropQueue("the run failed")
	}
	if v.Status == engine.StatusInterrupted {
		m.note = "stopped at an engine breakpoint (interrupt_before/after: run settings or compiled in): n or c goes on"
	}
	if m.continuing {
		if stop, why := m.shouldPause(prev, v); stop || msg.err != nil || v.Status != engine.StatusRunning || m.pauseReq {
			m.continuing, m.pauseReq = false, false
			if stop {
				m.note = why
				m.dropQueue("a breakpoint stopped the run")
			}
			return m.drainQueue()
		}
		return m.step(opNext)
	}
	return m.drainQueue()
}

// queueStep keeps a step key pressed while a step runs.
func (m *Model) queueStep(k string) {
	if len(m.queued) >= stepQueueCap {
		m.note = fmt.Sprintf("%d step keys are already queued: %s ignored", stepQueueCap, k)
		return
	}
	m.queued = append(m.queued, k)
}

// drainQueue runs the oldest queued step key once the model may step.
func (m *Model) drainQueue() tea.Cmd {
	if len(m.queued) == 0 || m.mode != modeMain {
		return nil
	}
	if !m.canStep() {
		m.dropQueue("there is nothing left to step")
		return nil
	}
	k := m.queued[0]
	m.queued = m.queued[1:]
	m.syncKeys() // the keys enabled now that the session is back
	return m.mainKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
}

// dropQueue forgets queued step keys, saying why: they were typed for a
// run that has since stopped.
func (m *Model) dropQueue(why string) {
	if len(m.queued) == 0 {
		return
	}
	m.note = fmt.Sprintf("%d queued step key(s) dropped: %s", len(m.queued), why)
	m.queued = nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// shouldPause checks the debugger's breakpoints at the phase just reached:
// before-breakpoints after a Plan, after-breakpoints after an Update.
func (m *Model) shouldPause(prev, v *engine.StepView) (bool, string) {
	switch v.Phase {
	case engine.PhasePlanned:
		for _, t := range v.Tasks {
			if m.bp.before[t.Name] {
				return true, "breakpoint: before " + t.Name
			}
		}
	case engine.PhaseCheckpoint:
		for _, t := range m.ran {
			if m.bp.after[t.Name] {
				return true, "breakpoint: after " + t.Name
			}
		}
	}
	return m.exprStops(v)
}

func (m *Model) setView(v, prev *engine.StepView, op opKind) {
	if v == nil {
		return
	}
	stepped := op == opNext || op == opSuperstep
	if v.Phase != engine.PhaseExecuted {
		m.edited = nil
	}
	switch {
	case !stepped:
		// Opening, resuming or checking out ran nothing: the tasks a view
		// lists at a checkpoint then are saved ones, not ones that ran.
		m.ran = nil
	case v.Phase == engine.PhaseCheckpoint && len(v.Tasks) > 0:
		// At a checkpoint the view lists the tasks whose writes made it.
		m.ran = v.Tasks
	case v.Phase == engine.PhaseCheckpoint && prev != nil && prev.Phase != engine.PhaseCheckpoint:
		m.ran = prev.Tasks
	case v.Phase == engine.PhaseCheckpoint:
		m.ran = nil
	}
	m.view = v
	m.thread = v.Thread
	m.evalExprs()
	m.refreshPanes(false)
}

func (m *Model) refreshPanes(running bool) {
	v := m.view
	if v == nil {
		return
	}
	m.graph.setTasks(v.Tasks, v.Waiting, running)
	m.chans.setChannels(v.Channels, m.pending)
	m.seen.setView(v)
	m.tasks.verdicts = nil
	if m.replay != nil && v.Phase == engine.PhaseExecuted {
		m.tasks.verdicts = m.replay.verdicts
	}
	m.tasks.edited = m.edited
	m.tasks.setView(v, m.ran, running)
	m.tasks.setFilter(m.chans.filter.Value())
}

// refilter applies the / filter to both panes it narrows: channels by
// name, tasks by node, channel or text.
func (m *Model) refilter() {
	m.chans.refilter()
	m.tasks.setFilter(m.chans.filter.Value())
}

// judgeReplay compares an executed step with the recording; it stops a
// continuing run at the first divergence and reports the end of a replay.
func (m *Model) judgeReplay(v *engine.StepView) (stop bool) {
	r := m.replay
	r.advance(v)
	switch {
	case v.Phase == engine.PhaseExecuted:
		div := r.compare(v)
		m.refreshPanes(false) // the tasks pane shows the verdicts
		if div != "" {
			m.note = "replay DIVERGED at " + div
			m.continuing = false
			m.dropQueue("the replay diverged")
			return true
		}
	case v.Status == engine.StatusDone && r.diverged == "":
		m.note = fmt.Sprintf("replay matches the recording: %d supersteps compared", r.compared)
	}
	return false
}

func (m *Model) openAnswer() {
	suggest := "JSON, or plain text taken as a string"
	if len(m.opts.Answers) > 0 {
		suggest = strings.Join(m.opts.Answers, "  or  ")
	}
	if len(m.view.Interrupts) == 0 {
		return
	}
	m.answer = newAnswerForm(m.view.Interrupts, m.paths, suggest)
	if m.replay != nil {
		// A replay answers as the recording did: offer its answer.
		if a, ok := m.replay.recordedAnswer(m.view); ok {
			m.answer.input().SetValue(a)
		}
	}
	m.mode = modeAnswer
	ints := m.view.Interrupts
	m.note = m.answer.where(0) + " interrupted: type an answer, enter resumes"
	if len(ints) > 1 {
		m.note = fmt.Sprintf("%d interrupts are waiting: one answer line each (↑↓), enter resumes with every answer typed", len(ints))
	}
}

// runInProgress is what makes q ask first: an engine call in flight or a
// superstep half done.
func (m *Model) runInProgress() bool {
	if m.isBusy {
		return true
	}
	return m.view != nil && m.view.Status == engine.StatusRunning && m.view.Phase != engine.PhaseCheckpoint
}

func (m *Model) quit() tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	return tea.Quit
}

func (m *Model) canStep() bool {
	if m.sess == nil || m.view == nil {
		return false
	}
	switch m.view.Status {
	case engine.StatusRunning:
		return true
	case engine.StatusInterrupted:
		return len(m.view.Interrupts) == 0
	}
	return false
}

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

func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	switch m.mode {
	case modeHelp:
		m.mode = m.helpPrev
		return nil
	case modeQuit:
		if key.Matches(msg, k.Yes) {
			return m.quit()
		}
		m.mode = m.quitPrev
		m.note = ""
		return nil
	case modeInspect:
		h := m.bodyHeight() - 3
		switch {
		case key.Matches(msg, k.Up):
			m.insp.scroll(-1, h)
		case key.Matches(msg, k.Down):
			m.insp.scroll(1, h)
		case key.Matches(msg, k.PageUp):
			m.insp.scroll(-h, h)
		case key.Matches(msg, k.PageDown):
			m.insp.scroll(h, h)
		case msg.String() == "home" || msg.String() == "g":
			m.insp.off = 0
		case msg.String() == "end" || msg.String() == "G":
			m.insp.scroll(len(m.insp.vis), h)
		case key.Matches(msg, k.Wrap):
			m.insp.toggleWrap()
		case key.Matches(msg, k.Conversation):
			m.insp.toggleConvo()
		case key.Matches(msg, k.IDs):
			m.insp.toggleIDs()
		case key.Matches(msg, k.Left):
			m.insp.side(-max(1, m.insp.width/2))
		case key.Matches(msg, k.Right):
			m.insp.side(max(1, m.insp.width/2))
		case key.Matches(msg, k.Back, k.Open):
			m.mode = m.prevMode
		case key.Matches(msg, k.Quit):
			return m.askQuit()
		case key.Matches(msg, k.Help):
			m.helpPrev, m.mode = m.mode, modeHelp
		}
		return nil
	case modeAnswer:
		return m.answerKey(msg)
	case modeFork:
		return m.forkKey(msg)
	case modeThreads:
		return m.threadsKey(msg)
	case modeTree:
		return m.treeKey(msg)
	case modeDiff:
		return m.diffKey(msg)
	case modePrompt:
		return m.promptKey(msg)
	case modeBreaks:
		return m.breaksKey(msg)
	case modeSettings:
		return m.settingsKey(msg)
	case modeEdit:
		return m.editKey(msg)
	case modeSubgraph:
		return m.subgraphKey(msg)
	}
	return m.mainKey(msg)
}

// typing reports whether keys go to a text box.
func (m *Model) typing() bool {
	return m.mode == modeAnswer || m.mode == modePrompt || m.mode == modeSettings || m.mode == modeEdit || m.mode == modeFork || (m.mode == modeThreads && m.threads.creating) || (m.mode == modeMain && m.chans.filtering)
}

func (m *Model) askQuit() tea.Cmd {
	if !m.runInProgress() {
		return m.quit()
	}
	m.quitPrev, m.mode = m.mode, modeQuit
	return nil
}

func (m *Model) mainKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	if m.chans.filtering {
		switch msg.Type {
		case tea.KeyEsc:
			m.chans.filtering = false
			m.chans.filter.SetValue("")
			m.chans.filter.Blur()
		case tea.KeyEnter, tea.KeyTab:
			m.chans.filtering = false
			m.chans.filter.Blur()
		default:
			var cmd tea.Cmd
			m.chans.filter, cmd = m.chans.filter.Update(msg)
			m.refilter()
			return cmd
		}
		m.refilter()
		return nil
	}
	if m.isBusy && key.Matches(msg, k.Cancel) {
		if m.cancel != nil {
			m.cancel()
		}
		m.continuing = false
		m.dropQueue("the step was cancelled")
		m.note = "cancelling the tasks still running: each records the cancellation as its error, finished tasks keep their writes"
		return nil
	}
	if m.isBusy && !m.continuing && isStepKey(k, msg) {
		m.queueStep(msg.String())
		return nil
	}
	switch {
	case m.continuing && key.Matches(msg, k.Continue, k.Back):
		m.pauseReq = true
		m.note = "pausing after this phase…"
	case key.Matches(msg, k.Back) && len(m.queued) > 0:
		m.dropQueue("esc")
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Help):
		m.helpPrev, m.mode = m.mode, modeHelp
	case key.Matches(msg, k.Next) && m.canStep():
		m.refreshPanes(m.view.Phase == engine.PhasePlanned)
		return m.step(opNext)
	case key.Matches(msg, k.Superstep) && m.canStep():
		m.refreshPanes(m.view.Phase == engine.PhasePlanned)
		return m.step(opSuperstep)
	case key.Matches(msg, k.Continue) && m.canStep():
		m.continuing, m.pauseReq = true, false
		m.note = "continuing to the next breakpoint, interrupt or end (c or esc pauses)"
		m.refreshPanes(m.view.Phase == engine.PhasePlanned)
		return m.step(opNext)
	case key.Matches(msg, k.Answer) && k.Answer.Enabled():
		m.openAnswer()
	case key.Matches(msg, k.Tree) && m.sess != nil && m.view != nil:
		return m.do(opHistory, func(ctx context.Context, s session) opDoneMsg {
			h, err := s.History(ctx)
			return opDoneMsg{hist: h, err: err}
		})
	case key.Matches(msg, k.Threads) && m.sess != nil:
		return m.loadThreads()
	case key.Matches(msg, k.Fork) && k.Fork.Enabled():
		return m.openFork(m.view.CheckpointID, m.view.Values)
	case key.Matches(msg, k.EditWrites) && k.EditWrites.Enabled():
		m.openEdit()
	case key.Matches(msg, k.Rerun) && k.Rerun.Enabled():
		r, _ := m.tasks.selected()
		return m.rerunTask(m.view.CheckpointID, r.taskID, r.node)
	case key.Matches(msg, k.Mark) && k.Mark.Enabled():
		m.setMark(m.view.CheckpointID)
	case key.Matches(msg, k.Diff) && k.Diff.Enabled():
		return m.diffWith(m.view.CheckpointID, m.view.ParentID)
	case key.Matches(msg, k.Parent) && k.Parent.Enabled():
		id := m.view.ParentID
		return m.do(opCheckout, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.Checkout(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	case key.Matches(msg, k.Break) && m.focus == paneChannels:
		cv, ok := m.chans.selected()
		if !ok {
			return nil
		}
		m.bp.channels[cv.Name] = !m.bp.channels[cv.Name]
		if m.bp.channels[cv.Name] {
			m.note = "watchpoint set: c stops when " + cv.Name + " changes"
		} else {
			delete(m.bp.channels, cv.Name)
			m.note = "watchpoint cleared on " + cv.Name
		}
		return m.saveCmd()
	case key.Matches(msg, k.Condition):
		return m.openPrompt(promptCondition)
	case key.Matches(msg, k.Watch):
		return m.openPrompt(promptWatch)
	case key.Matches(msg, k.BreakOnError):
		m.bp.onError = !m.bp.onError
		m.note = map[bool]string{true: "break on error: c stops after an Execute where a task failed", false: "break on error off"}[m.bp.onError]
		return m.saveCmd()
	case key.Matches(msg, k.Breakpoints):
		m.breaks = listNav{}
		m.mode = modeBreaks
	case key.Matches(msg, k.Settings) && m.sess != nil:
		m.openSettings()
	case key.Matches(msg, k.Break, k.BreakAfter):
		n := m.selectedNode()
		if n == "" {
			m.note = "select a node (graph pane) to set a breakpoint"
			return nil
		}
		set, where := m.bp.before, "before"
		if key.Matches(msg, k.BreakAfter) {
			set, where = m.bp.after, "after"
		}
		set[n] = !set[n]
		if set[n] {
			m.note = "breakpoint set " + where + " " + n
		} else {
			delete(set, n)
			m.note = "breakpoint cleared " + where + " " + n
		}
		return m.saveCmd()
	case key.Matches(msg, k.GraphView):
		m.graph.drawn, m.graph.chosen, m.graph.track = !m.graph.drawn, true, true
		if m.graph.drawn && m.view != nil && len(m.view.Tasks) > 0 {
			m.graph.selectNode(m.view.Tasks[0].Name) // show where the run is
		}
	case key.Matches(msg, k.Left) && m.focus == paneGraph && m.graph.drawn:
		m.graph.ox = max(0, m.graph.ox-8)
		m.graph.track = false
	case key.Matches(msg, k.Right) && m.focus == paneGraph && m.graph.drawn:
		m.graph.ox += 8
		m.graph.track = false
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
			return m.enterSubgraph(subgraphRef{node: r.node, taskID: r.taskID, label: r.label})
		}
		m.openFocused()
	case key.Matches(msg, k.Filter):
		if m.focus != paneTasks {
			m.focus = paneChannels
		}
		m.chans.filtering = true
		return m.chans.filter.Focus()
	case key.Matches(msg, k.Internal):
		m.chans.showInternal = !m.chans.showInternal
		m.chans.refilter()
		m.treeChan.showInternal = m.chans.showInternal
		m.treeChan.refilter()
	}
	return nil
}

func (m *Model) moveFocused(d int) {
	switch m.focus {
	case paneGraph:
		m.graph.nav.move(d, len(m.graph.nodes))
		m.graph.track = true
	case paneChannels:
		m.chans.nav.move(d, len(m.chans.shown))
	case paneSeen:
		m.seen.nav.move(d, len(m.seen.rows))
		m.seen.pinned = true
	case paneTasks:
		m.tasks.nav.move(d, len(m.tasks.rows))
	}
}

func (m *Model) openFocused() {
	switch m.focus {
	case paneChannels:
		cv, ok := m.chans.selected()
		if !ok {
			return
		}
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
		m.insp = newInspector(title, val)
	case paneTasks:
		r, ok := m.tasks.selected()
		if !ok || !r.hasValue {
			return
		}
		m.insp = newInspector(r.name, r.value)
	case paneGraph:
		// Enter on a node shows why it runs: jump to its versions_seen row.
		n := m.graph.selected()
		for i, r := range m.seen.rows {
			if r.node == n {
				m.seen.nav.cur = i
				m.focus = paneSeen
				break
			}
		}
		return
	default:
		return
	}
	m.prevMode, m.mode = m.mode, modeInspect
}

func (m *Model) answerKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = modeMain
		m.note = "answer box closed: r reopens it"
		return nil
	case msg.Type == tea.KeyEnter || key.Matches(msg, k.Submit):
		v, err := m.answer.answer()
		if err != nil {
			m.answer.err = err.Error()
			return nil
		}
		if m.sess == nil {
			return nil
		}
		return m.do(opResume, func(ctx context.Context, s session) opDoneMsg {
			view, err := s.Resume(ctx, v)
			return opDoneMsg{view: view, err: err}
		})
	case msg.Type == tea.KeyUp && len(m.answer.ints) > 1:
		m.answer.pick(m.answer.sel - 1)
		return nil
	case msg.Type == tea.KeyDown && len(m.answer.ints) > 1:
		m.answer.pick(m.answer.sel + 1)
		return nil
	case msg.Type == tea.KeyPgUp:
		m.answer.payload.scroll(-5, 5)
		return nil
	case msg.Type == tea.KeyPgDown:
		m.answer.payload.scroll(5, 5)
		return nil
	}
	var cmd tea.Cmd
	in := m.answer.input()
	*in, cmd = in.Update(msg)
	m.answer.err = ""
	return cmd
}

// openFork opens the fork form on a checkpoint and asks the engine which
// node the update would be written as if none is chosen, so the form can
// name it before anything is written.
func (m *Model) openFork(cpID string, values map[string]any) tea.Cmd {
	m.fork = newForkForm(cpID, values, m.info)
	m.prevMode, m.mode = m.mode, modeFork
	return m.do(opInfer, func(ctx context.Context, s session) opDoneMsg {
		n, err := s.InferAsNode(ctx, cpID)
		return opDoneMsg{text: n, err: err}
	})
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
		d, err := s.Diff(ctx, a, b)
		return opDoneMsg{diff: d, err: err}
	})
}

func (m *Model) diffKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	h := m.bodyHeight() - 3
	switch {
	case key.Matches(msg, k.Back, k.Diff):
		m.mode = m.diffPrev
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Help):
		m.helpPrev, m.mode = m.mode, modeHelp
	case key.Matches(msg, k.Up):
		m.diff.nav.move(-1, len(m.diff.rows))
	case key.Matches(msg, k.Down):
		m.diff.nav.move(1, len(m.diff.rows))
	case key.Matches(msg, k.PageUp):
		m.diff.nav.move(-h, len(m.diff.rows))
	case key.Matches(msg, k.PageDown):
		m.diff.nav.move(h, len(m.diff.rows))
	case key.Matches(msg, k.Open):
		if r, ok := m.diff.selected(); ok && r.hasValue {
			m.insp = newInspector(r.name, r.value)
			m.prevMode, m.mode = m.mode, modeInspect
		}
	}
	return nil
}

// conversationChannels are the channels that hold messages (add_messages).
func (m *Model) conversationChannels() map[string]bool {
	out := map[string]bool{}
	for _, c := range m.info.Channels {
		if c.Reducer == "add_messages" {
			out[c.Name] = true
		}
	}
	return out
}

// isStepKey reports whether msg is one of the keys that advance the run,
// whether or not it is enabled right now (it is not while a step runs).
func isStepKey(k *KeyMap, msg tea.KeyMsg) bool {
	for _, b := range []key.Binding{k.Next, k.Superstep, k.Continue} {
		for _, s := range b.Keys() {
			if msg.String() == s {
				return true
			}
		}
	}
	return false
}

func (m *Model) forkKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = m.prevMode
		return nil
	case key.Matches(msg, k.AsNode):
		m.fork.as = (m.fork.as + 1) % len(m.fork.nodes)
		return nil
	case key.Matches(msg, k.Submit):
		edited, err := parseState(m.fork.area.Value())
		if err == nil {
			edited, err = m.fork.update(edited)
		}
		if err != nil {
			m.fork.err = err.Error()
			return nil
		}
		vals := edited
		id, as := m.fork.cpID, m.fork.asNode()
		return m.do(opUpdate, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.UpdateState(ctx, id, vals, as)
			return opDoneMsg{view: v, err: err}
		})
	}
	var cmd tea.Cmd
	m.fork.area, cmd = m.fork.area.Update(msg)
	m.fork.err = ""
	return cmd
}

func (m *Model) loadThreads() tea.Cmd {
	in := m.opts.Input
	if m.lastInput != nil {
		in = m.lastInput // the last input used with this graph
	}
	m.threads = newThreadsPane(in, m.thread)
	return m.do(opThreads, func(ctx context.Context, s session) opDoneMsg {
		ts, err := s.Threads(ctx)
		if errors.Is(err, errNoThreadList) {
			return opDoneMsg{err: errors.New("this database cannot list threads: n starts a new one")}
		}
		return opDoneMsg{threads: ts, err: err}
	})
}

func (m *Model) threadsKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	p := &m.threads
	if p.creating {
		switch {
		case key.Matches(msg, k.Back):
			p.creating = false
			p.area.Blur()
			return nil
		case key.Matches(msg, k.Submit):
			in, err := parseState(p.area.Value())
			if err != nil {
				p.newErr = err.Error()
				return nil
			}
			if len(in) == 0 {
				p.newErr = "a new thread needs at least one state key"
				return nil
			}
			m.lastInput = in
			save := m.saveCmd()
			id := m.now().Format("run-20060102-150405")
			for _, t := range p.list {
				if t.ID == id {
					id += fmt.Sprintf("-%d", len(p.list))
				}
			}
			return tea.Batch(save, m.do(opStart, func(ctx context.Context, s session) opDoneMsg {
				v, err := s.Start(ctx, id, in)
				return opDoneMsg{view: v, err: err}
			}))
		}
		var cmd tea.Cmd
		p.area, cmd = p.area.Update(msg)
		p.newErr = ""
		return cmd
	}
	switch {
	case key.Matches(msg, k.Back):
		m.mode = modeMain
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Help):
		m.helpPrev, m.mode = m.mode, modeHelp
	case key.Matches(msg, k.Up):
		p.nav.move(-1, len(p.list))
	case key.Matches(msg, k.Down):
		p.nav.move(1, len(p.list))
	case key.Matches(msg, k.NewThread):
		p.creating, p.newErr = true, ""
		return p.area.Focus()
	case key.Matches(msg, k.Open):
		t, ok := p.selected()
		if !ok || m.sess == nil {
			return nil
		}
		if t.Refused != "" {
			// The same words the command line uses; nothing is opened.
			m.err = errors.New(termtext.Name(t.Refused))
			return nil
		}
		id := t.ID
		return m.do(opOpen, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.Open(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	}
	return nil
}

func (m *Model) treeKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	moved := true
	switch {
	case key.Matches(msg, k.Back, k.Tree):
		m.mode = modeMain
		return nil
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Help):
		m.helpPrev, m.mode = m.mode, modeHelp
		return nil
	case key.Matches(msg, k.Up):
		m.tree.nav.move(-1, len(m.tree.snaps))
	case key.Matches(msg, k.Down):
		m.tree.nav.move(1, len(m.tree.snaps))
	case key.Matches(msg, k.PageUp):
		m.tree.nav.move(-m.bodyHeight()+2, len(m.tree.snaps))
	case key.Matches(msg, k.PageDown):
		m.tree.nav.move(m.bodyHeight()-2, len(m.tree.snaps))
	case key.Matches(msg, k.Parent):
		if !m.tree.jumpParent() {
			m.note = "this checkpoint has no parent"
		}
	case key.Matches(msg, k.Internal):
		m.treeChan.showInternal = !m.treeChan.showInternal
		m.chans.showInternal = m.treeChan.showInternal
		m.treeChan.refilter()
		m.chans.refilter()
	case key.Matches(msg, k.Open):
		s := m.tree.selected()
		if s == nil || m.sess == nil {
			return nil
		}
		id := s.Config.CheckpointID
		return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
			v, err := ss.Checkout(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	case key.Matches(msg, k.Fork):
		if s := m.tree.selected(); s != nil && m.sess != nil {
			return m.openFork(s.Config.CheckpointID, s.Values)
		}
		return nil
	case key.Matches(msg, k.Replay):
		s := m.tree.selected()
		if s == nil || m.sess == nil {
			return nil
		}
		r, err := m.tree.replayFrom(s.Config.CheckpointID)
		if err != nil {
			m.err = err
			return nil
		}
		m.replayNext = r
		id := s.Config.CheckpointID
		return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
			v, err := ss.Checkout(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	case key.Matches(msg, k.Rerun):
		s := m.tree.selected()
		if s == nil || m.sess == nil || len(s.Tasks) == 0 {
			m.note = "no task is planned from this checkpoint"
			return nil
		}
		// e again on the same checkpoint takes its next task.
		i := 0
		if m.rerunAt == s.Config.CheckpointID {
			i = (m.rerunIdx + 1) % len(s.Tasks)
		}
		m.rerunAt, m.rerunIdx = s.Config.CheckpointID, i
		t := s.Tasks[i]
		return m.rerunTask(s.Config.CheckpointID, t.ID, t.Name)
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
		return nil
	default:
		moved = false
	}
	if moved {
		m.refreshTreePreview()
	}
	return nil
}

func (m *Model) refreshTreePreview() {
	s := m.tree.selected()
	if s == nil {
		return
	}
	v := viewFromSnapshot(m.info, s)
	m.treeChan.setChannels(v.Channels, nil)
	m.treeSeen.setView(v)
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

// sync runs after every Update: it keeps cursors in view for the sizes the
// next View will use, sizes the text widgets, and enables exactly the keys
// that do something now.
func (m *Model) sync() {
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
	wh := 0
	if len(m.watches) > 0 {
		wh = min(len(m.watches)+2, botH/2)
	}
	m.tasks.nav.follow(botH-wh-2, len(m.tasks.rows))
	switch m.mode {
	case modeInspect:
		m.insp.prepare(m.width-m.leftWidth()-2, bh-3)
	case modeTree:
		m.tree.follow(bh - 2)
		th := bh / 2
		m.treeChan.nav.follow(th-2, len(m.treeChan.shown))
		m.treeSeen.nav.follow(bh-th-3, len(m.treeSeen.rows))
	case modeEdit:
		m.edit.area.SetWidth(max(10, m.width-4))
		m.edit.area.SetHeight(max(1, bh-5))
	case modeFork:
		m.fork.area.SetWidth(max(10, m.width-4))
		m.fork.area.SetHeight(max(1, bh-5))
	case modeDiff:
		m.diff.nav.follow(bh-3, len(m.diff.rows))
	case modeSubgraph:
		if lv := m.sub.level(); lv != nil {
			m.sub.cps.follow(bh-3, len(lv.snaps))
		}
		m.sub.nav.follow(bh-3, len(m.sub.rows))
	case modeBreaks:
		m.breaks.follow(bh-4, len(m.breakItems()))
	case modePrompt:
		m.prompt.input.Width = max(10, m.width-20)
	case modeThreads:
		m.threads.nav.follow(bh-3, len(m.threads.list))
		m.threads.area.SetWidth(max(10, m.width-4))
		m.threads.area.SetHeight(max(1, bh-4))
	case modeAnswer:
		for i := range m.answer.inputs {
			m.answer.inputs[i].Width = max(10, m.width-14)
			if len(m.answer.inputs) > 1 {
				m.answer.inputs[i].Width = max(10, m.width-m.width/3-16)
			}
		}
		m.answer.payload.layout(m.width - 2) // View lays out a copy: do it once here
	}
	m.help.Width = m.width
	m.syncKeys()
}

func (m *Model) syncKeys() {
	k := &m.keys
	for _, b := range k.all() {
		b.SetEnabled(false)
	}
	k.ForceQuit.SetEnabled(true)
	k.Continue.SetHelp("c", "continue")
	k.Back.SetHelp("esc", "back")
	k.Open.SetHelp("enter", "open")
	hasSess := m.sess != nil
	eff := m.baseMode()
	if m.mode == modeQuit {
		k.Yes.SetEnabled(true)
		k.Yes.SetHelp("y", "quit")
		k.Back.SetEnabled(true)
		k.Back.SetHelp("any other key", "stay")
		return
	}
	switch eff {
	case modeMain:
		if m.chans.filtering {
			k.Back.SetEnabled(true)
			k.Back.SetHelp("esc", "clear filter")
			k.Open.SetEnabled(true)
			k.Open.SetHelp("enter", "keep filter")
			return
		}
		step := m.canStep()
		k.Cancel.SetEnabled(m.isBusy && (m.busy == opNext || m.busy == opSuperstep))
		k.Next.SetEnabled(step)
		k.Superstep.SetEnabled(step)
		k.Continue.SetEnabled(step)
		if m.continuing {
			k.Continue.SetEnabled(true)
			k.Continue.SetHelp("c", "pause")
			k.Back.SetEnabled(true)
			k.Back.SetHelp("esc", "pause")
		}
		k.Answer.SetEnabled(hasSess && m.view != nil && m.view.Status == engine.StatusInterrupted && len(m.view.Interrupts) > 0)
		k.Tree.SetEnabled(hasSess && m.view != nil)
		k.Fork.SetEnabled(hasSess && m.view != nil && m.view.CheckpointID != "")
		k.Parent.SetEnabled(hasSess && m.view != nil && m.view.ParentID != "")
		k.Mark.SetEnabled(m.view != nil && m.view.CheckpointID != "")
		if r, ok := m.tasks.selected(); ok && m.focus == paneTasks && r.node != "" && hasSess && m.view.Phase == engine.PhaseExecuted && m.view.Status == engine.StatusRunning {
			k.EditWrites.SetEnabled(true)
		}
		if r, ok := m.tasks.selected(); ok && m.focus == paneTasks && r.taskID != "" && hasSess && m.view.Phase == engine.PhasePlanned {
			k.Rerun.SetEnabled(true)
		}
		k.Diff.SetEnabled(hasSess && m.view != nil && m.view.CheckpointID != "" && (m.view.ParentID != "" || m.mark != "" && m.mark != m.view.CheckpointID))
		k.Threads.SetEnabled(hasSess)
		k.Break.SetEnabled(len(m.graph.nodes) > 1 || m.focus == paneChannels)
		k.BreakAfter.SetEnabled(len(m.graph.nodes) > 1)
		if m.focus == paneChannels {
			k.Break.SetHelp("b", "watchpoint on channel")
		} else {
			k.Break.SetHelp("b", "break before node")
		}
		for _, b := range []*key.Binding{&k.Condition, &k.Watch, &k.BreakOnError, &k.Breakpoints, &k.GraphView} {
			b.SetEnabled(true)
		}
		k.Settings.SetEnabled(hasSess)
		if m.graph.drawn {
			k.GraphView.SetHelp("g", "graph as list")
		} else {
			k.GraphView.SetHelp("g", "draw graph")
		}
		k.Left.SetEnabled(m.focus == paneGraph && m.graph.drawn)
		k.Right.SetEnabled(m.focus == paneGraph && m.graph.drawn)
		for _, b := range []*key.Binding{&k.NextPane, &k.PrevPane, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Filter, &k.Internal, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
		switch m.focus {
		case paneChannels:
			k.Open.SetEnabled(len(m.chans.shown) > 0)
			k.Open.SetHelp("enter", "inspect value")
		case paneTasks:
			r, ok := m.tasks.selected()
			k.Open.SetEnabled(ok && r.hasValue)
			k.Open.SetHelp("enter", "inspect value")
			if ok && r.header && m.tasks.subgraphs[r.node] && r.taskID != "" {
				k.Open.SetEnabled(hasSess)
				k.Open.SetHelp("enter", "into its subgraph")
			}
		case paneGraph:
			k.Open.SetEnabled(true)
			k.Open.SetHelp("enter", "why does it run?")
		}
	case modeInspect:
		for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Wrap, &k.Back, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
		k.Left.SetEnabled(m.insp.nowrap)
		k.Right.SetEnabled(m.insp.nowrap)
		k.Conversation.SetEnabled(m.insp.canConvo)
		if m.insp.convo {
			k.Conversation.SetHelp("v", "as JSON")
		} else {
			k.Conversation.SetHelp("v", "as conversation")
		}
		k.IDs.SetEnabled(m.insp.convo)
		k.Back.SetHelp("esc", "close")
	case modeAnswer:
		k.Open.SetEnabled(hasSess)
		k.Open.SetHelp("enter", "resume with answer")
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "close")
		if len(m.answer.ints) > 1 {
			k.Up.SetEnabled(true)
			k.Down.SetEnabled(true)
			k.Open.SetHelp("enter", "resume with all answers")
			k.Submit.SetEnabled(hasSess)
			k.Submit.SetHelp("ctrl+s", "resume with all answers")
		}
	case modeTree:
		has := m.tree.selected() != nil
		k.Open.SetEnabled(has && hasSess)
		k.Open.SetHelp("enter", "make current")
		k.Fork.SetEnabled(has && hasSess)
		k.Parent.SetEnabled(has)
		k.Mark.SetEnabled(has)
		k.Diff.SetEnabled(has && hasSess)
		k.Replay.SetEnabled(has && hasSess)
		k.Rerun.SetEnabled(has && hasSess && len(m.tree.selected().Tasks) > 0)
		for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Internal, &k.Back, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
		k.Back.SetHelp("esc", "close tree")
	case modeEdit:
		k.Submit.SetEnabled(hasSess)
		k.Submit.SetHelp("ctrl+s", "use these writes")
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "cancel")
	case modeSettings:
		k.Open.SetEnabled(hasSess)
		k.Open.SetHelp("enter", "apply")
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "cancel")
	case modePrompt:
		k.Open.SetEnabled(true)
		k.Open.SetHelp("enter", "add")
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "cancel")
	case modeBreaks:
		for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Condition, &k.Watch, &k.BreakOnError, &k.Back, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
		k.Remove.SetEnabled(len(m.breakItems()) > 0)
		k.Back.SetHelp("esc", "back")
	case modeSubgraph:
		for _, b := range []*key.Binding{&k.NextPane, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Back, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
		k.NextPane.SetHelp("tab", "checkpoints / details")
		r, ok := m.sub.selectedRow()
		k.Open.SetEnabled(m.sub.detail && ok && (r.hasValue || r.header))
		k.Open.SetHelp("enter", "inspect value")
		if m.sub.detail && ok && r.header && m.sub.level().subgraphs[r.node] {
			k.Open.SetEnabled(hasSess)
			k.Open.SetHelp("enter", "into its subgraph")
		}
		k.Back.SetHelp("esc", "out of the subgraph")
	case modeDiff:
		for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Back, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
		r, ok := m.diff.selected()
		k.Open.SetEnabled(ok && r.hasValue)
		k.Open.SetHelp("enter", "inspect value")
		k.Back.SetHelp("esc", "close diff")
	case modeFork:
		k.Submit.SetEnabled(hasSess)
		k.Submit.SetHelp("ctrl+s", "write fork")
		k.AsNode.SetEnabled(true)
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", "cancel")
	case modeThreads:
		if m.threads.creating {
			k.Submit.SetEnabled(hasSess)
			k.Submit.SetHelp("ctrl+s", "start thread")
			k.Back.SetEnabled(true)
			k.Back.SetHelp("esc", "cancel")
			return
		}
		_, has := m.threads.selected()
		k.Open.SetEnabled(has && hasSess)
		k.Open.SetHelp("enter", "open thread")
		k.NewThread.SetEnabled(true)
		for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Back, &k.Help, &k.Quit} {
			b.SetEnabled(true)
		}
	}
}

// View implements tea.Model.
func (m Model) View() string {
	if m.width < 20 || m.height < 6 {
		return fit("superstep: window too small", m.width, m.height)
	}
	body := m.viewBody()
	foot := m.help.ShortHelpView(m.keys.ShortHelp())
	if m.mode == modeHelp {
		foot = m.styles.Dim.Render("any key closes the help")
	}
	return lipgloss.JoinVertical(lipgloss.Left,
		pad(m.viewHeader(), m.width),
		pad(m.viewStatus(), m.width),
		body,
		pad(foot, m.width),
	)
}

func (m Model) phaseLabel() (string, lipgloss.Style) {
	st := m.styles
	if m.isBusy && (m.busy == opNext || m.busy == opSuperstep || m.continuing) {
		return "RUNNING", st.Running
	}
	v := m.view
	if v == nil {
		return "NO RUN", st.Done
	}
	switch v.Status {
	case engine.StatusInterrupted:
		return "INTERRUPTED", st.Interrupted
	case engine.StatusDone:
		return "DONE", st.Done
	case engine.StatusFailed:
		return "ERROR", st.Failed
	}
	switch v.Phase {
	case engine.PhasePlanned:
		return "PLAN done", st.PhasePlan
	case engine.PhaseExecuted:
		return "EXECUTE done", st.PhaseExecute
	}
	if v.Source == engine.SourceLoop {
		return "UPDATE done", st.PhaseUpdate
	}
	return termtext.Name(strings.ToUpper(v.Source)) + " checkpoint", st.PhaseUpdate
}

func (m Model) viewHeader() string {
	st := m.styles
	label, ls := m.phaseLabel()
	parts := []string{st.Header.Render(m.opts.GraphName), "thread " + termtext.Name(m.thread)}
	if m.width >= 100 {
		parts = append([]string{st.Header.Render("superstep")}, parts...)
	}
	if v := m.view; v != nil {
		parts = append(parts, "cp "+shortID(v.CheckpointID), stepLabel(v))
	}
	parts = append(parts, ls.Render(" "+label+" "))
	if v := m.view; v != nil {
		parts = append(parts, st.HeaderDim.Render(fmt.Sprintf("budget %d", v.RecursionLeft)))
	}
	if m.replay != nil {
		r := "REPLAY"
		if m.replay.diverged != "" {
			r += " diverged"
		}
		parts = append(parts, st.Interrupted.Render(" "+r+" "))
	}
	if len(m.queued) > 0 {
		parts = append(parts, st.Notice.Render(fmt.Sprintf("queued %s (%d)", strings.Join(m.queued, ""), len(m.queued))))
	}
	h := strings.Join(parts, st.HeaderDim.Render(" · "))
	if m.isBusy {
		el := m.now().Sub(m.busySince).Round(100 * time.Millisecond)
		h += "  " + m.spin.View() + " " + el.String()
	}
	return h
}

// stepLabel says which superstep the screen is about, the same way before
// and after a resume: at a checkpoint, the step that wrote it and the one
// the next Plan starts; between phases, the step being run.
func stepLabel(v *engine.StepView) string {
	if v.Phase == engine.PhaseCheckpoint && v.Status != engine.StatusFailed {
		if v.Status == engine.StatusDone {
			return fmt.Sprintf("step %d", v.CheckpointStep)
		}
		return fmt.Sprintf("step %d → %d", v.CheckpointStep, v.Step)
	}
	return fmt.Sprintf("step %d", v.Step)
}

func (m Model) viewStatus() string {
	st := m.styles
	switch {
	case m.mode == modeQuit:
		return st.Error.Render("A run is in progress. Quit anyway? (y/n)")
	case m.err != nil:
		return st.Error.Render("✗ " + firstLine(m.err.Error()))
	case m.note != "":
		return st.Notice.Render(m.note)
	case m.view != nil && m.view.Status == engine.StatusDone:
		return st.Notice.Render("The run is done. t opens the checkpoint tree, T the threads.")
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func (m Model) viewBody() string {
	st := m.styles
	w, bh := m.width, m.bodyHeight()
	lw := m.leftWidth()
	rw := w - lw
	topH := (&m).topHeight()
	botH := bh - topH
	if m.mode == modeHelp {
		return st.box("Keys", m.fullHelp(w-2)+"\n\n"+st.Dim.Render("Mouse: a click focuses a pane and selects a row, the wheel scrolls (shift+drag selects text).\nKeys that do not apply right now are hidden. Any key closes this help."), w, bh, true)
	}
	mode := m.baseMode()
	graph := st.box("Graph · "+m.opts.GraphName, m.graph.View(st, m.bp, m.focus == paneGraph && mode == modeMain, lw-2, topH-2), lw, topH, m.focus == paneGraph && mode == modeMain)
	chans := st.box(m.chans.title(), m.chans.View(st, m.bp.channels, m.focus == paneChannels && mode == modeMain, rw-2, topH-2), rw, topH, m.focus == paneChannels && mode == modeMain)
	seen := st.box("versions_seen · why a node runs", m.seen.View(st, m.focus == paneSeen && mode == modeMain, lw-2, botH-2), lw, botH, m.focus == paneSeen && mode == modeMain)
	tasks := m.tasksAndWatches(rw, botH, mode)
	switch mode {
	case modeInspect:
		insp := st.box("Inspect · "+m.insp.title, m.insp.View(st, rw-2, bh-2), rw, bh, true)
		left := lipgloss.JoinVertical(lipgloss.Left, graph, seen)
		return lipgloss.JoinHorizontal(lipgloss.Top, left, insp)
	case modeAnswer:
		ans := st.box("Interrupt · answer to resume", m.answer.View(st, w-2, botH-2), w, botH, true)
		return lipgloss.JoinVertical(lipgloss.Left, lipgloss.JoinHorizontal(lipgloss.Top, graph, chans), ans)
	case modeTree:
		tw := clamp(w*11/20, min(40, w-20), w-20)
		pw := w - tw
		th := bh / 2
		title := fmt.Sprintf("Checkpoints · %s · %d", m.thread, len(m.tree.snaps))
		tree := st.box(title, m.tree.View(st, tw-2, bh-2), tw, bh, true)
		sel := "checkpoint"
		if s := m.tree.selected(); s != nil {
			sel = "at " + shortID(s.Config.CheckpointID)
		}
		pc := st.box(m.treeChan.title()+" "+sel, m.treeChan.View(st, m.bp.channels, false, pw-2, th-2), pw, th, false)
		ps := st.box("versions_seen "+sel, m.treeSeen.View(st, false, pw-2, bh-th-2), pw, bh-th, false)
		return lipgloss.JoinHorizontal(lipgloss.Top, tree, lipgloss.JoinVertical(lipgloss.Left, pc, ps))
	case modeFork:
		return st.box("Fork", m.fork.View(st, w-2, bh-2), w, bh, true)
	case modeDiff:
		return st.box(m.diff.title, m.diff.View(st, w-2, bh-2), w, bh, true)
	case modeSubgraph:
		crumb := m.sub.breadcrumb()
		ns := "  read only"
		if lv := m.sub.level(); lv != nil {
			ns += " · namespace " + termtext.Name(lv.ns)
		}
		line := st.Header.Render(cut(crumb, w)) + st.Dim.Render(cut(ns, max(0, w-lipgloss.Width(crumb))))
		return lipgloss.JoinVertical(lipgloss.Left, pad(line, w), m.sub.View(st, w, bh-1))
	case modePrompt:
		return st.box("Add", m.promptView(w-2, bh-2), w, bh, true)
	case modeSettings:
		return st.box("Run settings", m.settingsView(w-2, bh-2), w, bh, true)
	case modeEdit:
		return st.box("Edit writes", m.edit.View(st, w-2, bh-2), w, bh, true)
	case modeBreaks:
		return st.box("Breakpoints & watches", m.breaksView(w-2, bh-2), w, bh, true)
	case modeThreads:
		return st.box("Threads", m.threads.View(st, w-2, bh-2), w, bh, true)
	}
	return lipgloss.JoinVertical(lipgloss.Left,
		lipgloss.JoinHorizontal(lipgloss.Top, graph, chans),
		lipgloss.JoinHorizontal(lipgloss.Top, seen, tasks))
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

// fullHelp lays the help columns side by side, or in two rows of two when
// the window is too narrow for four.
func (m Model) fullHelp(w int) string {
	groups := m.keys.FullHelp()
	hm := m.help
	hm.Width = 0
	all := hm.FullHelpView(groups)
	if lipgloss.Width(all) <= w {
		return all
	}
	return hm.FullHelpView(groups[:2]) + "\n\n" + hm.FullHelpView(groups[2:])
}

// baseMode is the screen under the quit prompt and the help overlay: what
// they were opened over.
func (m *Model) baseMode() mode {
	md := m.mode
	if md == modeQuit {
		md = m.quitPrev
	}
	if md == modeHelp {
		md = m.helpPrev
	}
	return md
}
