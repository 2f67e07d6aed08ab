package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
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
	// opPreview shows a new thread without writing it (session.Preview).
	opPreview
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
	// warnings are what the engine warned of in the op's steps
	// (engine.Event.Warning), which the note shows.
	warnings []string
	// answered are the failed tasks' nodes that failed on saved answers
	// (session.AnsweredFailures).
	answered []string
	// answers are the answers the view's tasks saved (session.SavedAnswers).
	answers map[string][]any
	// parent holds the state values of the view's checkpoint's parent,
	// when hasParent (read for the watches).
	parent    map[string]any
	hasParent bool
	// replay is the replay a checkout starts (R in the tree); replayRead
	// what the Cmd read of the recording for the replay going on.
	replay     *replayRun
	replayRead *replayReads
	diff       *engine.CheckpointDiff
	diffSteps  [2]int // the steps of diff's two checkpoints
	sub        *subgraphLevel
	rerun      *engine.TaskRerun
	text       string
	// atHead: a checkout of the thread's latest checkpoint, from which a
	// step goes on (resumes) rather than forks.
	atHead bool
	// cutOff, on a checkout at the head, are the done tasks of its
	// superstep that was cut off (cutOffTasks), whose writes stepping
	// reuses.
	cutOff []engine.TaskView
	err    error
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
	// The watches compare with the parent's values: read them once per
	// checkpoint, and only while there are watches.
	watching, known := len(m.watches) > 0, m.parentAt
	// A replay's step is judged against the recording, and its questions
	// offered the recorded answers, from what this Cmd reads: against a
	// database across the network those reads are round trips, which
	// Update must never wait on.
	var replay *replayAsk
	if r := m.replay; r != nil {
		replay = r.ask()
	}
	run := func() tea.Msg {
		defer cancel()
		s.SetRunSettings(rs) // a no-op unless they changed
		msg := fn(ctx, s)
		if msg.op == 0 {
			msg.op = op
		}
		if msg.view != nil {
			msg.warnings = s.Live().takeWarnings()
			msg.pending = s.Pending()
			if len(msg.view.Interrupts) > 0 {
				msg.paths = s.InterruptPaths(ctx, msg.view)
			}
			if failedTask(msg.view) != nil {
				msg.answered = s.AnsweredFailures(ctx, msg.view)
			}
			msg.answers = s.SavedAnswers(ctx, msg.view)
			if r, ok := s.(snapshotReader); ok && watching && msg.view.ParentID != "" && msg.view.CheckpointID != known && msg.view.Namespace == "" {
				if snap, err := r.Snapshot(ctx, msg.view.ParentID); err == nil {
					msg.parent, msg.hasParent = snap.Values, true
				}
			}
			if replay != nil {
				msg.replayRead = replay.reads(ctx, msg.op, msg.view)
			}
		}
		msg.sess = s
		return msg
	}
	if g := m.into.gate; g != nil {
		// The session's runs may hold subgraph runs for the person: a
		// step's Cmd brings back the first pause, or its result.
		stepping := m.into.on && !m.continuing && (op == opNext || op == opSuperstep)
		run = g.race(run, stepping)
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
	// After a failure, stepping goes on from the thread's latest
	// checkpoint, the one the failed superstep planned from, as
	// LangGraph's invoke(null) after an error does: not addressed at any
	// checkpoint (that would fork from an update's or a fork's and run
	// every task again), so the failed tasks run again and those that
	// finished keep their saved writes (langgraph pregel/_loop.py:661-663,
	// _reapply_writes_to_succeeded_nodes).
	retry := m.view != nil && m.view.Status == engine.StatusFailed
	thread := m.thread
	return m.do(op, func(ctx context.Context, s session) opDoneMsg {
		var v *engine.StepView
		var err error
		if retry {
			if _, err := s.Open(ctx, thread); err != nil {
				return opDoneMsg{err: err}
			}
		}
		if op == opSuperstep {
			v, err = s.Superstep(ctx)
		} else {
			v, err = s.Next(ctx)
		}
		return opDoneMsg{view: v, err: err}
	})
}

