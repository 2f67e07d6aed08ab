package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// TaskRerun is one task of a saved checkpoint run again with the current
// code against the input that checkpoint gave it: what the recording saved
// for it and what it does now.
type TaskRerun struct {
	ID, Name string // the task id and its node
	Push     bool   // started by a Send
	Input    any    // the input the checkpoint gave it
	// Recorded are the output writes saved for the task (no bookkeeping).
	Recorded []Write
	// Writes are the output writes of the run now; Interrupts and Err say
	// how it ended when it did not finish.
	Writes     []Write
	Interrupts []Interruption // what it asked, when it paused
	Err        error          // its failure, if it failed
	// Diff compares Recorded with Writes channel by channel (DiffWrites).
	Diff []WriteDiff
	// Recording is the task as the checkpoint's snapshot shows it: what
	// the recording saved for it (interrupts, answers, whether it waits,
	// finished or failed, and its error).
	Recording SnapshotTask
}

// RerunTask runs the task taskID, one of the tasks planned from the saved
// checkpoint t, once more with g's current code: against the input t gives
// it, answering its interrupts with the answers saved for it (for a
// subgraph node, those its subgraph saved: TaskAnswers). It runs on a
// private in-memory copy of t, so nothing is written to g's Saver, and no
// other task of the superstep runs (each is marked finished in the copy;
// LangGraph reuses a finished task's saved writes the same way when a
// superstep resumes: libs/langgraph/langgraph/pregel/_loop.py:663 and :736,
// _reapply_writes_to_succeeded_nodes). Node functions run for real: a node that calls
// a model calls it. A subgraph node runs its subgraph from the start.
//
// opts are run options the recording ran with that shape the task's run,
// such as WithRecursionLimit, which its subgraph inherits.
//
// Errors: ErrNoCheckpoint wrapped when t plans no task taskID, or the
// run's error when it fails outside the task (the task's own failure is
// TaskRerun.Err).
func (g *Graph) RerunTask(ctx context.Context, t *CheckpointTuple, taskID string, opts ...RunOption) (*TaskRerun, error) {
	copyG := *g
	mem := NewMemorySaver()
	copyG.saver = mem
	thread := t.Config.ThreadID
	if thread == "" {
		thread = "rerun"
	}
	cfg, err := mem.Put(ctx, Config{ThreadID: thread}, t.Checkpoint, t.Metadata, nil)
	if err != nil {
		return nil, err
	}
	snap, err := g.SnapshotOf(t, false)
	if err != nil {
		return nil, err
	}
	task, found, err := finishOtherTasks(ctx, mem, cfg, snap.Tasks, taskID)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: checkpoint %s plans no task %s", ErrNoCheckpoint, ShortID(t.Checkpoint.ID), taskID)
	}
	out := &TaskRerun{ID: taskID, Recording: task}
	answers, recorded := savedForTask(t.PendingWrites, taskID)
	out.Recorded = recorded
	if len(answers) > 0 {
		if err := mem.PutWrites(ctx, cfg, taskID, answers); err != nil {
			return nil, err
		}
	}
	if err := copyTaskCallAnswers(ctx, mem, cfg, t.PendingWrites, snap.Tasks); err != nil {
		return nil, err
	}
	// Interrupts its subgraph raised were answered in the subgraph's
	// namespace, one resume at a time: give those answers back the same
	// way, one per stop.
	var later []any
	if len(answers) == 0 {
		if later, err = g.TaskAnswers(ctx, t.Config, task); err != nil {
			return nil, err
		}
	}
	// opts are the recording's run options that shape the task's run (a
	// subgraph inherits the recursion limit); the copy's thread comes last.
	runOpts := append(slices.Clone(opts), OnThread(thread))
	s, runErr, err := copyG.runAnswering(ctx, taskID, later, runOpts)
	if err != nil {
		return nil, err
	}
	out.readRun(s.View())
	if err := out.takeRunError(runErr); err != nil {
		return nil, err
	}
	if out.Err == nil && len(out.Interrupts) == 0 {
		out.Diff = DiffWrites(RunWrites{Input: out.Input, Writes: out.Recorded}, RunWrites{Input: out.Input, Writes: out.Writes})
	}
	return out, nil
}

// finishOtherTasks marks every task of planned but taskID finished in
// mem's checkpoint cfg, so only taskID runs, and returns taskID's task.
func finishOtherTasks(ctx context.Context, mem *MemorySaver, cfg Config, planned []SnapshotTask, taskID string) (task SnapshotTask, found bool, err error) {
	for _, st := range planned {
		if st.ID == taskID {
			found, task = true, st
			continue
		}
		if err := mem.PutWrites(ctx, cfg, st.ID, []Write{{Channel: NoWritesChannel}}); err != nil {
			return SnapshotTask{}, false, err
		}
	}
	return task, found, nil
}

// savedForTask sorts what the recording saved for taskID: the answers to
// its interrupts, and its output writes (no bookkeeping).
func savedForTask(pending []PendingWrite, taskID string) (answers, recorded []Write) {
	for _, w := range pending {
		switch {
		case w.TaskID != taskID:
		case w.Channel == ResumeChannel:
			answers = append(answers, Write{Channel: w.Channel, Value: w.Value})
		case !reservedWrite(w.Channel):
			recorded = append(recorded, Write{Channel: w.Channel, Value: w.Value})
		}
	}
	return answers, recorded
}

