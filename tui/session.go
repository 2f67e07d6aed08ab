package tui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
)

// session is everything the model asks of the engine. It is stateful (it
// owns the live Stepper) and not safe for concurrent use: the model hands
// it to exactly one Cmd at a time and gets it back in that Cmd's message.
//
// Views returned are copies the caller owns.
type session interface {
	// Info describes the graph.
	Info() engine.GraphInfo
	// Open shows thread at its latest checkpoint without running anything.
	// It returns an error wrapping engine.ErrNoCheckpoint for a new thread,
	// or the caller's refusal (Options.CheckThread) for another graph's.
	Open(ctx context.Context, thread string) (*engine.StepView, error)
	// Start begins a run on thread with new input, paused after the input
	// checkpoint.
	Start(ctx context.Context, thread string, input map[string]any) (*engine.StepView, error)
	// Preview shows a new thread as Start would, writing nothing: the
	// view of the input checkpoint, which is not written yet (its
	// CheckpointID is empty). The first Next or Superstep writes it and
	// goes on from it; opening another thread forgets it.
	Preview(ctx context.Context, thread string, input map[string]any) (*engine.StepView, error)
	// Next advances one phase, first continuing the thread from its latest
	// checkpoint if no run is live (after Open, a breakpoint or an answer).
	Next(ctx context.Context) (*engine.StepView, error)
	// Superstep advances to the next checkpoint (or the end of the run).
	Superstep(ctx context.Context) (*engine.StepView, error)
	// View is the live run's view, or the last one shown.
	View() *engine.StepView
	// Resume answers the pending interrupts (a value or an engine.ResumeMap)
	// and pauses where the resumed run starts. update, when not empty, is
	// written with the answers to the root's state keys (LangGraph's
	// Command(resume=..., update=...)) before the answered nodes run again.
	Resume(ctx context.Context, answer any, update map[string]any) (*engine.StepView, error)
	// Checkout makes checkpoint id current (time travel) and writes
	// nothing: the next step goes on from there, and only then does the
	// engine write a fork checkpoint when id is not the head.
	Checkout(ctx context.Context, id string) (*engine.StepView, error)
	// History lists the heads of the thread's checkpoints, newest first:
	// the tree draws them, and plans only the rows it shows.
	History(ctx context.Context) ([]engine.CheckpointHead, error)
	// UpdateState writes values at checkpoint id as node asNode ("" lets the
	// engine infer it) and makes the written checkpoint current.
	UpdateState(ctx context.Context, id string, values map[string]any, asNode string) (*engine.StepView, error)
	// Threads lists the database's threads.
	Threads(ctx context.Context) ([]ThreadSummary, error)
	// Pending lists, after a step that stopped at an interrupt, the
	// channels whose value the finished tasks changed but no checkpoint
	// holds yet (their live view, by name); the step's view shows the
	// checkpoint's channels. Nil otherwise.
	Pending() map[string]engine.ChannelView
	// InterruptPaths names where each of v's interrupts was raised,
	// through the subgraphs it came from ("mid › deep › b1"), by
	// interrupt id; each run and task is named as stepping names it
	// (runLabel: "worker[2] › check" when v's step ran worker twice,
	// "child run 2 › ask" when the second run of child's subgraph in its
	// task asked). An interrupt of a plain node is named by its node.
	InterruptPaths(ctx context.Context, v *engine.StepView) map[string]string
	// AnsweredFailures names the nodes of v's failed tasks that failed
	// after their Interrupt calls were answered, from the writes saved at
	// v's checkpoint (engine.SnapshotTask.Answered): stepping again replays
	// those answers, so they cannot be answered again there. Nil when none
	// did or the saved writes cannot be read.
	AnsweredFailures(ctx context.Context, v *engine.StepView) []string
	// SavedAnswers are the answers v's tasks saved at its checkpoint (the
	// __resume__ writes: what each task's Interrupt calls were answered
	// with, by call position), by task id, once the tasks ran (Execute,
	// an interrupt or a failure). Nil when none did or they cannot
	// be read.
	SavedAnswers(ctx context.Context, v *engine.StepView) map[string][]any
	// Subgraph reads, without running anything, the namespace of the
	// subgraph reached through path from the thread's root graph.
	Subgraph(ctx context.Context, path []subgraphRef) (*subgraphLevel, error)
	// Diff compares checkpoints a and b of the thread (engine.DiffCheckpoints),
	// with the steps they were written at (their metadata's), which name
	// them on screen.
	Diff(ctx context.Context, a, b string) (*engine.CheckpointDiff, [2]int, error)
	// SetRunSettings sets the engine options of the runs started from now
	// on; a run paused at a checkpoint is restarted there, so the next
	// step uses them.
	SetRunSettings(rs runSettings)
	// EditWrites replaces a finished task's writes while the run is paused
	// after Execute (engine.Stepper.EditWrites) and returns the view.
	EditWrites(ctx context.Context, taskID string, writes []engine.Write, by string) (*engine.StepView, error)
	// CheckWrites says why writes cannot replace a task's (the engine's
	// rule, engine.Graph.CheckWrites), before EditWrites is asked.
	CheckWrites(writes []engine.Write) error
	// CheckStateKeys refuses values with keys that are not state keys of
	// the graph (the engine's check, engine.Graph.CheckStateKeys), before
	// UpdateState or Resume is asked: the engine would drop them unseen.
	CheckStateKeys(values map[string]any) error
	// RerunTask runs task taskID, planned from checkpoint cpID, alone
	// against its recorded input with the current code, writing nothing to
	// the thread (engine.Graph.RerunTask).
	RerunTask(ctx context.Context, cpID, taskID string) (*engine.TaskRerun, error)
	// Live is the feed of what running tasks report (nil: none). It is
	// safe to read while a Cmd owns the session.
	Live() *liveFeed
	// InferAsNode names the node an update at checkpoint id is written as
	// when none is chosen (the engine's rule).
	InferAsNode(ctx context.Context, id string) (string, error)
}