// onDone takes an operation's result: an error with no view, a screen of
// its own (a diff, the tree, the threads, a subgraph), or a new view of
// the run, after which a continuing run steps on or stops.
func (m *Model) onDone(msg opDoneMsg) tea.Cmd {
	m.sess, m.isBusy = msg.sess, false
	if m.replay != nil {
		// What the Cmd read for the replay; a checkout replaces the
		// replay (enterView), and this with it.
		m.replay.take(msg.replayRead)
	}
	m.into.leave() // the subgraph runs of the step ended with it
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
		m.opFailed(msg)
		return nil
	}
	if m.showOpScreen(msg) {
		return nil
	}
	prev := m.view
	m.pending, m.paths, m.answeredFail = msg.pending, keepCopyNames(msg.paths, m.paths), msg.answered
	m.tasks.answers, m.tasks.paths, m.tasks.cutOff = msg.answers, m.paths, msg.cutOff
	if msg.hasParent {
		m.parentValues, m.parentAt = msg.parent, msg.view.CheckpointID
	}
	m.setView(msg.view, prev, msg.op)
	m.err = msg.err
	m.enterView(msg)
	m.warnings = append(m.warnings, msg.warnings...)
	cmd := m.afterView(prev, msg)
	if !m.continuing && len(m.warnings) > 0 {
		// A route the graph dropped, in this step or in those c ran
		// through: most often why the run ended early.
		note := "warning: " + strings.Join(m.warnings, "; ")
		if m.note != "" {
			note += " · " + m.note
		}
		m.note, m.warnings = note, nil
	}
	return cmd
}

// opFailed shows an operation's error where it was asked for: the fork
// form, the new-thread box, the threads screen, else the main view.
func (m *Model) opFailed(msg opDoneMsg) {
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
		m.threads.err = msg.err.Error()
		m.threads.setList(nil)
	}
}

// showOpScreen opens the screen an operation's result is shown on, when
// it has one of its own, and reports whether it did.
func (m *Model) showOpScreen(msg opDoneMsg) bool {
	switch msg.op {
	case opRerun:
		from := m.mode
		if from == modeDiff { // e in a run-alone result: the next task
			from = m.diffPrev
		}
		m.diff = newRerunPane(msg.rerun, m.diffAB[0], m.diffAB[1])
		if s := m.tree.selected(); from == modeTree && s != nil {
			m.diff.nextTask = len(s.Tasks) > 1
		}
		m.note = ""
		m.diffPrev, m.mode = from, modeDiff
	case opSubgraph:
		m.sub.push(m.subNext, msg.sub)
		m.note, m.mode = "", modeSubgraph
	case opDiff:
		a, b := m.diffAB[0]+" "+stepNote(msg.diffSteps[0]), m.diffAB[1]+" "+stepNote(msg.diffSteps[1])
		m.diff = newDiffPane(msg.diff, a, b, diffRolesOf(m.info), m.chans.showInternal)
		m.diffPrev, m.mode = m.mode, modeDiff
	case opHistory:
		m.showTree(msg.hist)
	case opThreads:
		m.threads.err = ""
		m.threads.setList(msg.threads) // keeps the cursor's place, in range
		m.mode = modeThreads
	default:
		return false
	}
	return true
}

