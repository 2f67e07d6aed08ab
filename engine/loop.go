package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Status is where a run stands.
type Status int

// Run statuses.
const (
	// StatusRunning: the run can advance.
	StatusRunning Status = iota
	// StatusDone: planning found no task; the run finished.
	StatusDone
	// StatusInterrupted: a node called Interrupt or a breakpoint fired.
	StatusInterrupted
	// StatusFailed: a node failed, writes conflicted, the recursion limit
	// was reached, or the run's context ended: cancelled (IsCancellation
	// says so) or past its deadline (context.DeadlineExceeded). Invoke
	// with nil input on the same thread goes on from its last checkpoint
	// whichever it was.
	StatusFailed
)

// String returns the status in lower case ("interrupted"), as traces print it.
func (s Status) String() string {
	switch s {
	case StatusRunning:
		return "running"
	case StatusDone:
		return "done"
	case StatusInterrupted:
		return "interrupted"
	case StatusFailed:
		return "failed"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Phase is the step-gated position of a run: which phase of the current
// superstep completed last.
type Phase int

// Phases of a superstep.
const (
	// PhaseCheckpoint: at a checkpoint, before planning the next superstep.
	PhaseCheckpoint Phase = iota
	// PhasePlanned: tasks are planned (Plan done), nothing ran yet.
	PhasePlanned
	// PhaseExecuted: tasks ran and their writes are pending (Execute done).
	PhaseExecuted
)

// String names the phase that completed last: UPDATE (at a checkpoint),
// PLAN or EXECUTE, as the debugger's header shows it.
func (p Phase) String() string {
	switch p {
	case PhaseCheckpoint:
		return "UPDATE"
	case PhasePlanned:
		return "PLAN"
	case PhaseExecuted:
		return "EXECUTE"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// loop is one run on one thread: LangGraph's PregelLoop, a state machine over
// checkpoints. One goroutine owns it; only task results arrive from others,
// under mu.
type loop struct {
	g *Graph
	// invoked: the run's Stepper is Invoke's, which nobody views once the
	// run ended, so finish may hand the state map itself to the result.
	invoked bool
	// calls are the Task calls still running in this superstep.
	calls callTasks
	// lone is the state of a superstep of one task, which has no fanout
	// to hold it (runLone, loneFailed).
	lone loneStep
	// fan is the superstep's fanout while its tasks run concurrently
	// (under mu): a call's failure cancels the superstep through it.
	fan *fanout
	// laterCallErrs are the failures of Task calls after the
	// superstep's first failure, those it cancelled included (under mu):
	// they fail it with the first (StepErrors).
	laterCallErrs []error
	// openCalls are the Task calls made this superstep, which
	// abandonCalls abandons with the superstep's tasks (under mu);
	// callsClosed is why it did (under mu; only ever set): a call made
	// since fails at once with it.
	openCalls   []*task
	callsClosed error
	// outlived are this superstep's Task calls whose timed caller's
	// attempt ended while they ran (attemptTimed): a sibling's failure
	// neither cancels nor abandons them (under mu).
	outlived map[*task]bool
	// interrupted are this superstep's tasks that stopped at an
	// interrupt, in the order they stopped (under mu).
	interrupted []*task
	// heldCalls are this superstep's Task calls that a breakpoint kept
	// from running: made by a node in interrupt_after, or calling a task
	// in interrupt_before (acceptCall). The superstep then stops before
	// its writes are applied (under mu).
	heldCalls []HeldCall
	// stepCalls: a task of this superstep made a Task call (calls report
	// their results in the order they finish, so nothing is held back).
	stepCalls atomic.Bool
	// unfinished counts the superstep's tasks not yet finished, so the
	// last one can defer its writes to the checkpoint's commit (held).
	unfinished atomic.Int32
	// deferrer is the saver as a WriteDeferrer, nil if it is none.
	deferrer WriteDeferrer
	// updateFollows: the driver runs Update right after Execute (Run and
	// Superstep with no hook), so a checkpoint Put follows the last task.
	updateFollows bool
	// gate stands between a root run's goroutines and its listener: once
	// the run is over for its caller, events from nodes it abandoned are
	// dropped (nil without a listener, and in a subgraph run, whose
	// events reach the root's listener through its own).
	gate *emitGate
	// abandoned: the current superstep ended without some of its tasks
	// (abandonTask); set from a call's goroutine too (abandonCalls).
	abandoned atomic.Bool
	// stepCaller is the context execute was called with, the caller's:
	// the retries of a call its superstep abandoned end when it does
	// (retryAborted). Set before the superstep's tasks start.
	stepCaller context.Context
	// mayAbandon: a superstep of this run ran its tasks on goroutines
	// that the loop may leave (runConcurrently); until then the tasks
	// keep no state (task.state). Only ever set.
	mayAbandon atomic.Bool
	// stepEnded tells the loop that the last task of a superstep ended
	// (fanout.left); made once for the run, on its first superstep with
	// concurrent tasks.
	stepEnded chan struct{}
	// handoff hands the loop the ended tasks of its supersteps whose
	// successes it saves (fanout.handoff); made once for the run.
	handoff *taskHandoff
	// saveOnLoop: this superstep's tasks leave saving a success to the
	// loop's goroutine (fanout.commitOnLoop). Set and cleared by the
	// loop around the tasks' goroutines; Task calls never read it.
	saveOnLoop bool
	// held is the last task's result, reported once its deferred writes
	// are on disk (releaseHeld).
	held *heldResult
	// retried are the failures of this superstep's tasks' attempts before
	// their last (TaskView.Retried), under mu; nil until a task retries,
	// so the task itself stays in its allocation size class.
	retried map[*task][]error
	// callBackoffs are when the Task calls waiting to retry start their
	// next attempt (under mu; retryAborted).
	callBackoffs map[*task]time.Time
	// nullResumeTaken: a task of this superstep took the run's plain
	// resume value (guarded by mu).
	nullResumeTaken bool
	saver           Saver
	// exit is set for a DurabilityExit run with a saver: nothing is
	// saved until the run ends (saveAtExit).
	exit *exitState
	opts RunOptions
	cfg  Config // thread and namespace
	emit func(Event)
	ids  IDSource

	cs    *channelState
	sizes stateSizes // the state keys' sizes, for Limits.MaxStateBytes
	cpID  string     // the current checkpoint (parent of the next)
	// cpOwn: this run saved the current checkpoint (putCheckpoint), so
	// every write against it is this run's (see memSaveHint.fresh).
	cpOwn    bool
	parentID string
	md       Metadata
	step     int
	stop     int
	hint     planHint

	mu      sync.Mutex
	pending *pendingWrites // writes saved against cpID
	resumes resumeIndex    // answers available to this superstep's tasks
	// misspelt are this superstep's tasks' update keys that are no state
	// key but close to one, which stateWrites dropped (under mu; nil until
	// a task has one: EventUnknownKey).
	misspelt map[*task][]string

	tasks     []*task // each holds its own TaskResult
	skipDone  bool
	resumeMap ResumeMap
	phase     Phase
	status    Status
	err       error
	// interrupts pending when the run stopped (nil for a static breakpoint).
	interrupts []PendingInterrupt
	values     map[string]any // output when the run ended
	resuming   bool           // LangGraph's __pregel_resuming flag
	// replay is set on a root run that travels in time: its subgraphs
	// load checkpoints by it (replay.go).
	replay *replayState
	// reservedVisits are the stable namespaces whose first replay visit
	// the current superstep's subgraph nodes reserved (replay.go).
	reservedVisits []string
	// checkpointMap is set on a root run from a subgraph checkpoint's
	// config (FromConfig): LangGraph's checkpoint map, namespace →
	// checkpoint id, that checkpoint's parents and itself. The root run
	// starts from its "" entry; a subgraph run of a namespace in it starts
	// from its entry, as one addressed there (rootOfConfig, mapped).
	checkpointMap map[string]string
	// mappedNS: this subgraph run was addressed by the root's checkpoint
	// map, and so travels in time (loop.js:843).
	mappedNS bool
	// turns orders this superstep's subgraph tasks' checkpoint writes
	// (WithSubgraphTurns); turnOf maps their task ids to turns.
	turns  *subgraphTurns
	turnOf map[string]int
	before []string
	after  []string
	// edits are the tasks whose writes a person replaced between Execute
	// and Update (Stepper.EditWrites), by name, and who did: the Update
	// that applies them is recorded as an update, not as the run's own.
	edits    []string
	editedBy string
}

// PendingInterrupt is an interrupt waiting for an answer, with the node that
// raised it. encoding/json writes it flat and in lower case, as
// Interruption: {"id", "value", "node", "task_id"}.
type PendingInterrupt struct {
	Interruption
	Node   string `json:"node"`    // the node that called Interrupt
	TaskID string `json:"task_id"` // its task
}

// TaskResult is what happened to one task of a superstep.
type TaskResult struct {
	Writes     []Write        // the task's writes, in the order made
	Interrupts []Interruption // the interrupts it raised
	Err        error          // its failure, after retries
	Attempts   int            // how many times it ran
	// Interrupted: the task stopped at an interrupt, possibly with no
	// Interrupts (a subgraph that stopped at its own breakpoint).
	Interrupted bool
	Reused      bool // its saved writes were reused instead of running it
	Done        bool // it finished (wrote, interrupted or failed)
	// Cached marks a task whose writes came from the node cache: it did
	// not run (Reused is set too). (The flags come last: together they
	// take one word, which keeps a task in a smaller size class.)
	Cached bool
}

// loneStep is what a superstep of one task keeps beside the loop: its
// first failure, the abort a call's failure makes of the task, and the
// goroutine and context runLone runs the task on.
type loneStep struct {
	// err is the superstep's first failure: the task's own or one of
	// its Task calls', which fails the superstep whether or not the
	// caller passed it on (under loop.mu; loneFailed).
	err error
	// abort is the cause the task is aborted with when err is a call's,
	// as a fanout's running tasks are (loneFailed); abortWake wakes
	// runLone to abandon the task (made once for the run, under
	// loop.mu).
	abort     atomic.Pointer[CancelledError]
	abortWake chan struct{}
	// cancel cancels taskCtx, the context runLone runs the task on, a
	// child of parent, the caller's; one for the run while the caller
	// passes the same context (loneContext). cancelling: this
	// superstep's task runs on it. Under loop.mu.
	cancel     context.CancelCauseFunc
	cancelling bool
	taskCtx    context.Context
	parent     context.Context
	// task, ctx and done are the task runLone runs, its context and
	// where its goroutine hands back its outcome (made once for the
	// run).
	task *task
	ctx  context.Context
	done chan error
}

func newLoop(ctx context.Context, g *Graph, input any, opts RunOptions) (*loop, error) {
	l := &loop{
		g:      g,
		saver:  g.saver,
		opts:   opts,
		cfg:    Config{ThreadID: opts.Thread, CheckpointNS: opts.ns},
		emit:   opts.Events,
		before: g.interrupts.before,
		after:  g.interrupts.after,
	}
	l.ids = g.ids
	if p := opts.parent; p != nil {
		l.saver = p.run.saver
		l.ids = p.run.ids
		l.resumeMap = p.run.resumeMap
	}
	if d := opts.Durability; d < DurabilityAsync || d > DurabilityExit {
		return nil, fmt.Errorf("%w: %v", ErrUnknownDurability, d)
	}
	l.deferrer, _ = l.saver.(WriteDeferrer)
	if l.emit != nil && opts.parent == nil {
		l.gate = &emitGate{}
		l.emit = l.gate.wrap(l.emit)
	}
	if s := scopeOf(ctx); s != nil {
		s.run.cs.view.escapes(input) // a run started from a node keeps its input
	}
	if opts.InterruptBefore != nil {
		l.before = opts.InterruptBefore
	}
	if opts.InterruptAfter != nil {
		l.after = opts.InterruptAfter
	}
	if err := l.first(ctx, input); err != nil {
		return nil, err
	}
	return l, nil
}

// first loads the thread and handles the run's input (LangGraph's _first,
// LangGraph.js pregel/loop.ts:1377-1620): new input writes an input
// checkpoint; nil input or a Command resumes; a checkpoint id replays from
// there. In steps: load the checkpoint the run starts from, restore the
// run's state from it, decide how the run starts (startOf), map a Command
// to writes, apply the null writes, then resume, take the input, or do
// nothing (a subgraph its parent resumes).
func (l *loop) first(ctx context.Context, input any) error {
	saved, replay, superseded, err := l.loadStart(ctx)
	if err != nil {
		return err
	}
	l.restore(saved)
	s := l.startOf(input, replay, superseded)
	l.skipDone = !(s.timeTravel || superseded)
	l.resuming = s.isResuming

	carried, err := l.commandInput(ctx, s)
	if err != nil {
		return err
	}
	nullWrites, err := l.applyRunNullWrites(carried)
	if err != nil {
		return err
	}
	if s.timeTravel {
		// A replay asks its interrupts again: resume values saved
		// before do not answer them (loop.ts:1471-1475).
		l.pending.dropChannel(ResumeChannel)
	}
	if p := l.opts.parent; p != nil && p.hasNullResume && !s.forks && l.saver != nil {
		// A subgraph keeps its parent's plain resume value as its own.
		if err := l.putWrites(ctx, NullTaskID, []Write{{Channel: ResumeChannel, Value: p.nullResume}}); err != nil {
			return err
		}
	}
	switch {
	case s.isResuming || s.isCommand && nullWrites:
		err = l.resumeOrUpdate(ctx, s)
	case s.input != nil && !s.isCommand:
		err = l.takeInput(ctx, s.input)
	case s.nestedResuming:
		// A subgraph resumed by its parent with nothing of its own to
		// resume: nothing to apply (LangGraph.js does the same).
	default:
		err = ErrEmptyInput
	}
	if err != nil {
		return err
	}
	if l.opts.parent == nil && s.timeTravel {
		l.replay = &replayState{bound: l.replayBound(s)}
	}
	l.phase = PhaseCheckpoint
	return nil
}

// loadStart loads the checkpoint a run starts from: the one the run
// addresses (RunOptions.CheckpointID), else the thread's latest; nil for
// a new thread. A subgraph of a root run that travels in time loads by
// the root's replay state, returned, and counts as addressed, not resumed
// (loop.js:406, 411-414: the replay state makes the load addressed and
// drops CONFIG_KEY_RESUMING). superseded reports an addressed checkpoint
// that is not the thread's latest.
func (l *loop) loadStart(ctx context.Context) (saved *CheckpointTuple, replay *replayState, superseded bool, err error) {
	if err := l.rootOfConfig(ctx); err != nil {
		return nil, nil, false, fmt.Errorf("loading thread %q: %w", l.cfg.ThreadID, err)
	}
	l.mapped()
	addressed := l.opts.CheckpointID != ""
	replay = l.rootReplay()
	switch {
	case l.saver != nil && replay != nil && !l.mappedNS: // a mapped id comes first (loop.js:405-411)
		if saved, err = l.loadReplayed(ctx, replay); err != nil {
			return nil, nil, false, fmt.Errorf("loading thread %q: %w", l.cfg.ThreadID, err)
		}
	case l.saver != nil:
		saved, err = l.saver.GetTuple(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.opts.CheckpointID})
		if err != nil {
			return nil, nil, false, fmt.Errorf("loading thread %q: %w", l.cfg.ThreadID, err)
		}
		if saved == nil && addressed {
			return nil, nil, false, fmt.Errorf("%w: %s on thread %q", ErrNoCheckpoint, l.opts.CheckpointID, l.cfg.ThreadID)
		}
	case addressed:
		return nil, nil, false, ErrNoCheckpointer
	}
	if saved != nil && addressed {
		latest, err := l.saver.GetTuple(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS})
		if err != nil {
			return nil, nil, false, err
		}
		superseded = latest != nil && latest.Checkpoint.ID != saved.Checkpoint.ID
	}
	return saved, replay, superseded, nil
}

// rootOfConfig builds the checkpoint map of a root run from a checkpoint
// given to FromConfig, as LangGraph builds it for that checkpoint's config
// (patchCheckpointMap): its parents and itself, none when it has no
// parents (a root checkpoint that no run with a map wrote). The run starts
// from the map's root entry. A subgraph checkpoint not found leaves the
// run on the thread's latest root checkpoint, as a config without a map.
func (l *loop) rootOfConfig(ctx context.Context) error {
	if l.opts.fromNSCheckpoint == "" || l.opts.parent != nil || l.saver == nil {
		return nil
	}
	sub, err := l.saver.GetTuple(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.opts.fromNS, CheckpointID: l.opts.fromNSCheckpoint})
	if err != nil || sub == nil || len(sub.Metadata.Parents) == 0 {
		return err
	}
	l.checkpointMap = maps.Clone(sub.Metadata.Parents)
	l.checkpointMap[l.opts.fromNS] = l.opts.fromNSCheckpoint
	if root := l.checkpointMap[""]; root != "" {
		l.opts.CheckpointID = root
	}
	return nil
}

// mapped addresses a subgraph run at its namespace's checkpoint in the
// root run's checkpoint map, if the map has one (LangGraph.js
// pregel/loop.js:405, which the task configs inherit, algo.js:551, 679).
// Such a run travels in time: it replays from the checkpoint, forking if
// the namespace has moved on since, and asks its interrupts again.
func (l *loop) mapped() {
	if l.opts.parent == nil || l.opts.CheckpointID != "" {
		return
	}
	root := l
	for root.opts.parent != nil {
		root = root.opts.parent.run
	}
	if id := root.checkpointMap[l.cfg.CheckpointNS]; id != "" {
		l.opts.CheckpointID, l.mappedNS = id, true
	}
}

// restore makes the loaded checkpoint (nil: a new thread, before its
// input) the run's current one: its metadata, saved writes and channels,
// and the steps the run may take from it.
func (l *loop) restore(saved *CheckpointTuple) {
	var cp *Checkpoint
	if saved != nil {
		cp = saved.Checkpoint
		l.md = saved.Metadata
		l.cpID = cp.ID
		idsAfter(l.ids, cp.ID)
		l.parentID = saved.ParentID
		l.pending = newPendingWrites(saved.PendingWrites)
	} else {
		l.md = Metadata{Source: SourceInput, Step: -2, Parents: map[string]string{}}
		l.pending = newPendingWrites(nil)
	}
	l.cs = newChannelState(l.g, cp)
	l.cs.valuesOff = l.saver == nil && l.emit == nil // nobody reads a checkpoint
	l.cs.dirtyOff = keepsSnapshots(l.saver)
	l.cs.kept = keepsSnapshots(l.saver)
	if l.opts.Durability == DurabilityExit && l.saver != nil {
		l.startExit()
		l.deferrer = nil // nothing is committed with a checkpoint Put
	}
	l.step = l.md.TaskStep()
	l.stop = l.step + l.opts.RecursionLimit + 1
	if l.stop < l.step { // a limit near the int's largest wrapped past it: no limit
		l.stop = math.MaxInt
	}
}

// recursionLeft is how many more supersteps the run may start
// (StepView.RecursionLeft), without wrapping past the int's largest.
func (l *loop) recursionLeft() int {
	left := l.stop - l.step
	if left < 0 {
		return 0
	}
	if left < math.MaxInt {
		left++
	}
	return left
}

// runStart is how a run starts, decided once from its input and the
// checkpoint it loaded: LangGraph.js _first's flags.
type runStart struct {
	input     any // the run's input; a nil map is nil: it continues the thread
	cmd       Command
	isCommand bool
	// nestedResuming: a subgraph its parent resumes (CONFIG_KEY_RESUMING),
	// unless the root replays and the subgraph loads by its replay state.
	nestedResuming bool
	// isResuming: the thread has channel versions and the run continues
	// it: nil input, a Command with a resume value, or nestedResuming
	// (loop.ts:432-477 isResuming).
	isResuming bool
	// timeTravel: the run is addressed at a checkpoint (or under a root's
	// replay) and does not resume it: it replays from there
	// (loop.ts:1454-1469 isTimeTraveling). A resume, a subgraph its
	// parent resumes, or a run addressed at the head that update_state
	// or a fork did not write (resumeAtHead, loop.ts:658-672) resumes.
	timeTravel bool
	// forks: a time-travelling run that continues the checkpoint (a
	// Command, or a resume) writes a fork first, so the old branch stays;
	// not from an update or fork checkpoint that is the thread's head,
	// which is already its own branch.
	forks bool
	// isUpdateOrFork: update_state or a fork wrote the checkpoint loaded.
	isUpdateOrFork bool
	// loadedParent is the parent of the checkpoint loaded, before any
	// checkpoint first writes.
	loadedParent string
}

// startOf decides how the run starts from input and the checkpoint
// restore made current.
func (l *loop) startOf(input any, replay *replayState, superseded bool) runStart {
	if m, ok := input.(map[string]any); ok && m == nil {
		input = nil // a nil map continues the thread, like untyped nil
	}
	s := runStart{input: input, loadedParent: l.parentID}
	s.cmd, s.isCommand = asCommand(input)
	addressed := l.opts.CheckpointID != ""
	cmdResumes := s.isCommand && s.cmd.Resume != nil
	// A root replay's state drops the resuming flag its subgraphs load by;
	// a namespace the checkpoint map addresses keeps it (loop.js:405-413).
	s.nestedResuming = l.opts.parent != nil && l.opts.parent.run.resumingChildren() && (replay == nil || l.mappedNS)
	s.isUpdateOrFork = l.md.Source == SourceUpdate || l.md.Source == SourceFork
	resumeAtHead := addressed && !superseded && !s.isUpdateOrFork
	s.isResuming = l.cs.hasVersions() && (input == nil || cmdResumes || s.nestedResuming)
	s.timeTravel = (addressed || replay != nil) && (l.mappedNS || !(cmdResumes || s.nestedResuming || resumeAtHead))
	s.forks = s.timeTravel && (s.isCommand || s.isResuming) && (!s.isUpdateOrFork || superseded)
	return s
}

// commandInput maps a Command given as input to null-task writes and
// saves them against the loaded checkpoint; a forking run carries them,
// returned, to the fork instead. A resume map keyed by interrupt id
// becomes the run's resume map (loop.ts:1395-1403).
func (l *loop) commandInput(ctx context.Context, s runStart) (carried []PendingWrite, err error) {
	if !s.isCommand {
		return nil, nil
	}
	cmd := s.cmd
	if rm, ok := cmd.Resume.(ResumeMap); ok {
		l.resumeMap = rm
	} else if rm, ok := cmd.Resume.(map[string]any); ok && isResumeMap(rm) {
		l.resumeMap = ResumeMap(rm)
		cmd.Resume = l.resumeMap
	}
	if cmd.Resume != nil && l.saver == nil {
		return nil, fmt.Errorf("cannot resume without a checkpointer: %w", ErrNoCheckpointer)
	}
	if err := l.g.limits.checkResume(cmd.Resume); err != nil {
		return nil, err
	}
	writes, err := l.g.commandWrites(cmd)
	if err != nil {
		return nil, err
	}
	if len(writes) == 0 && l.resumeMap == nil {
		return nil, fmt.Errorf("%w: the Command has no update, goto or resume value", ErrEmptyInput)
	}
	if len(writes) == 0 {
		return nil, nil
	}
	if s.forks {
		for _, w := range writes {
			carried = append(carried, PendingWrite{TaskID: NullTaskID, Channel: w.Channel, Value: w.Value})
		}
		return carried, nil
	}
	return nil, l.putWrites(ctx, NullTaskID, writes)
}

// applyRunNullWrites applies the null task's writes, saved and carried,
// to the channels (loop.ts:1432-1449) and reports whether there were any.
func (l *loop) applyRunNullWrites(carried []PendingWrite) (bool, error) {
	var nullWrites []Write
	for _, pw := range slices.Concat(l.pending.null, carried) {
		if pw.TaskID == NullTaskID {
			nullWrites = append(nullWrites, Write{Channel: pw.Channel, Value: pw.Value})
		}
	}
	if len(nullWrites) == 0 {
		return false, nil
	}
	_, err := applyWrites(l.cs, []*task{{name: InputTask, writes: nullWrites}})
	return err == nil, err
}

// resumeOrUpdate starts a run that resumes the thread, or applies a
// Command's update or goto: the interrupt has seen every channel's
// version now, a time-travelling run writes its fork, a Command that
// does not resume writes an input checkpoint, and the values are emitted
// (loop.ts:1477-1536; resuming wins when both hold).
func (l *loop) resumeOrUpdate(ctx context.Context, s runStart) error {
	old, _ := l.cs.seen.get(InterruptChannel)
	seen := maps.Clone(old)
	if seen == nil {
		seen = map[string]Version{}
	}
	maps.Copy(seen, l.cs.versionMap())
	l.cs.setSeen(InterruptChannel, seen) // a new map: checkpoints share the old one
	if s.forks {
		l.pending.dropChannel(InterruptChannel)
		if err := l.putCheckpoint(ctx, SourceFork); err != nil {
			return err
		}
		// A subgraph that forks (the checkpoint map addressed a
		// checkpoint its namespace has moved on from) keeps its parent's
		// plain resume value on the fork, as run does on the checkpoint
		// it continues (loop.ts: _first writes nullResume after the fork
		// checkpoint, dist/pregel/loop.js:902-903).
		if p := l.opts.parent; p != nil && p.hasNullResume && l.saver != nil {
			if err := l.putWrites(ctx, NullTaskID, []Write{{Channel: ResumeChannel, Value: p.nullResume}}); err != nil {
				return err
			}
		}
	}
	if !s.isResuming {
		if err := l.putCheckpoint(ctx, SourceInput); err != nil {
			return err
		}
	}
	l.emitValues()
	return nil
}

// takeInput applies new input as the start node's write, beside the
// tasks the checkpoint had planned, which it discards, and writes the
// input checkpoint (loop.ts:1537-1585).
func (l *loop) takeInput(ctx context.Context, input any) error {
	// The input is kept whole in the input checkpoint (the __start__
	// channel's value) before __start__ maps it to the state keys, whose
	// writes are measured then: measured now, an input past the bounds is
	// refused as the input it is, before anything is saved.
	if err := l.g.limits.checkWrite(InputTask, Start, input); err != nil {
		return err
	}
	discard := prepareNextTasks(l.cs, l.cpID, l.cfg.CheckpointNS, l.step, planHint{})
	inputTask := &task{name: InputTask, writes: []Write{{Channel: Start, Value: Normalize(input)}}}
	updated, err := applyWrites(l.cs, append(discard, inputTask))
	if err != nil {
		return err
	}
	l.hint = l.cs.hint(updated)
	return l.putCheckpoint(ctx, SourceInput)
}

// replayBound is the checkpoint a root run that travels in time tells
// its subgraphs to load before, once first has written what it writes:
// the checkpoint run from (a fork's, once written), or the parent of an
// update or fork checkpoint (loop.ts:1598-1610): the loaded one's parent
// when a fork was written from an update or fork checkpoint, else the
// current checkpoint's parent when update_state or a fork wrote it (a
// fork first wrote from a loop checkpoint bounds at that checkpoint).
// own/replay_fork_from_update_bound pins the first case against the
// oracle: bounding at the loaded update checkpoint itself diverges.
func (l *loop) replayBound(s runStart) string {
	switch {
	case s.forks && s.isUpdateOrFork && s.loadedParent != "":
		return s.loadedParent
	case (l.md.Source == SourceUpdate || l.md.Source == SourceFork) && l.parentID != "":
		return l.parentID
	}
	return l.cpID
}

func asCommand(v any) (Command, bool) {
	switch c := v.(type) {
	case Command:
		return c, true
	case *Command:
		if c != nil {
			return *c, true
		}
	}
	return Command{}, false
}

// commandWrites maps a Command given as run input to null-task writes.
func (g *Graph) commandWrites(cmd Command) ([]Write, error) {
	var out []Write
	for _, d := range cmd.Goto {
		switch x := d.(type) {
		case Send:
			out = append(out, Write{Channel: TasksChannel, Value: Send{Node: x.Node, Arg: Normalize(x.Arg)}})
		case string:
			out = append(out, Write{Channel: BranchPrefix + x, Value: Start})
		default:
			return nil, fmt.Errorf("command goto: expected a node name or a Send, got %T", d)
		}
	}
	if cmd.Resume != nil {
		if _, isMap := cmd.Resume.(ResumeMap); !isMap {
			out = append(out, Write{Channel: ResumeChannel, Value: Normalize(cmd.Resume)})
		}
	}
	pairs, err := updatePairs(cmd.Update)
	if err != nil {
		return nil, err
	}
	for _, kv := range pairs {
		out = append(out, Write{Channel: kv.Key, Value: Normalize(kv.Value)})
	}
	return out, nil
}

// resumingChildren reports whether subgraphs started by this run's tasks
// should resume from their own checkpoints rather than start afresh: true
// while a resumed run finishes the superstep it resumed.
func (l *loop) resumingChildren() bool { return l.resuming }

// putWrites saves a task's writes against the current checkpoint and keeps
// them in memory for this run. Without a saver a task's writes are not
// kept: nothing resumes the superstep they belong to (only the run's own
// null-task writes, which first applies at once, are).
func (l *loop) putWrites(ctx context.Context, taskID string, writes []Write) error {
	if l.saver == nil && taskID != NullTaskID {
		return nil
	}
	l.mu.Lock()
	l.pending.add(taskID, writes)
	if l.exit != nil {
		// Kept for the run's end (loop.js:548: no putWrites under exit).
		l.exit.written[taskID] = true
	}
	l.mu.Unlock()
	if l.saver == nil || l.exit != nil {
		return nil
	}
	return l.saver.PutWrites(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.cpID}, taskID, writes)
}

