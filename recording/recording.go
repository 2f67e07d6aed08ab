package recording

import (
	"context"
	"fmt"
	"slices"

	"github.com/superstep/superstep/engine"
)

// Task is one task of a recorded superstep, rebuilt from the writes saved
// against the checkpoint it was planned from.
type Task struct {
	ID, Name string
	Push     bool
	// Input is a Send's argument, or the state a pull task read (the
	// checkpoint's values).
	Input  any
	Writes []engine.Write // its output writes, in saved order
	// Answers are the answers its interrupts were given, in the order
	// they were used: its own, or its subgraph's (engine.Graph.TaskAnswers).
	Answers     []any
	Interrupted bool                  // it saved interrupts
	Interrupts  []engine.Interruption // those interrupts
	Err         string                // its saved error, unless a later attempt finished
	// FailedFirst is the error an earlier attempt saved when a later one
	// saved writes: the recording's run failed in this superstep, and the
	// thread was then run on past the failure (LangGraph's invoke(null)
	// after an error), which ran the task again. CancelledFirst: that
	// error was the task's cancellation beside a failing sibling, not its
	// own failure.
	FailedFirst    string
	CancelledFirst bool
	// CallErr is the error one of its functional API Task calls saved,
	// which the run raised beside this task's interrupt.
	CallErr string
	// Saved: the recording saved something for the task (writes, an
	// interrupt, an error, or that it wrote nothing). A task without is one
	// the recording was cut off before it finished.
	Saved bool
}

// Key says which recorded task a replayed one can stand for: the same
// node, and for a Send the same argument, whatever ids the two runs
// minted for its messages (engine.WithoutMintedNames).
func (t *Task) Key() string { return key(t.Name, t.Push, t.Input) }

// KeyOf is a replayed task's Key.
func KeyOf(t engine.TaskView) string { return key(t.Name, t.Push, t.Input) }

func key(name string, push bool, input any) string {
	if push {
		return name + " " + string(engine.MustEncode(engine.WithoutMintedNames(input)))
	}
	return name
}

// Outcome says in words what the recording saved for the task, for a
// divergence.
func (t *Task) Outcome() string {
	switch {
	case t.Err != "":
		return "failed: " + t.Err
	case t.Interrupted:
		return fmt.Sprintf("interrupted only %d times", len(t.Answers))
	}
	return "did not interrupt"
}

// Call is a functional API Task call of the recorded superstep that asked:
// the questions it saved (encoded) and the answers it used. A call's task
// id hashes the checkpoint it ran from, so a replay's call is matched with
// the recorded call that asked the same question.
type Call struct {
	Questions []string
	Answers   []any
}

// Step is a recorded superstep: the tasks planned from one checkpoint and
// what each saved there.
type Step struct {
	Tasks []Task
	Calls []Call
	// Open: the recording ends in this superstep (its tasks wait for an
	// answer, or it was cut off), so a task without a saved outcome is
	// not compared and an interrupt the recording left waiting needs no
	// answer.
	Open bool
}

// WentOnAfterFailure reports whether a replay that failed in node failed as
// the recording's run did before the thread was run on past the failure
// (Task.FailedFirst): the replay goes on as that run did, running the
// superstep again. The node an error names may be one of a subgraph's, so
// the replay's failed tasks of the superstep (tasks) count too; tasks
// cancelled beside the failure do not.
func (s *Step) WentOnAfterFailure(node string, tasks []engine.TaskView) bool {
	failed := map[string]bool{node: true}
	for _, t := range tasks {
		if t.State == engine.TaskFailed && !engine.IsCancellation(t.Err) {
			failed[t.Name] = true
		}
	}
	return slices.ContainsFunc(s.Tasks, func(t Task) bool { return failed[t.Name] && t.FailedFirst != "" && !t.CancelledFirst })
}

// Ran reports whether any task of the step saved something (writes, an
// interrupt, an error, or that it wrote nothing): a step the recording
// ends in (Open) has something a replay compares only then, and a replay
// that would compare nothing has nothing to replay.
func (s *Step) Ran() bool {
	return slices.ContainsFunc(s.Tasks, func(t Task) bool { return t.Saved })
}

// Answerer finds the answers a recorded task was given where its subgraph
// saved them; *engine.Graph is one.
type Answerer interface {
	TaskAnswers(ctx context.Context, cfg engine.Config, task engine.SnapshotTask) ([]any, error)
}

