package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Stepper drives one run a phase at a time: Plan, Execute, Update. It is the
// debugger's primitive; Invoke and Stream loop over it. A Stepper is not safe
// for concurrent use: one goroutine calls Next and View.
type Stepper struct {
	l *loop
	// viewed says the run may be viewed at any phase (by the Stepper's
	// caller or a hook): a task's input (the state map, lent to the task)
	// must then stay as the task read it, after the update too.
	viewed bool
}

// Start begins a run and stops right after its input is handled: at the
// input checkpoint of new input, or at the checkpoint a resume or replay
// starts from. input is a map of state keys (new input), nil (continue), or
// a Command (resume, update, goto).
func (g *Graph) Start(ctx context.Context, input any, opts ...RunOption) (*Stepper, error) {
	return g.start(ctx, input, true, opts)
}

// start is Start for a caller that views the run only through its hook
// (viewed false: Invoke).
func (g *Graph) start(ctx context.Context, input any, viewed bool, opts []RunOption) (*Stepper, error) {
	o := buildRunOptions(opts)
	if o.badLimit {
		return nil, fmt.Errorf("%w (WithRecursionLimit(%d))", ErrBadRecursionLimit, o.givenLimit)
	}
	if o.Thread == "" {
		if g.saver != nil {
			if g.name == "" {
				return nil, ErrNoThread
			}
			return nil, fmt.Errorf("graph %q: %w", g.name, ErrNoThread)
		}
		o.Thread = "default"
	}
	l, err := newLoop(ctx, g, input, o)
	if err != nil {
		return nil, err
	}
	s := &Stepper{l: l, viewed: viewed || o.Hook != nil}
	if err := s.callHook(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Next advances the run by one phase. It returns the run's error when the
// phase failed it, and ErrRunFinished when the run had already ended.
func (s *Stepper) Next(ctx context.Context) error {
	l := s.l
	if l.status != StatusRunning {
		return ErrRunFinished
	}
	if err := ctx.Err(); err != nil {
		l.fail(err)
		return s.ended(ctx)
	}
	var err error
	switch l.phase {
	case PhaseCheckpoint:
		err = l.plan(ctx)
		if s.viewed {
			for _, t := range l.tasks {
				l.cs.view.lentIn(t.input) // View shows it after the update
			}
		}
	case PhasePlanned:
		err = l.execute(ctx)
	case PhaseExecuted:
		err = l.update(ctx)
	}
	if l.status != StatusRunning {
		if xerr := l.saveAtExit(ctx); xerr != nil && (err == nil || errors.Is(xerr, err)) {
			err = xerr // the save's failure, alone or beside the cancellation
		}
	}
	if err != nil {
		if l.opts.parent != nil && l.opts.StepSubgraphs && l.opts.Hook != nil {
			// A subgraph run's caller is its parent task, not the one
			// stepping it: the hook sees how it ended (WithSubgraphSteps),
			// and its own error cannot change that.
			_ = l.opts.Hook(ctx, s.View())
		}
		return err
	}
	return s.callHook(ctx)
}

// ended finishes a run that failed outside a phase: a DurabilityExit run
// writes its checkpoint (saveAtExit), and it returns the run's error.
func (s *Stepper) ended(ctx context.Context) error {
	s.l.saveAtExit(ctx) // the run's error stands; a save error is its own only if none
	return s.l.err
}

// Metadata keys of a checkpoint whose superstep applied edited writes
// (Stepper.EditWrites): the tasks, by name and comma-separated, and who
// edited them.
const (
	MetaEditedWrites = "edited_writes"
	MetaEditedBy     = "edited_by"
)

// MetaSubgraph is the metadata key that names the declared subgraph
// (UsesSubgraph) whose run wrote a checkpoint: a namespace says which run of
// a task it holds, this says which of the node's subgraphs it was.
const MetaSubgraph = "subgraph"

// EditWrites replaces the writes of task taskID while the run is paused
// after Execute and before Update — a tool returned the wrong thing;
// change it and see what the graph does with it. The Update that follows
// applies writes instead of what the task wrote, and its checkpoint is
// recorded with source "update" and metadata naming the edited tasks and
// by, so it is never taken for the run's own (replay treats it like an
// update_state). What the task really wrote stays saved against the
// checkpoint it ran from. writes is the task's whole new list (routing
// writes included); the caller keeps ownership.
//
// Errors: ErrNotExecuted when the run is not paused after Execute; an
// error wrapping ErrNoTask for a task id not in this superstep or a task
// that did not finish; an *InvalidUpdateError naming an unknown channel.
func (s *Stepper) EditWrites(taskID string, writes []Write, by string) error {
	l := s.l
	if l.status != StatusRunning || l.phase != PhaseExecuted {
		return ErrNotExecuted
	}
	var t *task
	for _, x := range l.tasks {
		if x.id() == taskID {
			t = x
		}
	}
	if t == nil {
		return fmt.Errorf("%w: no task %s in step %d", ErrNoTask, taskID, l.step)
	}
	r := &t.result
	if r.Err != nil || r.Interrupts != nil || !r.Done {
		return fmt.Errorf("%w: %s did not finish in step %d, so it has no writes to edit", ErrNoTask, t.name, l.step)
	}
	if err := l.g.CheckWrites(writes); err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	ws := slices.Clone(writes)
	l.mu.Lock()
	t.writes, r.Writes = ws, ws
	l.mu.Unlock()
	if !slices.Contains(l.edits, t.name) {
		l.edits = append(l.edits, t.name)
	}
	l.editedBy = by
	return nil
}

// CheckWrites says why writes cannot stand for a task's writes
// (Stepper.EditWrites), naming the write by its position: a channel the
// graph does not have or a reserved one, or a write to the tasks channel
// that is not a Send to one of the graph's nodes — the engine drops any
// other packet there without a word, as LangGraph does
// (_algo.py:970-978: a packet that is not a Send, or names no node, is
// skipped with a warning), so a fan-out would vanish. The error is an
// *InvalidUpdateError.
func (g *Graph) CheckWrites(writes []Write) error {
	for i, w := range writes {
		if _, ok := g.channelSpec[w.Channel]; !ok || reservedWrite(w.Channel) {
			return &InvalidUpdateError{Channel: w.Channel, Msg: fmt.Sprintf("write %d: the graph has no such channel", i+1)}
		}
		if w.Channel != TasksChannel {
			continue
		}
		snd, ok := w.Value.(Send)
		if !ok {
			return &InvalidUpdateError{Channel: w.Channel, Msg: fmt.Sprintf(`write %d is not a Send (%T): the tasks channel takes {"$send": {"node": …, "arg": …}}`, i+1, w.Value)}
		}
		if g.nodes[snd.Node] == nil {
			return &InvalidUpdateError{Channel: w.Channel, Msg: fmt.Sprintf("write %d sends to %q, which is not a node of the graph (%s)", i+1, snd.Node, strings.Join(g.NodeNames(), ", "))}
		}
	}
	return nil
}

// Superstep advances until the current superstep is written (or the run
// ends): from any phase to the next checkpoint.
func (s *Stepper) Superstep(ctx context.Context) error {
	s.l.updateFollows = s.l.opts.Hook == nil
	defer func() { s.l.updateFollows = false }()
	for {
		if err := s.Next(ctx); err != nil {
			return err
		}
		if s.l.status != StatusRunning || s.l.phase == PhaseCheckpoint {
			return nil
		}
	}
}

// Run advances until the run ends and returns its result.
func (s *Stepper) Run(ctx context.Context) (*Result, error) {
	// With no hook to pause between phases, Update follows Execute at
	// once: the last task's writes may share the checkpoint's commit.
	s.l.updateFollows = s.l.opts.Hook == nil
	defer func() { s.l.updateFollows = false }()
	for s.l.status == StatusRunning {
		if err := s.Next(ctx); err != nil {
			return s.Result(), err
		}
	}
	return s.Result(), s.l.err
}

func (s *Stepper) callHook(ctx context.Context) error {
	if s.l.opts.Hook == nil {
		return nil
	}
	if err := s.l.opts.Hook(ctx, s.View()); err != nil {
		if s.l.status == StatusRunning {
			s.l.fail(err)
		}
		if xerr := s.l.saveAtExit(ctx); xerr != nil && errors.Is(xerr, err) {
			return xerr // beside the cancellation that stopped the hook
		}
		return err
	}
	return nil
}

// Close ends a run its caller stops advancing before it ended: the caller
// quits, or goes on from another thread or checkpoint. A DurabilityExit
// run then writes what it writes at any end — the checkpoint it is at
// and the pending writes of the tasks it finished, so a run closed after
// Execute keeps its tasks' work for a resume — as LangGraph saves an exit
// run whose stream its caller abandons (_loop.py:1317-1335
// _suppress_interrupt runs on every exit of the loop's context, the
// abandoned generator's too). Other durabilities saved every checkpoint
// already. The run ends failed with ErrRunClosed, or with the save's
// error, which Close returns; Close of a run that had ended does
// nothing. Like Next, Close must not be called while a phase runs.
func (s *Stepper) Close(ctx context.Context) error {
	l := s.l
	if l.status != StatusRunning {
		return nil
	}
	if err := l.saveAtExit(ctx); err != nil {
		return err // saveAtExit failed the run with it
	}
	l.fail(ErrRunClosed)
	return nil
}

// Status reports where the run stands.
func (s *Stepper) Status() Status { return s.l.status }

// Phase reports the last completed phase.
func (s *Stepper) Phase() Phase { return s.l.phase }

// Err returns the error that ended the run, if any.
func (s *Stepper) Err() error { return s.l.err }

// Result is the outcome of a run.
type Result struct {
	Status Status // how the run ended (or StatusRunning for a Stepper mid-run)
	// Values is the final state; for an interrupted run, the state with the
	// finished tasks' writes applied (they are not checkpointed yet). The
	// map is the caller's: the run keeps no reference to it. The lists and
	// maps in it are shared with the run's checkpoints (a MemorySaver's):
	// change a copy of one, not the value itself.
	Values map[string]any
	// Output is an entrypoint's output, the value on its __end__ channel
	// (nil for a StateGraph, whose output is Values).
	Output any
	// Interrupts waiting for answers (empty for a static breakpoint).
	Interrupts []PendingInterrupt
	// HeldCalls are the Task calls a breakpoint kept from running in the
	// last superstep (StepView.HeldCalls): an interrupted run with no
	// Interrupts stopped because of them, before applying its writes,
	// when there are any, else at a static breakpoint.
	HeldCalls []HeldCall
	// Checkpoint addresses the run's latest checkpoint.
	Checkpoint Config
	Err        error // the error that ended the run, if any
	// keyed are Values by key position, as Invoke's run left them
	// (ValuesByKey); nil when the run did not keep them.
	keyed []any
}

// Result returns the run's outcome so far.
func (s *Stepper) Result() *Result {
	l := s.l
	vals := l.values
	switch {
	case vals == nil:
		vals = l.cs.stateValues()
	case !l.invoked:
		// Each call's Values is its caller's to change: a Stepper's
		// result may be asked for again (Invoke asks once and hands its
		// map over).
		vals = maps.Clone(vals)
	}
	res := &Result{
		Status:     l.status,
		Values:     vals,
		Output:     l.cs.output(),
		Interrupts: slices.Clone(l.interrupts),
		HeldCalls:  slices.Clone(l.heldCalls),
		Checkpoint: Config{ThreadID: l.cfg.ThreadID, CheckpointNS: l.cfg.CheckpointNS, CheckpointID: l.cpID},
		Err:        l.err,
	}
	if l.invoked {
		res.keyed = l.cs.keyed // an ended Invoke: nothing changes them (statekeys.go)
	}
	return res
}

// TaskState is a task's state in the step view.
type TaskState int

// Task states.
const (
	TaskPlanned TaskState = iota
	TaskDone
	TaskInterrupted
	TaskFailed
	TaskReused
	// TaskCached: the task took its writes from the node cache.
	TaskCached
)

// String returns the state in lower case ("interrupted").
func (t TaskState) String() string {
	return [...]string{"planned", "done", "interrupted", "failed", "reused", "cached"}[t]
}

// TaskView is one task of the current superstep as the debugger shows it.
type TaskView struct {
	ID   string // the task id
	Name string // its node
	Push bool   // started by a Send, or a Task call (see Call)
	// Call marks the task of a Task call made by another task's node
	// (functional API): its result is its __return__ write, and a
	// resumed superstep reuses it instead of calling again.
	Call     bool
	Triggers []string  // the channels that triggered it (PULL tasks)
	Input    any       // the state it reads, or its Send's argument
	State    TaskState // planned, done, interrupted, failed or reused
	// Writes are the task's pending writes, before any reducer runs.
	Writes     []Write
	Interrupts []Interruption // the interrupts it raised
	Err        error          // its failure
	Attempts   int            // how many times it ran
	// Retried are the failures of the attempts before the last, in
	// order: why the retry policy ran it again. Kept in memory for the
	// run's caller only; LangGraph saves no failed attempt either.
	Retried []error
}

// ChannelView is one channel as the debugger shows it.
type ChannelView struct {
	Name      string  // the channel's name
	Kind      string  // as ChannelInfo.Kind
	Reducer   string  // a reducer key's ReducerName
	Internal  bool    // not a state key
	Version   Version // its channel_versions entry, if HasVer
	HasVer    bool    // the channel has a version
	Available bool    // the live channel holds a value now
	Value     any     // the live value, else the checkpointed one
	HasValue  bool    // Value is meaningful (live or checkpointed)
	// Updated marks channels the last Update changed.
	Updated bool
}

// StepView is everything the engine sees between two phases. It is a copy:
// the caller owns it and it does not change as the run advances.
type StepView struct {
	Thread    string // the thread being run
	Namespace string // "" at the root, a subgraph's checkpoint namespace
	Step      int    // the superstep being planned/executed, or the next one
	Phase     Phase  // the phase that completed last
	// CheckpointStep is the step of the current checkpoint (-1 for a new
	// thread's input checkpoint).
	CheckpointStep int
	Status         Status        // running, done, interrupted or failed
	CheckpointID   string        // the current checkpoint
	ParentID       string        // its parent, "" for the first
	Source         string        // how the current checkpoint came to be
	Tasks          []TaskView    // the superstep's tasks, once planned
	Channels       []ChannelView // every channel, state keys first
	// Versions and VersionsSeen are channel_versions and versions_seen.
	Versions     map[string]Version            // channel → version
	VersionsSeen map[string]map[string]Version // node → channel → version seen
	// UpdatedChannels is the planning hint; HintKnown is false after a
	// reload or update_state, when planning scans every node.
	UpdatedChannels []string
	HintKnown       bool // UpdatedChannels is known
	// Interrupts are the interrupts the run stopped at, or, at a checkpoint
	// of a resumed thread, the ones saved and still waiting for an answer.
	Interrupts []PendingInterrupt
	// HeldCalls are the Task calls a breakpoint kept from running in the
	// superstep just executed: each returned nil to its caller, and the
	// run stopped before applying the superstep's writes, which continuing
	// applies.
	HeldCalls []HeldCall
	// SavedAnswer is the plain resume value a Command saved against the
	// current checkpoint that no task has taken yet (a resume answered
	// and not yet run, or a run stopped before the task that asked ran
	// again): the next superstep's waiting task takes it.
	SavedAnswer    any
	HasSavedAnswer bool // SavedAnswer holds one (it may be nil itself)
	// Answers are the answers by interrupt id (a Command's ResumeMap)
	// that this run holds for interrupts of Interrupts, still waiting:
	// the next superstep's task that asked takes its answer, and an
	// interrupt with none goes on waiting. LangGraph keeps a resume map
	// in the run's config, not in the checkpoint (LangGraph.js 1.7.3
	// dist pregel/algo.js:762-772, _scratchpad's resumeMap), so a run
	// started anew holds none.
	Answers ResumeMap
	Err     error // the error that ended the run, if any
	// Waiting lists the deferred nodes (WithDefer) that were triggered and
	// wait for the run to run out of other work, sorted.
	Waiting []string
	// RecursionLeft is how many more supersteps this run may start.
	RecursionLeft int
	Values        map[string]any // the state keys that have a value
	// Unsaved: the current checkpoint is in memory only, as every one
	// of a DurabilityExit run is until the run ends and saves it.
	Unsaved bool
}

// View returns a copy of the run's state now.
func (s *Stepper) View() *StepView {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	v := &StepView{
		Thread:          l.cfg.ThreadID,
		Namespace:       l.cfg.CheckpointNS,
		Step:            l.step,
		CheckpointStep:  l.md.Step,
		Phase:           l.phase,
		Status:          l.status,
		CheckpointID:    l.cpID,
		ParentID:        l.parentID,
		Source:          l.md.Source,
		Versions:        l.cs.versionMap(),
		VersionsSeen:    map[string]map[string]Version{},
		UpdatedChannels: slices.Clone(l.hint.channels),
		Unsaved:         l.exit != nil && !l.exit.done && l.cpID != l.exit.savedID,
		HintKnown:       l.hint.known,
		Interrupts:      slices.Clone(l.interrupts),
		HeldCalls:       slices.Clone(l.heldCalls),
		Err:             l.err,
		RecursionLeft:   l.recursionLeft(),
		Values:          l.cs.stateValues(),
	}
	for k, m := range l.cs.seenMap() {
		v.VersionsSeen[k] = maps.Clone(m)
	}
	v.Waiting = l.cs.waitingNodes()
	if len(v.Interrupts) == 0 && l.phase == PhaseCheckpoint {
		v.Interrupts = l.savedInterrupts()
	}
	for _, in := range v.Interrupts {
		if a, ok := l.resumeMap[in.ID]; ok {
			if v.Answers == nil {
				v.Answers = ResumeMap{}
			}
			l.cs.view.lentIn(a) // the caller may keep it
			v.Answers[in.ID] = a
		}
	}
	for _, w := range l.pending.null {
		if w.Channel == ResumeChannel {
			l.cs.view.lentIn(w.Value) // the caller may keep it
			v.SavedAnswer, v.HasSavedAnswer = w.Value, true
		}
	}
	// At a checkpoint the tasks are those of the superstep that wrote it
	// (none right after Start).
	{
		for _, t := range sortTasks(l.tasks) {
			r := &t.result
			l.cs.view.lentIn(t.input) // the caller may keep it
			tv := TaskView{ID: t.id(), Name: t.name, Push: t.kind == pushTask, Call: t.node.call, Triggers: slices.Clone(t.triggers), Input: t.input}
			if r != nil {
				tv.Writes, tv.Interrupts, tv.Err, tv.Attempts = slices.Clone(r.Writes), r.Interrupts, r.Err, r.Attempts
				tv.Retried = slices.Clone(l.retried[t])
				switch {
				case r.Cached:
					tv.State = TaskCached
				case r.Reused:
					tv.State = TaskReused
				case r.Err != nil:
					tv.State = TaskFailed
				case r.Interrupted:
					tv.State = TaskInterrupted
				case r.Done:
					tv.State = TaskDone
				}
			}
			v.Tasks = append(v.Tasks, tv)
		}
	}
	updated := map[string]bool{}
	for _, c := range l.hint.channels {
		updated[c] = true
	}
	for _, name := range l.g.channelOrder {
		info := l.g.channelSpec[name]
		ch := l.cs.channel(name)
		val, avail := ch.get()
		snap, has := ch.snapshot()
		if !avail {
			val = snap
		}
		ver, hasVer := l.cs.versionOf(name)
		cv := ChannelView{Name: name, Kind: info.kind, Internal: info.internal, Version: ver, HasVer: hasVer, Available: avail, Value: val, HasValue: has || avail, Updated: updated[name]}
		if info.key != nil {
			cv.Reducer = info.key.ReducerName
		}
		v.Channels = append(v.Channels, cv)
	}
	return v
}

// Next lists the node names of the planned tasks, sorted (duplicates kept).
func (v *StepView) Next() []string {
	out := make([]string, 0, len(v.Tasks))
	for _, t := range v.Tasks {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}
