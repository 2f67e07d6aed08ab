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
	"github.com/superstep/superstep/recording"
	"github.com/superstep/superstep/termtext"
)

// replayFlags are replay's options.
type replayFlags struct {
	graph, branch, start string
	from                 int
	fromSet              bool
	force, offline       bool
	rerun                []string
	recursionLimit       int
	lint                 lintMode
}

// check refuses flag combinations that mean nothing, before anything opens.
func (f replayFlags) check() error {
	switch {
	case f.fromSet && f.start != "":
		return usagef("--from and --checkpoint both name the start: give one")
	case f.offline && f.rerun == nil:
		return usagef("--offline goes with --rerun: without it every task executes")
	case f.recursionLimit < 1:
		return usagef("--recursion-limit %d: want a positive number of supersteps", f.recursionLimit)
	}
	return nil
}

func (a *App) replayCommand(g *globals) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay THREAD",
		Short: "Re-execute a recorded thread with the current graph and compare",
		Long: `Re-execute THREAD's recorded supersteps with the current code of --graph,
feeding the recorded inputs and the recorded human answers, on a new branch
of the thread (it stays in the database), and compare every superstep's
tasks and their writes, channel by channel, with the recorded ones.

The recorded branch is, by default, the thread's original run: what ran
before any fork, update_state or earlier replay, which all branch off it
later and are never compared with. --branch ID compares with the branch that
ends at checkpoint ID instead. Replay starts at the thread's first
checkpoint, or at --checkpoint ID, or at the checkpoint of step --from. A
replay with no superstep to compare is an error (exit 2), never a pass.

Nodes that call models or tools answer differently every time, so a plain
replay of their thread diverges at the first of them. --rerun NODE[,NODE...]
executes only the named nodes with the current code: every other task whose
input equals its recorded input takes its recorded writes (reported as
reused). A task whose input changed (a re-run node upstream wrote something
else) executes and is reported; with --offline the replay stops there
instead, naming the task, its step and the changed input keys, as it does
before any other task that --rerun does not name and the recording has no
writes of to reuse (a Send it did not make, a run that failed or still
waits), so no model or tool is called by surprise.
superstep exec runs one node alone.

Before running anything the graph's topology (nodes, triggers, edges,
channels) is compared with the one recorded for the thread; a different
topology is refused with exit code 2 and the differences named, unless
--force. Exit 0 when every superstep matches; at the first difference,
exit 1 naming the step, the node and the channel with both values.`,
		Example: `  superstep replay t1 --graph research
  superstep replay t1 --graph ./fixed-scenario.json --from 2
  superstep replay t1 --graph research --force --db ./bug.db
  superstep replay t1 --rerun synthesize --offline
  superstep replay t1 --branch 3f2a9c1e --checkpoint e2c3cb43`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.fromSet = cmd.Flags().Changed("from")
			if err := f.check(); err != nil {
				return err
			}
			thread := args[0]
			return a.writeThread(cmd, g, thread, func(ctx context.Context, st Store, list []*engine.CheckpointTuple) error {
				gr, limit, err := a.replayGraph(ctx, st, thread, f.graph, f.force, a.lintWith(f.lint))
				if err != nil {
					return err
				}
				if cmd.Flags().Changed("recursion-limit") || limit == 0 {
					limit = f.recursionLimit
				}
				rp, err := newReplay(ctx, gr, list, branchChoice{head: f.branch, start: f.start, from: f.from, fromSet: f.fromSet, thread: thread})
				if err != nil {
					return err
				}
				rp.out, rp.saver, rp.recursionLimit = a.Stdout, st, limit
				if err := rp.setRerun(f.rerun, f.offline); err != nil {
					return err
				}
				if !g.json {
					return rp.run(ctx)
				}
				rp.out = io.Discard
				err = rp.run(ctx)
				if werr := writeJSON(a.Stdout, rp.report); werr != nil && err == nil {
					err = werr
				}
				return err
			})
		},
	}
	cmd.Flags().StringVar(&f.graph, "graph", "", "graph to replay with (default: the one recorded for the thread)")
	cmd.Flags().IntVar(&f.from, "from", -1, "step of the recorded checkpoint to start from")
	cmd.Flags().StringVar(&f.branch, "branch", "", "compare with the branch that ends at this checkpoint (default: the thread's original run)")
	cmd.Flags().StringSliceVar(&f.rerun, "rerun", nil, "execute only these nodes (comma-separated); other tasks with unchanged input reuse their recorded writes")
	cmd.Flags().BoolVar(&f.offline, "offline", false, "with --rerun: stop at a task --rerun does not name that would execute (its input changed, or no recorded writes to reuse)")
	cmd.Flags().StringVar(&f.start, "checkpoint", "", "start from this recorded checkpoint (id or prefix)")
	cmd.Flags().BoolVar(&f.force, "force", false, "replay even if the topology changed")
	cmd.Flags().IntVar(&f.recursionLimit, "recursion-limit", engine.DefaultRecursionLimit, "the recursion limit the recording ran with; a scenario's own limit when it sets one")
	addLintFlag(cmd, &f.lint)
	return cmd
}

