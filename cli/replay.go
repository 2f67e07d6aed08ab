package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

func (a *App) replayCommand(g *globals) *cobra.Command {
	var graphFlag string
	var from int
	var force bool
	cmd := &cobra.Command{
		Use:   "replay THREAD",
		Short: "Re-execute a recorded thread with the current graph and compare",
		Long: `Re-execute THREAD's recorded supersteps with the current code of --graph,
feeding the recorded inputs and the recorded human answers, on a new branch
of the thread (it stays in the database), and compare every superstep's
tasks and their writes, channel by channel, with the recorded ones.

The recorded branch is the thread's latest checkpoint back to its root.
Replay starts at the input checkpoint, or at the checkpoint of step --from.

Before running anything the graph's topology (nodes, triggers, edges,
channels) is compared with the one recorded for the thread; a different
topology is refused with exit code 2 and the differences named, unless
--force. Exit 0 when every superstep matches; at the first difference,
exit 1 naming the step, the node and the channel with both values.`,
		Example: `  superstep replay t1 --graph research
  superstep replay t1 --graph ./fixed-scenario.json --from 2
  superstep replay t1 --graph research --force --db ./bug.db`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			st, err := a.open(g, false)
			if err != nil {
				return err
			}
			defer closeStore(st, &err)
			ctx := cmd.Context()
			thread := args[0]
			list, err := threadCheckpoints(ctx, st, thread)
			if err != nil {
				return err
			}
			fp, err := st.Fingerprint(ctx, thread)
			if err != nil {
				return storeError(err, "reading thread %q", thread)
			}
			rec, recorded := decodeGraphRecord(fp)
			if graphFlag == "" {
				if rec.Graph == "" {
					return usagef("thread %q has no recorded graph: pass --graph", thread)
				}
				graphFlag = rec.Graph
			}
			gr, _, _, err := ResolveGraph(graphFlag, engine.WithSaver(st))
			if err != nil {
				return err
			}
			switch {
			case !recorded:
				a.warn(fmt.Sprintf("thread %q has no recorded topology: cannot check that the graph is the same", thread))
			case rec.Fingerprint != gr.Fingerprint():
				diff := topologyDiff(rec.Topology, gr.Topology())
				what := strings.Join(diff, "; ")
				if len(rec.Topology) == 0 {
					what = "fingerprint " + rec.Fingerprint + " recorded, " + gr.Fingerprint() + " now (the recorded topology is not stored)"
				}
				if !force {
					return usagef("%w for thread %q: %s (--force replays anyway)", engine.ErrGraphChanged, thread, what)
				}
				a.warn(fmt.Sprintf("%v: %s; replaying anyway", engine.ErrGraphChanged, what))
			}
			fromSet := cmd.Flags().Changed("from")
			rp, err := newReplay(ctx, gr, st, thread, list, rec.Replays, from, fromSet)
			if err != nil {
				return err
			}
			rp.out = a.Stdout
			rp.onFork = func(id string) error {
				if !recorded {
					rec = newGraphRecord(gr, graphFlag)
				}
				rec.Replays = append(rec.Replays, id)
				return st.SetFingerprint(ctx, thread, rec.encode())
			}
			return rp.run(ctx)
		},
	}
	cmd.Flags().StringVar(&graphFlag, "graph", "", "graph to replay with (default: the one recorded for the thread)")
	cmd.Flags().IntVar(&from, "from", -1, "step of the recorded checkpoint to start from")
	cmd.Flags().BoolVar(&force, "force", false, "replay even if the topology changed")
	return cmd
}

// recTask is one task of a recorded superstep, rebuilt from the pending
// writes saved against the checkpoint it was planned from.
type recTask struct {
	id, name    string
	push        bool
	input       any
	writes      []engine.Write // output writes, in order
	answers     []any          // the __resume__ answers it consumed
	interrupted bool
	err         string
}

func (t recTask) key() string {
	if t.push {
		return t.name + " " + string(engine.MustEncode(t.input))
	}
	return t.name
}

// recStep is one recorded event on the branch: a superstep (its tasks), a
// new input, or the open superstep of the latest checkpoint.
type recStep struct {
	kind  string // "loop", "input", "open"
	step  int    // the recorded step number
	tasks []recTask
	input any
}

