package tui

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/superstep/superstep/engine"
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
	// read reads a recorded checkpoint whole (nil: the recording cannot be
	// read and nothing is compared); rec caches the one at recPos.
	read   snapshotReader
	rec    *engine.StateSnapshot
	recPos int
	// verdicts are the comparisons of the step last executed, by task id.
	verdicts map[string]replayVerdict
	// diverged names the first divergence ("" while every task matched).
	diverged string
	compared int // supersteps compared so far
}

// replayVerdict is one replayed task against its recording.
type replayVerdict struct {
	same bool
	// why says what differs: the channels whose writes differ, or that
	// the recording has no such task.
	why string
}

// newReplayRun follows the recorded branch down from checkpoint from in
// heads (newest first, every branch): at each checkpoint the child the
// original run wrote (source loop or input, the oldest such child) — not
// the forks and updates made later.
func newReplayRun(heads []engine.CheckpointHead, from string, read snapshotReader) (*replayRun, error) {
	found := false
	children := map[string][]int{}
	for i, h := range heads {
		found = found || h.ID == from
		children[h.ParentID] = append(children[h.ParentID], i)
	}
	if !found {
		return nil, fmt.Errorf("checkpoint %s is not in the thread's history", shortID(from))
	}
	r := &replayRun{from: from, read: read, recPos: -1}
	for cur := from; cur != ""; {
		r.chain = append(r.chain, cur)
		next := ""
		for _, c := range children[cur] {
			h := heads[c]
			if h.Source != engine.SourceLoop && h.Source != engine.SourceInput {
				continue
			}
			if next == "" || h.ID < next {
				next = h.ID
			}
		}
		cur = next
	}
	return r, nil
}

// compare judges the tasks of an executed step against the recording and
// returns the first divergence of this step ("" when all match).
func (r *replayRun) compare(v *engine.StepView) string {
	r.verdicts = map[string]replayVerdict{}
	rec := r.current()
	if rec == nil {
		return ""
	}
	saved := engine.ReadSavedWrites(rec.PendingWrites)
	used := map[string]bool{}
	first := ""
	for _, t := range v.Tasks {
		rt := matchRecorded(rec.Tasks, t, used)
		var verdict replayVerdict
		switch {
		case rt == nil:
			verdict.why = "the recording has no such task"
		default:
			used[rt.ID] = true
			st, _ := saved.Task(rt.ID)
			var recorded []engine.Write
			recordedErr := ""
			if st != nil {
				recorded = st.Writes
				if st.Failed {
					recordedErr = st.Error
				}
			}
			failed := t.State == engine.TaskFailed && t.Err != nil
			// A failure is an outcome to compare, even with no writes on
			// either side. Both failing is the same outcome; the messages
			// are not compared (they name the step, which a fork moves).
			switch diff := writeDiff(recorded, outputWrites(t.Writes)); {
			case failed && recordedErr == "":
				verdict.why = "fails now (" + firstLine(t.Err.Error()) + "); the recording ran"
			case !failed && recordedErr != "" && t.State != engine.TaskPlanned:
				verdict.why = "the recording failed here (" + firstLine(recordedErr) + "); now it ran"
			case len(diff) > 0:
				verdict.why = "writes differ on " + strings.Join(diff, ", ")
			default:
				verdict.same = true
			}
		}
		r.verdicts[t.ID] = verdict
		if !verdict.same && first == "" {
			first = fmt.Sprintf("recorded step %d, %s: %s", rec.Metadata.Step+1, t.Name, verdict.why)
		}
	}
	r.compared++
	if first != "" && r.diverged == "" {
		r.diverged = first
	}
	return first
}

// matchRecorded finds the recorded task a replayed one stands for. Task
// ids differ on the replay branch (they hash the checkpoint id), so a
// pull task matches by node, a Send by node and argument.
func matchRecorded(rec []engine.SnapshotTask, t engine.TaskView, used map[string]bool) *engine.SnapshotTask {
	for i := range rec {
		r := &rec[i]
		if used[r.ID] || r.Name != t.Name || r.Push != t.Push {
			continue
		}
		if t.Push && !reflect.DeepEqual(engine.Normalize(r.Input), engine.Normalize(t.Input)) {
			continue
		}
		return r
	}
	return nil
}

func outputWrites(ws []engine.Write) []engine.Write {
	out := make([]engine.Write, 0, len(ws))
	for _, w := range ws {
		if !engine.IsControlWrite(w.Channel) {
			out = append(out, w)
		}
	}
	return out
}

// writeDiff names the channels two runs of a task wrote differently, as
// engine.DiffWrites (the command line's replay's rule) finds them.
func writeDiff(recorded, got []engine.Write) []string {
	var out []string
	for _, d := range engine.DiffWrites(recorded, got) {
		out = append(out, d.Channel)
	}
	sort.Strings(out)
	return out
}

// recordedAnswers are the answers the recording gave the tasks waiting in
// v, by the replayed task's id, as JSON for the answer box: for each task,
// the recorded answer after those the replay has given it already (the
// last one when the replay asks more often than the recording did).
func (r *replayRun) recordedAnswers(v *engine.StepView) map[string]string {
	rec := r.current()
	if rec == nil || len(v.Interrupts) == 0 {
		return nil
	}
	ta, _ := r.read.(taskAnswerer)
	// now is the replay's own checkpoint, read once; given counts the
	// answers its tasks have had so far.
	var now *engine.StateSnapshot
	if ta != nil {
		now, _ = r.read.Snapshot(context.Background(), v.CheckpointID)
	}
	given := func(id string) int {
		if now == nil {
			return 0
		}
		for _, st := range now.Tasks {
			if st.ID == id {
				a, _ := ta.TaskAnswers(context.Background(), now, st)
				return len(a)
			}
		}
		return 0
	}
	out := map[string]string{}
	used := map[string]bool{}
	for _, t := range v.Tasks {
		if t.State != engine.TaskInterrupted {
			continue
		}
		rt := matchRecorded(rec.Tasks, t, used)
		if rt == nil {
			continue
		}
		used[rt.ID] = true
		answers := rt.Answers
		if ta != nil && len(answers) == 0 {
			// A subgraph's interrupts: its answers are saved in its
			// namespace. Unreadable ones leave the line empty to type.
			answers, _ = ta.TaskAnswers(context.Background(), rec, *rt)
		}
		if len(answers) > 0 {
			out[t.ID] = string(engine.MustEncode(answers[min(given(t.ID), len(answers)-1)]))
		}
	}
	return out
}

// taskAnswerer finds a recorded task's answers where its subgraph saved
// them; the engine session is one.
type taskAnswerer interface {
	TaskAnswers(ctx context.Context, snap *engine.StateSnapshot, task engine.SnapshotTask) ([]any, error)
}

// current is the recorded checkpoint the replay's current superstep
// stands for, read whole once; nil past the end of the recording, or when
// it cannot be read (the divergence then says why).
func (r *replayRun) current() *engine.StateSnapshot {
	if r.pos >= len(r.chain) || r.read == nil {
		return nil
	}
	if r.recPos != r.pos {
		rec, err := r.read.Snapshot(context.Background(), r.chain[r.pos])
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
	if v.Phase == engine.PhaseCheckpoint && v.Source == engine.SourceLoop {
		r.pos++
	}
}