// errNoThreadList is returned by Threads when there is no way to list them.
var errNoThreadList = errors.New("this database cannot list its threads")

// engineSession is the session over a compiled graph and its saver.
type engineSession struct {
	g       *engine.Graph
	saver   engine.Saver
	threads func(context.Context) ([]ThreadSummary, error)
	info    engine.GraphInfo

	check   func(context.Context, string) error
	thread  string
	st      *engine.Stepper // nil when no run is live
	last    *engine.StepView
	pending map[string]engine.ChannelView
	feed    *liveFeed
	run     runSettings
	// graphLimit is the graph's own recursion limit (Options.RecursionLimit).
	graphLimit int
	// runtimeContext is the runs' (Options.RuntimeContext), nil if none.
	runtimeContext any
	// from is a checkpoint made current by Checkout and not stepped from
	// yet: the next step starts there (and the engine forks, if it must).
	from string
	// fresh: a replay starts at from (CheckoutFresh), whose superstep must
	// run again whole, so the first step runs from recording.RunFrom.
	fresh bool
	// unstarted is the input of a new thread Preview showed and no step
	// has started yet: the next step writes its input checkpoint.
	unstarted map[string]any
	// replayOf is the recorded checkpoint a replay (R, CheckoutFresh)
	// started from: the runs stepped from there tag their checkpoints as
	// a replay's (recording.ReplayMetadata), as superstep replay does.
	replayOf string
	// into holds the runs' subgraph runs for the person to step (nil
	// when the graph runs no subgraphs).
	into *subStepGate
	// changedLast is the last checkpoint's changed channels (changed.go).
	changedLast changedCache
}

var _ session = (*engineSession)(nil)

func newEngineSession(g *engine.Graph, opts Options) *engineSession {
	s := &engineSession{g: g, saver: opts.Saver, threads: opts.Threads, check: opts.CheckThread, info: g.Describe(), feed: newLiveFeed(time.Now), graphLimit: opts.RecursionLimit, runtimeContext: opts.RuntimeContext}
	if slices.ContainsFunc(s.info.Nodes, func(n engine.NodeInfo) bool { return n.Subgraph }) {
		s.into = newSubStepGate(describeSubgraph(g))
	}
	return s
}

// SubgraphSteps is the gate the session's runs hold subgraph runs at.
func (s *engineSession) SubgraphSteps() *subStepGate { return s.into }

func (s *engineSession) Info() engine.GraphInfo { return s.info }

func (s *engineSession) Live() *liveFeed { return s.feed }