type replay struct {
	g       *engine.Graph
	thread  string
	startID string
	steps   []recStep
	out     io.Writer
	// onFork records the replay branch's first checkpoint.
	onFork func(id string) error
	// answered counts the answers fed to each replayed task, by task id.
	answered map[string]int
}

// newReplay reads the recorded branch (the newest checkpoint outside every
// earlier replay branch, back through its parents to the root) and the
// supersteps on it after the start checkpoint.
func newReplay(ctx context.Context, g *engine.Graph, st Store, thread string, list []*engine.CheckpointTuple, replays []string, from int, fromSet bool) (*replay, error) {
	chain, err := recordedBranch(thread, list, replays)
	if err != nil {
		return nil, err
	}
	start := 0
	if fromSet {
		start = slices.IndexFunc(chain, func(t *engine.CheckpointTuple) bool {
			return t.Metadata.Step == from && t.Metadata.Source != engine.SourceFork
		})
		if start < 0 {
			return nil, usagef("no checkpoint at step %d on thread %q's latest branch (steps %d to %d)", from, thread, chain[0].Metadata.Step, chain[len(chain)-1].Metadata.Step)
		}
	}
	rp := &replay{g: g, thread: thread, startID: chain[start].Checkpoint.ID, answered: map[string]int{}}
	for i := start + 1; i < len(chain); i++ {
		t, parent := chain[i], chain[i-1]
		switch t.Metadata.Source {
		case engine.SourceLoop:
			tasks, err := recordedTasks(g, parent)
			if err != nil {
				return nil, err
			}
			rp.steps = append(rp.steps, recStep{kind: "loop", step: t.Metadata.Step, tasks: tasks})
		case engine.SourceInput:
			rp.steps = append(rp.steps, recStep{kind: "input", step: t.Metadata.Step, input: t.Checkpoint.ChannelValues[engine.Start]})
		case engine.SourceFork:
			// A fork copies its parent's state: nothing ran.
		default:
			return nil, usagef("thread %q: checkpoint %s at step %d came from update_state, which replay does not re-apply: replay --from a later step", thread, t.Checkpoint.ID, t.Metadata.Step)
		}
	}
	last := chain[len(chain)-1]
	if len(last.PendingWrites) > 0 {
		tasks, err := recordedTasks(g, last)
		if err != nil {
			return nil, err
		}
		rp.steps = append(rp.steps, recStep{kind: "open", step: last.Metadata.Step + 1, tasks: tasks})
	}
	return rp, nil
}

// recordedBranch returns the recorded branch, oldest checkpoint first.
func recordedBranch(thread string, list []*engine.CheckpointTuple, replays []string) ([]*engine.CheckpointTuple, error) {
	byID := map[string]*engine.CheckpointTuple{}
	for _, t := range list {
		byID[t.Checkpoint.ID] = t
	}
	for _, head := range list { // newest first
		var chain []*engine.CheckpointTuple
		replayed := false
		for t := head; t != nil; t = byID[t.ParentID] {
			if slices.Contains(replays, t.Checkpoint.ID) {
				replayed = true
				break
			}
			chain = append(chain, t)
			if t.ParentID != "" && byID[t.ParentID] == nil {
				return nil, failf("thread %q: checkpoint %s names parent %s, which is not stored", thread, t.Checkpoint.ID, t.ParentID)
			}
		}
		if !replayed {
			slices.Reverse(chain)
			return chain, nil
		}
	}
	return nil, usagef("thread %q has only replay branches", thread)
}

// recordedTasks rebuilds the tasks planned from checkpoint t and what each
// saved. Names come from planning t with the graph: with an unchanged
// topology that is the plan the recording ran.
func recordedTasks(g *engine.Graph, t *engine.CheckpointTuple) ([]recTask, error) {
	snap, err := g.SnapshotOf(t, false)
	if err != nil {
		return nil, failf("planning recorded checkpoint %s: %v", t.Checkpoint.ID, err)
	}
	var tasks []recTask
	idx := map[string]int{}
	for _, st := range snap.Tasks {
		idx[st.ID] = len(tasks)
		tasks = append(tasks, recTask{id: st.ID, name: st.Name, push: st.Push, input: st.Input})
	}
	saved := engine.ReadSavedWrites(t.PendingWrites)
	for i := range tasks {
		sv, ok := saved.Task(tasks[i].id)
		if !ok {
			continue
		}
		rt := &tasks[i]
		rt.writes, rt.answers, rt.interrupted, rt.err = sv.Writes, sv.Answers, len(sv.Interrupts) > 0, sv.Error
		if len(rt.writes) > 0 {
			// A failed attempt that a later run retried successfully.
			rt.err = ""
		}
	}
	return tasks, nil
}

