package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
)

// replayRun is a step-by-step replay of a recorded thread: stepping goes
// on from a recorded checkpoint (the first step forks there), and after
// each Execute every task's writes are compared with the writes the
// recording saved for the same task, so the divergence shows the moment
// it happens. The recorded branch is found from the thread's checkpoint
// heads when the replay starts; each recorded checkpoint is read whole
// when the replay reaches it.
type replayRun struct {
	from string // the recorded checkpoint the replay starts at
	// chain is the recorded branch from there on, oldest first: the
	// replay's k-th superstep plans from a copy of chain[k]. Positions, not
	// step numbers, pair them: the fork the replay starts with may count
	// steps from another base.
	chain []string
	pos   int
	wrote string // the replay's checkpoint that moved pos last (a view of it comes again at the end)
	// read reads a recorded checkpoint whole (nil: the recording cannot be
	// read and nothing is compared); rec caches the one at recPos.
	read   snapshotReader
	rec    *engine.StateSnapshot
	recPos int
	// recStep is rec's superstep as the recording package reads it.
	recStep    *recording.Step
	recStepPos int
	// verdicts are the comparisons of the step last executed, by task id.
	verdicts map[string]replayVerdict
	// diverged names the first divergence ("" while every task matched).
	diverged string
	compared int // supersteps compared so far
	// wentOn is the recorded position whose failure the replay reproduced
	// when the recording's run went on past it (judgeFailure): stepping
	// runs that superstep again, once (-1: none).
	wentOn int
}

// replayVerdict is one replayed task against its recording.
type replayVerdict struct {
	same bool
	// why says what differs: the channels whose writes differ, or that
	// the recording has no such task; or, for a task judged the same, why
	// a failure is (recording.FailsAsFirst).
	why string
}

// newReplayRun follows the recorded branch down from checkpoint from in
// heads (every branch): the original run (recording.OriginalRun), not the
// forks and updates made later. When the branch ends at from, its
// checkpoint is read with ctx, to tell whether there is anything to
// compare.
func newReplayRun(ctx context.Context, heads []engine.CheckpointHead, from string, read snapshotReader) (*replayRun, error) {
	chain := recording.OriginalRun(heads, from)
	if chain == nil {
		return nil, fmt.Errorf("checkpoint %s is not in the thread's history", shortID(from))
	}
	r := &replayRun{from: from, chain: chain, read: read, recPos: -1, wentOn: -1}
	// As the command line's replay: a replay that compared nothing must
	// not pass. A recording that ends at from has a superstep to compare
	// only if its tasks saved something there (asked, failed, finished).
	if len(chain) == 1 && read != nil {
		if rec := r.step(ctx); rec != nil && !rec.Ran() {
			return nil, fmt.Errorf("nothing to replay: the recording has no superstep after checkpoint %s (step %d); R on an earlier one", shortID(from), r.current(ctx).Metadata.Step)
		}
	}
	return r, nil
}

// compare judges the tasks of an executed step against the recording
// (recording.Step: the same pairing and verdicts as the command line's
// replay) and returns the first divergence of this step ("" when all
// match).
func (r *replayRun) compare(v *engine.StepView) string {
	r.verdicts = map[string]replayVerdict{}
	rec := r.step(context.Background())
	if rec == nil {
		return ""
	}
	pairs := rec.Pair(v.Tasks)
	var calls []engine.TaskView
	for _, t := range v.Tasks {
		if t.Call {
			calls = append(calls, t)
		}
	}
	first := ""
	for _, t := range v.Tasks {
		var vd recording.Verdict
		if t.Call {
			vd = rec.JudgeCall(t)
		} else {
			vd = rec.Judge(pairs.Of[t.ID], t, calls)
		}
		verdict := replayVerdict{same: !vd.Diverged(), why: verdictWhy(vd)}
		r.verdicts[t.ID] = verdict
		if !verdict.same && first == "" {
			first = fmt.Sprintf("recorded step %d, %s: %s", r.rec.Metadata.Step+1, t.Name, verdict.why)
		}
	}
	if m := pairs.Missing; first == "" && len(m) > 0 && v.Status != engine.StatusFailed {
		first = fmt.Sprintf("recorded step %d, %s: the recording ran it; the replay did not", r.rec.Metadata.Step+1, m[0].Name)
	}
	if r.wentOn != r.pos { // a step run again where the recording's run went on is compared once
		r.compared++
	}
	if first != "" && r.diverged == "" {
		r.diverged = first
	}
	return first
}