// runOpts are the options of every run the session starts: on the open
// thread, from a checkpoint if one was made current, reporting to the
// live feed.
func (s *engineSession) runOpts(thread, from string) []engine.RunOption {
	// WithSubgraphs: what a subgraph's tasks emit shows under the task
	// running the subgraph.
	opts := []engine.RunOption{engine.OnThread(thread), engine.WithEvents(s.feed.on), engine.WithSubgraphs()}
	if from != "" {
		opts = append(opts, engine.FromCheckpoint(from))
	}
	if len(s.run.before) > 0 {
		opts = append(opts, engine.BreakBefore(s.run.before...))
	}
	if len(s.run.after) > 0 {
		opts = append(opts, engine.BreakAfter(s.run.after...))
	}
	if l := s.recursionLimit(); l > 0 {
		opts = append(opts, engine.WithRecursionLimit(l))
	}
	if s.runtimeContext != nil {
		opts = append(opts, engine.WithRuntimeContext(s.runtimeContext))
	}
	if s.replayOf != "" {
		opts = append(opts, engine.WithMetadata(recording.ReplayMetadata(s.replayOf)))
	}
	if s.into != nil {
		// The hook holds a subgraph run only while the person steps into
		// them; otherwise every view passes through at once.
		opts = append(opts, engine.WithHook(s.into.hook), engine.WithSubgraphSteps())
	}
	return opts
}

// recursionLimit is the runs' recursion limit: the run settings', else the
// graph's own (Options.RecursionLimit); 0 for the engine's default.
func (s *engineSession) recursionLimit() int {
	if s.run.limit > 0 {
		return s.run.limit
	}
	return s.graphLimit
}

func (s *engineSession) SetRunSettings(rs runSettings) {
	if reflect.DeepEqual(rs, s.run) {
		return
	}
	s.run = rs
	if s.st != nil && s.st.Phase() == engine.PhaseCheckpoint {
		// Between supersteps nothing is half done: the next step starts a
		// run from this checkpoint with the new options.
		s.st = nil
		if s.last != nil && s.from == "" {
			s.from = s.last.CheckpointID
		}
	}
}

func (s *engineSession) View() *engine.StepView {
	if s.st != nil {
		return s.st.View()
	}
	return s.last
}

// keep makes v the last view shown, with the channels its checkpoint
// changed marked (markChanged).
func (s *engineSession) keep(ctx context.Context, v *engine.StepView) *engine.StepView {
	s.last = s.markChanged(ctx, v)
	return v
}

func (s *engineSession) Open(ctx context.Context, thread string) (*engine.StepView, error) {
	if s.check != nil && thread != s.thread {
		if err := s.check(ctx, thread); err != nil {
			return nil, err
		}
	}
	snap, err := s.g.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return nil, err
	}
	// Start(nil) at the head writes nothing: it only loads the checkpoint,
	// which gives a view with real channel availability.
	st, err := s.g.Start(ctx, nil, s.runOpts(thread, "")...)
	if err != nil {
		return nil, err
	}
	s.thread, s.from, s.fresh, s.unstarted, s.replayOf = thread, "", false, nil, ""
	v := st.View()
	s.st, s.pending = st, nil
	// The stepper cannot know that the head is waiting for an answer or has
	// nothing left to run; the snapshot's saved-write facts (the engine's)
	// do. A head whose task saved an error still steps: the run retries it.
	switch snap.Status() {
	case engine.CheckpointInterrupted:
		v.Status, v.Interrupts, s.st = engine.StatusInterrupted, snap.Interrupts(), nil
		v.Tasks = savedTasks(snap)
		s.pending = s.savedPending(ctx, v)
	case engine.CheckpointFailed:
		v.Tasks = savedTasks(snap) // the stepper stays: n runs the step again
	case engine.CheckpointPending:
		// Tasks that saved their writes before the superstep was cut off
		// (a killed run, a replay stopped at a difference) ran: the tasks
		// pane says so (cutOffSaid), and stepping reuses their writes.
		if ts := cutOffTasks(snap); ts != nil {
			v.Tasks = ts
		}
	case engine.CheckpointDone:
		v.Status, s.st = engine.StatusDone, nil
	}
	return s.keep(ctx, v), nil
}

// viewStatus is the status a view of snap shows: the engine's checkpoint
// status, where a failed superstep can be stepped again (running).
func viewStatus(snap *engine.StateSnapshot) engine.Status {
	switch snap.Status() {
	case engine.CheckpointInterrupted:
		return engine.StatusInterrupted
	case engine.CheckpointDone:
		return engine.StatusDone
	}
	return engine.StatusRunning
}