// divergence is the first difference found; it ends the replay with exit 1.
type divergence struct{ msg string }

func (d *divergence) Error() string { return d.msg }

func (rp *replay) diverge(format string, args ...any) error {
	return &divergence{msg: fmt.Sprintf(format, args...)}
}

func (rp *replay) run(ctx context.Context) error {
	s, err := rp.g.Start(ctx, nil, engine.OnThread(rp.thread), engine.FromCheckpoint(rp.startID))
	if err != nil {
		return failf("starting the replay of thread %q from %s: %v", rp.thread, rp.startID, err)
	}
	if v := s.View(); v.Source == engine.SourceFork && rp.onFork != nil {
		if err := rp.onFork(v.CheckpointID); err != nil {
			return failf("recording the replay branch: %v", err)
		}
	}
	fmt.Fprintf(rp.out, "replaying thread %s from checkpoint %s on a new branch (fork %s)\n", termtext.Name(rp.thread), termtext.Name(rp.startID), s.View().CheckpointID)
	compared := 0
	for _, rs := range rp.steps {
		var err error
		switch rs.kind {
		case "input":
			if s, err = rp.newInput(ctx, s, rs); err == nil {
				fmt.Fprintf(rp.out, "input at step %d: fed the recorded input\n", rs.step)
			}
		default:
			s, err = rp.superstep(ctx, s, rs)
			if err == nil {
				compared++
				fmt.Fprintf(rp.out, "step %d: %s match\n", rs.step, taskList(rs.tasks))
			}
		}
		var d *divergence
		if errors.As(err, &d) {
			fmt.Fprintf(rp.out, "DIVERGED at %s\n", d.msg)
			fmt.Fprintf(rp.out, "the replayed branch ends at checkpoint %s\n", s.View().CheckpointID)
			return failf("replay of thread %q diverged at %s", rp.thread, d.msg)
		}
		if err != nil {
			return err
		}
	}
	if err := rp.finish(ctx, s); err != nil {
		var d *divergence
		if errors.As(err, &d) {
			fmt.Fprintf(rp.out, "DIVERGED at %s\n", d.msg)
			return failf("replay of thread %q diverged at %s", rp.thread, d.msg)
		}
		return err
	}
	fmt.Fprintf(rp.out, "replay matches: %d supersteps, the same tasks and writes; new branch head %s\n", compared, s.View().CheckpointID)
	return nil
}

// continueRun restarts a stopped replay at the head of its branch: after a
// static breakpoint (nil input) or an interrupt (a resume command).
func (rp *replay) continueRun(ctx context.Context, input any) (*engine.Stepper, error) {
	s, err := rp.g.Start(ctx, input, engine.OnThread(rp.thread))
	if err != nil {
		return nil, failf("continuing the replay: %v", err)
	}
	return s, nil
}

func (rp *replay) newInput(ctx context.Context, s *engine.Stepper, rs recStep) (*engine.Stepper, error) {
	if s.Status() == engine.StatusRunning {
		// The recorded run had ended before this input; the replay must too.
		if err := s.Next(ctx); err != nil {
			return s, rp.runFailed(rs.step, err, nil)
		}
		if s.Status() == engine.StatusRunning {
			return s, rp.diverge("step %d: the recording took new input here, but the replay planned %s", rs.step, strings.Join(s.View().Next(), ", "))
		}
	}
	if rs.input == nil {
		return s, failf("step %d: the recorded input checkpoint holds no input value", rs.step)
	}
	return rp.continueRun(ctx, rs.input)
}