// putTaskWrites is putWrites for task t; without a saver it makes no id.
// MemorySaver, which keeps the writes in this process, takes a task this
// run planned by reference, and the id (a hash of the checkpoint id, the
// namespace, the step and the task's path) is made only if something
// reads it: the same id, at a cost only to readers.
func (l *loop) putTaskWrites(ctx context.Context, t *task, writes []Write) error {
	if l.saver == nil {
		return nil
	}
	if ms, ok := l.saver.(*MemorySaver); ok && l.exit == nil {
		if ref, ok := l.planned(t); ok {
			l.mu.Lock()
			first := l.pending.addTask(t, writes)
			hint := memSaveHint{fresh: first && l.cpOwn, tasks: l.pending.tasks}
			l.mu.Unlock()
			ms.putTaskWrites(Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.cpID}, l.g, t.step, ref, writes, t.node.sameWriteIDs(writes), hint)
			return nil
		}
	}
	if err := l.putWrites(ctx, t.id(), writes); err != nil {
		return writesNotSaved(t, err)
	}
	return nil
}

// writesNotSaved is the error of t's writes that the saver refused,
// naming t's node: a store's refusal names only the channel (a value JSON
// cannot hold, 1/0's Infinity).
func writesNotSaved(t *task, err error) error {
	return fmt.Errorf("saving the writes of node %q: %w", t.name, err)
}