// Read rebuilds the superstep planned from the recorded checkpoint snap
// (its Tasks planned with the graph replayed, its PendingWrites saved)
// and what each of its tasks saved.
func Read(ctx context.Context, a Answerer, snap *engine.StateSnapshot) (*Step, error) {
	s := &Step{}
	planned := map[string]bool{}
	for _, st := range snap.Tasks {
		planned[st.ID] = true
		// The snapshot's input of a pull task is the state at the
		// checkpoint, as the task read it (before its siblings' saved
		// writes).
		s.Tasks = append(s.Tasks, Task{ID: st.ID, Name: st.Name, Push: st.Push, Input: st.Input})
	}
	saved := engine.ReadSavedWrites(snap.PendingWrites)
	for i := range s.Tasks {
		sv, ok := saved.Task(s.Tasks[i].ID)
		if !ok {
			continue
		}
		rt := &s.Tasks[i]
		rt.Saved = true
		rt.Writes, rt.Answers, rt.Interrupted, rt.Interrupts, rt.Err = sv.Writes, sv.Answers, len(sv.Interrupts) > 0, sv.Interrupts, sv.Error
		if rt.Interrupted && len(rt.Answers) == 0 {
			var err error
			if rt.Answers, err = a.TaskAnswers(ctx, snap.Config, snap.Tasks[i]); err != nil {
				return nil, fmt.Errorf("reading the answers of task %s (%s) at checkpoint %s: %w", rt.Name, rt.ID, engine.ShortID(snap.Config.CheckpointID), err)
			}
		}
		if sv.Finished && rt.Err != "" {
			// A failed attempt that a later run retried successfully
			// (writes, or the marker that it wrote nothing).
			rt.FailedFirst, rt.CancelledFirst = rt.Err, engine.IsCancellation(sv.Err)
			rt.Err = ""
		}
	}
	s.readCalls(saved, planned)
	return s, nil
}

// AnsweredQuestion is the question the recording's answer n went to, when
// the recording kept it: a task saves only its latest question (its
// interrupt write is replaced each time it asks), so that is answer n's
// when n is its last answer and it did not ask again after it (open: the
// recording ended in this superstep, where an interrupted task with no
// writes waits on a later question). A task that asked several questions
// at once (a subgraph's tasks) keeps none that one answer went to.
func (t *Task) AnsweredQuestion(n int, open bool) (engine.Interruption, bool) {
	waiting := open && t.Interrupted && len(t.Writes) == 0 && t.Err == ""
	if n != len(t.Answers)-1 || len(t.Interrupts) != 1 || waiting {
		return engine.Interruption{}, false
	}
	return t.Interrupts[0], true
}

// WaitingQuestions are the questions t, which the recording left waiting
// for an answer, waits on (waitingQuestions).
func (t *Task) WaitingQuestions() []engine.Interruption {
	return waitingQuestions(t.Interrupts, len(t.Answers))
}

// readCalls finds the Task calls (functional API) in a checkpoint's saved
// writes: a call saves under its own task id, which no checkpoint plans,
// and its caller reports its interrupt. The error a call saved goes to the
// one task waiting without answers of its own (CallErr): the run raised it
// beside that task's interrupt.
func (s *Step) readCalls(saved *engine.SavedWrites, planned map[string]bool) {
	var caller *Task
	for i := range s.Tasks {
		if s.Tasks[i].Interrupted && len(s.Tasks[i].Answers) == 0 {
			if caller != nil {
				caller = nil
				break
			}
			caller = &s.Tasks[i]
		}
	}
	for _, sv := range saved.Tasks {
		if planned[sv.ID] {
			continue
		}
		if sv.Error != "" && caller != nil && caller.CallErr == "" {
			caller.CallErr = sv.Error
		}
		if len(sv.Interrupts) == 0 {
			continue
		}
		c := Call{Answers: sv.Answers}
		for _, in := range sv.Interrupts {
			c.Questions = append(c.Questions, string(engine.MustEncode(in.Value)))
		}
		s.Calls = append(s.Calls, c)
	}
}

// Names are the recorded tasks' nodes, sorted.
func (s *Step) Names() []string {
	names := make([]string, len(s.Tasks))
	for i, t := range s.Tasks {
		names[i] = t.Name
	}
	slices.Sort(names)
	return names
}
