package tui

import (
	"context"
	"fmt"
	"slices"
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
// when the replay reaches it, by the Cmd of the step that reaches it
// (replayAsk): the model judges from what that Cmd read and never reads
// the recording itself.
type replayRun struct {
	from string // the recorded checkpoint the replay starts at
	// chain is the recorded branch from there on, oldest first: the
	// replay's k-th superstep plans from a copy of chain[k]. Positions, not
	// step numbers, pair them: the fork the replay starts with may count
	// steps from another base. Never written after newReplayRun, so Cmds
	// may read it.
	chain []string
	pos   int
	wrote string // the replay's checkpoint that moved pos last (a view of it comes again at the end)
	// read reads a recorded checkpoint whole (nil: the recording cannot be
	// read and nothing is compared). The model only hands it to Cmds.
	read snapshotReader
	// rec is the recorded superstep a Cmd read last, and given the answers
	// the tasks waiting at one of the replay's checkpoints had been given.
	rec   recordedStep
	given answerCounts
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

// recordedStep is the recorded superstep at position pos of the branch,
// as a Cmd read it (readRecorded).
type recordedStep struct {
	pos int // -1: none read yet
	// step is nil when the recording could not be read there; why then
	// says why, and is the replay's divergence.
	step *recording.Step
	why  string
	md   engine.Metadata // the recorded checkpoint's (its step; its tasks ran in md.TaskStep())
}

// answerCounts count the answers each task waiting at the replay's
// checkpoint at had been given when a Cmd counted them (countAnswers), by
// task id: a Task call's under the call's own id.
type answerCounts struct {
	at     string
	counts map[string]int
}

// replayReads is what the Cmd that brought a view read of the recording
// for it (replayAsk.reads): the recorded superstep the judge compares the
// view with, unless the replay has it already, and, when the view waits
// at interrupts, the answers its tasks have been given, which the answer
// box needs to offer the next recorded one. Either is nil when not read.
type replayReads struct {
	rec   *recordedStep
	given *answerCounts
}

// replayAsk is what a Cmd needs to read the recording for a replay,
// copied from it when the Cmd is made: the Cmd never touches the replay
// the model owns. The session is lent to one Cmd at a time and the
// replay moves only when that Cmd's message comes back, so what the Cmd
// reads is for where the replay is when the message is taken.
type replayAsk struct {
	read  snapshotReader
	chain []string
	pos   int
	wrote string
	has   int // the position whose recorded superstep the replay has (rec.pos)
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
// compare: it is called in a Cmd (Model.replaySelected).
func newReplayRun(ctx context.Context, heads []engine.CheckpointHead, from string, read snapshotReader) (*replayRun, error) {
	chain := recording.OriginalRun(heads, from)
	if chain == nil {
		return nil, fmt.Errorf("checkpoint %s is not in the thread's history", shortID(from))
	}
	r := &replayRun{from: from, chain: chain, read: read, rec: recordedStep{pos: -1}, wentOn: -1}
	// As the command line's replay: a replay that compared nothing must
	// not pass. A recording that ends at from has a superstep to compare
	// only if its tasks saved something there (asked, failed, finished).
	if len(chain) == 1 && read != nil {
		rec := readRecorded(ctx, read, chain, 0)
		r.take(&replayReads{rec: &rec})
		if rec.step != nil && !rec.step.Ran() {
			return nil, fmt.Errorf("nothing to replay: the recording has no superstep after checkpoint %s (step %d); R on an earlier one", shortID(from), rec.md.Step)
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
	rec := r.step()
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
			first = fmt.Sprintf("recorded step %d, %s: %s", r.rec.md.TaskStep(), t.Name, verdict.why)
		}
	}
	if m := pairs.Missing; first == "" && len(m) > 0 && v.Status != engine.StatusFailed {
		first = fmt.Sprintf("recorded step %d, %s: the recording ran it; the replay did not", r.rec.md.TaskStep(), m[0].Name)
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
// already (recording.Step.Answers), as the Cmd that brought v counted
// them (countAnswers). A task the recording has no answer for
// gets none: its line is left to type. ends reports that the recording
// ends here, waiting at these same questions: whatever is answered runs
// past it. diverged names the first interrupt the recording has no answer
// for (another question, a task the recording ran without asking), as
// the command line's replay stops there; "" when none.
func (r *replayRun) recordedAnswers(v *engine.StepView) (answers map[string]string, ends bool, diverged string) {
	rec := r.step()
	if rec == nil || len(v.Interrupts) == 0 || r.given.at != v.CheckpointID {
		// Without the counts of this checkpoint's answers, the answer to
		// offer is not known: none is offered rather than a wrong one.
		return nil, false, ""
	}
	offer := rec.Answers(v, func(t engine.TaskView) int { return r.given.counts[t.ID] })
	out := map[string]string{}
	for id, a := range offer.Resume {
		out[id] = string(engine.MustEncode(a))
	}
	if d := offer.Diverged; d != nil {
		diverged = fmt.Sprintf("recorded step %d, %s: %s", r.rec.md.TaskStep(), d.Node, d.Why)
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
	rec := r.step()
	if rec == nil || !rec.WentOnAfterFailure("", v.Tasks) {
		return false, ""
	}
	if r.wentOn == r.pos {
		return false, fmt.Sprintf("recorded step %d: the replay failed again; the recording's run failed here once, then ran", r.rec.md.TaskStep())
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

// step is the recorded superstep the replay's current one stands for,
// as the Cmd that brought the view read it; nil past the end of the
// recording or when it could not be read (the divergence then says why).
func (r *replayRun) step() *recording.Step {
	if r.pos >= len(r.chain) || r.rec.pos != r.pos {
		return nil
	}
	return r.rec.step
}

// take keeps what a Cmd read of the recording (replayAsk.reads); a
// recorded checkpoint that could not be read is the replay's divergence,
// unless it diverged before.
func (r *replayRun) take(got *replayReads) {
	if got == nil {
		return
	}
	if got.rec != nil {
		r.rec = *got.rec
		if got.rec.why != "" && r.diverged == "" {
			r.diverged = got.rec.why
		}
	}
	if got.given != nil {
		r.given = *got.given
	}
}

// ask is what a Cmd made now needs to read the recording for the view it
// brings (replayAsk).
func (r *replayRun) ask() *replayAsk {
	return &replayAsk{read: r.read, chain: r.chain, pos: r.pos, wrote: r.wrote, has: r.rec.pos}
}

// reads reads, in the Cmd whose operation op brought view v, what the
// model needs of the recording for v: for a step (n, s, c) whose tasks
// ran, the recorded superstep at the position v moves the replay to
// (moved), which the judge compares v with; for a view waiting at
// interrupts, that superstep and the answers v's tasks have been given,
// which the answer box offers the next recorded one from. Nil when v
// needs nothing read: past the recording's end nothing is compared or
// offered.
func (a *replayAsk) reads(ctx context.Context, op opKind, v *engine.StepView) *replayReads {
	stepped := op == opNext || op == opSuperstep
	waiting := len(v.Interrupts) > 0
	if a.read == nil || !(stepped && judgedStep(v)) && !waiting {
		return nil
	}
	pos := a.pos
	if stepped {
		pos, _ = moved(a.pos, a.wrote, v)
	}
	if pos >= len(a.chain) {
		return nil
	}
	var out replayReads
	if pos != a.has {
		rec := readRecorded(ctx, a.read, a.chain, pos)
		out.rec = &rec
	}
	if waiting {
		out.given = countAnswers(ctx, a.read, v)
	}
	if ctx.Err() != nil {
		// Cancelled (X, or quitting) while it read: what it read is not
		// the recording's, and no divergence; the step, run again, reads
		// again.
		return nil
	}
	return &out
}

// readRecorded reads the recorded superstep at position pos of chain:
// its checkpoint whole, and what each of its tasks saved there
// (recording.Read).
func readRecorded(ctx context.Context, read snapshotReader, chain []string, pos int) recordedStep {
	out := recordedStep{pos: pos}
	snap, err := read.Snapshot(ctx, chain[pos])
	if err != nil {
		out.why = fmt.Sprintf("recorded checkpoint %s is unreadable: %v", shortID(chain[pos]), err)
		return out
	}
	out.md = snap.Metadata
	ta, _ := read.(recording.Answerer)
	if ta == nil {
		ta = noAnswers{}
	}
	step, err := recording.Read(ctx, ta, snap)
	if err != nil {
		out.why = fmt.Sprintf("recorded checkpoint %s: %v", shortID(chain[pos]), err)
		return out
	}
	step.Open = pos == len(chain)-1
	out.step = step
	return out
}

// countAnswers counts the answers each task waiting in v has been given,
// read from v's checkpoint: a task's saved answers (its subgraph's
// included), a Task call's under the call's own id. Only tasks with
// interrupts are counted: recording.Step.Answers asks of no other. A
// checkpoint that cannot be read counts none.
func countAnswers(ctx context.Context, read snapshotReader, v *engine.StepView) *answerCounts {
	out := &answerCounts{at: v.CheckpointID, counts: map[string]int{}}
	ta, _ := read.(recording.Answerer)
	if ta == nil {
		return out
	}
	now, err := read.Snapshot(ctx, v.CheckpointID)
	if err != nil {
		return out
	}
	saved := engine.ReadSavedWrites(now.PendingWrites)
	for _, t := range v.Tasks {
		if len(t.Interrupts) == 0 {
			continue
		}
		if i := slices.IndexFunc(now.Tasks, func(st engine.SnapshotTask) bool { return st.ID == t.ID }); i >= 0 {
			a, _ := ta.TaskAnswers(ctx, now.Config, now.Tasks[i])
			out.counts[t.ID] = len(a)
		} else if st, ok := saved.Task(t.ID); ok {
			out.counts[t.ID] = len(st.Answers) // a Task call, which no checkpoint plans
		}
	}
	return out
}

// noAnswers stands for a session that cannot read a subgraph's answers.
type noAnswers struct{}

func (noAnswers) TaskAnswers(context.Context, engine.Config, engine.SnapshotTask) ([]any, error) {
	return nil, nil
}

// moved is where view v moves a replay at position pos whose checkpoint
// wrote moved it last: on by one when the replay wrote the checkpoint
// that ends a superstep. The replay's advance and the Cmd that reads
// ahead for v (replayAsk.reads) both ask it.
func moved(pos int, wrote string, v *engine.StepView) (int, string) {
	if v.Phase == engine.PhaseCheckpoint && v.Source == engine.SourceLoop && v.CheckpointID != wrote {
		return pos + 1, v.CheckpointID
	}
	return pos, wrote
}

// advance moves on when the replay wrote the checkpoint that ends a
// superstep (moved).
func (r *replayRun) advance(v *engine.StepView) {
	r.pos, r.wrote = moved(r.pos, r.wrote, v)
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