// savedCopies reports whether the run's saver keeps copies of the writes
// it saved, not the slices it was given, and nothing else of the run
// reads them once applied: a MemorySaver (memWrites.put copies each
// write), saving at once (under DurabilityExit the run keeps them for its
// end), with no listener.
func (l *loop) savedCopies() bool {
	_, ok := l.saver.(*MemorySaver)
	return ok && l.exit == nil && l.emit == nil
}

// put saves a checkpoint the run made (cp, or kc in a kept run: see
// channelState.checkpoint) with its metadata.
func (l *loop) put(ctx context.Context, cfg Config, cp *Checkpoint, kc *keptCheckpoint, md Metadata, newVersions map[string]Version) error {
	if kc != nil {
		// Only a MemorySaver's runs are kept (keepsSnapshots).
		l.saver.(*MemorySaver).putKept(&cfg, kc, &md)
		return nil
	}
	_, err := l.g.putFirst(ctx, l.saver, cfg, forSaver(l.saver, cp), md, newVersions)
	return err
}

// planned returns t as a memTask when its id is the one planning gives
// it from the current checkpoint (not a Task call's or an update's, whose
// ids are made otherwise) and its node is the run's graph's. Only
// prepareNextTasks sets a task's cpID, with the name and trigger of its
// node (node.triggers[index] for a PULL task), which memTask.id reads.
func (l *loop) planned(t *task) (memTask, bool) {
	n := t.node
	if t.cpID == "" || !sameString(t.cpID, l.cpID) || !sameString(t.parentNS, l.cfg.CheckpointNS) || n == nil || n.ord >= len(l.g.nodeList) || l.g.nodeList[n.ord] != n ||
		t.index >= math.MaxInt32 || t.step != int(int32(t.step)) {
		return memTask{}, false
	}
	return newMemTask(n.ord, t.kind, t.index), true
}