func (s *engineSession) Start(ctx context.Context, thread string, input map[string]any) (*engine.StepView, error) {
	st, err := s.g.Start(ctx, input, s.runOpts(thread, "")...)
	if err != nil {
		return nil, err
	}
	s.thread, s.st, s.from, s.fresh, s.unstarted, s.replayOf = thread, st, "", false, nil, ""
	return s.keep(ctx, st.View()), nil
}

// Preview runs Start's first phase under DurabilityExit, which keeps the
// input checkpoint in memory until the run ends, and drops that run: a
// thread opened by a mistyped id leaves nothing in the database.
func (s *engineSession) Preview(ctx context.Context, thread string, input map[string]any) (*engine.StepView, error) {
	st, err := s.g.Start(ctx, input, append(s.runOpts(thread, ""), engine.WithDurability(engine.DurabilityExit))...)
	if err != nil {
		return nil, err
	}
	v := st.View()
	v.CheckpointID, v.Unsaved = "", false // no checkpoint has this id, or ever will
	s.thread, s.st, s.from, s.fresh, s.pending, s.unstarted, s.replayOf = thread, nil, "", false, nil, input, ""
	return s.keep(ctx, v), nil
}

func (s *engineSession) live(ctx context.Context) error {
	if s.st != nil && s.st.Status() == engine.StatusRunning {
		return nil
	}
	if s.thread == "" {
		return errors.New("no thread is open")
	}
	if in := s.unstarted; in != nil {
		st, err := s.g.Start(ctx, in, s.runOpts(s.thread, "")...)
		if err != nil {
			return err
		}
		s.st, s.unstarted = st, nil
		return nil
	}
	from, err := s.startPoint(ctx)
	if err != nil {
		return err
	}
	st, err := s.g.Start(ctx, nil, s.runOpts(s.thread, from)...)
	if err != nil {
		return err
	}
	s.st, s.from = st, ""
	return nil
}

// startPoint is the checkpoint the next run starts from: from, or for a
// replay the one recording.RunFrom gives (a copy of from when it is the
// thread's latest checkpoint, which a run would resume instead).
func (s *engineSession) startPoint(ctx context.Context) (string, error) {
	if !s.fresh || s.from == "" {
		return s.from, nil
	}
	from, err := recording.RunFrom(ctx, s.g, s.thread, s.from)
	if err != nil {
		return "", err
	}
	s.from, s.fresh = from, false
	return from, nil
}

func (s *engineSession) Next(ctx context.Context) (*engine.StepView, error) {
	if err := s.live(ctx); err != nil {
		return nil, err
	}
	err := s.st.Next(ctx)
	return s.keep(ctx, s.committed(ctx, s.st.View())), err
}

func (s *engineSession) Superstep(ctx context.Context) (*engine.StepView, error) {
	if err := s.live(ctx); err != nil {
		return nil, err
	}
	err := s.st.Superstep(ctx)
	return s.keep(ctx, s.committed(ctx, s.st.View())), err
}

func (s *engineSession) Pending() map[string]engine.ChannelView { return s.pending }

// savedPending is, for a view stopped at an interrupt, the channels the
// writes saved against its checkpoint change, each as it would be with
// them applied: the engine's PendingChannels, the one rule a live session
// (committed) and a reopened or checked-out thread share, so both show
// the same "pending →".
func (s *engineSession) savedPending(ctx context.Context, v *engine.StepView) map[string]engine.ChannelView {
	t, err := s.saver.GetTuple(ctx, engine.Config{ThreadID: v.Thread, CheckpointNS: v.Namespace, CheckpointID: v.CheckpointID})
	if err != nil || t == nil {
		return nil
	}
	changed, err := s.g.PendingChannels(t)
	if err != nil || len(changed) == 0 {
		return nil // the channels as saved are still true
	}
	byName := make(map[string]engine.PendingChannel, len(changed))
	for _, p := range changed {
		byName[p.Name] = p
	}
	out := map[string]engine.ChannelView{}
	for _, c := range v.Channels {
		p, ok := byName[c.Name]
		if !ok {
			continue
		}
		c.Value, c.HasValue, c.Available = p.Value, p.Available, p.Available
		c.Version, c.HasVer = p.Version, true
		out[c.Name] = c
	}
	return out
}

