package engine

import (
	"fmt"
	"slices"
)

// ErrorSourceNodeChannel is the write LangGraph saves beside __error__ when
// a failed node has an error handler (_internal/_constants.py:15). superstep
// has no node error handlers; the name is reserved so that threads written
// by a runtime that has them read correctly.
const ErrorSourceNodeChannel = "__error_source_node__"

// IsControlWrite reports whether a saved write is bookkeeping — an error, an
// interrupt, an answer, a scheduling mark, the "finished without writes"
// marker or an error source — rather than a task's output to a channel.
func IsControlWrite(channel string) bool {
	switch channel {
	case ErrorChannel, ErrorSourceNodeChannel, InterruptChannel, ResumeChannel, ScheduledChannel, NoWritesChannel:
		return true
	}
	return false
}

// SavedTask is what a checkpoint's saved writes say about one task.
type SavedTask struct {
	ID string // the task id
	// Writes are the task's output writes in saved order (no control
	// writes). A task that failed keeps the writes it made before failing.
	Writes []Write
	// Interrupts are the task's saved interrupts (the latest batch).
	Interrupts []Interruption
	// Answers are the answers its Interrupt calls returned, by call
	// position (the __resume__ write).
	Answers []any
	// Error is the saved error text; Failed reports that there is one.
	Error  string
	Failed bool // the task saved an error
	// Err is the saved error, for errors.Is and errors.As (nil unless
	// Failed; see SavedError).
	Err error
	// Finished: the task saved its output (writes or the no-writes
	// marker) and is not run again when its superstep resumes
	// (_loop.py:_reapply_writes_to_succeeded_nodes skips only ERROR,
	// ERROR_SOURCE_NODE, INTERRUPT and RESUME).
	Finished bool
}

// Answered reports whether some of the task's Interrupt calls have saved
// answers.
func (t *SavedTask) Answered() bool { return len(t.Answers) > 0 }

// SavedWrites is what a checkpoint's saved writes say: per task, and the
// writes that belong to no task (Command input, a plain resume value).
type SavedWrites struct {
	// Tasks in the order their first write was saved.
	Tasks []SavedTask
	// Null are the writes of NullTaskID, in saved order.
	Null []Write
	// NullResume is the plain resume value saved for the whole run, if
	// HasNullResume.
	NullResume    any
	HasNullResume bool // NullResume was saved
	index         map[string]int
}

// ReadSavedWrites reads a checkpoint's saved writes into per-task facts. It
// is the one place that says what the reserved writes mean; the result is
// the caller's.
func ReadSavedWrites(ws []PendingWrite) *SavedWrites {
	s := &SavedWrites{index: map[string]int{}}
	for _, w := range ws {
		if w.TaskID == NullTaskID {
			s.Null = append(s.Null, Write{Channel: w.Channel, Value: w.Value})
			if w.Channel == ResumeChannel {
				s.NullResume, s.HasNullResume = w.Value, true
			}
			continue
		}
		i, ok := s.index[w.TaskID]
		if !ok {
			i = len(s.Tasks)
			s.index[w.TaskID] = i
			s.Tasks = append(s.Tasks, SavedTask{ID: w.TaskID})
		}
		t := &s.Tasks[i]
		switch w.Channel {
		case ErrorChannel:
			se := ReadSavedError(w.Value)
			t.Failed, t.Error, t.Err = true, se.Message, se
		case ErrorSourceNodeChannel, ScheduledChannel:
		case InterruptChannel:
			t.Interrupts = append(t.Interrupts, interruptionsOf(w.Value)...)
		case ResumeChannel:
			if l, ok := w.Value.([]any); ok {
				t.Answers = append(t.Answers, l...)
			} else {
				t.Answers = append(t.Answers, w.Value)
			}
		case NoWritesChannel:
			t.Finished = true
		default:
			t.Finished = true
			t.Writes = append(t.Writes, Write{Channel: w.Channel, Value: w.Value})
		}
	}
	return s
}

// Task returns the facts saved for task id; ok is false when it saved
// nothing.
func (s *SavedWrites) Task(id string) (t *SavedTask, ok bool) {
	i, ok := s.index[id]
	if !ok {
		return nil, false
	}
	return &s.Tasks[i], true
}

// Waiting reports whether task t waits for an answer, from its saved
// writes alone: it saved an interrupt and has not finished since; a saved
// plain (null-task) resume value that no task has used yet answers a task
// that has used no answer yet (the next run gives it the value; see
// nullResumeUnused); and a task that failed after using
// answers went past its question (resuming replays the saved answers). A
// task answered once and interrupted again waits. Saved writes keep one
// interrupt and one error per task, not their order, so a task that failed
// after an answer and, rerun, asked a later question is misread here;
// StateSnapshot's tasks use the interrupt ids and are exact.
func (s *SavedWrites) Waiting(t *SavedTask) bool {
	switch {
	case len(t.Interrupts) == 0, t.Finished:
		return false
	case len(t.Answers) == 0:
		return !s.nullResumeUnused()
	}
	return !t.Failed
}