// enterView brings the main view to the operation's new view: an open,
// a start, a checkout or a fork starts a replay if one was asked for;
// the note says what happened and how stepping goes on from here.
func (m *Model) enterView(msg opDoneMsg) {
	switch msg.op {
	case opInit, opOpen, opStart, opPreview, opCheckout, opUpdate:
		m.replay = msg.replay
		m.mode = modeMain
		m.note = map[opKind]string{
			opInit: "opened thread " + termtext.Name(m.thread), opOpen: "opened thread " + termtext.Name(m.thread),
			opStart:    "new run on thread " + termtext.Name(m.thread) + ": paused after the input checkpoint, n plans step 0",
			opPreview:  "new thread " + termtext.Name(m.thread) + ": nothing is written until you step; n writes its input checkpoint and plans step 0",
			opCheckout: "time travel: checkpoint " + shortID(msg.view.CheckpointID) + " is current; nothing is written until you step (n s c), which forks there",
			opUpdate:   "forked: checkpoint " + shortID(msg.view.CheckpointID) + " written and current",
		}[msg.op]
	case opEdit:
		m.mode = modeMain
		m.note = "writes edited: n applies them (the checkpoint will say they were edited), a edits them again"
	case opResume:
		m.mode = modeMain
		with := ""
		if msg.text != "" {
			with = " with a state update of " + termtext.Name(msg.text)
		}
		m.note = fmt.Sprintf("answered%s: n steps on, c continues (a resumed run has its own recursion budget: %s)", with, plural(msg.view.RecursionLeft, "superstep"))
	default:
		m.note = ""
	}
	noticed := false
	if m.opts.Notice != "" && (msg.op == opInit || msg.op == opStart || msg.op == opPreview) && msg.view != nil {
		m.note, m.opts.Notice = m.opts.Notice, "" // the caller's word on the first open, once
		noticed = true
	}
	if msg.op == opCheckout && msg.atHead {
		// A run addressed at the thread's latest checkpoint resumes it
		// (LangGraph.js pregel/loop.ts:666-672 resumeAtHead): nothing is
		// forked.
		m.note = "checkpoint " + shortID(msg.view.CheckpointID) + ", the thread's latest, is current: stepping (n s c) goes on from it"
		if len(msg.cutOff) > 0 {
			m.note = "checkpoint " + shortID(msg.view.CheckpointID) + ", the thread's latest, is current: " + cutOffSaid(msg.cutOff, msg.view.Step)
		}
	}
	if t := failedTask(msg.view); t != nil && msg.view.Phase == engine.PhaseCheckpoint && msg.view.Status == engine.StatusRunning {
		base, again := m.note, "n runs it again, tasks that finished keep their writes"
		// The caller's notice is a sentence of its own that may end in
		// a way on to another checkpoint (the command line's "the
		// recorded run ended at daf7d587: t, enter on it"): the failure
		// is the open checkpoint's, said apart, not "…enter on it: step 5
		// failed".
		at := ": step"
		if noticed {
			at = "; here step"
		}
		if msg.op == opCheckout { // the failure matters more than how the checkout steps
			base = "checkpoint " + shortID(msg.view.CheckpointID) + " is current"
			if !msg.atHead {
				// Time travel re-executes the tasks that finished too
				// (engine/loop.go skipDone; langgraph _loop.py:661).
				again = "stepping forks there and runs every task again"
			}
		}
		// The way on comes before the error, which a narrow line cuts
		// and the tasks pane has whole.
		m.note = fmt.Sprintf("%s%s %d failed; %s (%s)", base, at, msg.view.Step, again, firstLine(fmt.Sprint(t.Err)))
		if len(m.answeredFail) > 0 && (msg.op != opCheckout || msg.atHead) {
			// Stepping from the head replays the answers saved with the
			// task (a fork from elsewhere does not carry them): the way
			// on comes before the error, which the tasks pane has whole.
			m.note = fmt.Sprintf("%s%s %d failed on %s's saved answer, which n reuses; %s (%s)", base, at, msg.view.Step, m.answeredFail[0], reanswerHow, firstLine(fmt.Sprint(t.Err)))
		}
	}
	if msg.op == opCheckout && msg.text != "" {
		m.note = "time travel " + msg.text + ": the run's checkpoint " + shortID(msg.view.CheckpointID) + " it was written under is current; stepping forks there and runs the subgraph task again"
	}
	if m.replay != nil && msg.op == opCheckout {
		// The way on first: at 80 columns the status line cut it.
		m.note = "replay from " + shortID(m.replay.from) + ": c runs to the first divergence, n steps; each step is compared with the recording"
	}
}

// breakpointNote says why the run stopped at an engine breakpoint: the
// Task calls one held, when it did, else the breakpoint itself.
func breakpointNote(held []engine.HeldCall) string {
	if len(held) == 0 {
		return "stopped at an engine breakpoint (interrupt_before/after: run settings or compiled in): n or c goes on"
	}
	return "breakpoint: held " + heldCallList(held, "") + ", which returned nothing; n or c applies the step's writes"
}

// heldCallList names held calls, those of the run of namespace ns without
// their namespace, which the screen already shows.
func heldCallList(held []engine.HeldCall, ns string) string {
	why := make([]string, len(held))
	for i, h := range held {
		if h.Namespace == ns {
			h.Namespace = ""
		}
		why[i] = h.String()
	}
	return strings.Join(why, ", ")
}

// afterView decides what follows a new view: a replay's step is judged
// against the recording, an interrupt opens the answer box, a failure
// drops the queued step keys, and a continuing run steps on unless a
// breakpoint, the end or a pause stops it; else the next queued key runs.
func (m *Model) afterView(prev *engine.StepView, msg opDoneMsg) tea.Cmd {
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
		m.answer.byItself = true
		return nil
	}
	// A replay goes on past a failure the recording's run went on past.
	goesOn := m.replay != nil && v.Status == engine.StatusFailed && m.replay.mayRunFailedStepAgain()
	if (msg.err != nil || v.Status == engine.StatusFailed) && !goesOn {
		m.dropQueue("the run failed")
	}
	if v.Status == engine.StatusInterrupted {
		m.note = breakpointNote(v.HeldCalls)
	}
	condErr, said := "", func() {}
	if msg.op == opNext || msg.op == opSuperstep {
		if e, f := m.condError(v); e != "" {
			condErr, said = e, f
		}
	}
	if m.continuing {
		stop, why := m.shouldPause(prev, v)
		if !stop && condErr != "" {
			// As gdb does when a condition errors: stop, once, rather
			// than run past a breakpoint that cannot say where to stop.
			stop, why = true, "stopped: "+condErr
			said()
		}
		if stop || (msg.err != nil || v.Status != engine.StatusRunning) && !goesOn || m.pauseReq {
			m.continuing, m.pauseReq = false, false
			if stop {
				m.note = why
				m.dropQueue("a breakpoint stopped the run")
			}
			return m.drainQueue()
		}
		return m.step(opNext)
	}
	if condErr != "" && !m.continuing {
		m.note = condErr
		said()
	}
	return m.drainQueue()
}