// replayGraph compiles the graph to replay thread with (--graph, else the
// recorded one) and checks it against the recorded topology. A thread
// recorded without a graph gets this one recorded.
//
// It also returns the scenario's recursion limit (0 for none): a run
// without --recursion-limit ran with it, and a subgraph that reached it
// failed there, so the replay must run with it too.
func (a *App) replayGraph(ctx context.Context, st Store, thread, graphFlag string, force bool, lint linting) (*engine.Graph, int, error) {
	fp, err := st.Fingerprint(ctx, thread)
	if err != nil {
		return nil, 0, storeError(err, "reading thread %q", thread)
	}
	rec, recorded := decodeGraphRecord(fp)
	fromRecord := graphFlag == ""
	if fromRecord {
		if rec.Graph == "" {
			return nil, 0, noRecordedGraph(thread)
		}
		graphFlag = rec.Graph
	}
	res, err := resolveGraph(ctx, graphFlag, lint, engine.WithSaver(st))
	if lr := (*lintRefusal)(nil); errors.As(err, &lr) {
		return nil, 0, err // the file's mistakes, each at its place
	}
	if err != nil && fromRecord {
		// Not a graph the user named: say whose it is, as exec does.
		return nil, 0, unresolvedRecordedGraph(thread, rec.Graph, err)
	}
	if err != nil {
		return nil, 0, err
	}
	gr := res.g
	if recorded {
		return gr, res.recursionLimit, checkTopology(ctx, st, thread, gr, force, a.warn)
	}
	if err := checkUnrecorded(ctx, st, thread, gr, force, a.warn); err != nil {
		return nil, 0, err
	}
	a.warn(fmt.Sprintf("thread %q has no recorded topology: cannot check that the graph is the same", thread))
	// From now on the thread names the graph it was replayed with.
	if err := st.SetFingerprint(ctx, thread, newGraphRecord(gr, graphFlag).encode()); err != nil {
		return nil, 0, storeError(err, "recording the graph of thread %q", thread)
	}
	return gr, res.recursionLimit, nil
}

// setRerun turns on --rerun for nodes (nil: a plain replay).
func (rp *replay) setRerun(nodes []string, offline bool) error {
	if nodes == nil {
		return nil
	}
	rp.rerun, rp.matched, rp.reused, rp.offline = map[string]bool{}, map[string]bool{}, map[string]bool{}, offline
	for _, n := range nodes {
		if !containsNode(rp.g, n) {
			return usagef("--rerun: %s", noNode(rp.g, n))
		}
		rp.rerun[n] = true
	}
	return nil
}

// recStep is one recorded event on the branch: a superstep (its tasks,
// matched with the replay's by the recording package), a new input, or
// the open superstep of the latest checkpoint.
type recStep struct {
	kind  string // "loop", "input", "open"
	step  int    // the recorded step number
	rec   *recording.Step
	input any
}

type replay struct {
	g       *engine.Graph
	thread  string
	startID string
	steps   []recStep
	out     io.Writer
	// answered counts the answers fed to each replayed task, by task id.
	answered map[string]int
	// cutOff: the recording ends with tasks still planned (it was killed,
	// stopped at a breakpoint or failed), so the replay stops there too
	// instead of running on.
	cutOff bool
	// rerun names the nodes that execute with the current code when set
	// (--rerun): every other task whose input equals the recording's takes
	// its recorded writes. offline stops at a task that would execute
	// because its input changed.
	rerun   map[string]bool
	offline bool
	saver   engine.Saver
	// recursionLimit is the limit each run of the replay takes, as the
	// recording's runs did.
	recursionLimit int
	// matched marks the replay checkpoints whose plan was matched with
	// the recording, and notes says per task what happened (for the log).
	matched map[string]bool
	notes   []string
	// reused marks the tasks that took their recorded writes.
	reused map[string]bool
	// differences are the write differences a --rerun replay went past.
	differences []string
	// lastStep is the step of the recording's last checkpoint, and
	// plannedNext the tasks the recording planned from it (sorted names).
	lastStep    int
	plannedNext []string
	// failedAgain is the failure the replay reproduced, as the recording
	// failed ("" if none): the verdict says so, for reproducing a failure
	// is what a replay of a failed thread is for.
	failedAgain string
	// wentOn marks the recorded steps whose failure the replay reproduced
	// and went on past, running the superstep again as the recording's run
	// did (recording.Step.WentOnAfterFailure): once, for the recording
	// keeps one failure of a task before the attempt that ran.
	wentOn map[int]bool
	// report is what the replay found, for --json.
	report replayReport
}

// branchChoice says which recorded branch a replay compares with and
// where it starts: by default the thread's original run from its input
// checkpoint; --branch names the branch's last checkpoint, --checkpoint or
// --from the start.
type branchChoice struct {
	head     string // --branch: checkpoint reference, "" for the original run
	start    string // --checkpoint: checkpoint reference
	from     int    // --from: step, when fromSet
	fromSet  bool
	thread   string
	describe string // how the branch was chosen, for messages
}