// nullResumeUnused reports whether the saved plain resume value is still
// there for the next Interrupt call without an answer of its own. The first
// such call in a run takes it (_algo.py:1320-1331 get_null_resume(consume)
// removes it from the run's pending writes, types.py:960) and saves it as
// its own answer, so a sibling — or a later Task call — that asks in that
// same run is left waiting. Saved writes do not say which answer came from
// the plain value, so any saved task answer counts as its use: a task is
// then rather shown waiting (a new resume value replaces the plain one)
// than shown answered when it is asking.
func (s *SavedWrites) nullResumeUnused() bool {
	if !s.HasNullResume {
		return false
	}
	return !slices.ContainsFunc(s.Tasks, func(t SavedTask) bool { return len(t.Answers) > 0 })
}

// waitingAt is Waiting made exact for a task planned with namespace ns
// whose interrupts are its own (not a subgraph's): the question it waits on
// is the one its next Interrupt call raises, whose id is fixed by ns and
// the number of answers saved (ids.go interruptID).
func (s *SavedWrites) waitingAt(t *SavedTask, ns string) bool {
	switch {
	case len(t.Interrupts) == 0, t.Finished:
		return false
	case len(t.Answers) == 0 && s.nullResumeUnused():
		return false
	}
	next := interruptID(ns, len(t.Answers))
	return slices.ContainsFunc(t.Interrupts, func(in Interruption) bool { return in.ID == next })
}

// waitingTask is waitingAt for a planned task when its interrupts are its
// own, else Waiting: a subgraph's, or a Task call's that its node reported
// (an interrupt raised in a call has the call task's namespace).
func (s *SavedWrites) waitingTask(t *SavedTask, tk *task) bool {
	if tk.node != nil && tk.node.subgraph == nil && ownInterrupts(t, tk.namespace()) {
		return s.waitingAt(t, tk.namespace())
	}
	return s.Waiting(t)
}

// ownInterrupts reports whether t's interrupts were raised by its own
// Interrupt calls in namespace ns (ids.go interruptID numbers them).
func ownInterrupts(t *SavedTask, ns string) bool {
	for j := 0; j <= len(t.Answers); j++ {
		id := interruptID(ns, j)
		if slices.ContainsFunc(t.Interrupts, func(in Interruption) bool { return in.ID == id }) {
			return true
		}
	}
	return len(t.Interrupts) == 0
}

// WaitingInterrupts lists the interrupts that wait for an answer, task by
// task in saved order. Node is left empty: naming it needs the graph
// (StateSnapshot.Interrupts has it).
func (s *SavedWrites) WaitingInterrupts() []PendingInterrupt {
	var out []PendingInterrupt
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if !s.Waiting(t) {
			continue
		}
		for _, in := range t.Interrupts {
			out = append(out, PendingInterrupt{Interruption: in, TaskID: t.ID})
		}
	}
	return out
}

// Failed reports whether a task saved an error: the superstep ended in a
// failure (a resumed run that got past it writes a new checkpoint). A task
// cancelled by a sibling's failure saves an error too, beside what it
// wrote before it saw the cancellation.
func (s *SavedWrites) Failed() bool {
	return slices.ContainsFunc(s.Tasks, func(t SavedTask) bool { return t.Failed })
}

// CheckpointStatus is what a checkpoint says about its thread's run.
type CheckpointStatus int

// Checkpoint statuses, in the order Status checks them.
const (
	// CheckpointDone: no task is planned from the checkpoint; the run
	// ended.
	CheckpointDone CheckpointStatus = iota
	// CheckpointPending: tasks are planned and nothing stops them from
	// running (a breakpoint, a stopped or crashed run, a given answer not
	// yet applied).
	CheckpointPending
	// CheckpointInterrupted: a task waits for an answer.
	CheckpointInterrupted
	// CheckpointFailed: a task of the superstep failed.
	CheckpointFailed
)

// String returns the status in lower case, as the CLI and debugger print it.
func (s CheckpointStatus) String() string {
	switch s {
	case CheckpointDone:
		return "done"
	case CheckpointPending:
		return "pending"
	case CheckpointInterrupted:
		return "interrupted"
	case CheckpointFailed:
		return "error"
	}
	return fmt.Sprintf("CheckpointStatus(%d)", int(s))
}

// Status says where the run stands at this checkpoint: interrupted when a
// task waits for an answer, failed when a task's saved error ended the
// superstep, pending when tasks remain, done otherwise. hasNext reports
// whether any task is planned from the checkpoint (StateSnapshot.Next, or
// the graph's plan); without the graph pass true when unknown.
func (s *SavedWrites) Status(hasNext bool) CheckpointStatus {
	switch {
	case len(s.WaitingInterrupts()) > 0:
		return CheckpointInterrupted
	case s.Failed():
		return CheckpointFailed
	case hasNext:
		return CheckpointPending
	}
	return CheckpointDone
}