// superstep drives the replay through one recorded superstep: plan,
// execute (answering interrupts with the recorded answers), compare, update.
func (rp *replay) superstep(ctx context.Context, s *engine.Stepper, rs recStep) (*engine.Stepper, error) {
	for {
		if s.Status() == engine.StatusInterrupted && len(s.Result().Interrupts) == 0 {
			var err error
			if s, err = rp.continueRun(ctx, nil); err != nil {
				return s, err
			}
		}
		if err := s.Next(ctx); err != nil {
			return s, rp.runFailed(rs.step, err, rs.tasks)
		}
		v := s.View()
		switch {
		case s.Status() == engine.StatusDone:
			return s, rp.diverge("step %d: the recording ran %s; the replay finished instead", rs.step, taskList(rs.tasks))
		case s.Status() == engine.StatusInterrupted && len(v.Interrupts) == 0:
			continue // a breakpoint: the recording went on past it
		case s.Status() == engine.StatusInterrupted:
			rm, err := rp.answers(rs, v)
			if err != nil {
				return s, err
			}
			if rm == nil { // the recording stopped at this same interrupt
				return s, rp.compare(rs, v.Tasks)
			}
			if s, err = rp.continueRun(ctx, engine.Command{Resume: rm}); err != nil {
				return s, err
			}
		case v.Phase == engine.PhaseExecuted:
			if err := rp.compare(rs, v.Tasks); err != nil {
				return s, err
			}
			if rs.kind == "open" {
				return s, nil
			}
			if err := s.Next(ctx); err != nil {
				return s, rp.runFailed(rs.step, err, rs.tasks)
			}
			return s, nil
		}
	}
}

// answers builds the resume map for the replay's pending interrupts from the
// recorded answers. It returns nil when the recording has no answer for
// them either (it ended waiting at the same place).
func (rp *replay) answers(rs recStep, v *engine.StepView) (engine.ResumeMap, error) {
	rec := matchTasks(rs.tasks)
	rm := engine.ResumeMap{}
	unanswered := 0
	seen := map[string]int{}
	for _, t := range v.Tasks {
		if t.State != engine.TaskInterrupted {
			continue
		}
		key := t.Name
		if t.Push {
			key += " " + string(engine.MustEncode(t.Input))
		}
		i := seen[key]
		seen[key]++
		var r *recTask
		if i < len(rec[key]) {
			r = rec[key][i]
		}
		if r == nil {
			return nil, rp.diverge("step %d, node %s: the replay interrupted with %s; the recording ran no such task", rs.step, t.Name, interruptValues(t.Interrupts))
		}
		n := rp.answered[t.ID]
		if n >= len(r.answers) {
			if r.interrupted && rs.kind == "open" {
				unanswered++
				continue
			}
			return nil, rp.diverge("step %d, node %s: the replay interrupted with %s; the recording %s", rs.step, t.Name, interruptValues(t.Interrupts), recordedOutcome(r))
		}
		for _, in := range t.Interrupts {
			rm[in.ID] = r.answers[n]
		}
		rp.answered[t.ID] = n + 1
	}
	if len(rm) == 0 && unanswered > 0 {
		return nil, nil
	}
	return rm, nil
}

func recordedOutcome(r *recTask) string {
	switch {
	case r.err != "":
		return "failed: " + r.err
	case r.interrupted:
		return fmt.Sprintf("interrupted only %d times", len(r.answers))
	}
	return "did not interrupt"
}

func interruptValues(ins []engine.Interruption) string {
	parts := make([]string, len(ins))
	for i, in := range ins {
		parts[i] = string(engine.MustEncode(in.Value))
	}
	return strings.Join(parts, ", ")
}

// runFailed turns a failure of the replayed run into a verdict: a match when
// the recording failed in the same node, a divergence otherwise.
func (rp *replay) runFailed(step int, err error, tasks []recTask) error {
	var ne *engine.NodeError
	if errors.As(err, &ne) {
		for _, t := range tasks {
			if t.name == ne.Node && t.err != "" {
				return nil
			}
		}
		return rp.diverge("step %d, node %s: the replay failed: %v", step, ne.Node, ne.Err)
	}
	return failf("replay of thread %q failed at step %d: %v", rp.thread, step, err)
}