// committed makes a view stopped at an interrupt show the channels as its
// checkpoint holds them, as the tree and superstep show do: the writes of
// the tasks that finished are saved against the checkpoint, not applied,
// so they are kept aside as pending (savedPending).
func (s *engineSession) committed(ctx context.Context, v *engine.StepView) *engine.StepView {
	s.pending = nil
	if v.Status != engine.StatusInterrupted || v.Phase == engine.PhaseCheckpoint || v.CheckpointID == "" {
		return v
	}
	snap, err := s.g.GetState(ctx, engine.Config{ThreadID: v.Thread, CheckpointNS: v.Namespace, CheckpointID: v.CheckpointID})
	if err != nil {
		return v // the live view is still true to the run
	}
	cv := viewFromSnapshot(s.info, snap, s.changedOf(ctx, snap))
	byName := make(map[string]engine.ChannelView, len(cv.Channels))
	for _, c := range cv.Channels {
		byName[c.Name] = c
	}
	for i, live := range v.Channels {
		if c, ok := byName[live.Name]; ok {
			v.Channels[i] = c
		}
	}
	v.Versions, v.Values = cv.Versions, cv.Values
	s.pending = s.savedPending(ctx, v)
	return v
}

func (s *engineSession) Resume(ctx context.Context, answer any, update map[string]any) (*engine.StepView, error) {
	from, err := s.startPoint(ctx)
	if err != nil {
		return nil, err
	}
	if from == "" {
		if err := s.headStill(ctx); err != nil {
			return nil, err
		}
	}
	cmd := engine.Command{Resume: answer}
	if len(update) > 0 {
		cmd.Update = update
	}
	st, err := s.g.Start(ctx, cmd, s.runOpts(s.thread, from)...)
	if err != nil {
		return nil, err
	}
	s.st, s.from = st, ""
	return s.keep(ctx, st.View()), nil
}

// headStill checks that the thread's latest checkpoint is still the one
// the screen shows: a run addressed at no checkpoint resumes whatever the
// head is now, and another process (PostgreSQL has many writers) may
// have answered the question and run on meanwhile, so the answer would
// go, unseen, to a checkpoint the screen never showed.
func (s *engineSession) headStill(ctx context.Context) error {
	if s.last == nil || s.last.CheckpointID == "" {
		return nil
	}
	snap, err := s.g.GetState(ctx, engine.Config{ThreadID: s.thread})
	if err != nil {
		return err
	}
	if now := snap.Config.CheckpointID; now != "" && now != s.last.CheckpointID {
		return &ThreadMovedError{Thread: s.thread, Shown: s.last.CheckpointID, Now: now, Step: snap.Metadata.Step}
	}
	return nil
}

func (s *engineSession) Checkout(ctx context.Context, id string) (*engine.StepView, error) {
	snap, err := s.g.GetState(ctx, engine.Config{ThreadID: s.thread, CheckpointID: id})
	if err != nil {
		return nil, err
	}
	// Nothing is written yet: the fork, if any, is the engine's to write
	// when stepping starts from here (live).
	s.st, s.from, s.fresh, s.pending, s.replayOf = nil, id, false, nil, ""
	v := viewFromSnapshot(s.info, snap, s.changedOf(ctx, snap))
	v.Status = viewStatus(snap)
	v.Interrupts = snap.Interrupts()
	v.Tasks = checkoutTasks(ctx, s.savedThread(), snap)
	if snap.Status() == engine.CheckpointInterrupted {
		s.pending = s.savedPending(ctx, v)
	}
	return s.keep(ctx, v), nil
}

// CheckoutFresh is Checkout for a replay: the first step runs id's
// superstep again whole, from a copy of id when it is the thread's latest
// checkpoint (startPoint); as Checkout, it writes nothing yet.
func (s *engineSession) CheckoutFresh(ctx context.Context, id string) (*engine.StepView, error) {
	v, err := s.Checkout(ctx, id)
	if err == nil {
		s.fresh, s.replayOf = true, id
	}
	return v, err
}

// freshCheckouter is a session that can start a replay afresh (the engine
// session); others check out as for time travel.
type freshCheckouter interface {
	CheckoutFresh(ctx context.Context, id string) (*engine.StepView, error)
}