// newReplay reads the chosen branch and the supersteps on it after the
// start checkpoint. A branch with nothing to compare is an input error:
// a replay that compared nothing must not pass.
func newReplay(ctx context.Context, g *engine.Graph, list []*engine.CheckpointTuple, bc branchChoice) (*replay, error) {
	chain, err := chooseBranch(ctx, list, &bc)
	if err != nil {
		return nil, err
	}
	thread := bc.thread
	start := 0
	switch {
	case bc.start != "":
		t, err := findCheckpoint(ctx, chain, thread, bc.start)
		if err != nil {
			return nil, usagef("--checkpoint %s is not on %s: %v", bc.start, bc.describe, err)
		}
		start = slices.Index(chain, t)
	case bc.fromSet:
		start = slices.IndexFunc(chain, func(t *engine.CheckpointTuple) bool {
			return t.Metadata.Step == bc.from && t.Metadata.Source != engine.SourceFork
		})
		if start < 0 {
			return nil, usagef("no checkpoint at step %d on %s (steps %d to %d)", bc.from, bc.describe, chain[0].Metadata.Step, chain[len(chain)-1].Metadata.Step)
		}
	}
	rp := &replay{g: g, thread: thread, startID: chain[start].Checkpoint.ID, answered: map[string]int{}, wentOn: map[int]bool{}}
	for i := start + 1; i < len(chain); i++ {
		t, parent := chain[i], chain[i-1]
		switch t.Metadata.Source {
		case engine.SourceLoop:
			rec, err := recordedStep(ctx, g, parent)
			if err != nil {
				return nil, err
			}
			rp.steps = append(rp.steps, recStep{kind: "loop", step: t.Metadata.Step, rec: rec})
		case engine.SourceInput:
			rp.steps = append(rp.steps, recStep{kind: "input", step: t.Metadata.Step, input: t.Checkpoint.ChannelValues[engine.Start]})
		case engine.SourceFork:
			// A fork copies its parent's state: nothing ran.
		default:
			return nil, usagef("thread %q: checkpoint %s at step %d on %s came from update_state, which replay does not re-apply: start after it with --checkpoint %s", thread, engine.ShortID(t.Checkpoint.ID), t.Metadata.Step, bc.describe, engine.ShortID(t.Checkpoint.ID))
		}
	}
	last := chain[len(chain)-1]
	rec, err := recordedStep(ctx, g, last)
	if err != nil {
		return nil, err
	}
	rec.Open = true
	rp.lastStep, rp.cutOff, rp.plannedNext = last.Metadata.Step, len(rec.Tasks) > 0, rec.Names()
	if rec.Ran() {
		rp.steps = append(rp.steps, recStep{kind: "open", step: last.Metadata.TaskStep(), rec: rec})
	}
	if !slices.ContainsFunc(rp.steps, func(r recStep) bool { return r.kind != "input" }) {
		return nil, usagef("nothing to replay: %s of thread %q has no superstep after checkpoint %s (step %d); choose an earlier start (--from, --checkpoint) or another branch (--branch)",
			bc.describe, thread, engine.ShortID(chain[start].Checkpoint.ID), chain[start].Metadata.Step)
	}
	return rp, nil
}

// chooseBranch returns the branch to compare with, oldest checkpoint first:
// the root to --branch's checkpoint, or else the thread's original run. The
// original run is what ran before anyone travelled in time: from the root,
// each checkpoint's oldest child that a run made (source input or loop);
// forks, update_state and replay branches are all made later. With
// --checkpoint and no --branch, the branch goes through that checkpoint.
func chooseBranch(ctx context.Context, list []*engine.CheckpointTuple, bc *branchChoice) ([]*engine.CheckpointTuple, error) {
	byID := map[string]*engine.CheckpointTuple{}
	heads := make([]engine.CheckpointHead, len(list))
	var root *engine.CheckpointTuple
	for i, t := range list {
		byID[t.Checkpoint.ID] = t
		heads[i] = engine.HeadOf(t)
	}
	for _, t := range list {
		switch {
		case t.ParentID == "":
			if root == nil || t.Checkpoint.ID < root.Checkpoint.ID {
				root = t
			}
		case byID[t.ParentID] == nil:
			return nil, failf("thread %q: checkpoint %s names parent %s, which is not stored", bc.thread, t.Checkpoint.ID, t.ParentID)
		}
	}
	ancestors := func(t *engine.CheckpointTuple) []*engine.CheckpointTuple {
		var chain []*engine.CheckpointTuple
		for ; t != nil; t = byID[t.ParentID] {
			chain = append(chain, t)
		}
		slices.Reverse(chain)
		return chain
	}
	// originalFrom follows the run's own children down from chain's end
	// (recording.OriginalRun).
	originalFrom := func(chain []*engine.CheckpointTuple) []*engine.CheckpointTuple {
		for _, id := range recording.OriginalRun(heads, chain[len(chain)-1].Checkpoint.ID)[1:] {
			chain = append(chain, byID[id])
		}
		return chain
	}
	switch {
	case bc.head != "":
		t, err := findCheckpoint(ctx, list, bc.thread, bc.head)
		if err != nil {
			return nil, err
		}
		bc.describe = "the branch ending at " + engine.ShortID(t.Checkpoint.ID)
		return ancestors(t), nil
	case bc.start != "":
		t, err := findCheckpoint(ctx, list, bc.thread, bc.start)
		if err != nil {
			return nil, err
		}
		bc.describe = "the branch through " + engine.ShortID(t.Checkpoint.ID)
		return originalFrom(ancestors(t)), nil
	case root == nil:
		return nil, failf("thread %q has no root checkpoint", bc.thread)
	}
	bc.describe = "the recorded run"
	return originalFrom([]*engine.CheckpointTuple{root}), nil
}

