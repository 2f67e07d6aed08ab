package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
	"github.com/superstep/superstep/termtext"
)

func (a *App) execCommand(g *globals) *cobra.Command {
	var ckpt, graphFlag string
	var force bool
	var recursionLimit int
	var lint lintMode
	cmd := &cobra.Command{
		Use:   "exec THREAD NODE",
		Short: "Run one node again against its recorded input; write nothing",
		Long: `Run NODE once more with the current code against the input a recorded
checkpoint gave it, answering its interrupts with the recorded answers, and
print its writes and how they differ from the recorded ones. Nothing is
written to the thread; no other node runs.

The checkpoint is --checkpoint (an id or any unique prefix), else the latest
checkpoint of the thread's original run that planned NODE. A node started by
several Sends there runs once per Send.

The outcome is compared before the writes: a node that fails now, no
longer fails, asks another question than the one the recording waits on,
asks one the recording has no answer for, or no longer asks, differs from
the recording even when neither run wrote anything. A node that asks the
question the recording still waits on ran as recorded.

Exit 0 when the node ran as recorded (or the recording was cut off before
it finished, so there is nothing to compare), 1 when it differs or fails,
2 for a usage error.`,
		Example: `  superstep exec t1 synthesize
  superstep exec t1 plan_queries --checkpoint e2c3cb43 --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			thread, node := args[0], args[1]
			return a.readThread(cmd, g, thread, func(ctx context.Context, st Store, list []*engine.CheckpointTuple) error {
				gr, err := requireGraph(ctx, st, thread, graphFlag, a.lintWith(lint))
				if err != nil {
					return err
				}
				if !containsNode(gr, node) {
					return usagef("%s%s", noNode(gr, node), inSubgraph(gr, node))
				}
				if err := checkTopology(ctx, st, thread, gr, force, a.warn); err != nil {
					return err
				}
				t, ids, err := execTarget(ctx, gr, list, thread, node, ckpt)
				if err != nil {
					return err
				}
				limit := recordedLimit(ctx, st, thread, graphFlag)
				if cmd.Flags().Changed("recursion-limit") || limit == 0 {
					limit = recursionLimit
				}
				if limit < 1 {
					return usagef("--recursion-limit %d: want a positive number of supersteps", limit)
				}
				return a.execTasks(ctx, gr, t, ids, g.json, engine.WithRecursionLimit(limit))
			})
		},
	}
	cmd.Flags().StringVar(&ckpt, "checkpoint", "", "checkpoint that planned NODE (default: the latest on the original run)")
	cmd.Flags().StringVar(&graphFlag, "graph", "", "graph with the current code (default: the one recorded for the thread)")
	cmd.Flags().BoolVar(&force, "force", false, "run even if the topology changed incompatibly")
	cmd.Flags().IntVar(&recursionLimit, "recursion-limit", engine.DefaultRecursionLimit, "the recursion limit the recording ran with, which a subgraph node's subgraph inherits; a scenario's own limit when it sets one")
	addLintFlag(cmd, &lint)
	return cmd
}

// execTarget finds the checkpoint and the ids of NODE's tasks planned from it.
func execTarget(ctx context.Context, gr *engine.Graph, list []*engine.CheckpointTuple, thread, node, ref string) (*engine.CheckpointTuple, []string, error) {
	planned := func(t *engine.CheckpointTuple) ([]string, []string) {
		snap, err := gr.SnapshotOf(t, false)
		if err != nil {
			return nil, nil
		}
		var ids, names []string
		for _, tk := range snap.Tasks {
			names = append(names, tk.Name)
			if tk.Name == node {
				ids = append(ids, tk.ID)
			}
		}
		return ids, names
	}
	if ref != "" {
		t, err := findCheckpoint(ctx, list, thread, ref)
		if err != nil {
			return nil, nil, err
		}
		ids, names := planned(t)
		if len(ids) == 0 {
			return nil, nil, usagef("checkpoint %s of thread %q plans no task of node %s (it plans %s)", engine.ShortID(t.Checkpoint.ID), thread, node, orNone(strings.Join(names, ", ")))
		}
		return t, ids, nil
	}
	chain, err := chooseBranch(ctx, list, &branchChoice{thread: thread})
	if err != nil {
		return nil, nil, err
	}
	for _, t := range slices.Backward(chain) {
		if ids, _ := planned(t); len(ids) > 0 {
			return t, ids, nil
		}
	}
	return nil, nil, usagef("no checkpoint of thread %q's original run plans node %s: name one with --checkpoint", thread, node)
}

type execJSON struct {
	Checkpoint string           `json:"checkpoint"`
	Step       int              `json:"step"`
	Node       string           `json:"node"`
	Task       string           `json:"task"`
	Input      any              `json:"input"`
	Writes     []map[string]any `json:"writes"`
	Recorded   []map[string]any `json:"recorded"`
	Same       bool             `json:"same"`
	Unfinished bool             `json:"unfinished,omitempty"` // no recorded outcome

	Error string `json:"error,omitempty"`
	// RecordedError is the error the recording saved for the task.
	RecordedError string `json:"recorded_error,omitempty"`
	Interrupts    []any  `json:"interrupts,omitempty"`
	// RecordedInterrupts are what the recording asked and still waits
	// for an answer to.
	RecordedInterrupts []any            `json:"recorded_interrupts,omitempty"`
	Diff               []map[string]any `json:"diff,omitempty"`
}

func (a *App) execTasks(ctx context.Context, gr *engine.Graph, t *engine.CheckpointTuple, ids []string, asJSON bool, opts ...engine.RunOption) error {
	var docs []execJSON
	var verdicts []recording.Verdict
	for _, id := range ids {
		r, err := gr.RerunTask(ctx, t, id, opts...)
		if err != nil {
			return failf("running %s again: %v", id, err)
		}
		v := recording.JudgeRerun(r)
		doc := newExecJSON(t, r, v)
		docs, verdicts = append(docs, doc), append(verdicts, v)
		if !asJSON {
			printExec(a.Stdout, t, r, v, doc)
		}
	}
	if asJSON {
		if err := writeJSON(a.Stdout, docs); err != nil {
			return err
		}
	}
	return execOutcome(docs, verdicts)
}

// newExecJSON is exec's account of one task run again, r, judged v.
func newExecJSON(t *engine.CheckpointTuple, r *engine.TaskRerun, v recording.Verdict) execJSON {
	doc := execJSON{Checkpoint: t.Checkpoint.ID, Step: t.Metadata.TaskStep(), Node: r.Name, Task: r.ID, Input: plainValue(r.Input),
		Writes: writeList(r.Writes), Recorded: writeList(r.Recorded),
		Same: v.Kind == recording.Same || v.Kind == recording.WaitsAsRecorded, Unfinished: v.Kind == recording.NoOutcome}
	if r.Recording.Err != nil {
		doc.RecordedError = oneLine(r.Recording.Error)
	}
	if r.Err != nil {
		doc.Error = oneLine(r.Err.Error())
	}
	if v.Kind == recording.WaitsAsRecorded || v.Kind == recording.AsksOtherwise || v.Kind == recording.NoLongerAsks {
		for _, in := range recording.RecordedQuestions(r) {
			doc.RecordedInterrupts = append(doc.RecordedInterrupts, plainValue(in.Value))
		}
	}
	for _, in := range r.Interrupts {
		doc.Interrupts = append(doc.Interrupts, plainValue(in.Value))
	}
	for _, d := range v.Diff {
		doc.Diff = append(doc.Diff, map[string]any{"channel": d.Channel, "recorded": plainValue(d.Recorded), "now": plainValue(d.Got)})
	}
	return doc
}

// printExec words one task run again for a person.
func printExec(w io.Writer, t *engine.CheckpointTuple, r *engine.TaskRerun, v recording.Verdict, doc execJSON) {
	fmt.Fprintf(w, "node %s, step %d, from checkpoint %s, with the current code (nothing is written)\n", r.Name, doc.Step, engine.ShortID(t.Checkpoint.ID))
	fmt.Fprintf(w, "input: %s\n", engine.MustEncode(r.Input))
	asked, recordedAsk := recording.InterruptValues(r.Interrupts), recording.InterruptValues(recording.RecordedQuestions(r))
	switch {
	case r.Err != nil:
		fmt.Fprintf(w, "failed: %s\n", doc.Error)
	case v.Kind == recording.WaitsAsRecorded:
		fmt.Fprintf(w, "interrupted with %s, as the recording did: it waits for an answer\n", asked)
	case v.Kind == recording.AsksOtherwise:
		fmt.Fprintf(w, "interrupted with %s; the recording asked %s and waits for its answer\n", asked, recordedAsk)
	case len(r.Interrupts) > 0:
		fmt.Fprintf(w, "interrupted with %s: the recording has no answer for it\n", asked)
	case v.Kind == recording.NoLongerAsks:
		fmt.Fprintf(w, "finished without asking; the recording asked %s and waits for its answer\n", recordedAsk)
	}
	fmt.Fprintln(w, "writes now:")
	printWrites(w, r.Writes)
	fmt.Fprintln(w, "recorded writes:")
	printWrites(w, r.Recorded)
	if doc.RecordedError != "" {
		fmt.Fprintf(w, "recorded: failed: %s\n", doc.RecordedError)
	}
	switch v.Kind {
	case recording.NoOutcome:
		fmt.Fprintln(w, "the recording was cut off before this task finished: nothing to compare")
	case recording.RecordingFailed:
		fmt.Fprintln(w, "it runs without the error the recording saved")
	case recording.Same:
		fmt.Fprintln(w, "same writes as recorded")
	}
	for _, d := range v.Diff {
		fmt.Fprintf(w, "differs: %s recorded %s, now %s\n", d.Channel, writeValues(d.Recorded, d.HasRecorded), writeValues(d.Got, d.HasGot))
	}
}

// execDiffers words exec's exit for each verdict that is not the
// recording's outcome; a failure now is never a success, even the
// recorded one.
var execDiffers = map[recording.VerdictKind]string{
	recording.FailsAgain:      "node %s fails with the current code as it did in the recording (see above)",
	recording.FailsNow:        "node %s fails with the current code (see above)",
	recording.AsksOtherwise:   "node %s asks another question than the recording did (see above)",
	recording.AsksNow:         "node %s asks a question the recording has no answer for (see above)",
	recording.NoLongerAsks:    "node %s no longer asks the question the recording waits on (see above)",
	recording.RecordingFailed: "node %s no longer fails as the recording did (see above)",
	recording.WritesDiffer:    "node %s does not write what the recording did (see above)",
}

// execOutcome is exec's exit: nil when every task ran as recorded (or the
// recording has no outcome to compare with), else the first task's
// difference.
func execOutcome(docs []execJSON, verdicts []recording.Verdict) error {
	for i, v := range verdicts {
		if format, ok := execDiffers[v.Kind]; ok {
			return failf(format, docs[i].Node)
		}
	}
	return nil
}

// inSubgraph says which subgraph nodes of gr hold a node named node, for
// exec of a subgraph's node: exec runs the parent's task, whose subgraph
// runs with it ("" if none holds it).
func inSubgraph(gr *engine.Graph, node string) string {
	var holders []string
	for _, n := range gr.NodeNames() {
		if sub := gr.Subgraph(n); sub != nil && containsNode(sub, node) {
			holders = append(holders, n)
		}
	}
	if len(holders) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s is a node of the subgraph of %s: exec %s runs it with its subgraph", node, strings.Join(holders, ", "), holders[0])
}

func writeList(ws []engine.Write) []map[string]any {
	out := []map[string]any{}
	for _, w := range ws {
		out = append(out, map[string]any{"channel": w.Channel, "value": plainValue(w.Value)})
	}
	return out
}

func printWrites(w interface{ Write([]byte) (int, error) }, ws []engine.Write) {
	if len(ws) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, x := range ws {
		if node, ok := x.RoutesTo(); ok {
			fmt.Fprintf(w, "  → %s\n", termtext.Name(node)) // a route: its null says nothing
			continue
		}
		fmt.Fprintf(w, "  %s = %s\n", x.Channel, engine.MustEncode(x.Value))
	}
}

func writeValues(vs []any, ok bool) string {
	switch {
	case !ok:
		return "(no write)"
	case len(vs) == 1:
		return string(engine.MustEncode(vs[0]))
	}
	return string(engine.MustEncode(vs))
}

// recordedLimit is the recursion limit a run of thread took without
// --recursion-limit: the scenario's of --graph, else of the graph recorded
// for the thread (resolveGraph); 0 for none.
func recordedLimit(ctx context.Context, st Store, thread, graphFlag string) int {
	name := graphFlag
	if name == "" {
		fp, err := st.Fingerprint(ctx, thread)
		if err != nil {
			return 0
		}
		rec, _ := decodeGraphRecord(fp)
		name = rec.Graph
	}
	if name == "" {
		return 0
	}
	res, err := resolveGraph(ctx, name, noLint)
	if err != nil {
		return 0
	}
	return res.recursionLimit
}
