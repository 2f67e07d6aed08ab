package recording

import (
	"fmt"
	"slices"
	"strings"

	"github.com/superstep/superstep/engine"
)

// Divergence is where a replay first did something its recording did not:
// the node and why, in words both front ends print.
type Divergence struct {
	Node string
	Why  string
}

func (d *Divergence) Error() string { return "node " + d.Node + ": " + d.Why }

// Pairing pairs a replayed superstep's tasks with the recorded ones: a
// replay's task ids differ from the recording's (they hash the checkpoint
// id), so the k-th replayed task of a Key stands for the k-th recorded one.
// Task calls (functional API) are not paired: no checkpoint plans them, and
// their results are part of their caller's writes.
type Pairing struct {
	// Of is the recorded task each replayed task stands for, by the
	// replay's task id; a task absent has none (Extra).
	Of map[string]*Task
	// Extra are the replay's tasks the recording has no run of, and
	// Missing the recorded tasks the replay did not run, each in Key order.
	Extra   []engine.TaskView
	Missing []*Task
}

// Pair pairs got, a replayed superstep's tasks, with the recorded ones.
func (s *Step) Pair(got []engine.TaskView) Pairing {
	rec := map[string][]*Task{}
	for i := range s.Tasks {
		k := s.Tasks[i].Key()
		rec[k] = append(rec[k], &s.Tasks[i])
	}
	p := Pairing{Of: map[string]*Task{}}
	seen := map[string]int{}
	for _, t := range got {
		if t.Call {
			continue
		}
		k := KeyOf(t)
		if i := seen[k]; i < len(rec[k]) {
			p.Of[t.ID] = rec[k][i]
		} else {
			p.Extra = append(p.Extra, t)
		}
		seen[k]++
	}
	for i := range s.Tasks {
		if r := &s.Tasks[i]; !slices.ContainsFunc(got, func(t engine.TaskView) bool { return p.Of[t.ID] == r }) {
			p.Missing = append(p.Missing, r)
		}
	}
	slices.SortStableFunc(p.Extra, func(a, b engine.TaskView) int { return strings.Compare(KeyOf(a), KeyOf(b)) })
	slices.SortStableFunc(p.Missing, func(a, b *Task) int { return strings.Compare(a.Key(), b.Key()) })
	return p
}

// VerdictKind says how a replayed task compares with its recording.
type VerdictKind int

// Verdict kinds.
const (
	Same            VerdictKind = iota // the same outcome and writes
	NoOutcome                          // the recording saved no outcome to compare with (Open step)
	Unrecorded                         // the recording ran no such task
	FailsNow                           // it fails; the recording's ran
	RecordingFailed                    // the recording's failed; it ran
	WritesDiffer                       // both ran and wrote differently (Diff)
	// FailsAsFirst: it fails (or is cancelled) as the recording's first
	// attempt was (Task.FailedFirst), before the recording's run went on
	// past the failure; running the superstep again is compared with the
	// attempt that ran.
	FailsAsFirst

	// Kinds only a task run again alone has (JudgeRerun): a rerun stops at
	// an interrupt it has no recorded answer for, where a replay goes on.

	FailsAgain      // it fails with the error the recording saved
	WaitsAsRecorded // it asks what the recording asked and still waits on
	AsksOtherwise   // it asks another question than the one the recording waits on
	AsksNow         // it asks a question the recording has no answer for
	NoLongerAsks    // it finishes; the recording asked and waits for an answer
)

// Verdict is one replayed task against the recorded one it stands for.
type Verdict struct {
	Kind     VerdictKind
	Recorded *Task // nil when Unrecorded
	// Err is the failure the verdict is about: the replay's (FailsNow,
	// FailsAsFirst) or the recording's (RecordingFailed).
	Err  string
	Diff []engine.WriteDiff // WritesDiffer: the channels, as engine.DiffWrites finds them
}

// Diverged reports whether the verdict is a difference: the outcome or
// the writes are not the recording's, or no outcome could be compared.
func (v Verdict) Diverged() bool {
	switch v.Kind {
	case Same, NoOutcome, FailsAsFirst, FailsAgain, WaitsAsRecorded:
		return false
	}
	return true
}