// recordedStep reads the superstep planned from checkpoint t and what each
// of its tasks saved (recording.Read). Names come from planning t with the
// graph: with an unchanged topology that is the plan the recording ran.
func recordedStep(ctx context.Context, g *engine.Graph, t *engine.CheckpointTuple) (*recording.Step, error) {
	snap, err := g.SnapshotOf(t, false)
	if err != nil {
		return nil, failf("planning recorded checkpoint %s: %v", t.Checkpoint.ID, err)
	}
	rec, err := recording.Read(ctx, g, snap)
	if err != nil {
		return nil, failf("%v", err)
	}
	return rec, nil
}

// divergence is the first difference found; it ends the replay with exit 1.
type divergence struct{ msg string }

func (d *divergence) Error() string { return d.msg }

func (rp *replay) diverge(format string, args ...any) error {
	return &divergence{msg: fmt.Sprintf(format, args...)}
}

// replayReport is what a replay found: printed as text as it goes, and as
// one document with --json.
type replayReport struct {
	Thread   string       `json:"thread"`
	Start    string       `json:"start"`
	Fork     string       `json:"fork,omitempty"`
	Head     string       `json:"head,omitempty"`
	Compared int          `json:"supersteps_compared"`
	Result   string       `json:"result"` // match, diverged, stopped or error
	Message  string       `json:"message,omitempty"`
	Steps    []stepReport `json:"steps"`
}

type stepReport struct {
	Step  int      `json:"step"`
	Kind  string   `json:"kind"` // superstep or input
	Tasks []string `json:"tasks,omitempty"`
	Match bool     `json:"match"`
	Notes []string `json:"notes,omitempty"`
}

func (rp *replay) run(ctx context.Context) error {
	rep := &rp.report
	rep.Thread, rep.Start, rep.Result, rep.Steps = rp.thread, rp.startID, "error", []stepReport{}
	from, err := recording.RunFrom(ctx, rp.g, rp.thread, rp.startID)
	if err != nil {
		rep.Message = err.Error()
		return failf("starting the replay of thread %q from %s: %v", rp.thread, rp.startID, err)
	}
	s, err := rp.g.Start(ctx, nil, engine.OnThread(rp.thread), engine.FromCheckpoint(from), engine.WithRecursionLimit(rp.recursionLimit), rp.tag())
	if err != nil {
		rep.Message = err.Error()
		return failf("starting the replay of thread %q from %s: %v", rp.thread, rp.startID, err)
	}
	rep.Fork = s.View().CheckpointID
	fmt.Fprintf(rp.out, "replaying thread %s from checkpoint %s on a new branch (fork %s)\n", termtext.Name(rp.thread), termtext.Name(engine.ShortID(rp.startID)), engine.ShortID(rep.Fork))
	end := func(result, msg string, err error) error {
		rep.Result, rep.Message, rep.Head = result, msg, s.View().CheckpointID
		switch result {
		case "diverged":
			fmt.Fprintf(rp.out, "DIVERGED at %s\nthe replayed branch ends at checkpoint %s\n", msg, engine.ShortID(rep.Head))
		case "stopped":
			// Where the branch stopped is where a run can go on from.
			fmt.Fprintf(rp.out, "STOPPED at %s\nthe replayed branch ends at checkpoint %s\n", msg, engine.ShortID(rep.Head))
		}
		return err
	}
	for _, rs := range rp.steps {
		var err error
		s, err = rp.replayStep(ctx, s, rs)
		var d *divergence
		var stop *offlineStop
		switch {
		case errors.As(err, &d):
			return end("diverged", d.msg, failf("replay of thread %q diverged at %s", rp.thread, d.msg))
		case errors.As(err, &stop):
			return end("stopped", stop.msg, failf("replay of thread %q stopped at %s", rp.thread, stop.msg))
		case err != nil:
			return end("error", err.Error(), err)
		}
	}
	if err := rp.finish(ctx, s); err != nil {
		var d *divergence
		if errors.As(err, &d) {
			return end("diverged", d.msg, failf("replay of thread %q diverged at %s", rp.thread, d.msg))
		}
		return end("error", err.Error(), err)
	}
	if len(rp.differences) > 0 {
		msg := rp.differences[0]
		if n := len(rp.differences) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more differences, above)", n)
		}
		return end("diverged", msg, failf("replay of thread %q diverged at %s", rp.thread, msg))
	}
	msg := fmt.Sprintf("%d supersteps, the same tasks and writes", rep.Compared)
	if rp.failedAgain != "" {
		msg += fmt.Sprintf("; it fails as the recording did (%s)", rp.failedAgain)
	}
	_ = end("match", msg, nil)
	fmt.Fprintf(rp.out, "replay matches: %s; new branch head %s\n", msg, engine.ShortID(rep.Head))
	return nil
}