// deferWrites is putWrites through d (WriteDeferrer): kept in memory at
// once, on disk when wait returns.
func (l *loop) deferWrites(ctx context.Context, d WriteDeferrer, taskID string, writes []Write) (wait func() error, err error) {
	l.mu.Lock()
	l.pending.add(taskID, writes)
	l.mu.Unlock()
	return d.DeferWrites(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.cpID}, taskID, writes)
}

// newCheckpointID is the next checkpoint's id: for a run whose saver
// keeps every checkpoint, with the default ids, written into room the
// run's channel state hands out in chunks (channelState.idRoom).
//
// When the ids' clock and the graph's are both the wall clock (time.Now),
// one reading serves the id and the checkpoint's timestamp: ts is that
// reading (read is true), as the graph's clock would have given it, and the
// id is made from it as TimeIDs.NewID would have. Otherwise the caller reads
// the graph's clock itself.
func (l *loop) newCheckpointID() (id string, ts time.Time, read bool) {
	t, ok := l.ids.(*TimeIDs)
	if !ok {
		return l.ids.NewID(), ts, false
	}
	var now, seq uint64
	if read = t.wall && l.g.wallClock; read {
		ts = l.g.clock()
		now, seq = t.nextAt(ts)
	} else {
		now, seq = t.next()
	}
	if l.cs.kept {
		return idIn(l.cs.idRoom(), now, seq), ts, read
	}
	return idFrom(now, seq), ts, read
}