// Judge compares replayed task got with rec, the recorded task it stands
// for (nil: none), by outcome and then writes. calls are the Task calls
// of got's superstep: a call's failure raised beside got's interrupt is
// compared with the recorded call's (Task.CallErr).
func (s *Step) Judge(rec *Task, got engine.TaskView, calls []engine.TaskView) Verdict {
	v := Verdict{Recorded: rec}
	if rec == nil {
		v.Kind = Unrecorded
		return v
	}
	failed := got.State == engine.TaskFailed
	switch {
	case s.Open && (!rec.Saved || rec.Interrupted && len(rec.Writes) == 0 && rec.CallErr == ""):
		// Still waiting in the recording, or cut off before it finished:
		// no outcome to compare with.
		v.Kind = NoOutcome
	case rec.CallErr != "" && got.State == engine.TaskInterrupted:
		// The recording's run failed here, in a call beside the task's
		// interrupt (the error may be saved as the task's too): the same
		// when a call of the replay's failed (writes it saved later came
		// from another run of the superstep).
		if !slices.ContainsFunc(calls, failedCall) {
			v.Kind, v.Err = RecordingFailed, rec.CallErr
		}
	case failed && rec.FailedFirst != "" && engine.IsCancellation(got.Err) == rec.CancelledFirst:
		v.Kind, v.Err = FailsAsFirst, errText(got.Err)
	case failed && rec.Err == "" && (rec.CallErr == "" || !slices.ContainsFunc(calls, failedCall)):
		v.Kind, v.Err = FailsNow, errText(got.Err)
	case !failed && rec.Err != "" && got.State != engine.TaskPlanned:
		v.Kind, v.Err = RecordingFailed, rec.Err
	case failed:
		// Both failed: the same outcome. The messages are not compared
		// (they name the step, which a fork moves).
	default:
		if v.Diff = engine.DiffWrites(engine.RunWrites{Input: rec.Input, Writes: rec.Writes}, engine.RunWrites{Input: got.Input, Writes: got.Writes}); v.Diff != nil {
			v.Kind = WritesDiffer
		}
	}
	return v
}

// JudgeCall compares a replayed Task call with the recording: a call that
// fails is the recording's outcome only when a recorded call failed too
// (Task.CallErr; a call's own task is not paired).
func (s *Step) JudgeCall(got engine.TaskView) Verdict {
	if got.State != engine.TaskFailed {
		return Verdict{Kind: Same}
	}
	if slices.ContainsFunc(s.Tasks, func(t Task) bool { return t.CallErr != "" }) {
		return Verdict{Kind: Same}
	}
	return Verdict{Kind: FailsNow, Err: errText(got.Err)}
}

func failedCall(t engine.TaskView) bool { return t.Call && t.State == engine.TaskFailed }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// SameFailure reports whether a replayed run that failed in node (the task
// its engine.NodeError names; a subgraph's or a call's failure is wrapped
// in its caller's) failed as the recording did. The replay's other failed
// tasks of the superstep (tasks) count too, several failing at once, and a
// failed Task call matches a recorded call's failure.
func (s *Step) SameFailure(node string, tasks []engine.TaskView) bool {
	failed := map[string]bool{node: true}
	callFailed := false
	for _, t := range tasks {
		if t.State == engine.TaskFailed {
			failed[t.Name] = true
			callFailed = callFailed || t.Call
		}
	}
	return slices.ContainsFunc(s.Tasks, func(t Task) bool {
		return failed[t.Name] && t.Err != "" || callFailed && t.CallErr != ""
	})
}

// Offer is what the recording answered the interrupts of a replayed
// superstep with.
type Offer struct {
	// Resume answers each interrupt the recording has an answer for, by
	// interrupt id; ByTask holds the same answers by the replay's task id.
	Resume engine.ResumeMap
	ByTask map[string]any
	// Waiting counts the tasks (and calls) the recording left waiting at
	// this same question (Open step): they need no answer.
	Waiting int
	// Diverged is the first interrupt the recording has no answer for.
	Diverged *Divergence
}