// reanswerHow says how to give a new answer where the saved one failed:
// the engine keeps an answer with the task that failed on it (LangGraph's
// rule) and replays it on every retry there, so the question is asked
// again only from a fork.
const reanswerHow = "p then n asks again (a fork), f edits in a fork"

// whyNoAnswer says why r (answer) does nothing now, or "" when there is
// nothing to say.
func (m *Model) whyNoAnswer() string {
	if m.view == nil {
		return ""
	}
	switch {
	case len(m.answeredFail) > 0 && failedTask(m.view) != nil:
		return "r can't: " + m.answeredFail[0] + " failed on its saved answer, which n reuses; " + reanswerHow
	case m.view.Status == engine.StatusInterrupted:
		return "no question waits here: the run stopped at an engine breakpoint (interrupt_before/after), n or c goes on"
	}
	return "no interrupt is waiting for an answer here"
}

// queueStep keeps a step key pressed while a step runs.
func (m *Model) queueStep(k string) {
	if len(m.queued) >= stepQueueCap {
		m.note = fmt.Sprintf("%d step keys are already queued: %s ignored", stepQueueCap, k)
		return
	}
	m.queued = append(m.queued, k)
}

// drainQueue runs the oldest queued step key once the model may step:
// on the root's view when its step ended, or on the subgraph run held
// when one paused (the keys step whatever the screen shows next, as a
// key typed while a root step runs steps its next view). Over an overlay
// the keys wait for the next view.
func (m *Model) drainQueue() tea.Cmd {
	if len(m.queued) == 0 {
		return nil
	}
	m.syncSubStepMode() // the screen the view just taken is shown on
	held := m.into.held != nil
	switch {
	case held && m.mode != modeSubStep, !held && m.mode != modeMain:
		return nil
	case !held && !m.canStep():
		m.dropQueue("there is nothing left to step")
		return nil
	}
	k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(m.queued[0])}
	m.queued = m.queued[1:]
	m.syncKeys() // the keys enabled now that the session, or the pause, is back
	if held {
		return m.subStepKey(k)
	}
	return m.mainKey(k)
}

// clearQueue is esc while step keys are queued: they are forgotten, the
// step running goes on.
func (m *Model) clearQueue() {
	n := len(m.queued)
	m.queued = nil
	m.note = fmt.Sprintf("esc cleared %s: the step running goes on (X cancels it)", plural(n, "queued step key"))
}

// queuedLabel is the header's count of the queued step keys, "" when
// none is.
func (m Model) queuedLabel() string {
	if len(m.queued) == 0 {
		return ""
	}
	return m.styles.Notice.Render(fmt.Sprintf("queued %s (%d)", strings.Join(m.queued, ""), len(m.queued)))
}