// checkpointMetadata is the metadata of the checkpoint the current step
// makes with source: the run's own metadata, the edits that made it, the
// subgraph it was declared as and its parents' checkpoint ids by
// namespace.
func (l *loop) checkpointMetadata(source string) Metadata {
	md := Metadata{Source: source, Step: l.step}
	switch {
	case l.checkpointMap != nil:
		// A root run's checkpoints record its checkpoint map as their
		// parents (LangGraph.js pregel/loop.js:1058), so a config of one
		// carries the map on (patchCheckpointMap).
		md.Parents = maps.Clone(l.checkpointMap)
	case l.emit != nil || l.opts.parent != nil:
		md.Parents = map[string]string{}
	case l.saver != nil:
		md.Parents = rootParents(l.saver)
	}
	if len(l.opts.Metadata) > 0 {
		md.Extra = maps.Clone(l.opts.Metadata)
	}
	if len(l.edits) > 0 {
		if md.Extra == nil {
			md.Extra = map[string]any{}
		}
		md.Extra[MetaEditedWrites] = strings.Join(l.edits, ",")
		md.Extra[MetaEditedBy] = l.editedBy
	}
	if name := l.opts.declaredAs; name != "" {
		if md.Extra == nil {
			md.Extra = map[string]any{}
		}
		md.Extra[MetaSubgraph] = name
	}
	if p := l.opts.parent; p != nil {
		maps.Copy(md.Parents, p.run.md.Parents)
		md.Parents[p.run.cfg.CheckpointNS] = p.run.cpID
	}
	return md
}

// putCheckpoint stores the current state as a new checkpoint with source and
// the current step, then advances the step counter.
func (l *loop) putCheckpoint(ctx context.Context, source string) error {
	id, ts, read := l.newCheckpointID()
	md := l.checkpointMetadata(source)
	// Under DurabilityExit the checkpoint is made in memory only: its id,
	// metadata and step advance, the saver sees it at the run's end
	// (loop.js:1031 doCheckpoint, :1084).
	save := l.saver != nil && l.exit == nil
	var newVersions map[string]Version
	switch {
	case save:
		newVersions = l.cs.newVersionsFor(l.saver)
	case l.saver == nil:
		l.cs.forgetDirty()
	}
	var cp *Checkpoint
	var kc *keptCheckpoint
	if save || l.exit == nil && l.emit != nil {
		// Without a saver or a listener nobody reads the checkpoint: only
		// its id (for task ids) and the step counter matter.
		if !read {
			ts = l.g.clock()
		}
		cp, kc = l.cs.checkpoint(id, ts, l.hint.onlyIf(source == SourceLoop))
	}
	if l.exit != nil {
		// Siblings still take turns each superstep, as they would to
		// write, so their exit writes come in the same order.
		if ls := l.opts.turns; ls != nil {
			ls.wait(l.opts.turnAt)
			ls.pass(l.opts.turnAt)
		}
	}
	if save {
		if ls := l.opts.turns; ls != nil {
			ls.wait(l.opts.turnAt)
		}
		err := l.put(ctx, Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.cpID}, cp, kc, md, newVersions)
		if ls := l.opts.turns; ls != nil {
			ls.pass(l.opts.turnAt)
		}
		// The last task's deferred writes were committed with the
		// checkpoint (or fail on their own): report it now, before the
		// checkpoint, as it would have been.
		if herr := l.releaseHeld(); err == nil && herr != nil {
			err = herr
		}
		if err != nil {
			return fmt.Errorf("saving checkpoint at step %d: %w", l.step, err)
		}
	}
	l.parentID = l.cpID
	l.cpID, l.cpOwn = id, save
	l.md = md
	if kc != nil && l.emit != nil {
		cp = kc.public() // made now: a listener reads it
	}
	if cp != nil && l.emit != nil {
		l.emit(Event{Kind: EventCheckpoint, Step: l.step, Checkpoint: cp.Materialize(), Metadata: md, ParentID: l.parentID, Namespace: l.cfg.CheckpointNS})
	}
	l.step++
	return nil
}