// Answers offers the replay's interrupts in v the recorded answers: a
// task's, the answer after the given(t) it has had already; a Task call's,
// the answers of the recorded call that asked the same question (or of the
// only recorded call: a call that asked several times saved only its last
// question). Tasks without interrupts (a subgraph stopped at a breakpoint,
// which a resume continues past) get nothing.
func (s *Step) Answers(v *engine.StepView, given func(engine.TaskView) int) Offer {
	o := Offer{Resume: engine.ResumeMap{}, ByTask: map[string]any{}}
	diverge := func(node, format string, args ...any) {
		if o.Diverged == nil {
			o.Diverged = &Divergence{Node: node, Why: fmt.Sprintf(format, args...)}
		}
	}
	give := func(t engine.TaskView, a any) {
		for _, in := range t.Interrupts {
			o.Resume[in.ID] = a
		}
		o.ByTask[t.ID] = a
	}
	for _, t := range v.Tasks {
		if !t.Call || t.State != engine.TaskInterrupted || len(t.Interrupts) == 0 {
			continue
		}
		q := string(engine.MustEncode(t.Interrupts[0].Value))
		c := s.callThatAsked(q)
		switch n := given(t); {
		case c == nil:
			diverge(t.Name, "the replay's call asked %s; no call of the recording asked it", q)
		case n < len(c.Answers):
			give(t, c.Answers[n])
		case s.Open:
			o.Waiting++
		default:
			diverge(t.Name, "the replay's call asked %s; the recording's call used only %d answers", q, len(c.Answers))
		}
	}
	pairs := s.Pair(v.Tasks)
	for _, t := range v.Tasks {
		if t.Call || t.State != engine.TaskInterrupted || len(t.Interrupts) == 0 || answered(o.Resume, t) {
			// A Task call's interrupt is reported by its caller too: the
			// call's own answer goes to it (above).
			continue
		}
		r := pairs.Of[t.ID]
		switch n := given(t); {
		case r == nil:
			diverge(t.Name, "the replay interrupted with %s; the recording ran no such task", InterruptValues(t.Interrupts))
		case n < len(r.Answers) && s.askedOther(t, r, n):
			// A person answered another question: the answer is not
			// theirs to give to this one.
			q, _ := r.AnsweredQuestion(n, s.Open)
			diverge(t.Name, "the replay asked %s; the recording's answer %s was to %s", InterruptValues(t.Interrupts), engine.MustEncode(r.Answers[n]), InterruptValues([]engine.Interruption{q}))
		case n < len(r.Answers):
			give(t, r.Answers[n])
		case r.Interrupted && s.Open && len(r.Interrupts) > 0 && !sameQuestions(t.Interrupts, r.WaitingQuestions()):
			// The recording ends waiting here, but on another question:
			// compared by value (a subgraph's interrupt ids hash its own
			// checkpoint, which a replay writes anew).
			diverge(t.Name, "the replay asked %s; the recording waits on %s", InterruptValues(t.Interrupts), InterruptValues(r.WaitingQuestions()))
		case r.Interrupted && s.Open:
			o.Waiting++
		default:
			diverge(t.Name, "the replay interrupted with %s; the recording %s", InterruptValues(t.Interrupts), r.Outcome())
		}
	}
	return o
}

// askedOther reports whether the replay's task t asks another question
// than the one the recording's answer n of r went to, when the recording
// kept that question (Task.AnsweredQuestion) and it was r's own: a
// caller's interrupt write reports its Task calls' questions too, which
// the calls' answers answered (Answers pairs those by question).
func (s *Step) askedOther(t engine.TaskView, r *Task, n int) bool {
	q, ok := r.AnsweredQuestion(n, s.Open)
	if !ok || s.callThatAskedExactly(string(engine.MustEncode(q.Value))) {
		return false
	}
	return !sameQuestions(t.Interrupts, []engine.Interruption{q})
}

// callThatAskedExactly reports whether a recorded call asked q.
func (s *Step) callThatAskedExactly(q string) bool {
	return slices.ContainsFunc(s.Calls, func(c Call) bool { return slices.Contains(c.Questions, q) })
}

func (s *Step) callThatAsked(q string) *Call {
	for i := range s.Calls {
		if slices.Contains(s.Calls[i].Questions, q) {
			return &s.Calls[i]
		}
	}
	if len(s.Calls) == 1 {
		return &s.Calls[0]
	}
	return nil
}

func answered(rm engine.ResumeMap, t engine.TaskView) bool {
	return slices.ContainsFunc(t.Interrupts, func(in engine.Interruption) bool { _, ok := rm[in.ID]; return ok })
}

// sameQuestions reports whether a and b ask the same, by value and in
// any order (a subgraph's interrupts come in the order of its tasks'
// ids, which a replay makes anew).
func sameQuestions(a, b []engine.Interruption) bool {
	if len(a) != len(b) {
		return false
	}
	values := func(ins []engine.Interruption) []string {
		out := make([]string, len(ins))
		for i, in := range ins {
			out[i] = string(engine.MustEncode(in.Value))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(values(a), values(b))
}

// InterruptValues are the interrupts' values, encoded, as a divergence
// names them.
func InterruptValues(ins []engine.Interruption) string {
	parts := make([]string, len(ins))
	for i, in := range ins {
		parts[i] = string(engine.MustEncode(in.Value))
	}
	return strings.Join(parts, ", ")
}
