package recording

import "github.com/superstep/superstep/engine"

// JudgeRerun compares a task run again alone with the current code
// (engine.Graph.RerunTask) with what the recording saved for it at the same
// checkpoint (r.Recording). The outcome comes first, then the writes.
// Unlike Judge, failure messages are compared: the rerun starts from the
// recording's own checkpoint, so a message that names the step names the
// same one. A rerun is given the recorded answers and stops at the first
// question past them, so it can also ask where the recording did not.
func JudgeRerun(r *engine.TaskRerun) Verdict {
	rec := &r.Recording
	asked := len(r.Interrupts) > 0
	switch {
	case !rec.Finished && rec.Err == nil && !rec.Waiting:
		// Cut off before it finished (a killed run): no outcome to
		// compare with, which is not a difference.
		return Verdict{Kind: NoOutcome}
	case r.Err != nil && rec.Err != nil && r.Err.Error() == rec.Error:
		return Verdict{Kind: FailsAgain, Err: rec.Error}
	case r.Err != nil:
		return Verdict{Kind: FailsNow, Err: r.Err.Error()}
	case rec.Waiting && asked && asksAsRecorded(r):
		// The recording stopped at this question and still waits for its
		// answer: asked it again, the task has the same outcome.
		return Verdict{Kind: WaitsAsRecorded}
	case rec.Waiting && asked:
		return Verdict{Kind: AsksOtherwise}
	case asked:
		// The recorded answers ran out: the code asks once more than
		// the recording did.
		return Verdict{Kind: AsksNow}
	case rec.Err != nil:
		return Verdict{Kind: RecordingFailed, Err: rec.Error}
	case rec.Waiting:
		return Verdict{Kind: NoLongerAsks}
	case r.Diff != nil:
		return Verdict{Kind: WritesDiffer, Diff: r.Diff}
	}
	return Verdict{Kind: Same}
}

// asksAsRecorded reports whether the rerun asked the questions the
// recording waits on, by value (a subgraph's interrupt ids hash the
// subgraph's own checkpoint, which the rerun writes anew), and neither
// wrote anything.
func asksAsRecorded(r *engine.TaskRerun) bool {
	return len(r.Writes) == 0 && len(r.Recorded) == 0 && InterruptValues(r.Interrupts) == InterruptValues(RecordedQuestions(r))
}

// RecordedQuestions are the questions the recording waits on for the
// rerun's task (waitingQuestions).
func RecordedQuestions(r *engine.TaskRerun) []engine.Interruption {
	return waitingQuestions(r.Recording.Interrupts, len(r.Recording.Answers))
}

// waitingQuestions are the questions a recorded task waits on, of the
// interrupts it saved (ins) and the answers it was given: those past its
// answers (a task's own Interrupt calls save one interrupt each, in
// order), or all of them when the answers were saved elsewhere (a
// subgraph's).
func waitingQuestions(ins []engine.Interruption, answers int) []engine.Interruption {
	if answers < len(ins) {
		return ins[answers:]
	}
	return ins
}
