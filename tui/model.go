package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

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
	modeSubStep  // a subgraph run held live, stepped (substep.go)
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

// Model is the debugger's single tea.Model.
type Model struct {
	ctx    context.Context
	cancel context.CancelFunc // cancels the engine call in flight
	sess   session            // nil while a Cmd owns it
	info   engine.GraphInfo
	opts   Options
	thread string

	// global is the root's own keys (help, quit); every component holds
	// its own map (mainKeys and breaksKeys for the two that are views of
	// the root model rather than structs of their own).
	global     globalKeyMap
	mainKeys   mainKeyMap
	breaksKeys breaksKeyMap
	helpKeys   helpKeyMap
	styles     Styles
	help       help.Model
	spin       spinner.Model
	// now and static make the screen deterministic in tests: a fixed clock
	// and no animation (no spinner ticks, no cursor blink).
	now    func() time.Time
	static bool
	// clipboard is the terminal y copies a value to (OSC 52); nil in
	// tests, where only the file is written.
	clipboard clipboardWriter

	width, height int
	mode          mode
	prevMode      mode // where the inspector and the fork form return to
	helpPrev      mode // where the help returns to
	helpOff       int  // the help overlay's first line shown
	quitPrev      mode // where a declined quit returns to
	focus         paneID

	view *engine.StepView
	ran  []engine.TaskView // the tasks of the superstep the last Update applied
	// pending are channels an interrupted step's finished tasks wrote,
	// which no checkpoint holds yet (shown marked, beside the saved value).
	pending map[string]engine.ChannelView
	// paths name where each pending interrupt was raised (mid › deep › b1).
	paths map[string]string
	// answeredFail are the nodes of the view's failed tasks that failed on
	// answers saved with them: n replays those answers, r cannot give new
	// ones there (see reanswerHint).
	answeredFail []string

	busy       opKind
	isBusy     bool
	busySince  time.Time
	continuing bool
	pauseReq   bool
	// queued are step keys pressed while a step ran, oldest first.
	queued []string

	note string
	// warnings are the engine's warnings (engine.Event.Warning: routes to
	// nodes the graph does not have, misspelt update keys) in the steps a
	// c runs through, noted when it stops.
	warnings []string
	err      error

	// feed is what the running tasks report (nil when the session has no
	// feed); read on each frame while a step runs.
	feed    *liveFeed
	bp      breakpoints
	watches []*exprSlot
	// parentValues are the state values of parentAt's parent, which the
	// watches compare with; read with a view while there are watches.
	parentValues map[string]any
	parentAt     string
	prompt       promptForm
	breaks       listNav // cursor of the breakpoints list
	// run is the engine options of the runs started (S edits them);
	// lastInput is the input of the last new thread of this graph.
	edit      editForm
	edited    []string // ids of tasks whose writes were edited this step
	run       runSettings
	settings  settingsForm
	lastInput map[string]any

	stepPanes // the root run's graph, channels, versions_seen and tasks
	insp      inspector
	answer    answerForm
	drafts    answerDrafts // answer lines typed and not sent
	tree      treePane
	// treeReads numbers the tree's reads (tree_reads.go), across trees:
	// an answer to a tree since replaced never passes for this one's.
	treeReads int
	treeChan  chanPane
	treeSeen  seenPane
	fork      forkForm
	threads   threadsPane
	diff      diffPane
	diffPrev  mode        // where the diff returns to
	subNext   subgraphRef // the level being read
	sub       subgraphPane
	diffAB    [2]string // labels of the two sides of the diff being loaded
	// into steps subgraph runs live (>), while the root's step waits.
	into subStepPane
	// replay is the step-by-step replay in progress (R in the tree).
	replay *replayRun
	// stoppedBefore are the planned tasks ("checkpoint/task id") a
	// breakpoint before their node has stopped at: a superstep resumed
	// after an interrupt plans the same tasks again, and the breakpoint
	// the person already stopped at does not stop the run twice. Time
	// travel and opening a thread forget them.
	stoppedBefore map[string]bool
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
	if opts.GraphName == "" {
		opts.GraphName = "unnamed graph" // never an empty header and title
	}
	if opts.SettingsKey == "" {
		opts.SettingsKey = opts.GraphName
	}
	// GraphName is only ever shown: escape it once.
	opts.GraphName = termtext.Name(opts.GraphName)
	h := help.New()
	m := Model{
		ctx: ctx, sess: s, info: info, opts: opts, thread: opts.Thread,
		styles: DefaultStyles(), help: h,
		spin:      spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		now:       time.Now,
		bp:        newBreakpoints(),
		stepPanes: stepPanes{graph: newGraphPane(info), chans: newChanPane(), seen: seenPane{info: info}},
		treeChan:  newChanPane(), treeSeen: seenPane{info: info},
		width: 80, height: 24,
	}
	m.tasks.subgraphs, m.tasks.closeThreads = map[string]bool{}, opts.CloseThreads
	for _, n := range info.Nodes {
		if n.Subgraph {
			m.tasks.subgraphs[n.Name] = true
		}
	}
	m.feed = s.Live()
	m.into.gate = subgraphSteps(s)
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
	m.syncKeys() // a key may come before the first Update has synced
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
	thread, input, deferNew := m.thread, m.opts.Input, m.opts.DeferNewThread
	return m.do(opInit, func(ctx context.Context, s session) opDoneMsg {
		v, err := s.Open(ctx, thread)
		if errors.Is(err, engine.ErrNoCheckpoint) {
			if input == nil {
				return opDoneMsg{err: fmt.Errorf("thread %q has no checkpoints yet: press T to start one", thread)}
			}
			if deferNew {
				// Shown, not written: a thread opened by a mistyped id
				// must leave nothing behind; the first step writes it.
				v, err = s.Preview(ctx, thread, input)
				return opDoneMsg{op: opPreview, view: v, err: err}
			}
			v, err = s.Start(ctx, thread, input)
			return opDoneMsg{op: opStart, view: v, err: err}
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
	case subPauseMsg:
		cmd = m.onSubPause(msg)
	case treeSnapMsg:
		if m.tree.takeSelected(msg) {
			m.refreshTreePreview()
		}
	case treePlansMsg:
		m.tree.takePlans(msg)
	case treeActMsg:
		cmd = m.onTreeAct(msg)
	case treeSubgraphsMsg:
		cmd = m.onTreeSubgraphs(msg)
	case copiedMsg:
		m.onCopied(msg)
	case settingsMsg:
		if msg.err != nil {
			m.err = msg.err
		}
		if msg.durabilityRefused {
			m.run.durability = ""
			cmd = m.saveCmd()
		}
		if msg.saved != nil {
			m.applySaved(*msg.saved)
			old := m.run
			m.run = msg.saved.savedRun() // the session takes them with its next Cmd
			cmd = m.durabilityCmd(old.durability, m.run.durability)
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
	return m, tea.Batch(cmd, m.readTree())
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
	if m.into.gate != nil {
		m.into.gate.close() // a subgraph run held now fails at once
	}
	m.tree.stopReads()
	return tea.Quit
}

func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	g := &m.global
	if key.Matches(msg, g.ForceQuit) {
		return m.quit()
	}
	if msg.Type == tea.KeyF1 && m.mode != modeHelp && m.mode != modeQuit {
		m.openHelp() // from a text box too, where ? is typed
		return nil
	}
	switch m.mode {
	case modeHelp:
		m.helpKey(msg)
		return nil
	case modeQuit:
		if key.Matches(msg, g.Yes) {
			return m.quit()
		}
		m.mode = m.quitPrev
		m.note = ""
		return nil
	}
	if !m.typing() {
		switch {
		case key.Matches(msg, g.Quit):
			return m.askQuit()
		case key.Matches(msg, g.Help):
			m.openHelp()
			return nil
		}
	}
	return m.route(msg)
}

// route hands a key to the component on screen.
func (m *Model) route(msg tea.KeyMsg) tea.Cmd {
	switch m.mode {
	case modeInspect:
		if key.Matches(msg, m.insp.keys.Copy) {
			return m.copyValue()
		}
		if m.insp.update(msg, m.bodyHeight()-3) {
			m.mode = m.prevMode
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
	case modeSubStep:
		return m.subStepKey(msg)
	}
	return m.mainKey(msg)
}

// typing reports whether keys go to a text box.
func (m *Model) typing() bool { return m.typingIn(m.mode) }

// typingIn reports whether keys go to a text box on screen md.
func (m *Model) typingIn(md mode) bool {
	return md == modeAnswer || md == modePrompt || md == modeSettings || md == modeEdit || md == modeFork || (md == modeThreads && (m.threads.creating || m.threads.filtering)) || (md == modeMain && m.chans.filtering) || (md == modeTree && m.tree.find.on)
}

func (m *Model) askQuit() tea.Cmd {
	if !m.runInProgress() {
		return m.quit()
	}
	m.quitPrev, m.mode = m.mode, modeQuit
	return nil
}

// sync runs after every Update: it keeps cursors in view for the sizes the
// next View will use, sizes the text widgets, and enables exactly the keys
// that do something now. Each component sizes itself and says which of its
// keys apply; sync only tells it the room it has.
func (m *Model) sync() {
	m.syncSubStepMode()
	bh := m.bodyHeight()
	m.sizeMain()
	switch m.mode {
	case modeSubStep:
		m.sizeSubStep()
	case modeInspect:
		m.insp.setSize(m.width-m.leftWidth()-2, bh-3)
	case modeTree:
		m.sizeTree(bh)
	case modeEdit:
		m.edit.setSize(m.styles, m.width, bh)
	case modeFork:
		m.fork.setSize(m.styles, m.width, bh)
	case modeDiff:
		m.diff.setSize(bh)
	case modeSubgraph:
		m.sub.setSize(bh)
	case modeBreaks:
		m.breaks.follow(bh-4, len(m.breakItems()))
	case modePrompt:
		m.prompt.setSize(m.width)
	case modeThreads:
		m.threads.setSize(m.width, bh)
	case modeAnswer:
		m.answer.setSize(m.width, m.answerBoxHeight(bh)-2)
	}
	m.help.Width = m.width
	m.syncKeys()
}

// syncKeys sets the global keys and lets the component on screen (under
// the quit prompt or the help, the one they were opened over) enable the
// keys of its own map that do something now, so the footer and the help
// overlay never offer a key that does nothing.
func (m *Model) syncKeys() {
	// Over a text box the help lists f1 and no q, as the box has them.
	m.global.enableKeys(m.typingIn(m.baseMode()), m.mode == modeQuit)
	m.helpKeys = made(newHelpKeyMap)
	hasSess := m.sess != nil
	switch m.baseMode() {
	case modeMain:
		m.enableMainKeys()
	case modeInspect:
		m.insp.enableKeys()
	case modeAnswer:
		m.answer.enableKeys(hasSess)
	case modeTree:
		m.tree.enableKeys(hasSess, len(m.tasks.subgraphs) > 0)
	case modeEdit:
		m.edit.enableKeys(hasSess)
	case modeSettings:
		m.settings.enableKeys(hasSess)
	case modePrompt:
		m.prompt.enableKeys()
	case modeBreaks:
		m.breaksKeys.enableKeys(len(m.breakItems()))
	case modeSubgraph:
		m.sub.enableKeys(hasSess, len(m.subgraphInterrupts()))
	case modeSubStep:
		m.into.enableKeys(m.isBusy, len(m.queued))
	case modeDiff:
		m.diff.enableKeys()
	case modeFork:
		m.fork.enableKeys(hasSess)
	case modeThreads:
		m.threads.enableKeys(hasSess)
	}
}

// activeKeys is the key map of the component on screen (under the quit
// prompt or the help, the one they were opened over).
func (m *Model) activeKeys() help.KeyMap {
	switch m.baseMode() {
	case modeInspect:
		return m.insp.keys
	case modeAnswer:
		return m.answer.keys
	case modeTree:
		return m.tree.keys
	case modeEdit:
		return m.edit.keys
	case modeSettings:
		return m.settings.keys
	case modePrompt:
		return m.prompt.keys
	case modeBreaks:
		return m.breaksKeys
	case modeSubgraph:
		return m.sub.keys
	case modeSubStep:
		return m.into.keys
	case modeDiff:
		return m.diff.keys
	case modeFork:
		return m.fork.keys
	case modeThreads:
		return m.threads.keys
	}
	return m.mainKeys
}

// componentKeyMaps are every component's key map as it is made. The help
// overlay lists the keys not on screen in this order (a key once, where it
// comes first); the order keeps the overlay reading as it did when one
// catalogue held every key: forms' keys first in their column, then the
// tree's and the inspector's, the main view's, and the rest.
func componentKeyMaps() []help.KeyMap {
	return []help.KeyMap{
		newForkKeyMap(), newTreeKeyMap(), newInspectorKeyMap(), newMainKeyMap(), newBreaksKeyMap(),
		newThreadsKeyMap(), newDiffKeyMap(), newSubgraphKeyMap(), newAnswerKeyMap(),
		newEditKeyMap(), newSettingsKeyMap(), newPromptKeyMap(), newHelpKeyMap(),
		newSubStepKeyMap(), newGlobalKeyMap(),
	}
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