// emitBreakpoint tells listeners a static breakpoint stopped the run.
func (l *loop) emitBreakpoint() {
	if l.emit != nil {
		l.emit(Event{Kind: EventBreakpoint, Step: l.step, streamNS: l.breakpointStreamNS()})
	}
}

// breakpointStreamNS is the namespace a run streams its breakpoint's
// empty interrupt under. A root run that streams its subgraphs and has a
// checkpoint map (it was started from a config that carries one: an
// update_state in a subgraph's namespace, or a checkpoint a run with a
// map wrote) streams it under the map's deepest namespace, the subgraph
// being travelled in, not under the root's: LangGraph.js
// #interruptStreamNamespace (1.7.3 dist pregel/loop.js:959-964, used only
// for the breakpoint's chunks at :726; the comment at :133-150). It looks
// at the map alone, so the chunk goes there whichever graph's breakpoint
// stopped the run. Without subgraph streaming (the stream key is set only
// then, pregel/index.js:1211-1214) it streams under the run's own
// namespace.
func (l *loop) breakpointStreamNS() string {
	if l.opts.parent != nil || !l.opts.StreamSubgraphs {
		return l.cfg.CheckpointNS
	}
	return deepestNamespace(l.checkpointMap)
}

// deepestNamespace is the deepest namespace of checkpoint map m, "" when
// it has none but the root's. A nested namespace extends its parent's, so
// LangGraph.js takes the longest key (deepestCheckpointMapNamespace,
// 1.7.3 dist pregel/loop.js:146-150). The keys of a map made from one
// checkpoint's parents lie on one path, so the longest is unique; should
// two keys tie (namespaces of sibling subgraphs, one inherited from the
// map of the run that wrote the other), LangGraph.js takes the first in
// the map's insertion order, which neither a Go map nor a saver keeps:
// here the smaller key wins, an unspecified choice.
func deepestNamespace(m map[string]string) string {
	deepest := ""
	for k := range m {
		if len(k) > len(deepest) || len(k) == len(deepest) && k < deepest {
			deepest = k
		}
	}
	return deepest
}

func (l *loop) emitValues() {
	if l.emit != nil {
		l.emit(Event{Kind: EventValues, Step: l.step, Values: l.cs.stateValues(), Output: l.cs.output()})
	}
}

// savedInterrupts lists the interrupts saved against the current checkpoint
// that still wait for an answer (exactly as StateSnapshot's tasks say), so a
// view of a resumed thread shows what it waits for. The caller holds l.mu.
func (l *loop) savedInterrupts() []PendingInterrupt {
	saved := ReadSavedWrites(l.pending.all())
	if len(saved.Tasks) == 0 {
		return nil
	}
	var out []PendingInterrupt
	for _, tk := range sortTasks(prepareNextTasks(l.cs, l.cpID, l.cfg.CheckpointNS, l.step, planHint{})) {
		sv, ok := saved.Task(tk.id())
		if !ok || !saved.waitingTask(sv, tk) {
			continue
		}
		for _, in := range sv.Interrupts {
			out = append(out, PendingInterrupt{Interruption: in, Node: tk.name, TaskID: tk.id()})
		}
	}
	return out
}

// plan is the Plan phase (LangGraph's tick): check the recursion limit, plan
// the tasks, reuse the saved writes of tasks that already finished, and stop
// at interrupt_before breakpoints.
func (l *loop) plan(ctx context.Context) error {
	if l.step > l.stop {
		return l.fail(&GraphRecursionError{Limit: l.opts.RecursionLimit, Step: l.step})
	}
	l.tasks = prepareNextTasks(l.cs, l.cpID, l.cfg.CheckpointNS, l.step, l.hint)
	clear(l.retried)
	if l.emit != nil || (l.saver != nil && !isMemorySaver(l.saver)) {
		// Every id is read: hash their shared parts once. MemorySaver
		// takes tasks by reference (putTaskWrites).
		nameTasks(l.tasks)
	}
	l.addManagedValues(l.tasks)
	if l.opts.planEvents && l.emit != nil && l.saver != nil {
		// Before the end and the breakpoint below, as LangGraph.js
		// streams its checkpoints chunk (loop.js:684).
		l.emitPlanned()
	}
	if len(l.tasks) == 0 {
		l.finish(StatusDone)
		return nil
	}
	if l.skipDone && !l.pending.empty() {
		l.reuseSavedWrites()
	}
	l.resumes = l.pending.resumes()
	l.nullResumeTaken = false
	allReused := true
	for _, t := range l.tasks {
		if !t.result.Reused {
			allReused = false
		}
	}
	if !allReused && shouldInterrupt(l.cs, l.before, l.tasks) {
		l.interrupts = nil
		l.finish(StatusInterrupted)
		l.emitBreakpoint()
		return nil
	}
	l.phase = PhasePlanned
	if l.emit != nil && !allReused {
		last := -1
		for i, t := range l.tasks {
			if !t.node.start {
				last = i
			}
		}
		for i, t := range l.tasks {
			if t.node.start {
				continue // hidden, as LangGraph tags it
			}
			l.cs.view.lentIn(t.input) // a listener may keep it
			l.emit(Event{Kind: EventTask, Step: l.step, Node: t.name, TaskID: t.id(), Input: t.input, Triggers: t.triggers, IsPush: t.kind == pushTask, Reused: t.result.Reused, Writes: t.result.Writes, lastStart: i == last})
		}
	}
	if l.emit != nil && allReused {
		// Every task has its writes already (its superstep stopped before
		// applying them: a breakpoint held a Task call, or the process
		// ended between Execute and Update): they stream as cached
		// updates and the superstep goes on to apply them, no task start
		// streamed (LangGraph.js 1.7.3 dist pregel/loop.js:693-696).
		for _, t := range l.tasks {
			if !t.node.start && len(t.result.Writes) > 0 {
				l.emit(Event{Kind: EventTask, Step: l.step, Node: t.name, TaskID: t.id(), Input: t.input, Triggers: t.triggers, IsPush: t.kind == pushTask, Reused: true, Writes: t.result.Writes, Unstarted: true})
			}
		}
	}
	// After the task events, as LangGraph.js matches the cache after tick.
	if err := l.matchCachedWrites(ctx); err != nil {
		return l.fail(err)
	}
	return nil
}