// verdictWhy says what differs, as the tasks pane shows it.
func verdictWhy(vd recording.Verdict) string {
	switch vd.Kind {
	case recording.Unrecorded:
		return "the recording has no such task"
	case recording.FailsNow:
		return "fails now (" + firstLine(vd.Err) + "); the recording ran"
	case recording.RecordingFailed:
		return "the recording failed here (" + firstLine(vd.Err) + "); now it ran"
	case recording.FailsAsFirst:
		return "fails as at first, before the recording's run went on (n runs the step again)"
	case recording.WritesDiffer:
		var chans []string
		for _, d := range vd.Diff {
			chans = append(chans, d.Channel)
		}
		sort.Strings(chans)
		return "writes differ on " + strings.Join(chans, ", ")
	}
	return ""
}

// recordedAnswers are the answers the recording gave the tasks waiting in
// v, by interrupt id (a Task call's interrupt is reported by its caller
// too, under the same id), as JSON for the answer box: for each task
// (and Task call), the recorded answer after those the replay has given it
// already (recording.Step.Answers). A task the recording has no answer for
// gets none: its line is left to type. ends reports that the recording
// ends here, waiting at these same questions: whatever is answered runs
// past it. diverged names the first interrupt the recording has no answer
// for (another question, a task the recording ran without asking), as
// the command line's replay stops there; "" when none.
func (r *replayRun) recordedAnswers(v *engine.StepView) (answers map[string]string, ends bool, diverged string) {
	rec := r.step(context.Background())
	if rec == nil || len(v.Interrupts) == 0 {
		return nil, false, ""
	}
	given := r.givenAnswers(v.CheckpointID)
	offer := rec.Answers(v, given)
	out := map[string]string{}
	for id, a := range offer.Resume {
		out[id] = string(engine.MustEncode(a))
	}
	if d := offer.Diverged; d != nil {
		diverged = fmt.Sprintf("recorded step %d, %s: %s", r.rec.Metadata.Step+1, d.Node, d.Why)
		if r.diverged == "" {
			r.diverged = diverged
		}
	}
	return out, offer.Waiting > 0 && len(offer.Resume) == 0 && offer.Diverged == nil, diverged
}

// judgeFailure judges a replayed step that failed (v), compared already,
// where the recording's run failed there too and went on past the failure
// (recording.Step.WentOnAfterFailure). The first time, the replay goes on:
// goOn, and the step is marked, so stepping runs it again as that run did.
// A second time is a divergence (the recording's run failed once, then
// ran). Neither where the recording's run did not go on.
func (r *replayRun) judgeFailure(v *engine.StepView) (goOn bool, diverged string) {
	rec := r.step(context.Background())
	if rec == nil || !rec.WentOnAfterFailure("", v.Tasks) {
		return false, ""
	}
	if r.wentOn == r.pos {
		return false, fmt.Sprintf("recorded step %d: the replay failed again; the recording's run failed here once, then ran", r.rec.Metadata.Step+1)
	}
	r.wentOn = r.pos
	return true, ""
}

// mayRunFailedStepAgain reports that the replay stopped at a failure the
// recording's run went on past (judgeFailure), so stepping runs it again.
func (r *replayRun) mayRunFailedStepAgain() bool { return r.wentOn == r.pos && r.diverged == "" }

// pastEnd reports that the replay has gone on past the recorded branch's
// last checkpoint: its supersteps are not compared with anything.
func (r *replayRun) pastEnd() bool { return r.read != nil && r.pos >= len(r.chain) }

