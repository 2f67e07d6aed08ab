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
	found := false
	var task SnapshotTask
	for _, st := range snap.Tasks {
		if st.ID == taskID {
			found, task = true, st
			continue
		}
		// Every other task counts as finished, so only taskID runs.
		if err := mem.PutWrites(ctx, cfg, st.ID, []Write{{Channel: NoWritesChannel}}); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: checkpoint %s plans no task %s", ErrNoCheckpoint, ShortID(t.Checkpoint.ID), taskID)
	}
	out := &TaskRerun{ID: taskID, Recording: task}
	var answers []Write
	for _, w := range t.PendingWrites {
		switch {
		case w.TaskID != taskID:
		case w.Channel == ResumeChannel:
			answers = append(answers, Write{Channel: w.Channel, Value: w.Value})
		case !reservedWrite(w.Channel):
			out.Recorded = append(out.Recorded, Write{Channel: w.Channel, Value: w.Value})
		}
	}
	if len(answers) > 0 {
		if err := mem.PutWrites(ctx, cfg, taskID, answers); err != nil {
			return nil, err
		}
	}
	// Task calls (functional API) save the answers they used under their
	// own ids, which no checkpoint plans and which depend on the
	// checkpoint and the caller (callTask): the copy has the same
	// checkpoint, so its calls find them again.
	planned := map[string]bool{}
	for _, st := range snap.Tasks {
		planned[st.ID] = true
	}
	for _, w := range t.PendingWrites {
		if w.Channel != ResumeChannel || planned[w.TaskID] || w.TaskID == NullTaskID {
			continue
		}
		if err := mem.PutWrites(ctx, cfg, w.TaskID, []Write{{Channel: w.Channel, Value: w.Value}}); err != nil {
			return nil, err
		}
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
	s, err := copyG.Start(ctx, nil, runOpts...)
	if err != nil {
		return nil, err
	}
	var runErr error
	for {
		for s.Status() == StatusRunning && s.Phase() != PhaseExecuted && runErr == nil {
			runErr = s.Next(ctx)
		}
		rm := ResumeMap{}
		atBreakpoint := false
		if runErr == nil && s.Status() == StatusInterrupted {
			for _, tv := range s.View().Tasks {
				if tv.ID != taskID {
					continue
				}
				// Interrupted without interrupts: its subgraph stopped at
				// a breakpoint, which the recording went on past.
				atBreakpoint = tv.State == TaskInterrupted && len(tv.Interrupts) == 0
				for _, in := range tv.Interrupts {
					if len(later) > 0 {
						rm[in.ID] = later[0]
					}
				}
			}
		}
		if atBreakpoint {
			if s, err = copyG.Start(ctx, nil, runOpts...); err != nil {
				return nil, err
			}
			continue
		}
		if len(rm) == 0 {
			break
		}
		later = later[1:]
		if s, err = copyG.Start(ctx, Command{Resume: rm}, runOpts...); err != nil {
			return nil, err
		}
	}
	for _, tv := range s.View().Tasks {
		if tv.ID != taskID {
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
	var ne *NodeError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ne) && ne.TaskID == taskID:
		out.Err = ne
	case errors.As(runErr, &ne) && out.Err != nil:
		// A node of its subgraph failed: the run's error names that node,
		// and the task's own failure (out.Err) is what the recording saved.
	default:
		return nil, runErr
	}
	if out.Err == nil && len(out.Interrupts) == 0 {
		out.Diff = DiffWrites(out.Recorded, out.Writes)
	}
	return out, nil
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

// DiffWrites compares two runs of a task's writes channel by channel, in
// the order the channels were first written; several writes to one channel
// compare as a list. Bookkeeping writes (interrupts, answers, errors) are
// not compared. It returns nil when both wrote the same.
func DiffWrites(recorded, got []Write) []WriteDiff {
	rm, order := groupWrites(recorded, nil)
	gm, order := groupWrites(got, order)
	var out []WriteDiff
	for _, ch := range order {
		rv, rok := rm[ch]
		gv, gok := gm[ch]
		if rok == gok && string(MustEncode(rv)) == string(MustEncode(gv)) {
			continue
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