func matchTasks(tasks []recTask) map[string][]*recTask {
	out := map[string][]*recTask{}
	for i := range tasks {
		out[tasks[i].key()] = append(out[tasks[i].key()], &tasks[i])
	}
	return out
}

func taskList(tasks []recTask) string {
	names := make([]string, len(tasks))
	for i, t := range tasks {
		names[i] = t.name
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "(no tasks)"
	}
	return strings.Join(names, ", ")
}

// compare checks the replayed tasks of a superstep against the recorded
// ones: the same tasks, and for each the same writes channel by channel.
func (rp *replay) compare(rs recStep, got []engine.TaskView) error {
	rec := matchTasks(rs.tasks)
	gotBy := map[string][]engine.TaskView{}
	var keys []string
	for _, t := range got {
		key := t.Name
		if t.Push {
			key += " " + string(engine.MustEncode(t.Input))
		}
		if _, ok := gotBy[key]; !ok {
			keys = append(keys, key)
		}
		gotBy[key] = append(gotBy[key], t)
	}
	for key, rts := range rec {
		if len(gotBy[key]) < len(rts) {
			return rp.diverge("step %d, node %s: it ran %d times in the recording, %d in the replay", rs.step, rts[0].name, len(rts), len(gotBy[key]))
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		gts := gotBy[key]
		rts := rec[key]
		if len(gts) > len(rts) {
			return rp.diverge("step %d, node %s: it ran %d times in the replay, %d in the recording", rs.step, gts[0].Name, len(gts), len(rts))
		}
		for i, gt := range gts {
			rt := rts[i]
			if rs.kind == "open" && rt.interrupted && len(rt.writes) == 0 {
				continue // still waiting in the recording: no writes to compare
			}
			if gt.State == engine.TaskFailed || rt.err != "" {
				if (gt.State == engine.TaskFailed) != (rt.err != "") {
					return rp.diverge("step %d, node %s: recorded %s, replay %s", rs.step, gt.Name, taskOutcome(rt.err != ""), taskOutcome(gt.State == engine.TaskFailed))
				}
				continue
			}
			if err := rp.compareWrites(rs.step, gt.Name, rt.writes, gt.Writes); err != nil {
				return err
			}
		}
	}
	return nil
}

func taskOutcome(failed bool) string {
	if failed {
		return "a failure"
	}
	return "success"
}

// compareWrites compares two tasks' writes channel by channel; several
// writes to one channel (Sends, appends) compare as a list.
func (rp *replay) compareWrites(step int, node string, rec, got []engine.Write) error {
	group := func(ws []engine.Write) (map[string][]any, []string) {
		m := map[string][]any{}
		var order []string
		for _, w := range ws {
			if engine.IsControlWrite(w.Channel) {
				continue
			}
			if _, ok := m[w.Channel]; !ok {
				order = append(order, w.Channel)
			}
			m[w.Channel] = append(m[w.Channel], w.Value)
		}
		return m, order
	}
	rm, rorder := group(rec)
	gm, gorder := group(got)
	show := func(vs []any, ok bool) string {
		switch {
		case !ok:
			return "(no write)"
		case len(vs) == 1:
			return string(engine.MustEncode(vs[0]))
		}
		return string(engine.MustEncode(vs))
	}
	for _, ch := range append(rorder, gorder...) {
		rv, rok := rm[ch]
		gv, gok := gm[ch]
		if show(rv, rok) != show(gv, gok) {
			return rp.diverge("step %d, node %s, channel %s: recorded %s, replay %s", step, node, ch, show(rv, rok), show(gv, gok))
		}
	}
	return nil
}

// finish checks that the replay stops where the recording stopped.
func (rp *replay) finish(ctx context.Context, s *engine.Stepper) error {
	if len(rp.steps) > 0 && rp.steps[len(rp.steps)-1].kind == "open" {
		return nil
	}
	if s.Status() != engine.StatusRunning {
		return nil
	}
	step := s.View().Step
	if err := s.Next(ctx); err != nil {
		return rp.runFailed(step, err, nil)
	}
	if s.Status() == engine.StatusRunning {
		return rp.diverge("step %d: the recording ends here; the replay goes on to %s", step, strings.Join(s.View().Next(), ", "))
	}
	return nil
}