// tag marks every checkpoint the replay writes as a replay's, of the
// recorded checkpoint it started from (recording.MetaReplay): its branch
// is then told from a person's forks in the tree and history, and a run
// that goes on from it says so.
func (rp *replay) tag() engine.RunOption {
	return engine.WithMetadata(recording.ReplayMetadata(rp.startID))
}

// continueRun restarts a stopped replay at the head of its branch: after a
// static breakpoint (nil input) or an interrupt (a resume command).
func (rp *replay) continueRun(ctx context.Context, input any) (*engine.Stepper, error) {
	s, err := rp.g.Start(ctx, input, engine.OnThread(rp.thread), engine.WithRecursionLimit(rp.recursionLimit), rp.tag())
	if err != nil {
		return nil, failf("continuing the replay: %v", err)
	}
	return s, nil
}

func (rp *replay) newInput(ctx context.Context, s *engine.Stepper, rs recStep) (*engine.Stepper, error) {
	if s.Status() == engine.StatusRunning {
		// The recorded run had ended before this input; the replay must too.
		if err := s.Next(ctx); err != nil {
			return s, rp.runFailed(rs.step, err, nil, nil)
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

// replayStep replays one recorded step from s, an input fed again or a
// superstep compared with the recording, prints its line and notes, and
// adds its report; the error says why the replay cannot go on (a
// divergence, an offline stop, a failure).
func (rp *replay) replayStep(ctx context.Context, s *engine.Stepper, rs recStep) (*engine.Stepper, error) {
	rep := &rp.report
	var err error
	rp.notes = nil
	sr := stepReport{Step: rs.step, Kind: "superstep"}
	switch rs.kind {
	case "input":
		sr.Kind = "input"
		if s, err = rp.newInput(ctx, s, rs); err == nil {
			sr.Match = true
			fmt.Fprintf(rp.out, "input at step %d: fed the recorded input\n", rs.step)
		}
	default:
		for _, t := range rs.rec.Tasks {
			sr.Tasks = append(sr.Tasks, t.Name)
		}
		s, err = rp.superstep(ctx, s, rs)
		if err == nil {
			rep.Compared++
			sr.Match = true
			verdict := "match"
			if slices.ContainsFunc(rp.notes, func(n string) bool { return strings.Contains(n, " DIFFERS: ") }) {
				verdict, sr.Match = "differ", false
			}
			fmt.Fprintf(rp.out, "step %d: %s %s\n", rs.step, taskList(rs.rec), verdict)
		}
	}
	sr.Notes = rp.notes
	rep.Steps = append(rep.Steps, sr)
	if err != nil && rs.kind != "input" && len(rp.notes) > 0 {
		// The notes are this step's: head them, as a step that matched is.
		fmt.Fprintf(rp.out, "step %d: %s\n", rs.step, taskList(rs.rec))
	}
	for _, n := range rp.notes {
		fmt.Fprintf(rp.out, "  %s\n", n)
	}
	return s, err
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
			again := false
			if s, again, err = rp.failedStep(ctx, s, rs, err); !again {
				return s, err
			}
			continue
		}
		v := s.View()
		switch {
		case s.Status() == engine.StatusDone:
			return s, rp.diverge("step %d: the recording ran %s; the replay finished instead", rs.step, taskList(rs.rec))
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
		case v.Phase == engine.PhasePlanned && rp.rerun != nil && !rp.matched[v.CheckpointID]:
			var err error
			if s, err = rp.reuseRecorded(ctx, s, rs, v); err != nil {
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
				again := false
				if s, again, err = rp.failedStep(ctx, s, rs, err); !again {
					return s, err
				}
				continue
			}
			return s, nil
		}
	}
}

// errRunAgain says that a failed step is run again (see runFailed).
var errRunAgain = errors.New("the recording's run went on past this failure")

// failedStep handles a failure of the replay in recorded step rs: the
// verdict of runFailed, or, when the recording's run went on past the same
// failure, a new run from the replay's head that runs the superstep again
// (again) as LangGraph's invoke(null) does: finished tasks keep their
// writes.
func (rp *replay) failedStep(ctx context.Context, s *engine.Stepper, rs recStep, err error) (_ *engine.Stepper, again bool, _ error) {
	if err = rp.runFailed(rs.step, err, rs.rec, s); !errors.Is(err, errRunAgain) {
		return s, false, err
	}
	s, err = rp.continueRun(ctx, nil)
	return s, err == nil, err
}

// answers builds the resume map for the replay's pending interrupts from the
// recorded answers (recording.Step.Answers). It returns nil when the
// recording has no answer for them either (it ended waiting at the same
// place).
func (rp *replay) answers(rs recStep, v *engine.StepView) (engine.ResumeMap, error) {
	o := rs.rec.Answers(v, func(t engine.TaskView) int { return rp.answered[t.ID] })
	if o.Diverged != nil {
		return nil, rp.diverge("step %d, %v", rs.step, o.Diverged)
	}
	for id := range o.ByTask {
		rp.answered[id]++
	}
	if len(o.Resume) == 0 && o.Waiting > 0 {
		return nil, nil
	}
	return o.Resume, nil
}

// runFailed turns a failure of the replayed run into a verdict: a match when
// the recording failed the same way (recording.Step.SameFailure), errRunAgain
// the first time it fails as the recording's run did before that run went on
// past the failure (recording.Step.WentOnAfterFailure), a divergence
// otherwise.
func (rp *replay) runFailed(step int, err error, rec *recording.Step, s *engine.Stepper) error {
	var ne *engine.NodeError
	if errors.As(engine.FirstFailure(err), &ne) {
		var tasks []engine.TaskView
		if s != nil {
			tasks = s.View().Tasks
		}
		if rec != nil && rec.SameFailure(ne.Node, tasks) {
			rp.failedAgain = fmt.Sprintf("node %s: %v", ne.Node, ne.Err)
			rp.notes = append(rp.notes, fmt.Sprintf("%s failed, as in the recording: %v", ne.Node, ne.Err))
			return nil
		}
		if rec != nil && rec.WentOnAfterFailure(ne.Node, tasks) {
			if rp.wentOn[step] {
				return rp.diverge("step %d, node %s: the replay failed again: %v; the recording's run failed here once, then ran", step, ne.Node, ne.Err)
			}
			rp.wentOn[step] = true
			rp.notes = append(rp.notes, fmt.Sprintf("%s failed, as the recording's run did before it went on past the failure: %v; running the step again, as it did", ne.Node, ne.Err))
			return errRunAgain
		}
		return rp.diverge("step %d, node %s: the replay failed: %v", step, ne.Node, ne.Err)
	}
	return failf("replay of thread %q failed at step %d: %v", rp.thread, step, err)
}

func taskList(rec *recording.Step) string {
	if len(rec.Tasks) == 0 {
		return "(no tasks)"
	}
	return strings.Join(rec.Names(), ", ")
}

// compare checks the replayed tasks of a superstep against the recorded
// ones (recording.Step.Pair and Judge): the same tasks, and for each the
// same outcome and writes channel by channel.
func (rp *replay) compare(rs recStep, got []engine.TaskView) error {
	p := rs.rec.Pair(got)
	// A Send pairs by its argument too (recording.Task.Key): name the
	// argument that found no match, and count the node's Sends, not the
	// Sends of that one argument, which are one on one side and none on
	// the other.
	count := func(name string) (rec, replay int) {
		for _, t := range rs.rec.Tasks {
			if t.Name == name {
				rec++
			}
		}
		for _, t := range got {
			if !t.Call && t.Name == name {
				replay++
			}
		}
		return rec, replay
	}
	if len(p.Missing) > 0 {
		m := p.Missing[0]
		r, g := count(m.Name)
		if m.Push {
			return rp.diverge("step %d, node %s: the recording's Send with argument %s has no match in the replay (%s recorded, %d replayed)", rs.step, m.Name, clip(string(engine.MustEncode(m.Input)), 200), sends(r), g)
		}
		return rp.diverge("step %d, node %s: it ran %s in the recording, %s in the replay", rs.step, m.Name, times(r), times(g))
	}
	if len(p.Extra) > 0 {
		x := p.Extra[0]
		r, g := count(x.Name)
		if x.Push {
			return rp.diverge("step %d, node %s: the replay's Send with argument %s has no match in the recording (%s recorded, %d replayed)", rs.step, x.Name, clip(string(engine.MustEncode(x.Input)), 200), sends(r), g)
		}
		return rp.diverge("step %d, node %s: it ran %s in the replay, %s in the recording", rs.step, x.Name, times(g), times(r))
	}
	var calls []engine.TaskView
	for _, t := range got {
		if t.Call {
			calls = append(calls, t)
		}
	}
	for _, t := range sortedTasks(got) {
		var v recording.Verdict
		switch {
		case rp.reused[t.ID]:
			continue // it took the recorded writes: nothing to compare
		case t.Call:
			// Its result is part of its caller's writes, which are
			// compared; its failure is compared with the recorded call's.
			v = rs.rec.JudgeCall(t)
		default:
			v = rs.rec.Judge(p.Of[t.ID], t, calls)
		}
		switch v.Kind {
		case recording.FailsNow:
			return rp.diverge("step %d, node %s: recorded success, replay a failure", rs.step, t.Name)
		case recording.RecordingFailed:
			return rp.diverge("step %d, node %s: recorded a failure, replay success", rs.step, t.Name)
		case recording.WritesDiffer:
			if err := rp.writesDiffer(rs.step, t.Name, v.Diff[0]); err != nil {
				return err
			}
		case recording.Same:
			if r := v.Recorded; r != nil && r.FailedFirst != "" && !r.CancelledFirst && !rp.wentOn[rs.step] {
				// Not a difference in what the step wrote, but the one a
				// fix of a failure makes: worth a line.
				rp.notes = append(rp.notes, fmt.Sprintf("%s ran at once; the recording's run failed here first (%s), and ran when run again", t.Name, oneLine(r.FailedFirst)))
			}
		}
	}
	return nil
}

// sortedTasks are tasks in Key order, as the divergences are looked for.
func sortedTasks(tasks []engine.TaskView) []engine.TaskView {
	out := slices.Clone(tasks)
	slices.SortStableFunc(out, func(a, b engine.TaskView) int { return strings.Compare(recording.KeyOf(a), recording.KeyOf(b)) })
	return out
}

// writesDiffer reports the first channel a task wrote differently: a
// divergence, or with --rerun a difference the replay goes on past.
func (rp *replay) writesDiffer(step int, node string, d engine.WriteDiff) error {
	msg := fmt.Sprintf("step %d, node %s, channel %s: recorded %s, replay %s", step, node, d.Channel, writeValues(d.Recorded, d.HasRecorded), writeValues(d.Got, d.HasGot))
	if rp.rerun != nil {
		// With --rerun the replay goes on past different writes, so that
		// their effect downstream shows: which tasks' input changed.
		rp.differences = append(rp.differences, msg)
		rp.notes = append(rp.notes, node+" DIFFERS: "+msg)
		return nil
	}
	return rp.diverge("%s", msg)
}

// finish checks that the replay stops where the recording stopped. A
// recording that was cut off with tasks planned (killed, stopped at a
// breakpoint) is compared up to its plan: the replay must plan the same
// tasks, and then stops too.
func (rp *replay) finish(ctx context.Context, s *engine.Stepper) error {
	if len(rp.steps) > 0 && rp.steps[len(rp.steps)-1].kind == "open" {
		return nil
	}
	if s.Status() != engine.StatusRunning {
		if rp.cutOff {
			// A run can end with tasks planned from its last checkpoint
			// (a deferred node after a breakpoint's resume, as
			// LangGraph's): the replay's last checkpoint must plan the
			// same.
			next, err := rp.headPlan(ctx, s)
			if err != nil {
				return err
			}
			return rp.comparePlan(rp.lastStep+1, next, false)
		}
		return nil
	}
	step := rp.lastStep + 1
	var limitErr *engine.GraphRecursionError
	err := s.Next(ctx)
	switch {
	case errors.As(err, &limitErr) && rp.cutOff:
		// The recording stopped here with tasks planned: reaching the
		// recursion limit (the one the recording ran with) stops a run
		// there too, before it runs what it planned; those are what the
		// replay's last checkpoint plans.
		next, err := rp.headPlan(ctx, s)
		if err != nil {
			return err
		}
		return rp.comparePlan(step, next, false)
	case err != nil:
		return rp.runFailed(step, err, nil, nil)
	}
	if s.Status() != engine.StatusRunning && rp.cutOff {
		next, err := rp.headPlan(ctx, s)
		if err != nil {
			return err
		}
		return rp.comparePlan(step, next, false)
	}
	next := s.View().Next()
	slices.Sort(next)
	return rp.comparePlan(step, next, s.Status() == engine.StatusRunning)
}

// headPlan is what the replay's last checkpoint plans, as the recording's
// last checkpoint's plan is read.
func (rp *replay) headPlan(ctx context.Context, s *engine.Stepper) ([]string, error) {
	id := s.View().CheckpointID
	snap, err := rp.g.GetState(ctx, engine.Config{ThreadID: rp.thread, CheckpointID: id})
	if err != nil {
		return nil, failf("reading the replay's checkpoint %s: %v", engine.ShortID(id), err)
	}
	return snap.Next, nil
}

// comparePlan compares the tasks the replay planned at step, after the
// recording's last checkpoint, with the recording's end: the same tasks
// planned when it was cut off there, none when it ended (running says the
// replay goes on).
func (rp *replay) comparePlan(step int, next []string, running bool) error {
	switch {
	case running && !rp.cutOff:
		return rp.diverge("step %d: the recording ends here; the replay goes on to %s", step, strings.Join(next, ", "))
	case rp.cutOff && !slices.Equal(next, rp.plannedNext):
		return rp.diverge("step %d: the recording planned %s; the replay planned %s", step, strings.Join(rp.plannedNext, ", "), orNone(strings.Join(next, ", ")))
	case rp.cutOff:
		fmt.Fprintf(rp.out, "step %d: %s planned, as in the recording, which stops here before they ran\n", step, strings.Join(next, ", "))
	}
	return nil
}

// reuseRecorded is --rerun's step: of the tasks just planned on the replay
// branch, those of nodes not named by --rerun whose input equals their
// recorded input take their recorded writes. They are saved on the replay
// checkpoint as the writes of finished tasks, and the run restarts from it,
// so the engine reuses them as it reuses a finished task's writes when a
// superstep resumes (LangGraph: pregel/_loop.py:663, :736
// _reapply_writes_to_succeeded_nodes; its node cache fills a task's writes
// without running it the same way, _loop.py:1549 match_cached_writes);
// only the other tasks execute. A task whose input
// changed executes, or with --offline stops the replay, naming it.
func (rp *replay) reuseRecorded(ctx context.Context, s *engine.Stepper, rs recStep, v *engine.StepView) (*engine.Stepper, error) {
	rp.matched[v.CheckpointID] = true
	pairs := rs.rec.Pair(v.Tasks)
	cfg := engine.Config{ThreadID: rp.thread, CheckpointID: v.CheckpointID}
	reused := 0
	for _, t := range v.Tasks {
		r := pairs.Of[t.ID]
		switch {
		case t.Name == engine.Start:
			continue // the input, not a node of the user's
		case rp.rerun[t.Name]:
			rp.notes = append(rp.notes, t.Name+" ran (--rerun)")
		case r == nil:
			if rp.offline {
				return s, offlineStopAt(rs.step, t, "the recording has no such task"+sendArgument(t))
			}
			rp.notes = append(rp.notes, t.Name+" ran (no such task in the recording)")
		case !r.Saved || r.Err != "" || r.Interrupted && len(r.Writes) == 0:
			if rp.offline {
				return s, offlineStopAt(rs.step, t, "the recording has no finished writes for it ("+unfinished(r)+")")
			}
			rp.notes = append(rp.notes, t.Name+" ran (the recording has no finished writes for it)")
		default:
			// The same input, up to the ids each run minted for its
			// messages, takes the recorded writes, in the replay's ids.
			ids, same := engine.SameInput(r.Input, t.Input)
			if !same {
				keys := changedKeys(r.Input, t.Input)
				if rp.offline {
					return s, offlineStopAt(rs.step, t, "its input differs from the recording in "+keys)
				}
				rp.notes = append(rp.notes, fmt.Sprintf("%s ran (input changed: %s)", t.Name, keys))
				continue
			}
			writes := ids.Rename(r.Writes)
			if len(writes) == 0 {
				writes = []engine.Write{{Channel: engine.NoWritesChannel}}
			}
			if err := rp.saver.PutWrites(ctx, cfg, t.ID, writes); err != nil {
				return s, failf("saving the recorded writes of %s: %v", t.Name, err)
			}
			rp.reused[t.ID] = true
			reused++
			rp.notes = append(rp.notes, t.Name+" reused (input equal to the recording)")
		}
	}
	if reused == 0 {
		return s, nil
	}
	return rp.continueRun(ctx, nil)
}

// times says how many times a task ran, in words.
func times(n int) string {
	switch n {
	case 0:
		return "not"
	case 1:
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// sends counts Sends in words.
func sends(n int) string {
	if n == 1 {
		return "1 Send"
	}
	return fmt.Sprintf("%d Sends", n)
}

// offlineStop ends a --offline replay before a task that would run with
// the current code although --rerun does not name it: its input changed,
// the recording has no such task, or no finished writes for it. Each would
// call what the node calls (a model, a tool) by surprise.
type offlineStop struct{ msg string }

// offlineStopAt stops before task t of step, saying why it would run.
func offlineStopAt(step int, t engine.TaskView, why string) *offlineStop {
	return &offlineStop{msg: fmt.Sprintf("step %d, task %s: %s, so it would run with the current code; --offline stops here (drop --offline to run it, or add it to --rerun)", step, t.Name, why)}
}

// sendArgument names a Send's argument, for a task the recording has not.
func sendArgument(t engine.TaskView) string {
	if !t.Push {
		return ""
	}
	return " (a Send with argument " + clip(string(engine.MustEncode(t.Input)), 200) + ")"
}

// unfinished says why the recording has no finished writes for r.
func unfinished(r *recording.Task) string {
	switch {
	case r.Err != "":
		return "it failed: " + oneLine(r.Err)
	case r.Interrupted:
		return "it waits on an interrupt"
	}
	return "its run was cut off"
}

func (o *offlineStop) Error() string { return o.msg }

// changedKeys names the top-level keys where two task inputs differ, other
// than in the ids each run minted for its messages (engine.SameInput).
func changedKeys(rec, got any) string {
	rm, rok := rec.(map[string]any)
	gm, gok := got.(map[string]any)
	if !rok || !gok {
		return "its value"
	}
	var keys []string
	for k := range rm {
		if _, same := engine.SameInput(rm[k], gm[k]); !same {
			keys = append(keys, k)
		}
	}
	for k := range gm {
		if _, ok := rm[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return orNone(strings.Join(keys, ", "))
}