// emitPlanned reports the tasks just planned from the current checkpoint
// with what was saved for them against it (EventPlanned; LangGraph.js
// 1.7.3 dist pregel/loop.js:684, debug.js:94-160). Under DurabilityExit
// the checkpoints the run makes are not saved, and LangGraph.js's config
// keeps addressing the one it started from (storeCheckpoint,
// loop.js:1032-1050, runs only when it saves): so does the event, with
// the current metadata and values.
func (l *loop) emitPlanned() {
	id, parent := l.cpID, l.parentID
	if x := l.exit; x != nil {
		id, parent = x.savedID, x.savedParent
	}
	var saved *SavedWrites
	if !l.pending.empty() {
		saved = ReadSavedWrites(l.pending.all())
	}
	planned := make([]PlannedTask, len(l.tasks))
	for i, t := range l.tasks {
		p := PlannedTask{ID: t.id(), Name: t.name, Path: t.path(), Interrupts: []Interruption{}}
		if t.node.runsSubgraphs() {
			p.State = &SubgraphConfig{Configurable: SubgraphAddress{ThreadID: l.cfg.ThreadID, CheckpointNS: t.namespace()}}
		}
		if saved == nil {
			planned[i] = p
			continue
		}
		if sv, ok := saved.Task(p.ID); ok {
			if sv.Failed {
				// A failed task has no state (debug.js:139-146).
				p.Error, p.State = taskErrorOf(sv), nil
			}
			if len(sv.Interrupts) > 0 {
				p.Interrupts = sv.Interrupts
			}
			// Its writes to output keys, failed or not (tasksWithWrites
			// looks for any output write, debug.js:131).
			if upd := l.g.taskResult(sv.Writes); len(upd) > 0 {
				p.Result = upd
			}
		}
		planned[i] = p
	}
	values := l.cs.stateValues()
	if values == nil {
		values = map[string]any{} // LangGraph.js's readChannels gives {}
	}
	cfg := l.streamConfig(id)
	var parentCfg *CheckpointConfig
	if parent != "" {
		pc := cfg
		pc.Configurable.CheckpointID = parent
		parentCfg = &pc
	}
	l.emit(Event{Kind: EventPlanned, Step: l.step, CheckpointID: id, ParentID: parent, Metadata: l.md, Namespace: l.cfg.CheckpointNS, Values: values, Output: l.cs.output(), Planned: planned, config: &cfg, parentConfig: parentCfg})
}

// streamConfig is the config a checkpoints chunk addresses checkpoint id
// of this run with: LangGraph.js's checkpointConfig, the run's config
// with the checkpoint's address (loop.js:431-439, :1044-1050). A
// subgraph's run has its task's config (LangGraph passes it on): its
// metadata adds the task's, its run name is the task's node and its
// checkpoint map the checkpoints its parents planned it from.
func (l *loop) streamConfig(id string) CheckpointConfig {
	md := map[string]any{"ls_integration": "langgraph"} // pregel/index.js:1128
	root := l
	for root.opts.parent != nil {
		root = root.opts.parent.run
	}
	maps.Copy(md, root.opts.Metadata)
	md["thread_id"] = l.cfg.ThreadID
	cfg := CheckpointConfig{
		Configurable:   CheckpointConfigurable{CheckpointNS: l.cfg.CheckpointNS, ThreadID: l.cfg.ThreadID, CheckpointID: id},
		Metadata:       md,
		RecursionLimit: l.opts.RecursionLimit,
		Tags:           []string{},
	}
	if p := l.opts.parent; p != nil {
		// The task's own metadata (LangGraph.js algo.js task config).
		ns := p.t.namespace()
		md["langgraph_step"] = p.step
		md["langgraph_node"] = p.t.name
		md["langgraph_triggers"] = slices.Clone(p.t.triggers)
		md["langgraph_path"] = p.t.path()
		md["langgraph_checkpoint_ns"] = ns
		md["checkpoint_ns"] = ns
		cfg.RunName = p.t.name
		cmap := maps.Clone(p.run.md.Parents)
		if cmap == nil {
			cmap = map[string]string{}
		}
		cmap[p.run.cfg.CheckpointNS] = p.run.cpID
		cfg.Configurable.CheckpointMap = cmap
	} else if l.checkpointMap != nil {
		cfg.Configurable.CheckpointMap = maps.Clone(l.checkpointMap)
	}
	return cfg
}

// taskErrorOf is a failed task's saved error as LangGraph.js streams it
// (TaskError; see taskErrorFrom).
func taskErrorOf(sv *SavedTask) *TaskError {
	if sv.Err == nil {
		return &TaskError{Message: sv.Error, Name: "Error"}
	}
	return taskErrorFrom(sv.Err)
}

// taskErrorFrom is a task's error as LangGraph.js saves and streams it,
// {message, name} of what the node threw (pregel/runner.js:202-205): a
// node's failure is the error the node returned, which the NodeError
// (and a saved one, savederror.go) wraps, and a subgraph's node's
// within its own; its name is the kind the engine saves it as. A saved
// error of a kind no run of the engine saves keeps its own kind ("Error"
// for text alone).
func taskErrorFrom(err error) *TaskError {
	var se *SavedError
	if errors.As(err, &se) && se.Kind != "NodeError" {
		name := se.Kind
		if name == "" {
			name = "Error"
		}
		return &TaskError{Message: se.Message, Name: name}
	}
	if se != nil {
		if err = se.Unwrap(); err == nil { // the rebuilt NodeError
			return &TaskError{Message: se.Message, Name: se.Kind}
		}
	}
	// A subgraph node's failure is the NodeError of the subgraph's node
	// inside its own: LangGraph.js's task carries the error the innermost
	// node threw, which a subgraph rethrows as it is.
	for {
		ne, ok := err.(*NodeError)
		if !ok || ne.Err == nil {
			break
		}
		err = ne.Err
	}
	name, _ := encodeTaskError(err)["name"].(string)
	return &TaskError{Message: err.Error(), Name: name}
}

// reuseSavedWrites copies writes saved for a task id onto the planned task,
// so it does not run again.
func (l *loop) reuseSavedWrites() {
	byID := make(map[string]*task, len(l.tasks))
	for _, t := range l.tasks {
		byID[t.id()] = t
	}
	for _, pw := range l.pending.all() {
		t := byID[pw.TaskID]
		if t == nil || !reusable(pw) {
			continue
		}
		t.writes = append(t.writes, savedWrite(pw)) // a reused Send went through storage
		r := &t.result
		r.Reused, r.Done = true, true
		r.Writes = t.writes
	}
}

// reusable reports whether a saved write counts as the task's output when
// its superstep resumes: everything but the error, interrupt and answer
// bookkeeping (_loop.py _reapply_writes_to_succeeded_nodes). A task that
// failed or was cancelled after its writers wrote keeps those writes and
// does not run again, as in LangGraph.
func reusable(pw PendingWrite) bool {
	return !IsControlWrite(pw.Channel) || pw.Channel == NoWritesChannel
}

// keepWrites keeps the memory of a lone task's writes, now applied, for
// the next superstep's lone task: a wide node's writes outgrow the task's
// own buffer, and each superstep allocated them anew. Only where nothing
// reads a task's writes once they are applied: a run of Invoke's (no view
// of its tasks), with no listener or hook and no saver but a MemorySaver
// that saved them (savedCopies), of a node with no cache (which keeps
// writes) and no timeout (an abandoned attempt may still be writing).
// Task calls add tasks: then there is not one.
func (l *loop) keepWrites() {
	l.cs.spareWrites = nil
	if !l.invoked || !(l.cs.valuesOff || l.savedCopies()) || l.opts.Hook != nil || len(l.tasks) != 1 {
		return
	}
	t := l.tasks[0]
	if n := t.node; n == nil || n.cache != nil || n.timeout != nil || cap(t.writes) <= len(t.writeBuf) {
		return // its own buffer, if it used it, goes with it
	}
	clear(t.writes) // keeps no values
	l.cs.spareWrites = t.writes[:0]
}

func (l *loop) fail(err error) error {
	l.err = err
	l.finish(StatusFailed)
	return l.err // err, with what finish adds to a cancellation
}