// savedTasks are the tasks of the superstep that stopped at snap's
// checkpoint with what each saved there: its interrupts, its error, its
// writes. A view of an interrupted or failed checkpoint lists them as the
// run showed them when it stopped, not the tasks that wrote the checkpoint
// (those belong to the step before).
func savedTasks(snap *engine.StateSnapshot) []engine.TaskView {
	writes := map[string][]engine.Write{}
	for _, w := range snap.PendingWrites {
		if !shownApart(w.Channel) {
			writes[w.TaskID] = append(writes[w.TaskID], engine.Write{Channel: w.Channel, Value: w.Value})
		}
	}
	out := make([]engine.TaskView, 0, len(snap.Tasks))
	for _, t := range snap.Tasks {
		tv := engine.TaskView{ID: t.ID, Name: t.Name, Push: t.Push, Input: t.Input, Interrupts: t.Interrupts, Writes: writes[t.ID], State: engine.TaskPlanned}
		switch {
		case t.Error != "":
			tv.State, tv.Err = engine.TaskFailed, t.Err
		case t.Waiting:
			tv.State = engine.TaskInterrupted
		case t.Finished:
			tv.State = engine.TaskDone
		}
		out = append(out, tv)
	}
	return out
}

// cutOffTasks are the tasks of snap's superstep when some of them saved
// their writes before it was cut off (a killed run, a replay stopped at a
// difference: the checkpoint is pending and a task finished), as
// savedTasks lists them; nil otherwise. At the thread's latest checkpoint
// stepping plans the superstep again and reuses those writes: opening the
// thread and checking out its head both say so from these (cutOffSaid).
// At an older checkpoint a finished task is one of the step that wrote
// the next checkpoint, which is not cut off.
func cutOffTasks(snap *engine.StateSnapshot) []engine.TaskView {
	if snap.Status() != engine.CheckpointPending || !slices.ContainsFunc(snap.Tasks, func(t engine.SnapshotTask) bool { return t.Finished }) {
		return nil
	}
	return savedTasks(snap)
}

// shownApart reports the saved writes a task's row shows in their own
// form (its interrupts and error) or that are the engine's bookkeeping.
func shownApart(channel string) bool {
	switch channel {
	case engine.InterruptChannel, engine.ErrorChannel, engine.ResumeChannel, engine.NoWritesChannel, engine.ScheduledChannel:
		return true
	}
	return false
}

// checkoutTasks are the tasks the view of checkpoint snap lists when it
// is checked out (time travel), whose subgraphs enter opens there and o
// in the tree opens without checking out: the tasks of its own superstep,
// with what each saved, when the run stopped there at an interrupt or a
// failure; else the tasks that wrote it (writers), read from r.
func checkoutTasks(ctx context.Context, r snapshotReader, snap *engine.StateSnapshot) []engine.TaskView {
	if st := snap.Status(); st == engine.CheckpointInterrupted || st == engine.CheckpointFailed {
		return savedTasks(snap)
	}
	return writers(ctx, r, snap)
}

// writers are the tasks of the superstep that wrote a loop checkpoint,
// as a view at a checkpoint lists them after a step: its parent's planned
// tasks (the tree's "by …"), so a subgraph task among them can be entered.
// Unknown (nil) for other checkpoints or when the parent cannot be read.
func writers(ctx context.Context, r snapshotReader, snap *engine.StateSnapshot) []engine.TaskView {
	if snap.Metadata.Source != engine.SourceLoop || snap.ParentID == "" {
		return nil
	}
	parent, err := r.Snapshot(ctx, snap.ParentID)
	if err != nil {
		return nil
	}
	var out []engine.TaskView
	for _, t := range parent.Tasks {
		out = append(out, engine.TaskView{ID: t.ID, Name: t.Name, State: engine.TaskDone})
	}
	return out
}

func (s *engineSession) UpdateState(ctx context.Context, id string, values map[string]any, asNode string) (*engine.StepView, error) {
	if _, err := s.g.UpdateState(ctx, engine.Config{ThreadID: s.thread, CheckpointID: id}, values, asNode); err != nil {
		return nil, err
	}
	// Checkpoint ids grow, so the written checkpoint is the thread's head.
	return s.Open(ctx, s.thread)
}