// dropQueue forgets queued step keys, saying why: they were typed for a
// run that has since stopped.
func (m *Model) dropQueue(why string) {
	if len(m.queued) == 0 {
		return
	}
	m.note = fmt.Sprintf("%s dropped: %s", plural(len(m.queued), "queued step key"), why)
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
			at := v.CheckpointID + "/" + t.ID
			if m.bp.before[t.Name] && !m.stoppedBefore[at] {
				if m.stoppedBefore == nil {
					m.stoppedBefore = map[string]bool{}
				}
				m.stoppedBefore[at] = true
				return true, "breakpoint: before " + t.Name
			}
		}
	case engine.PhaseCheckpoint:
		if prev != nil && prev.Phase == engine.PhaseCheckpoint && prev.CheckpointID == v.CheckpointID {
			// A Plan that found nothing to run ends the run at the
			// checkpoint it started from: what changed there was reported
			// (or passed over) when the run reached it.
			return false, ""
		}
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
	if op == opInit || op == opOpen || op == opStart || op == opPreview || op == opCheckout {
		m.stoppedBefore = nil
	}
	if v.Phase != engine.PhaseExecuted {
		m.edited = nil
	}
	switch {
	case op == opCheckout && v.Phase == engine.PhaseCheckpoint && v.Status == engine.StatusRunning:
		// Checking out ran nothing either, but the tasks its view lists
		// at a checkpoint that goes on are those of the step that wrote
		// it (engineSession.writers, the tree's "by …"), not saved ones
		// of the next step that was cut off: stepping from a past
		// checkpoint forks and runs its next step afresh (ENGINE-NOTES
		// 7.2).
		m.ran = v.Tasks
	case !stepped:
		// Opening or resuming ran nothing: the tasks a view lists at a
		// checkpoint then are saved ones, not ones that ran.
		m.ran = nil
	case v.Phase == engine.PhaseCheckpoint && len(v.Tasks) > 0:
		// At a checkpoint the view lists the tasks whose writes made it.
		m.ran = v.Tasks
	case v.Phase == engine.PhaseCheckpoint && prev != nil && prev.Phase != engine.PhaseCheckpoint:
		m.ran = prev.Tasks
	case v.Phase == engine.PhaseCheckpoint:
		m.ran = nil
	}
	if op == opResume || v.CheckpointID != m.drafts.at {
		m.drafts = answerDrafts{} // sent, or questions of another checkpoint
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
	m.seen.replaying = m.replay != nil
	m.seen.answeredFail = m.answeredFail
	m.seen.setView(v)
	m.tasks.verdicts = nil
	if m.replay != nil && judgedStep(v) {
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
	case judgedStep(v) && r.pastEnd():
		r.verdicts = nil
		m.refreshPanes(false)
		if v.Status != engine.StatusFailed { // a failure's error says more
			m.note = fmt.Sprintf("past the recording's end: step %d is not compared (%s matched)", v.Step, plural(r.compared, "superstep"))
		}
	case judgedStep(v):
		div := r.compare(v)
		goOn := false
		if v.Status == engine.StatusFailed && div == "" {
			if goOn, div = r.judgeFailure(v); div != "" {
				r.diverged = div
			}
		}
		m.refreshPanes(false) // the tasks pane shows the verdicts
		if v.Status == engine.StatusFailed {
			// The note says how the failure compares; the tasks pane has
			// the error.
			m.err = nil
		}
		if div != "" {
			m.note = "replay DIVERGED at " + div
			m.continuing = false
			m.dropQueue("the replay diverged")
			return true
		}
		if goOn {
			m.note = "the replay fails as the recording's run did before it went on past the failure: n runs the step again, as it did"
			return false // c goes on, as the recording's run did
		}
		if v.Status == engine.StatusFailed {
			m.note = fmt.Sprintf("the replay fails as the recording did: %s compared, the same tasks failed", plural(r.compared, "superstep"))
		}
	case v.Status == engine.StatusDone && r.diverged == "" && r.pastEnd():
		m.note = fmt.Sprintf("the replay matched the recording's %s, then ran past its end, uncompared", plural(r.compared, "superstep"))
	case v.Status == engine.StatusDone && r.diverged == "":
		m.note = "replay matches the recording: " + plural(r.compared, "superstep") + " compared"
	}
	return false
}

// judgedStep reports a view a replay compares with the recording: a
// superstep executed, or one that failed (its tasks ran, the run ended).
func judgedStep(v *engine.StepView) bool {
	return v.Phase == engine.PhaseExecuted || v.Status == engine.StatusFailed && v.Phase != engine.PhaseCheckpoint
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
	case engine.StatusFailed:
		// step runs the failed superstep again; a replay has compared the
		// failure and ends there, unless the recording's run went on past
		// it.
		return m.replay == nil || m.replay.mayRunFailedStepAgain()
	}
	return false
}

// isStepKey reports whether msg is one of the keys that advance the run,
// whether or not it is enabled right now (it is not while a step runs).
func isStepKey(k *mainKeyMap, msg tea.KeyMsg) bool {
	return pressed(msg, k.Next) || pressed(msg, k.Superstep) || pressed(msg, k.Continue)
}

// copyIndex is the [i] that names one copy of a node among several.
var copyIndex = regexp.MustCompile(`\[[0-9]+\]`)

// keepCopyNames is paths, the places of a view's interrupts, with the
// names an earlier view gave the same interrupts where they said more: a
// run resumed by interrupt id stands at the checkpoint before the step
// that asked, whose tasks (q[1], q[2]) it has not planned again, so its
// own paths name the copies of a node alike (q). An interrupt keeps its id
// until it is answered, so the earlier name is still its own.
func keepCopyNames(paths, earlier map[string]string) map[string]string {
	for id, p := range paths {
		if e, ok := earlier[id]; ok && e != p && copyIndex.ReplaceAllString(e, "") == p {
			paths[id] = e
		}
	}
	return paths
}