// givenAnswers counts the answers each task of the replay's checkpoint id
// has had so far, read from that checkpoint once: a task's saved answers
// (its subgraph's included), a Task call's under the call's own id.
func (r *replayRun) givenAnswers(id string) func(engine.TaskView) int {
	ta, _ := r.read.(recording.Answerer)
	now, err := r.read.Snapshot(context.Background(), id)
	if ta == nil || err != nil {
		return func(engine.TaskView) int { return 0 }
	}
	saved := engine.ReadSavedWrites(now.PendingWrites)
	return func(t engine.TaskView) int {
		for _, st := range now.Tasks {
			if st.ID == t.ID {
				a, _ := ta.TaskAnswers(context.Background(), now.Config, st)
				return len(a)
			}
		}
		if st, ok := saved.Task(t.ID); ok {
			return len(st.Answers) // a Task call, which no checkpoint plans
		}
		return 0
	}
}

// step is the recorded superstep the replay's current one stands for
// (recording.Read of current()), read once; nil past the end of the
// recording or when it cannot be read (the divergence then says why).
func (r *replayRun) step(ctx context.Context) *recording.Step {
	snap := r.current(ctx)
	if snap == nil {
		return nil
	}
	if r.recStep == nil || r.recStepPos != r.pos {
		ta, _ := r.read.(recording.Answerer)
		if ta == nil {
			ta = noAnswers{}
		}
		rec, err := recording.Read(ctx, ta, snap)
		if err != nil {
			if r.diverged == "" {
				r.diverged = fmt.Sprintf("recorded checkpoint %s: %v", shortID(r.chain[r.pos]), err)
			}
			return nil
		}
		rec.Open = r.pos == len(r.chain)-1
		r.recStep, r.recStepPos = rec, r.pos
	}
	return r.recStep
}

// noAnswers stands for a session that cannot read a subgraph's answers.
type noAnswers struct{}

func (noAnswers) TaskAnswers(context.Context, engine.Config, engine.SnapshotTask) ([]any, error) {
	return nil, nil
}

// current is the recorded checkpoint the replay's current superstep
// stands for, read whole once; nil past the end of the recording, or when
// it cannot be read (the divergence then says why).
func (r *replayRun) current(ctx context.Context) *engine.StateSnapshot {
	if r.pos >= len(r.chain) || r.read == nil {
		return nil
	}
	if r.recPos != r.pos {
		rec, err := r.read.Snapshot(ctx, r.chain[r.pos])
		if err != nil && r.diverged == "" {
			r.diverged = fmt.Sprintf("recorded checkpoint %s is unreadable: %v", shortID(r.chain[r.pos]), err)
		}
		r.rec, r.recPos = rec, r.pos
	}
	return r.rec
}

// advance moves on when the replay wrote the checkpoint that ends a
// superstep.
func (r *replayRun) advance(v *engine.StepView) {
	if v.Phase == engine.PhaseCheckpoint && v.Source == engine.SourceLoop && v.CheckpointID != r.wrote {
		r.pos++
		r.wrote = v.CheckpointID
	}
}

// startView is the view a replay starts from: recorded checkpoint v as
// planned, before its superstep ran. The replay runs that superstep
// again, so the outcomes the recording saved there (a stop at an
// interrupt, a failure: what a checkout shows) are not the replay's; they
// left the replay unable to step at an entrypoint's only checkpoint.
func startView(v *engine.StepView) *engine.StepView {
	if v == nil || v.Status == engine.StatusDone {
		return v
	}
	out := *v
	out.Status, out.Interrupts = engine.StatusRunning, nil
	out.Tasks = make([]engine.TaskView, 0, len(v.Tasks))
	for _, t := range v.Tasks {
		if t.Call {
			continue // made by its caller when it runs again
		}
		t.State, t.Writes, t.Interrupts, t.Err, t.Attempts, t.Retried = engine.TaskPlanned, nil, nil, nil, 0, nil
		out.Tasks = append(out.Tasks, t)
	}
	return &out
}