// Threads lists the database's threads with each one's graph and status.
// A thread the caller's CheckThread refuses (another graph's) is listed
// with the refusal; the others get their status from the engine.
func (s *engineSession) Threads(ctx context.Context) ([]ThreadSummary, error) {
	out, err := s.listThreads(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		t := &out[i]
		if t.Refused != "" { // the list already says it cannot be opened
			continue
		}
		if s.check != nil {
			if err := s.check(ctx, t.ID); err != nil {
				t.Refused = err.Error()
				continue
			}
		}
		snap, err := s.g.GetState(ctx, engine.Config{ThreadID: t.ID})
		if err != nil {
			t.Refused = err.Error()
			continue
		}
		t.Status = snap.Status().String()
		if t.Updated.IsZero() {
			t.Step, t.Source, t.Updated = snap.Metadata.Step, snap.Metadata.Source, snap.CreatedAt
		}
	}
	// Most recently updated first, as superstep threads lists them.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

func (s *engineSession) listThreads(ctx context.Context) ([]ThreadSummary, error) {
	if s.threads != nil {
		return s.threads(ctx)
	}
	tl, ok := s.saver.(engine.ThreadLister)
	if !ok {
		return nil, errNoThreadList
	}
	ids, err := tl.Threads(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ThreadSummary, len(ids))
	for i, id := range ids {
		out[i] = ThreadSummary{ID: id}
	}
	return out, nil
}

func (s *engineSession) InferAsNode(ctx context.Context, id string) (string, error) {
	return s.g.InferAsNode(ctx, engine.Config{ThreadID: s.thread, CheckpointID: id})
}

func (s *engineSession) AnsweredFailures(ctx context.Context, v *engine.StepView) []string {
	if v == nil || v.CheckpointID == "" {
		return nil
	}
	snap, err := s.g.GetState(ctx, engine.Config{ThreadID: v.Thread, CheckpointNS: v.Namespace, CheckpointID: v.CheckpointID})
	if err != nil {
		return nil // the hint is only a hint; the failure itself is on screen
	}
	var out []string
	for _, t := range snap.Tasks {
		if t.Err != nil && t.Answered && !slices.Contains(out, t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

func (s *engineSession) SavedAnswers(ctx context.Context, v *engine.StepView) map[string][]any {
	if v == nil || v.CheckpointID == "" || len(v.Tasks) == 0 {
		return nil
	}
	ran := v.Phase == engine.PhaseExecuted || v.Status == engine.StatusInterrupted || v.Status == engine.StatusFailed
	if !ran {
		return nil // at a checkpoint the tasks are the step before's
	}
	t, err := s.saver.GetTuple(ctx, engine.Config{ThreadID: v.Thread, CheckpointNS: v.Namespace, CheckpointID: v.CheckpointID})
	if err != nil || t == nil {
		return nil // the answers are shown when they can be read
	}
	saved := engine.ReadSavedWrites(t.PendingWrites)
	var out map[string][]any
	for _, tv := range v.Tasks {
		if st, ok := saved.Task(tv.ID); ok && st.Answered() {
			if out == nil {
				out = map[string][]any{}
			}
			out[tv.ID] = st.Answers
		}
	}
	return out
}

func (s *engineSession) InterruptPaths(ctx context.Context, v *engine.StepView) map[string]string {
	out := make(map[string]string, len(v.Interrupts))
	for _, in := range v.Interrupts {
		out[in.ID] = strings.Join(s.interruptPath(ctx, in, v.Tasks), " › ")
	}
	return out
}

// interruptPath follows an interrupt down the subgraphs that raised it: a
// subgraph task's namespace is "node:taskID" below its parent's, and the
// interrupt carries the same id at every level, so at each level the
// snapshot of the subgraph run that raised it names the task that did.
// Each level is named by runLabel among the tasks of its parent's step:
// tasks, the root's, then each subgraph snapshot's.
func (s *engineSession) interruptPath(ctx context.Context, in engine.PendingInterrupt, tasks []engine.TaskView) []string {
	var path []string
	ns, node, taskID := "", in.Node, in.TaskID
	for {
		child := engine.TaskNamespace(ns, node, taskID)
		if taskID != "" {
			if r, ok := s.raisingRun(ctx, child, in.ID); ok {
				path = append(path, runLabel(r.ns, tasks))
				ns, node, taskID, tasks = r.own, r.node, r.taskID, snapshotTaskViews(r.tasks)
				continue
			}
		}
		// Not a subgraph's task, or none of its runs holds the
		// interrupt: it was raised here.
		return append(path, runLabel(child, tasks))
	}
}

// raisingRun is the subgraph run, among those task namespace child ran
// (a task runs its subgraph again when it is retried or its node invokes
// it twice: engine.SubgraphRunNamespace numbers them), whose latest
// checkpoint has a task holding interrupt id, and that task. ok is false
// when child ran no subgraph, or none of its runs holds the interrupt.
func (s *engineSession) raisingRun(ctx context.Context, child, id string) (r raisingRun, ok bool) {
	for k := 0; ; k++ {
		runNS := engine.SubgraphRunNamespace(child, k)
		sub, own, err := s.g.SubgraphAt(ctx, engine.Config{ThreadID: s.thread, CheckpointNS: runNS})
		if err != nil {
			return r, ok // not a subgraph's task, or no run k
		}
		t, err := s.saver.GetTuple(ctx, engine.Config{ThreadID: s.thread, CheckpointNS: own})
		if err != nil || t == nil {
			return r, ok // the runs end at the first that saved nothing
		}
		snap, err := sub.SnapshotOf(t, false)
		if err != nil {
			return r, ok
		}
		for _, st := range snap.Tasks {
			for _, i := range st.Interrupts {
				if i.ID == id {
					// The interrupt's id is made from the namespace of
					// the task that raised it, so one run holds it; were
					// there two, the later one asked last.
					r, ok = raisingRun{ns: runNS, own: own, node: st.Name, taskID: st.ID, tasks: snap.Tasks}, true
				}
			}
		}
	}
}

// raisingRun is one subgraph run on an interrupt's path: its namespace
// (ns: which run of its task it is; own: where its checkpoints are,
// without task ids for a stateful subgraph), the task in it that the
// interrupt came from, and the tasks of its latest checkpoint.
type raisingRun struct {
	ns, own, node, taskID string
	tasks                 []engine.SnapshotTask
}

// snapshotTaskViews are a snapshot's tasks as runLabel reads them: their
// ids and nodes, in the snapshot's order.
func snapshotTaskViews(ts []engine.SnapshotTask) []engine.TaskView {
	out := make([]engine.TaskView, len(ts))
	for i, t := range ts {
		out[i] = engine.TaskView{ID: t.ID, Name: t.Name, Push: t.Push}
	}
	return out
}

func (s *engineSession) Diff(ctx context.Context, a, b string) (*engine.CheckpointDiff, [2]int, error) {
	var cps [2]*engine.Checkpoint
	var steps [2]int
	for i, id := range []string{a, b} {
		t, err := s.saver.GetTuple(ctx, engine.Config{ThreadID: s.thread, CheckpointID: id})
		if err != nil {
			return nil, steps, err
		}
		if t == nil {
			return nil, steps, fmt.Errorf("%w: checkpoint %s of thread %q", engine.ErrNoCheckpoint, shortID(id), s.thread)
		}
		cps[i], steps[i] = t.Checkpoint, t.Metadata.Step
	}
	return engine.DiffCheckpoints(cps[0], cps[1]), steps, nil
}

// answered reports whether some task's saved interrupts were answered, so
// they do not wait any more.
func answered(snap *engine.StateSnapshot) bool {
	for _, t := range snap.Tasks {
		if len(t.Interrupts) > 0 && !t.Waiting {
			return true
		}
	}
	return false
}

func (s *engineSession) CheckWrites(writes []engine.Write) error { return s.g.CheckWrites(writes) }

func (s *engineSession) CheckStateKeys(values map[string]any) error {
	return s.g.CheckStateKeys(values)
}

func (s *engineSession) RerunTask(ctx context.Context, cpID, taskID string) (*engine.TaskRerun, error) {
	t, err := s.saver.GetTuple(ctx, engine.Config{ThreadID: s.thread, CheckpointID: cpID})
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%w: checkpoint %s of thread %q", engine.ErrNoCheckpoint, shortID(cpID), s.thread)
	}
	// A subgraph node's subgraph inherits the run's limit, as it did in
	// the recorded run.
	var opts []engine.RunOption
	if l := s.recursionLimit(); l > 0 {
		opts = append(opts, engine.WithRecursionLimit(l))
	}
	if s.runtimeContext != nil {
		opts = append(opts, engine.WithRuntimeContext(s.runtimeContext))
	}
	return s.g.RerunTask(ctx, t, taskID, opts...)
}

func (s *engineSession) EditWrites(ctx context.Context, taskID string, writes []engine.Write, by string) (*engine.StepView, error) {
	if s.st == nil {
		return nil, errNoStepper
	}
	if err := s.st.EditWrites(taskID, writes, by); err != nil {
		return nil, err
	}
	return s.keep(ctx, s.st.View()), nil
}