// copyTaskCallAnswers copies into mem the answers task calls (functional
// API) saved under their own ids, which no checkpoint plans and which
// depend on the checkpoint and the caller (callTask): the copy has the
// same checkpoint, so its calls find them again.
func copyTaskCallAnswers(ctx context.Context, mem *MemorySaver, cfg Config, pending []PendingWrite, planned []SnapshotTask) error {
	isPlanned := map[string]bool{}
	for _, st := range planned {
		isPlanned[st.ID] = true
	}
	for _, w := range pending {
		if w.Channel != ResumeChannel || isPlanned[w.TaskID] || w.TaskID == NullTaskID {
			continue
		}
		if err := mem.PutWrites(ctx, cfg, w.TaskID, []Write{{Channel: w.Channel, Value: w.Value}}); err != nil {
			return err
		}
	}
	return nil
}

// runAnswering runs g (the private copy) until it stops for good: at
// each stop of the task taskID it gives the task the next answer of
// later, or starts again past its subgraph's breakpoint. It returns the
// last run and its error (runErr); err is a run that could not start.
func (g *Graph) runAnswering(ctx context.Context, taskID string, later []any, runOpts []RunOption) (s *Stepper, runErr, err error) {
	if s, err = g.Start(ctx, nil, runOpts...); err != nil {
		return nil, nil, err
	}
	for {
		for s.Status() == StatusRunning && s.Phase() != PhaseExecuted && runErr == nil {
			runErr = s.Next(ctx)
		}
		rm, atBreakpoint := taskStop(s, runErr, taskID, later)
		var input any
		switch {
		case atBreakpoint:
		case len(rm) == 0:
			return s, runErr, nil
		default:
			later = later[1:]
			input = Command{Resume: rm}
		}
		if s, err = g.Start(ctx, input, runOpts...); err != nil {
			return nil, nil, err
		}
	}
}

// taskStop says how the run s stopped for the task taskID: the answers
// its interrupts get next (the first of later), or that it was
// interrupted without interrupts — its subgraph stopped at a breakpoint,
// which the recording went on past.
func taskStop(s *Stepper, runErr error, taskID string, later []any) (rm ResumeMap, atBreakpoint bool) {
	rm = ResumeMap{}
	if runErr != nil || s.Status() != StatusInterrupted {
		return rm, false
	}
	for _, tv := range s.View().Tasks {
		if tv.ID != taskID {
			continue
		}
		atBreakpoint = tv.State == TaskInterrupted && len(tv.Interrupts) == 0
		for _, in := range tv.Interrupts {
			if len(later) > 0 {
				rm[in.ID] = later[0]
			}
		}
	}
	return rm, atBreakpoint
}

// readRun takes what the task did from the run's view: its node, input,
// how it ended and its output writes.
func (out *TaskRerun) readRun(view *StepView) {
	for _, tv := range view.Tasks {
		if tv.ID != out.ID {
			continue
		}
		out.Name, out.Push, out.Input = tv.Name, tv.Push, tv.Input
		out.Interrupts, out.Err = tv.Interrupts, tv.Err
		for _, w := range tv.Writes {
			if !reservedWrite(w.Channel) {
				out.Writes = append(out.Writes, w)
			}
		}
	}
}

// takeRunError keeps the run's error runErr as the task's failure when it
// is one, and returns it when it failed outside the task.
func (out *TaskRerun) takeRunError(runErr error) error {
	var ne *NodeError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ne) && ne.TaskID == out.ID:
		out.Err = ne
	case errors.As(runErr, &ne) && out.Err != nil:
		// A node of its subgraph failed: the run's error names that node,
		// and the task's own failure (out.Err) is what the recording saved.
	default:
		return runErr
	}
	return nil
}

// WriteDiff is one channel a task wrote differently: every value it wrote
// to the channel in each run (several for appends and Sends), in order.
type WriteDiff struct {
	Channel     string // the channel written
	Recorded    []any  // the values the recording saved
	Got         []any  // the values the run now wrote
	HasRecorded bool   // the recording wrote the channel
	HasGot      bool   // the run now wrote it
}

// RunWrites is one run of a task as DiffWrites compares it: the input it
// read and the output writes it made.
type RunWrites struct {
	Input  any     // the task's input: its state, or its Send's argument
	Writes []Write // its output writes, in order
}

// DiffWrites compares two runs of a task's writes channel by channel, in
// the order the channels were first written; several writes to one channel
// compare as a list. Bookkeeping writes (interrupts, answers, errors) are
// not compared. Message ids compare as names (mintedids.go): the same
// messages under ids each run minted, or under the ids each run's input
// gave them, are the same writes. It returns nil when both wrote the same.
func DiffWrites(recorded, got RunWrites) []WriteDiff {
	rm, order := groupWrites(recorded.Writes, nil)
	gm, order := groupWrites(got.Writes, order)
	var ids *idRenaming // built at the first channel whose encodings differ
	var out []WriteDiff
	for _, ch := range order {
		rv, rok := rm[ch]
		gv, gok := gm[ch]
		if rok == gok {
			if string(MustEncode(rv)) == string(MustEncode(gv)) {
				continue
			}
			if ids == nil {
				ids = renamingOf(recorded.Input, got.Input)
			}
			if ids.sameValues(rv, gv) {
				continue
			}
		}
		out = append(out, WriteDiff{Channel: ch, Recorded: rv, Got: gv, HasRecorded: rok, HasGot: gok})
	}
	return out
}

func groupWrites(ws []Write, order []string) (map[string][]any, []string) {
	m := map[string][]any{}
	for _, w := range ws {
		if reservedWrite(w.Channel) {
			continue
		}
		if _, ok := m[w.Channel]; !ok {
			seen := false
			for _, c := range order {
				if c == w.Channel {
					seen = true
					break
				}
			}
			if !seen {
				order = append(order, w.Channel)
			}
		}
		m[w.Channel] = append(m[w.Channel], w.Value)
	}
	return m, order
}