// adoptSaveError makes err, a save made as the run ends that failed (its
// last task's held writes, a DurabilityExit run's checkpoint), part of the
// run's error, and reports whether it did. A run with no error fails with
// it. A cancelled run still saves (RunContext); when that failed (a store
// that gave up on a server that stopped answering says what may or may
// not be saved), the run says so beside its cancellation, rather than
// losing it without a word. A run that failed by itself keeps its own
// error, which the save's would only hide.
func (l *loop) adoptSaveError(err error) bool {
	switch {
	case l.err == nil:
		l.err = err
	case errors.Is(l.err, context.Canceled) || errors.Is(l.err, context.DeadlineExceeded):
		l.err = fmt.Errorf("%w; %w", l.err, err)
	default:
		return false
	}
	return true
}

func (l *loop) finish(s Status) {
	l.mu.Lock()
	cancel := l.lone.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel(nil) // the lone tasks' context, which its parent holds till then
	}
	if err := l.releaseHeld(); err != nil && l.adoptSaveError(err) && s != StatusFailed {
		s = StatusFailed
	}
	if len(l.reservedVisits) > 0 {
		// A first visit its superstep's task did not take is not kept
		// from the runs that follow this one.
		l.runReplay().release(l.reservedVisits)
		l.reservedVisits = nil
	}
	l.status = s
	if s == StatusDone || s == StatusInterrupted {
		if cs := l.cs; l.invoked && !cs.view.lent.Load() {
			// Nobody else holds the map, and nothing of the run reads it
			// any more: the result takes it, uncopied. Lent, in case.
			l.values = cs.state
			cs.view.lend()
		} else {
			l.values = l.cs.stateValues()
		}
	}
}

// update is the Update phase (LangGraph's after_tick): apply the superstep's
// writes, write the loop checkpoint, and stop at interrupt_after breakpoints.
func (l *loop) update(ctx context.Context) error {
	updated, err := applyWrites(l.cs, l.tasks)
	if err != nil {
		return l.fail(err)
	}
	if sc := l.cs.sc(); len(sc.unknown) > 0 && l.emit != nil {
		l.emitUnknownNodes(sc.unknown)
	}
	l.emitMisspeltKeys()
	if err := l.checkStateSize(); err != nil {
		return l.fail(err)
	}
	l.keepWrites()
	l.hint = l.cs.hint(updated)
	// The superstep's writes are applied: they belong to the checkpoint
	// before this one, and the next superstep plans without them
	// (LangGraph.js pregel/loop.ts:1014 clears checkpointPendingWrites
	// only here, before the loop checkpoint; the input and fork
	// checkpoints _first puts keep the loaded writes, so a plain resume
	// value among them answers the first superstep's first interrupt).
	l.mu.Lock()
	l.pending.reset()
	l.mu.Unlock()
	source := SourceLoop
	if len(l.edits) > 0 {
		// Writes a person edited are not the run's own: the checkpoint
		// says so, and replay treats it like any update_state.
		source = SourceUpdate
	}
	if err := l.putCheckpoint(ctx, source); err != nil {
		return l.fail(err)
	}
	l.edits, l.editedBy = nil, ""
	if l.emit != nil && l.g.wroteOutput(l.tasks) {
		l.emitValues() // only when an output channel was written (LangGraph.js io.ts mapOutputValues)
	}
	l.phase = PhaseCheckpoint
	l.resuming = false
	if shouldInterrupt(l.cs, l.after, l.tasks) {
		l.interrupts = nil
		l.finish(StatusInterrupted)
		l.emitBreakpoint()
	}
	return nil
}

// isResumeMap reports whether every key of m looks like an interrupt id.
func isResumeMap(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k := range m {
		if len(k) != 36 || k[8] != '-' || k[13] != '-' || k[18] != '-' || k[23] != '-' {
			return false
		}
	}
	return true
}

// heldResult is a finished task whose writes went to the saver deferred
// (WriteDeferrer) and whose result is reported once they are on disk.
type heldResult struct {
	t    *task
	res  *TaskResult
	wait func() error
}

// deferLast reports whether task t, finishing now with its writes to save,
// may hand them to the saver deferred: it is the superstep's last task to
// finish, no Task call ran beside it, and Update (with its checkpoint Put)
// follows at once. It counts t finished, so it is called exactly once per
// task of the superstep, whatever the task's outcome.
func (l *loop) deferLast(t *task) (WriteDeferrer, bool) {
	if l.deferrer == nil || t.node.call {
		return nil, false // no count kept: nothing could defer
	}
	last := l.unfinished.Add(-1) == 0
	return l.deferrer, last && l.updateFollows && !l.stepCalls.Load()
}

// releaseHeld waits for the held task's writes to be on disk and reports
// its result; the error is the saver's when they could not be saved.
func (l *loop) releaseHeld() error {
	h := l.held
	if h == nil {
		return nil
	}
	l.held = nil
	if err := h.wait(); err != nil {
		return fmt.Errorf("saving the writes of %s at step %d: %w", h.t.name, l.step, err)
	}
	l.emitResult(h.t, h.res)
	return nil
}

// noteMisspeltKeys keeps, for EventUnknownKey, the keys of t's update
// pairs that stateWrites dropped as no state key of the graph and that are
// close to one: a typo loses the write without a word otherwise (LangGraph
// keeps only the graph's keys of an update: 1.7.3 dist graph/state.js:625).
// Keys close to none (a subgraph's own keys in the state it returns) are
// dropped as quietly as LangGraph drops them. Called only when some pair
// was dropped.
func (l *loop) noteMisspeltKeys(t *task, pairs Update) {
	if l.emit == nil {
		return
	}
	var keys, stateKeys []string
	for _, kv := range pairs {
		if l.g.IsStateKey(kv.Key) || slices.Contains(keys, kv.Key) {
			continue
		}
		if stateKeys == nil {
			stateKeys = l.g.StateKeys()
		}
		if MeantName(stateKeys, kv.Key) != "" {
			keys = append(keys, kv.Key)
		}
	}
	if len(keys) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.misspelt == nil {
		l.misspelt = map[*task][]string{}
	}
	l.misspelt[t] = keys
}

// emitMisspeltKeys says, one event a task in the superstep's order, which
// update keys its tasks wrote that are no state key but close to one
// (noteMisspeltKeys), and forgets them.
func (l *loop) emitMisspeltKeys() {
	if l.emit == nil {
		return // noteMisspeltKeys notes nothing then: no lock a superstep
	}
	l.mu.Lock()
	misspelt := l.misspelt
	l.misspelt = nil
	l.mu.Unlock()
	if len(misspelt) == 0 {
		return
	}
	keys := l.g.StateKeys()
	for _, t := range l.tasks {
		names, ok := misspelt[t]
		if !ok {
			continue
		}
		meant := make([]string, len(names))
		for i, k := range names {
			meant[i] = MeantName(keys, k)
		}
		l.emit(Event{Kind: EventUnknownKey, Step: l.step, Node: t.name, TaskID: t.id(), TaskNS: t.namespace(), Unknown: names, Meant: meant})
	}
}

// emitUnknownNodes says, one event a task, which routes of the superstep
// applied last named a node the graph does not have (EventUnknownNode).
func (l *loop) emitUnknownNodes(unknown []unknownDest) {
	for i := 0; i < len(unknown); {
		t := unknown[i].t
		var names, meant []string
		for ; i < len(unknown) && unknown[i].t == t; i++ {
			names = append(names, unknown[i].node)
			meant = append(meant, MeantName(l.g.userNodes(), unknown[i].node))
		}
		l.emit(Event{Kind: EventUnknownNode, Step: l.step, Node: t.name, TaskID: t.id(), TaskNS: t.namespace(), Unknown: names, Meant: meant})
	}
}
