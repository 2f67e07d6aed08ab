package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/recording"
	"github.com/superstep/superstep/termtext"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// threadCheckpoints lists thread's root-namespace checkpoints, newest first.
func threadCheckpoints(ctx context.Context, st Store, thread string) ([]*engine.CheckpointTuple, error) {
	return nsCheckpoints(ctx, st, engine.Config{ThreadID: thread})
}

// nsCheckpoints lists the checkpoints of cfg's thread and namespace,
// newest first.
func nsCheckpoints(ctx context.Context, st Store, cfg engine.Config) ([]*engine.CheckpointTuple, error) {
	thread := cfg.ThreadID
	list, err := st.List(ctx, cfg, engine.ListOptions{})
	if err != nil {
		return nil, storeError(err, "reading thread %q", thread)
	}
	if len(list) == 0 {
		return nil, threadNotFound(ctx, st, thread)
	}
	return list, nil
}

// findCheckpoint resolves a checkpoint reference on thread: an id, a
// prefix of one, or a prefix of the short form screens show
// (engine.ResolveID owns the rule).
func findCheckpoint(ctx context.Context, list []*engine.CheckpointTuple, thread, ref string) (*engine.CheckpointTuple, error) {
	ids := make([]string, len(list))
	for i, t := range list {
		ids[i] = t.Checkpoint.ID
	}
	id, err := resolveCheckpoint(ctx, ids, thread, ref)
	if err != nil {
		return nil, err
	}
	return list[slices.Index(ids, id)], nil
}

// resolveCheckpoint is engine.ResolveID with an error that names thread
// and the command that lists its checkpoints.
func resolveCheckpoint(ctx context.Context, ids []string, thread, ref string) (string, error) {
	id, err := engine.ResolveID(ids, ref)
	switch {
	case errors.Is(err, engine.ErrAmbiguousID):
		return "", usagef("thread %q: %w", thread, err)
	case err != nil:
		return "", usagef("%w on thread %q (%s lists them)", err, thread, hintLine(ctx, "history", shellWord(thread)))
	}
	return id, nil
}

// shortIDsOf gives every checkpoint of ids the short form every screen
// shows, or its whole id where two share one (engine.ShortIDAmong).
func shortIDsOf(ids []string) map[string]string {
	shared := engine.SharedShortIDs(ids)
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id] = engine.ShortIDAmong(id, shared)
	}
	return out
}

// graphFor compiles the graph to interpret a thread with: --graph when
// given, else the graph recorded for the thread when it still resolves, else
// nil (commands then show what the store alone knows). lint lints a
// scenario file (noLint for a command that runs none of its nodes).
func graphFor(ctx context.Context, st Store, thread, flag string, lint linting) (*engine.Graph, error) {
	res, err := threadGraph(ctx, st, thread, flag, lint)
	if res == nil || err != nil {
		return nil, err
	}
	return res.g, nil
}

// threadGraph is graphFor's graph as resolved, with the scenario file it
// was built from (show and history place a saved error in it); nil when
// graphFor's graph is.
func threadGraph(ctx context.Context, st Store, thread, flag string, lint linting) (*resolvedGraph, error) {
	if flag != "" {
		return resolveGraph(ctx, flag, lint, engine.WithSaver(st))
	}
	fp, err := st.Fingerprint(ctx, thread)
	if err != nil {
		// Damage, not the absence of a record: say so, as check does.
		return nil, storeError(err, "reading the recorded graph of thread %q", thread)
	}
	rec, ok := decodeGraphRecord(fp)
	if !ok || rec.Graph == "" {
		return nil, nil
	}
	res, err := resolveGraph(ctx, rec.Graph, lint, engine.WithSaver(st))
	if err != nil || res.g.Fingerprint() != rec.Fingerprint {
		return nil, nil
	}
	return res, nil
}

// requireGraph is graphFor for a command that needs the graph (exec,
// update): when there is none, the error says why — the thread names no
// graph, the one it names no longer resolves, or it changed since the
// thread ran — and what to pass.
func requireGraph(ctx context.Context, st Store, thread, flag string, lint linting) (*engine.Graph, error) {
	g, err := graphFor(ctx, st, thread, flag, lint)
	if err != nil || g != nil {
		return g, err
	}
	fp, err := st.Fingerprint(ctx, thread)
	if err != nil {
		return nil, storeError(err, "reading thread %q", thread)
	}
	rec, ok := decodeGraphRecord(fp)
	if !ok || rec.Graph == "" {
		return nil, noRecordedGraph(thread)
	}
	again := lint
	if again.mode == lintWarn {
		again = noLint // warned of already, when graphFor resolved it
	}
	if _, err := resolveGraph(ctx, rec.Graph, again); err != nil {
		if lr := (*lintRefusal)(nil); errors.As(err, &lr) {
			return nil, err // the file's mistakes, each at its place
		}
		return nil, unresolvedRecordedGraph(thread, rec.Graph, err)
	}
	return nil, usagef("thread %q was recorded with graph %s, which has changed since: pass --graph %s to use it as it is now", thread, termtext.Name(rec.Graph), shellWord(rec.Graph))
}

// noRecordedGraph and unresolvedRecordedGraph are the errors of every
// command that takes a thread's graph from its record (exec, update,
// replay) when it cannot: the thread names none, or the one it names
// (graph, a built-in's name or a scenario file's path) no longer
// resolves, for err. Both say what to pass.
func noRecordedGraph(thread string) error {
	return usagef("thread %q has no recorded graph: pass --graph", thread)
}

func unresolvedRecordedGraph(thread, graph string, err error) error {
	return usagef("thread %q was recorded with graph %s, which no longer resolves (%v): pass --graph", thread, termtext.Name(graph), err)
}

// openInterrupts lists the interrupts saved on a checkpoint that still
// wait for an answer, as the engine reads them.
func openInterrupts(t *engine.CheckpointTuple) []engine.PendingInterrupt {
	// Most checkpoints of a long thread raised none: no need to sort
	// their writes by task to find that out.
	if !raisedInterrupts(t) {
		return nil
	}
	return engine.ReadSavedWrites(t.PendingWrites).WaitingInterrupts()
}

// raisedInterrupts reports whether a task of checkpoint t saved an
// interrupt, answered or not.
func raisedInterrupts(t *engine.CheckpointTuple) bool {
	return slices.ContainsFunc(t.PendingWrites, func(w engine.PendingWrite) bool { return w.Channel == engine.InterruptChannel })
}

// taskNames maps the task ids planned from a checkpoint to node names, when
// a graph is at hand.
func taskNames(g *engine.Graph, t *engine.CheckpointTuple) (names map[string]string, next []string) {
	names = map[string]string{}
	if g == nil {
		return names, nil
	}
	tasks, err := g.PlannedTasks(t)
	if err != nil {
		return names, nil
	}
	for _, tk := range tasks {
		names[tk.ID] = tk.Name
		next = append(next, tk.Name)
	}
	sort.Strings(next)
	return names, next
}

// threadRow is one thread as superstep threads prints it.
type threadRow struct {
	ID          string `json:"thread"`
	Checkpoints int    `json:"checkpoints"`
	Latest      string `json:"latest"` // id of the newest root checkpoint
	Step        int    `json:"step"`
	Source      string `json:"source"`
	// LastCheckpoint is when the latest checkpoint was written, by the
	// process that wrote it: for a thread pulled or imported, when the
	// service last checkpointed it (zero with subgraph checkpoints only).
	LastCheckpoint time.Time `json:"last_checkpoint,omitzero"`
	// Updated is when this database last wrote the thread: a run here, or
	// the pull or import that brought it.
	Updated time.Time `json:"updated"`
	// Interrupted: the thread waits for an answer (run --resume).
	Interrupted bool `json:"interrupted"`
	// Failed: the latest superstep saved an error (fix and run again).
	Failed bool `json:"failed,omitempty"`
	// Failure is that error, as the first task to fail saved it.
	Failure string `json:"failure,omitempty"`
	// PendingWrites counts task writes saved against the latest
	// checkpoint: a superstep that has not completed.
	PendingWrites int    `json:"pending_writes"`
	Graph         string `json:"graph,omitempty"`
	// GraphName is the graph's own name; Graph is how to find it again
	// (a built-in's name or a scenario file's path).
	GraphName string `json:"graph_name,omitempty"`
	// Status is the engine's status of the latest checkpoint: done,
	// pending, interrupted or error, planned with the graph or from the
	// topology its record keeps ("unknown" where neither can say whether
	// tasks remain; "unreadable" with Error).
	Status string `json:"status"`
	// Error says why the thread cannot be read (damage): it is listed so
	// that the others still are.
	Error string `json:"error,omitempty"`
}

// statusUnreadable is the status of a thread that cannot be read.
const statusUnreadable = "unreadable"

// statusSubgraphsOnly is the status of a thread whose checkpoints are all
// in subgraph namespaces: export writes it, show and history cannot.
const statusSubgraphsOnly = "subgraphs only"

func newThreadRow(t persist.ThreadInfo) threadRow {
	rec, _ := decodeGraphRecord(t.Fingerprint)
	return threadRow{
		ID: t.ID, Checkpoints: t.Checkpoints, Latest: t.LastID, Step: t.LastStep, Source: t.LastSource,
		LastCheckpoint: t.LastTS, Updated: t.Updated, Interrupted: t.Interrupted, Failed: t.Failed, Failure: t.Failure, PendingWrites: t.PendingWrites, Graph: rec.Graph, GraphName: rec.displayName(),
	}
}

func (a *App) threadsCommand(g *globals) *cobra.Command {
	var from string
	var headers []string
	var limit int
	cmd := &cobra.Command{
		Use:   "threads",
		Short: "List the database's threads",
		Long: `List the database's threads, the one this database wrote last first.
LAST CHECKPOINT is when the thread's latest checkpoint was written, by
whichever process wrote it: for a thread pulled from a server or imported,
when the service last checkpointed it. UPDATED is when this database last
wrote the thread: a run here, or the pull or import that brought it.

--from lists another database's threads instead, what pull --from would
copy: a file, a postgres:// URL, or the http:// or https:// URL where a
service mounts persist.ExportHandler (--header sends credentials).

STATUS is done, pending (tasks remain: a run stopped at a breakpoint,
cancelled or killed mid-way), interrupted or error. Without the graph it is
planned from the graph's topology each thread recorded; a service computes
it so. It is unknown where that cannot say: a thread with no recorded
topology, or a service older than this command.`,
		Example: "  superstep threads\n  superstep threads --db ./bug.db --json\n  superstep threads --from https://svc.internal/debug/checkpoints --limit 20",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if limit < 0 {
				return usagef("--limit %d: want the number of threads to list, or 0 for all", limit)
			}
			ctx := cmd.Context()
			if isServiceURL(from) {
				return a.serviceThreads(ctx, g, from, headers, limit)
			}
			if len(headers) > 0 {
				return usagef("--header goes with an http:// or https:// --from (a service's persist.ExportHandler)")
			}
			src := g
			if from != "" {
				other := *g
				other.db = from
				src = &other
			}
			st, err := a.open(src, true)
			if err != nil {
				return err
			}
			defer closeStore(st, &err)
			infos, err := st.Threads(ctx)
			if err != nil {
				return storeError(err, "listing threads")
			}
			rows := make([]threadRow, 0, len(infos))
			graphsByRecord := map[string]*engine.Graph{}
			for _, t := range infos {
				row := newThreadRow(t)
				switch {
				case t.Err != nil:
					row.Status, row.Error = statusUnreadable, storeMessage(t.Err)
				case t.Checkpoints == 0 && !hasCheckpoints(ctx, st, t.ID):
					// A thread without checkpoints (SetFingerprint alone
					// makes one) has nothing to show or export.
					continue
				case t.Checkpoints == 0:
					row.Status = statusSubgraphsOnly
				default:
					status, err := threadStatus(ctx, st, t, graphsByRecord)
					if err != nil {
						// Its latest checkpoint, a value or a write does
						// not read back: damage, as any other.
						status, row.Error = statusUnreadable, storeMessage(err)
					}
					row.Status = status
				}
				rows = append(rows, row)
			}
			// The thread worked on last comes first.
			sort.SliceStable(rows, func(i, j int) bool { return rows[i].Updated.After(rows[j].Updated) })
			total := len(rows)
			if limit > 0 && len(rows) > limit {
				rows = rows[:limit]
			}
			checkHint := hintLine(ctx, "check")
			if from != "" {
				checkHint = commandLine(invocationOf(ctx).program, from, "check")
			}
			return a.printThreads(g, rows, total, checkHint)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "list this database's threads instead: a file, a postgres:// URL, or a service's persist.ExportHandler URL (http:// or https://)")
	cmd.Flags().StringArrayVar(&headers, "header", nil, "with an http(s) --from: a header to send, \"Name: value\" (repeatable)")
	cmd.Flags().IntVar(&limit, "limit", 0, "list only the threads written last, this many (0: all)")
	return cmd
}

// serviceThreads is threads --from an http(s) URL: the list a service's
// persist.ExportHandler serves there.
func (a *App) serviceThreads(ctx context.Context, g *globals, service string, headers []string, limit int) error {
	src, err := newServiceExporter(service, headers, max(g.timeout, postgresConnectTimeout))
	if err != nil {
		return err
	}
	infos, total, err := src.Threads(ctx, limit)
	if err != nil {
		return err
	}
	rows := make([]threadRow, 0, len(infos))
	for _, t := range infos {
		row := newThreadRow(t)
		row.Status = listedStatus(t)
		if t.Err != nil {
			row.Error = t.Err.Error()
		}
		rows = append(rows, row)
	}
	return a.printThreads(g, rows, total, "")
}

// listedStatus is the status of a thread a service listed, from what it
// tells without the graph: the status it planned from the thread's graph
// record (persist.ThreadInfo.Status), else its saved writes, as
// threadStatus tells it without one.
func listedStatus(t persist.ThreadInfo) string {
	switch {
	case t.Err != nil:
		return statusUnreadable
	case t.Checkpoints == 0:
		return statusSubgraphsOnly
	case t.StatusKnown:
		return t.Status.String()
	case t.Interrupted:
		return engine.CheckpointInterrupted.String()
	case t.Failed:
		return engine.CheckpointFailed.String()
	}
	return "unknown"
}

// printThreads prints rows (newest first, the first of total) as a table,
// or as JSON with --json. Unreadable rows are counted on stderr, with
// the command line that names the damage (checkHint; "" when none can
// from here), and a cut list says how many were left out.
func (a *App) printThreads(g *globals, rows []threadRow, total int, checkHint string) error {
	unreadable := 0
	for _, r := range rows {
		if r.Status == statusUnreadable {
			unreadable++
		}
	}
	if unreadable > 0 {
		where := ""
		if checkHint != "" {
			where = " (" + checkHint + " names the damage)"
		}
		defer fmt.Fprintf(a.Stderr, "%s: %d thread(s) cannot be read%s\n", a.Name, unreadable, where)
	}
	if total > len(rows) {
		defer fmt.Fprintf(a.Stderr, "%s: listed the %d written last of %d threads (--limit)\n", a.Name, len(rows), total)
	}
	if g.json {
		return writeJSON(a.Stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.Stdout, "no threads")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "THREAD\tCHECKPOINTS\tSTEP\tSOURCE\tLAST CHECKPOINT\tUPDATED\tGRAPH\tSTATUS")
	for _, r := range rows {
		status := r.Status
		switch {
		case r.Error != "":
			status += ": " + r.Error
		case r.Failure != "" && r.Status == engine.CheckpointFailed.String():
			status += ": " + r.Failure
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", termtext.Name(r.ID), r.Checkpoints, r.Step, termtext.Name(r.Source), listTime(r.LastCheckpoint), listTime(r.Updated), termtext.Name(orNone(r.GraphName)), termtext.Name(status))
	}
	return tw.Flush()
}

// listTime is a time as the threads list shows it, in local time; "-"
// when it is not known.
func listTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func (a *App) historyCommand(g *globals) *cobra.Command {
	var graphFlag, ns string
	cmd := &cobra.Command{
		Use:   "history THREAD",
		Short: "Show a thread's checkpoint tree",
		Long: `Show every checkpoint of THREAD, newest first, drawn as a tree like
git log --graph: forks from time travel and update_state branch off their
parent. Each line has the id (shortest unique prefix), step, source, the
tasks planned next, and the interrupts waiting for an answer. --ns shows a
subgraph's checkpoints instead (superstep show lists a checkpoint's
subgraph namespaces).`,
		Example: "  superstep history t1\n  superstep history t1 --graph research --json\n  superstep history t1 --ns 'review:6f1c…'",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withThread(cmd, g, args[0], true, nil, func(ctx context.Context, st Store, _ []*engine.CheckpointTuple) (err error) {
				res, err := threadGraph(ctx, st, args[0], graphFlag, noLint)
				if err != nil {
					return err
				}
				n, err := resolveNS(ctx, st, res.graph(), args[0], ns)
				if err != nil {
					return err
				}
				gr, file := n.graph, res.scenarioFile()
				// One page of checkpoints is held at a time; each becomes a
				// row, whose line is drawn with its short id and the
				// recorded run's mark once every checkpoint is known.
				// Without a graph nothing is planned, so no internal
				// channel's value is read.
				var plan func(string) bool
				if gr != nil {
					plan = func(ch string) bool { return !gr.IsStateKey(ch) }
				}
				var rows []historyRow
				err = eachOutlinePage(ctx, st, n.cfg(args[0]), plan, func(page []*engine.CheckpointTuple) error {
					for _, t := range page {
						r := newHistoryRow(ctx, gr, file, t)
						// The row above is usually this one's child: its
						// parent id can be this id, one string for two.
						if n := len(rows); n > 0 && rows[n-1].Parent == r.ID {
							rows[n-1].Parent = r.ID
						}
						rows = append(rows, r)
					}
					return nil
				})
				if err != nil {
					return err
				}
				// The end of the thread's original run: what replay compares with.
				if head := recordedRunHead(rows); head >= 0 {
					rows[head].RecordedRun = true
				}
				if g.json {
					return writeJSON(a.Stdout, rows)
				}
				ids := make([]string, len(rows))
				for i, r := range rows {
					ids[i] = r.ID
				}
				short := shortIDsOf(ids)
				ids = nil
				// One write a line would be a system call each.
				out := bufio.NewWriterSize(a.Stdout, 64<<10)
				drawTree(len(rows), func(i int) (id, parent string) { return rows[i].ID, rows[i].Parent }, func(graph string, i int) {
					r := &rows[i]
					line := graph + termtext.Name(short[r.ID]) + r.line()
					switch {
					case r.RecordedRun:
						line += "  (end of the recorded run)"
					case r.Replay != "":
						line += "  (replay)"
					}
					fmt.Fprintln(out, line)
				}, func(connector string) { fmt.Fprintln(out, connector) })
				if gr == nil {
					fmt.Fprintln(out, "(pass --graph to see the tasks planned at each checkpoint)")
				}
				return out.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&graphFlag, "graph", "", "graph to plan tasks with (default: the one recorded for the thread)")
	addNSFlag(cmd, &ns, a.Name)
	return cmd
}

// historyRow is one checkpoint as history prints it. A thread of 100k
// checkpoints holds 100k of them, so a row keeps the facts its line is
// made of, not the line.
type historyRow struct {
	ID         string   `json:"id"`
	Parent     string   `json:"parent,omitempty"`
	Step       int      `json:"step"`
	Source     string   `json:"source"`
	Next       []string `json:"next,omitempty"`
	Writes     int      `json:"writes"`
	Interrupts []string `json:"interrupts,omitempty"`
	// Failures are the errors the checkpoint's tasks saved ("node: error"):
	// where a failed thread failed. FailedAt is, for each, the place in
	// the thread's scenario file of the expression that raised it
	// (savedErrorPlace), "" for none. Cancelled are the tasks stopped
	// there before they finished (a sibling's failure, the caller), which
	// saved their cancellation as their error.
	Failures  []string `json:"failures,omitempty"`
	FailedAt  []string `json:"failed_at,omitempty"`
	Cancelled []string `json:"cancelled,omitempty"`
	// RecordedRun marks the last checkpoint of the original run, the
	// branch replay compares with by default.
	RecordedRun bool `json:"recorded_run,omitempty"`
	// Replay is, for a checkpoint superstep replay wrote, the recorded
	// checkpoint the replay started from (recording.MetaReplay).
	Replay string `json:"replay_of,omitempty"`
	// planned: a graph planned Next (without one, the line says nothing
	// of what comes next); shortInts are the interrupts as the line shows
	// them (escaped, values clipped).
	planned   bool
	shortInts []string
}

// savedFailures lists the tasks of t that saved an error: those that
// failed, "node: error" each, with the place in file of the expression
// that raised each (at, "" for none: savedErrorPlace) when any has one,
// and those cancelled (engine.IsCancellation), by node (a task the graph
// does not plan is named by the node its error names, else by its id).
func savedFailures(t *engine.CheckpointTuple, names map[string]string, file *scenario.File) (failed, at, cancelled []string) {
	if !slices.ContainsFunc(t.PendingWrites, func(w engine.PendingWrite) bool { return w.Channel == engine.ErrorChannel }) {
		return nil, nil, nil // the usual row: no task's writes are read again
	}
	placed := false
	for _, st := range engine.ReadSavedWrites(t.PendingWrites).Tasks {
		if !st.Failed {
			continue
		}
		who := names[st.ID]
		var ne *engine.NodeError
		switch {
		case who != "":
		case errors.As(st.Err, &ne) && ne.Node != "":
			// A task the graph does not plan (a functional task a
			// node called) is named by the node its error names.
			who = ne.Node
		default:
			who = "task " + engine.ShortID(st.ID)
		}
		if engine.IsCancellation(st.Err) {
			cancelled = append(cancelled, who)
			continue
		}
		failed = append(failed, who+": "+nodeErrorText(st.Err, st.Error))
		place := savedErrorPlace(file, st.Err)
		at = append(at, place)
		placed = placed || place != ""
	}
	if !placed {
		at = nil
	}
	return failed, at, cancelled
}

// nodeErrorText is a task's error where the line names its node already:
// the node's own error, without the "node %q failed at step %d: " the
// engine's NodeError puts before it; text saved by older versions as it
// is.
func nodeErrorText(err error, text string) string {
	var ne *engine.NodeError
	if errors.As(err, &ne) && ne.Err != nil {
		return ne.Err.Error()
	}
	return text
}

// newHistoryRow is checkpoint t as history prints it, planned with gr
// (nil: not planned), its failures placed in file (nil: not placed).
func newHistoryRow(ctx context.Context, gr *engine.Graph, file *scenario.File, t *engine.CheckpointTuple) historyRow {
	names, next := taskNames(gr, t)
	r := historyRow{ID: t.Checkpoint.ID, Parent: t.ParentID, Step: t.Metadata.Step, Source: t.Metadata.Source, Next: next, planned: gr != nil}
	for _, w := range t.PendingWrites {
		if !engine.IsControlWrite(w.Channel) {
			r.Writes++
		}
	}
	// With the graph, a subgraph node's task that waits on its subgraph's
	// later question counts, as show and threads count it.
	for _, in := range waitingInterrupts(ctx, gr, t) {
		who := names[in.TaskID]
		if who == "" {
			who = "task " + taskPrefix(in.TaskID)
		}
		r.Interrupts = append(r.Interrupts, who+": "+string(engine.MustEncode(in.Value)))
		r.shortInts = append(r.shortInts, termtext.Name(who)+": "+clip(string(engine.MustEncode(in.Value)), 60))
	}
	r.Failures, r.FailedAt, r.Cancelled = savedFailures(t, names, file)
	r.Replay, _ = recording.ReplayOf(t.Metadata)
	return r
}

// line is the row's tree line after the short id (escaped).
func (r *historyRow) line() string {
	line := fmt.Sprintf(" step %d %s", r.Step, termtext.Name(r.Source))
	if r.planned {
		if len(r.Next) == 0 {
			line += "  next: (end)"
		} else {
			line += "  next: " + strings.Join(termtext.Names(r.Next), ",")
		}
	}
	if r.Writes > 0 {
		line += fmt.Sprintf("  writes: %d", r.Writes)
	}
	if len(r.shortInts) > 0 {
		line += "  interrupted: " + strings.Join(r.shortInts, "; ")
	}
	for i, f := range r.Failures {
		// The step its tasks ran in, which a run's failure names.
		failedIn := engine.Metadata{Step: r.Step}.TaskStep()
		line += fmt.Sprintf("  failed in step %d: %s", failedIn, termtext.Name(clip(f, 100)))
		if i < len(r.FailedAt) && r.FailedAt[i] != "" {
			line += " (at " + termtext.Name(r.FailedAt[i]) + ")"
		}
	}
	if len(r.Cancelled) > 0 {
		line += "  cancelled: " + strings.Join(termtext.Names(r.Cancelled), ",")
	}
	return line
}

// recordedRunHead is the index of the last checkpoint of the thread's
// original run among rows (newest first), or -1: chooseBranch's default
// branch, found with an index per checkpoint instead of a tuple each.
// From the oldest root, it follows each checkpoint's oldest child a run
// made (recording.MadeByRun; recording.OriginalRun walks heads, which a
// history of 100k checkpoints would hold twice).
func recordedRunHead(rows []historyRow) int {
	byID := make(map[string]int32, len(rows))
	for i, r := range rows {
		byID[r.ID] = int32(i)
	}
	root := int32(-1)
	next := make([]int32, len(rows)) // each checkpoint's run child, -1: none
	for i := range next {
		next[i] = -1
	}
	for i, r := range rows {
		if r.Parent == "" {
			if root < 0 || r.ID < rows[root].ID {
				root = int32(i)
			}
			continue
		}
		p, ok := byID[r.Parent]
		if !ok {
			return -1 // chooseBranch refuses a thread with a missing parent
		}
		if recording.MadeByRun(r.Source) && (next[p] < 0 || r.ID < rows[next[p]].ID) {
			next[p] = int32(i)
		}
	}
	if root < 0 {
		return -1
	}
	for next[root] >= 0 {
		root = next[root]
	}
	return int(root)
}

// drawTree lays out n checkpoints, newest first, in lanes the way git log
// --graph does: each lane waits for one parent; when several lanes wait
// for the same checkpoint (it has several children) they close into one
// first. node gives checkpoint i's id and parent; row is called with each
// checkpoint's graph prefix, connector with each line that closes lanes,
// in order, so nothing is held but the lanes.
func drawTree(n int, node func(i int) (id, parent string), row func(graph string, i int), connector func(line string)) {
	var lanes []string // the id each lane waits for
	for i := range n {
		id, parent := node(i)
		col := slices.Index(lanes, id)
		if col < 0 {
			lanes = append(lanes, id)
			col = len(lanes) - 1
		}
		for j := len(lanes) - 1; j > col; j-- {
			if lanes[j] != id {
				continue
			}
			var b strings.Builder
			for k := range lanes {
				switch {
				case k < j-1:
					b.WriteString("| ")
				case k == j-1:
					b.WriteString("|/")
				case k > j:
					b.WriteString(" /")
				}
			}
			connector(b.String())
			lanes = slices.Delete(lanes, j, j+1)
		}
		var b strings.Builder
		for k := range lanes {
			if k == col {
				b.WriteString("* ")
			} else {
				b.WriteString("| ")
			}
		}
		row(b.String(), i)
		if parent != "" {
			lanes[col] = parent
		} else {
			lanes = slices.Delete(lanes, col, col+1)
		}
	}
}

func (a *App) showCommand(g *globals) *cobra.Command {
	var ckpt, graphFlag, ns string
	cmd := &cobra.Command{
		Use:   "show THREAD",
		Short: "Show a thread's state at a checkpoint",
		Long: `Show THREAD's state at its latest checkpoint (or --checkpoint, an id or a
unique prefix): the state values, every channel's version, versions_seen per
node, the tasks planned next, the pending writes saved against it and the
interrupts waiting for an answer, and the namespaces of the subgraphs its
tasks ran, each with the --ns that shows it. --ns reads a subgraph's
checkpoint instead (--checkpoint then names one of that namespace).`,
		Example: "  superstep show t1\n  superstep show t1 --checkpoint 1f0a3c --json\n  superstep show t1 --ns 'review:6f1c…'",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withThread(cmd, g, args[0], true, nil, func(ctx context.Context, st Store, _ []*engine.CheckpointTuple) (err error) {
				res, err := threadGraph(ctx, st, args[0], graphFlag, noLint)
				if err != nil {
					return err
				}
				n, err := resolveNS(ctx, st, res.graph(), args[0], ns)
				if err != nil {
					return err
				}
				t, err := oneCheckpoint(ctx, st, n.cfg(args[0]), ckpt)
				if err != nil {
					return err
				}
				return a.writeShow(ctx, res.graph(), n.graph, res.scenarioFile(), t, g.json)
			})
		},
	}
	cmd.Flags().StringVar(&ckpt, "checkpoint", "", "checkpoint id or unique prefix (default: the latest)")
	cmd.Flags().StringVar(&graphFlag, "graph", "", "graph to plan tasks with (default: the one recorded for the thread)")
	addNSFlag(cmd, &ns, a.Name)
	return cmd
}

type shownWrite struct {
	Task    string `json:"task"`
	Node    string `json:"node,omitempty"`
	Channel string `json:"channel"`
	Value   any    `json:"value"`
	// Place is, for a task's error, where in the thread's scenario file
	// the expression that raised it is (savedErrorPlace).
	Place string `json:"place,omitempty"`
}

type shownInterrupt struct {
	Node  string `json:"node,omitempty"`
	Task  string `json:"task"`
	ID    string `json:"id"`
	Value any    `json:"value"`
}

// writeShow prints checkpoint t, planned with gr (the graph of t's
// namespace; nil: not planned); root is the thread's graph, which finds
// the namespaces of the subgraphs t's tasks ran, and file the scenario
// file it was built from (nil: none), where saved errors are placed.
func (a *App) writeShow(ctx context.Context, root, gr *engine.Graph, file *scenario.File, t *engine.CheckpointTuple, asJSON bool) error {
	sh := newShown(ctx, root, gr, file, t)
	if asJSON {
		return writeJSON(a.Stdout, sh.doc())
	}
	sh.writeText(ctx, a.Stdout)
	return nil
}

// shown is what show says of a checkpoint.
type shown struct {
	t         *engine.CheckpointTuple
	status    string
	withGraph bool     // next is known
	next      []string // the nodes of the tasks planned from it
	values    map[string]any
	writes    []shownWrite
	ints      []shownInterrupt
	subgraphs []string // namespaces of its subgraph tasks' checkpoints
}

// newShown gathers what show says of t; gr, when known, is the graph of
// t's namespace and root the thread's; file, when known, the scenario
// file they were built from.
func newShown(ctx context.Context, root, gr *engine.Graph, file *scenario.File, t *engine.CheckpointTuple) *shown {
	sh := &shown{t: t, status: checkpointStatus(ctx, gr, t), withGraph: gr != nil, values: map[string]any{}}
	var names map[string]string
	names, sh.next = taskNames(gr, t)
	for k, v := range t.Checkpoint.ChannelValues {
		if gr != nil && !gr.IsStateKey(k) {
			continue
		}
		if gr == nil && engine.IsInternalName(k) {
			continue
		}
		sh.values[k] = plainValue(v)
	}
	for _, w := range t.PendingWrites {
		sw := shownWrite{Task: w.TaskID, Node: names[w.TaskID], Channel: w.Channel, Value: plainValue(w.Value)}
		if w.Channel == engine.ErrorChannel && file != nil {
			sw.Place = savedErrorPlace(file, engine.ReadSavedError(w.Value))
		}
		sh.writes = append(sh.writes, sw)
	}
	for _, in := range waitingInterrupts(ctx, gr, t) {
		sh.ints = append(sh.ints, shownInterrupt{Node: names[in.TaskID], Task: in.TaskID, ID: in.ID, Value: plainValue(in.Value)})
	}
	sh.subgraphs = checkpointSubgraphs(ctx, root, gr, t)
	return sh
}

// doc is show --json's document.
func (sh *shown) doc() map[string]any {
	t, cp := sh.t, sh.t.Checkpoint
	doc := map[string]any{
		"thread": t.Config.ThreadID, "checkpoint": cp.ID, "parent": t.ParentID,
		"step": t.Metadata.Step, "source": t.Metadata.Source, "created": cp.TS,
		"values": sh.values, "versions": cp.ChannelVersions, "versions_seen": cp.VersionsSeen,
		"pending_writes": nonNilSlice(sh.writes), "interrupts": nonNilSlice(sh.ints),
		"namespace": t.Config.CheckpointNS, "subgraphs": nonNilSlice(sh.subgraphs),
		"status": sh.status,
	}
	if sh.withGraph {
		doc["next"] = nonNilSlice(sh.next)
	}
	return doc
}

// writeText writes show's text: the checkpoint's header, then a section
// each. An empty section or node says "(none)", as next does, rather
// than a heading or a name with nothing after it.
func (sh *shown) writeText(ctx context.Context, w io.Writer) {
	t, cp := sh.t, sh.t.Checkpoint
	fmt.Fprintf(w, "thread %s  checkpoint %s  step %d  source %s  status %s\n", termtext.Name(t.Config.ThreadID), termtext.Name(engine.ShortID(cp.ID)), t.Metadata.Step, termtext.Name(t.Metadata.Source), sh.status)
	if ns := t.Config.CheckpointNS; ns != "" {
		fmt.Fprintf(w, "namespace %s\n", termtext.Name(ns))
	}
	fmt.Fprintf(w, "id %s\n", termtext.Name(cp.ID))
	if t.ParentID != "" {
		fmt.Fprintf(w, "parent %s\n", termtext.Name(t.ParentID))
	}
	fmt.Fprintf(w, "\nvalues\n%s", noneLine(len(sh.values)))
	for _, k := range sortedKeys(sh.values) {
		fmt.Fprintf(w, "  %s = %s\n", termtext.Name(k), engine.MustEncode(sh.values[k]))
	}
	fmt.Fprintf(w, "\nversions\n%s", noneLine(len(cp.ChannelVersions)))
	for _, k := range sortedKeys(cp.ChannelVersions) {
		fmt.Fprintf(w, "  %s = %d\n", termtext.Name(k), cp.ChannelVersions[k])
	}
	fmt.Fprintf(w, "\nversions_seen\n%s", noneLine(len(cp.VersionsSeen)))
	for _, node := range sortedKeys(cp.VersionsSeen) {
		seen := cp.VersionsSeen[node]
		parts := make([]string, 0, len(seen))
		for _, k := range sortedKeys(seen) {
			parts = append(parts, fmt.Sprintf("%s=%d", termtext.Name(k), seen[k]))
		}
		fmt.Fprintf(w, "  %s: %s\n", termtext.Name(node), orNone(strings.Join(parts, " ")))
	}
	if sh.withGraph {
		fmt.Fprintf(w, "\nnext: %s\n", orNone(strings.Join(termtext.Names(sh.next), ", ")))
	}
	sh.writePending(w)
	if len(sh.subgraphs) > 0 {
		fmt.Fprintf(w, "\nsubgraphs (their checkpoints: %s)\n", hintLine(ctx, "show", shellWord(t.Config.ThreadID), "--ns", "NS"))
		for _, ns := range sh.subgraphs {
			fmt.Fprintf(w, "  --ns %s\n", shellWord(ns))
		}
	}
}

// writePending writes the checkpoint's pending writes and its interrupts
// still waiting, each under its task's node when known.
func (sh *shown) writePending(w io.Writer) {
	if len(sh.writes) > 0 {
		fmt.Fprintf(w, "\npending writes\n")
		for _, pw := range sh.writes {
			who := pw.Task
			if pw.Node != "" {
				who = pw.Node + " (" + taskPrefix(pw.Task) + ")"
			}
			value, stack := pw.Value, ""
			if pw.Channel == engine.ErrorChannel {
				// The text, as the run reported it; --json has the
				// error's kind and causes.
				saved := engine.ReadSavedError(value)
				value, stack = saved.Message, engine.PanicStack(saved)
			}
			fmt.Fprintf(w, "  %s  %s = %s\n", termtext.Name(who), termtext.Name(pw.Channel), engine.MustEncode(value))
			if pw.Place != "" {
				fmt.Fprintf(w, "    at %s\n", termtext.Name(pw.Place))
			}
			writeStack(w, stack)
		}
	}
	if len(sh.ints) > 0 {
		fmt.Fprintf(w, "\ninterrupts\n")
		for _, in := range sh.ints {
			fmt.Fprintf(w, "  %s id %s: %s\n", termtext.Name(orNone(in.Node)), termtext.Name(in.ID), engine.MustEncode(in.Value))
		}
	}
}

// writeStack writes a panic's saved frames (engine.PanicStack) under its
// task's error, indented, each line made safe for the terminal (a thread
// pulled from elsewhere saved them).
func writeStack(w io.Writer, stack string) {
	if stack == "" {
		return
	}
	fmt.Fprintf(w, "    panicked at:\n")
	for _, line := range strings.Split(strings.TrimSuffix(stack, "\n"), "\n") {
		indent := "      "
		if rest, ok := strings.CutPrefix(line, "\t"); ok {
			indent, line = "          ", rest
		}
		fmt.Fprintf(w, "%s%s\n", indent, termtext.Name(line))
	}
}

// clip shortens s to n runes for a one-line display.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// noneLine is the body of a section with n entries when n is 0.
func noneLine(n int) string {
	if n == 0 {
		return "  (none)\n"
	}
	return ""
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (a *App) diffCommand(g *globals) *cobra.Command {
	var ns string
	cmd := &cobra.Command{
		Use:   "diff THREAD CKPT_A CKPT_B",
		Short: "Compare two checkpoints of a thread channel by channel",
		Long: `Compare two checkpoints of THREAD (ids or unique prefixes, on the same
branch or on different ones): for every channel whose value or version
differs, both values and both versions. With --ns both are checkpoints of
that subgraph namespace.`,
		Example: "  superstep diff t1 1f0a3c 1f0a41\n  superstep diff t1 1f0a3c 1f0a41 --json\n  superstep diff t1 9d2e 9d31 --ns 'review:6f1c…'",
		Args:    cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Only the two checkpoints are read, whatever the thread's length.
			return a.withThread(cmd, g, args[0], true, nil, func(ctx context.Context, st Store, _ []*engine.CheckpointTuple) (err error) {
				n := threadNS{}
				if ns != "" {
					gr, err := graphFor(ctx, st, args[0], "", noLint)
					if err != nil {
						return err
					}
					if n, err = resolveNS(ctx, st, gr, args[0], ns); err != nil {
						return err
					}
				}
				var cps [2]*engine.Checkpoint
				for i, ref := range args[1:] {
					if strings.TrimSpace(ref) == "" { // "" is the latest to oneCheckpoint
						_, err := resolveCheckpoint(ctx, nil, args[0], ref)
						return err
					}
					t, err := oneCheckpoint(ctx, st, n.cfg(args[0]), ref)
					if err != nil {
						return err
					}
					cps[i] = t.Checkpoint
				}
				return a.writeDiff(cps[0], cps[1], g.json)
			})
		},
	}
	addNSFlag(cmd, &ns, a.Name)
	return cmd
}

type channelDiff struct {
	Channel  string        `json:"channel"`
	VersionA *int64        `json:"version_a"`
	VersionB *int64        `json:"version_b"`
	ValueA   any           `json:"value_a"`
	ValueB   any           `json:"value_b"`
	Changes  []valueChange `json:"changes"`
}

type valueChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	A    any    `json:"a,omitempty"`
	B    any    `json:"b,omitempty"`
}

type seenDiff struct {
	Node     string `json:"node"`
	Channel  string `json:"channel"`
	VersionA *int64 `json:"version_a"`
	VersionB *int64 `json:"version_b"`
}

// writeDiff prints engine.DiffCheckpoints, the diff the debugger draws.
func (a *App) writeDiff(ca, cb *engine.Checkpoint, asJSON bool) error {
	d := engine.DiffCheckpoints(ca, cb)
	ver := func(v engine.Version, ok bool) *int64 {
		if ok {
			return &v
		}
		return nil
	}
	diffs := make([]channelDiff, 0, len(d.Channels))
	for _, c := range d.Channels {
		cd := channelDiff{Channel: c.Channel, VersionA: ver(c.VersionA, c.HasVersionA), VersionB: ver(c.VersionB, c.HasVersionB),
			ValueA: plainValue(c.ValueA), ValueB: plainValue(c.ValueB), Changes: []valueChange{}}
		for _, ch := range c.Changes {
			cd.Changes = append(cd.Changes, valueChange{Path: ch.Path, Kind: ch.Kind.String(), A: plainValue(ch.A), B: plainValue(ch.B)})
		}
		diffs = append(diffs, cd)
	}
	seen := make([]seenDiff, 0, len(d.Seen))
	for _, s := range d.Seen {
		seen = append(seen, seenDiff{Node: s.Node, Channel: s.Channel, VersionA: ver(s.A, s.HasA), VersionB: ver(s.B, s.HasB)})
	}
	if asJSON {
		return writeJSON(a.Stdout, map[string]any{"a": d.A, "b": d.B, "channels": diffs, "unchanged": d.Unchanged, "versions_seen": seen})
	}
	w := a.Stdout
	fmt.Fprintf(w, "a %s\nb %s\n", termtext.Name(d.A), termtext.Name(d.B))
	for _, c := range diffs {
		fmt.Fprintf(w, "\n%s  version %s -> %s\n", termtext.Name(c.Channel), fmtVer(c.VersionA), fmtVer(c.VersionB))
		for _, ch := range c.Changes {
			path := ch.Path
			if path == "" {
				path = "(value)"
			}
			switch ch.Kind {
			case "added":
				fmt.Fprintf(w, "  + %s: %s\n", termtext.Name(path), engine.MustEncode(ch.B))
			case "removed":
				fmt.Fprintf(w, "  - %s: %s\n", termtext.Name(path), engine.MustEncode(ch.A))
			default:
				fmt.Fprintf(w, "  ~ %s: %s -> %s\n", termtext.Name(path), engine.MustEncode(ch.A), engine.MustEncode(ch.B))
			}
		}
	}
	if len(seen) > 0 {
		fmt.Fprintln(w, "\nversions_seen")
		for _, s := range seen {
			fmt.Fprintf(w, "  %s %s: %s -> %s\n", termtext.Name(s.Node), termtext.Name(s.Channel), fmtVer(s.VersionA), fmtVer(s.VersionB))
		}
	}
	fmt.Fprintf(w, "\n%d channels differ, %d unchanged\n", len(diffs), d.Unchanged)
	return nil
}

func fmtVer(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}

func (a *App) exportCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "export THREAD",
		Short: "Write a thread, with every branch, to stdout",
		Long: `Write every checkpoint and pending write of THREAD, and the graph recorded
for it, as one JSON document on stdout: copy a bad run off a server and
import it on your machine. Each checkpoint is written as what changed since
its parent (docs/export-format.md), so the document grows with what the run
changed, not with its length times the size of its state.`,
		Example: "  superstep export t1 > t1.json\n  ssh server superstep export t1 | superstep import -",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Export streams the thread checkpoint by checkpoint, every
			// namespace: a thread with subgraph checkpoints only is
			// exported too.
			return a.withThread(cmd, g, args[0], true, nil, func(ctx context.Context, st Store, _ []*engine.CheckpointTuple) (err error) {
				// "" exports the graph record stored with the thread.
				if err := st.Export(ctx, args[0], a.Stdout, ""); err != nil {
					if errors.Is(err, persist.ErrThreadNotFound) {
						return usagef("%w: %q (%s lists them)", ErrThreadNotFound, args[0], hintLine(ctx, "threads"))
					}
					return storeError(err, "export %q", args[0])
				}
				return nil
			})
		},
	}
}

func (a *App) importCommand(g *globals) *cobra.Command {
	var replace replaceFlags
	cmd := &cobra.Command{
		Use:     "import FILE",
		Short:   "Add an exported thread to the database",
		Long:    "Add the thread exported in FILE (- for stdin) to the database and print its id.",
		Example: "  superstep import t1.json\n  superstep import --overwrite --db ./bug.db t1.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := notAURL("import", args[0], "FILE is an export file (pull copies a thread from a server)"); err != nil {
				return err
			}
			if err := replace.check(); err != nil {
				return err
			}
			name, r := "stdin", a.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					if os.IsNotExist(err) {
						return usagef("import %s: no such file", args[0])
					}
					return usagef("import: %v", err)
				}
				defer f.Close()
				name, r = args[0], f
			}
			in, err := seekableImport(r)
			if err != nil {
				return failf("import %s: %v", name, err)
			}
			defer in.Close()
			// Refused before the database is opened: a bad file must not
			// leave a new, empty database behind or wait for the lock.
			// The check reads the document as a stream, as Import does.
			thread, err := persist.CheckExport(in, 0)
			if err != nil {
				if errors.Is(err, persist.ErrBadImport) {
					// Import says the input is not JSON and its line; the
					// column too is what someone who edited the file needs.
					if at := malformedJSON(in); at != "" {
						return usagef("import %s: %s", name, at)
					}
				}
				return storeError(err, "import %s", name)
			}
			if _, err := in.Seek(0, io.SeekStart); err != nil {
				return failf("import %s: %v", name, err)
			}
			db, err := dbPath(g)
			if err != nil {
				return err
			}
			st, err := a.open(g, false)
			if err != nil {
				return err
			}
			defer closeStore(st, &err)
			id, err := st.Import(cmd.Context(), in, replace.options(0))
			if errors.Is(err, persist.ErrThreadExists) {
				return usagef("import %s: thread %q already exists in %s (--overwrite replaces it)", name, thread, displayDB(db))
			}
			if errors.Is(err, persist.ErrWouldDiscard) {
				return usagef("import %s: not replacing thread %q in %s: %s; export it again from where it went on, or pass --force to drop what only it has", name, thread, displayDB(db), replaceLoss(err))
			}
			if err != nil {
				return storeError(err, "import %s", name)
			}
			if g.json {
				return writeJSON(a.Stdout, map[string]string{"thread": id})
			}
			_, err = fmt.Fprintf(a.Stdout, "imported thread %s\n", termtext.Name(id))
			return err
		},
	}
	replace.add(cmd, "replace a thread of the same id")
	return cmd
}

// seekableImport is import's input as a file it can read twice (checked,
// then imported): the file itself, or, for a pipe, a temporary copy of
// it, which Close removes. The copy is on disk, not in memory: an export
// may be hundreds of megabytes.
func seekableImport(r io.Reader) (io.ReadSeekCloser, error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return nopCloser{f}, nil
		}
	}
	tmp, err := os.CreateTemp("", "superstep-import-*.json")
	if err != nil {
		return nil, err
	}
	spool := &tempFile{tmp}
	// One byte over the limit is enough for the check to refuse it.
	if _, err := io.Copy(tmp, io.LimitReader(r, persist.DefaultMaxImportBytes+1)); err != nil {
		spool.Close()
		return nil, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		spool.Close()
		return nil, err
	}
	return spool, nil
}

// nopCloser is a file the caller closes itself.
type nopCloser struct{ *os.File }

func (nopCloser) Close() error { return nil }

// tempFile is a temporary file that Close removes.
type tempFile struct{ *os.File }

func (t *tempFile) Close() error {
	err := t.File.Close()
	if rerr := os.Remove(t.Name()); err == nil {
		err = rerr
	}
	return err
}

// maxJSONCheck is the largest input malformedJSON reads to place an error.
const maxJSONCheck = 256 << 20

// malformedJSON says where in, an export CheckExport refused, is not JSON
// (line and column), or "" when it is JSON (the refusal says what is
// wrong) or too large to read again whole. It reads in from its start: an
// error path only.
func malformedJSON(in io.ReadSeeker) string {
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(in, maxJSONCheck+1))
	if err != nil || len(data) > maxJSONCheck {
		return ""
	}
	body := persist.TrimBOM(data)
	if json.Valid(body) {
		return ""
	}
	var raw json.RawMessage
	return jsonErrorAt(body, json.Unmarshal(body, &raw))
}

func (a *App) checkCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "check",
		Short:   "Verify the database's integrity",
		Long:    "Verify the database's integrity; exit 1 and name the damage if it is not sound.",
		Example: "  superstep check\n  superstep check --db ./bug.db",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			p, err := dbPath(g)
			if err != nil {
				return err
			}
			// A file that is not superstep's is refused as it is by every
			// command (exit 2); damage is what check reports (exit 1).
			st, err := a.openWith(g, storeOptions{ReadOnly: true})
			if err != nil {
				return err
			}
			defer closeStore(st, &err)
			cerr := checkStore(cmd.Context(), st)
			unsealed := unsealedRecords(st)
			if g.json {
				doc := map[string]any{"database": displayDB(p), "ok": cerr == nil, "checksums": !unsealed}
				if cerr != nil {
					doc["problems"] = strings.Split(storeMessage(cerr), "\n")
				}
				if err := writeJSON(a.Stdout, doc); err != nil {
					return err
				}
			}
			if unsealed && !g.json {
				fmt.Fprintln(a.Stderr, unsealedNote)
			}
			if cerr != nil {
				return failf("check %s: %s", displayDB(p), storeMessage(cerr))
			}
			if !g.json {
				_, err = fmt.Fprintf(a.Stdout, "database %s: ok\n", displayDB(p))
			}
			return err
		},
	}
}

// unsealedNote is what check says of a file whose records carry no
// checksums.
const unsealedNote = "note: this database was made by an older superstep: its records carry no checksums, so check sees damage to its structure but not a changed value (export and import its threads into a new database to add them)"

// unsealedRecords reports whether st is a bbolt file whose records carry
// no checksums (persist.Store.Sealed).
func unsealedRecords(st Store) bool {
	s, ok := st.(interface{ Sealed() (bool, error) })
	if !ok {
		return false
	}
	sealed, err := s.Sealed()
	return err == nil && !sealed
}

// readThread opens the database read-only, reads thread's checkpoints
// (newest first, an error naming the thread when it has none) and runs fn;
// the database is closed when fn returns.
func (a *App) readThread(cmd *cobra.Command, g *globals, thread string, fn func(ctx context.Context, st Store, list []*engine.CheckpointTuple) error) error {
	return a.withThread(cmd, g, thread, true, threadCheckpoints, fn)
}

// writeThread is readThread on the database opened for writing.
func (a *App) writeThread(cmd *cobra.Command, g *globals, thread string, fn func(ctx context.Context, st Store, list []*engine.CheckpointTuple) error) error {
	return a.withThread(cmd, g, thread, false, threadCheckpoints, fn)
}

// threadLoader reads a thread's root checkpoints, newest first, or returns
// an error naming the thread.
type threadLoader func(ctx context.Context, st Store, thread string) ([]*engine.CheckpointTuple, error)

// withThread opens the database, reads thread with load (nil: fn reads
// what it needs itself) and runs fn; the database is closed when fn
// returns.
func (a *App) withThread(cmd *cobra.Command, g *globals, thread string, readOnly bool, load threadLoader, fn func(ctx context.Context, st Store, list []*engine.CheckpointTuple) error) (err error) {
	st, err := a.openWith(g, storeOptions{ReadOnly: readOnly, Existing: true})
	if err != nil {
		return err
	}
	defer closeStore(st, &err)
	ctx := cmd.Context()
	var list []*engine.CheckpointTuple
	if load != nil {
		if list, err = load(ctx, st, thread); err != nil {
			return err
		}
	}
	return fn(ctx, st, list)
}

// outliner is what a store offers to read a thread without its state
// values and to find checkpoint ids from keys alone; *persist.Store has
// it. Commands read a store without it (PostgreSQL) in full.
type outliner interface {
	engine.Outliner
	CheckpointIDs(ctx context.Context, cfg engine.Config, prefix string, limit int) ([]string, error)
}

var _ outliner = (*persist.Store)(nil)

// outlinePage is how many checkpoints eachOutlinePage reads at a time.
const outlinePage = 1000

// eachOutlinePage calls fn with thread's root checkpoints, newest first, a
// page at a time, without the state's values: every checkpoint keeps its
// metadata, versions and pending writes (engine.Outliner says which keep
// their values), and the values of the channels keep accepts
// (internalChannel: triggers, joins, branches, all that planning the next
// tasks reads; nil: none). A command
// that prints every checkpoint then holds one page of them. A store that
// cannot outline is read in full, as one page.
func eachOutlinePage(ctx context.Context, st Store, cfg engine.Config, keep func(channel string) bool, fn func(page []*engine.CheckpointTuple) error) error {
	thread := cfg.ThreadID
	o, ok := st.(outliner)
	if !ok {
		list, err := nsCheckpoints(ctx, st, cfg)
		if err != nil {
			return err
		}
		return fn(list)
	}
	opt := engine.ListOptions{Limit: outlinePage}
	for n := 0; ; {
		page, err := o.Outline(ctx, cfg, opt, keep)
		if err != nil {
			return storeError(err, "reading thread %q", thread)
		}
		if n += len(page); n == 0 {
			return threadNotFound(ctx, st, thread)
		}
		if len(page) > 0 {
			if err := fn(page); err != nil {
				return err
			}
		}
		if len(page) < opt.Limit {
			return nil
		}
		opt.Before = page[len(page)-1].Checkpoint.ID
	}
}

// oneCheckpoint reads the checkpoint ref names on thread ("" for the
// latest; otherwise what findCheckpoint accepts) and no other checkpoint's
// values. With a store that lists ids from keys alone, ref is resolved
// against those ids; any other store's thread is read in full.
func oneCheckpoint(ctx context.Context, st Store, cfg engine.Config, ref string) (*engine.CheckpointTuple, error) {
	thread := cfg.ThreadID
	o, ok := st.(outliner)
	if !ok {
		list, err := nsCheckpoints(ctx, st, cfg)
		if err != nil || ref == "" {
			return first(list), err
		}
		return findCheckpoint(ctx, list, thread, ref)
	}
	if ref != "" {
		// A whole id is read at once: an exact id wins over prefixes
		// (engine.ResolveID).
		if t, err := st.GetTuple(ctx, engine.Config{ThreadID: thread, CheckpointNS: cfg.CheckpointNS, CheckpointID: ref}); err != nil || t != nil {
			if err != nil {
				return nil, storeError(err, "reading thread %q", thread)
			}
			return t, nil
		}
		// Short forms are not prefixes of the id, so every id is
		// listed; these are keys only, a few bytes a checkpoint.
		ids, err := o.CheckpointIDs(ctx, cfg, "", 0)
		if err != nil {
			return nil, storeError(err, "reading thread %q", thread)
		}
		if len(ids) == 0 {
			return nil, threadNotFound(ctx, st, thread)
		}
		id, err := resolveCheckpoint(ctx, ids, thread, ref)
		if err != nil {
			return nil, nsHint(ctx, st, cfg, ref, err)
		}
		cfg.CheckpointID = id
	}
	t, err := st.GetTuple(ctx, cfg)
	if err != nil {
		return nil, storeError(err, "reading thread %q", thread)
	}
	if t == nil {
		return nil, threadNotFound(ctx, st, thread)
	}
	return t, nil
}

func first(list []*engine.CheckpointTuple) *engine.CheckpointTuple {
	if len(list) == 0 {
		return nil
	}
	return list[0]
}

// threadStatus is the engine's status of a thread's latest checkpoint
// (engine.StateSnapshot.Status, the same facts show, run and the debugger
// use): planned with the thread's recorded graph when it still resolves,
// else from the saved writes alone, which tell interrupted and error;
// done or pending then comes from the store's listing, which planned the
// checkpoint from the topology the thread's graph record keeps
// (persist.ThreadInfo.Status), where it could.
//
// The checkpoint is read all the same, values included: a listing names
// a thread whose latest checkpoint is damaged, which the listing's own
// read, without the state's values, would not see.
//
// With the graph, the checkpoint Threads listed as the latest
// (ThreadInfo.LastID) is read once, by GetState, as checkpointState reads
// it: reading it first with GetTuple only to learn its id read every
// thread's latest checkpoint twice, the cost of a listing on PostgreSQL.
// When that fails (damage, or the thread changed since it was listed),
// the status is found as before from the latest checkpoint read alone.
func threadStatus(ctx context.Context, st Store, t persist.ThreadInfo, cache map[string]*engine.Graph) (string, error) {
	rec, _ := decodeGraphRecord(t.Fingerprint)
	g, ok := cache[rec.Graph+" "+rec.Fingerprint]
	if !ok && rec.Graph != "" {
		g, _ = graphFor(ctx, st, t.ID, "", noLint)
		cache[rec.Graph+" "+rec.Fingerprint] = g
	}
	if g != nil && t.LastID != "" {
		if snap := rootState(ctx, g, t.ID, t.LastID); snap != nil {
			return snap.Status().String(), nil
		}
	}
	tuple, err := st.GetTuple(ctx, engine.Config{ThreadID: t.ID})
	if err != nil {
		return "", err
	}
	status := "unknown"
	if tuple != nil {
		status = checkpointStatus(ctx, g, tuple)
	}
	if status == "unknown" && t.StatusKnown {
		status = t.Status.String()
	}
	return status, nil
}

// checkpointStatus is the engine's status of checkpoint t: with the graph,
// from its planned tasks and saved writes (StateSnapshot.Status); without,
// from the saved writes alone, which cannot tell done from pending.
//
// With the graph it is read through the store (GetState), which is exact
// where the checkpoint's own saved writes are not: a subgraph node's task
// waits when its subgraph waits, the answers the subgraph used being
// saved in its namespace.
func checkpointStatus(ctx context.Context, g *engine.Graph, t *engine.CheckpointTuple) string {
	if snap := checkpointState(ctx, g, t); snap != nil {
		return snap.Status().String()
	}
	if g != nil {
		if snap, err := g.SnapshotOf(t, false); err == nil {
			return snap.Status().String()
		}
	}
	if status := engine.ReadSavedWrites(t.PendingWrites).Status(true); status != engine.CheckpointPending {
		return status.String()
	}
	return "unknown"
}

// checkpointState is the engine's snapshot of the root checkpoint t read
// through the store, nil without a graph or when it cannot be read.
func checkpointState(ctx context.Context, g *engine.Graph, t *engine.CheckpointTuple) *engine.StateSnapshot {
	if g == nil || t.Config.CheckpointNS != "" {
		return nil
	}
	return rootState(ctx, g, t.Config.ThreadID, t.Checkpoint.ID)
}

// rootState is the engine's snapshot of checkpoint id of thread's root
// namespace, read through the store without applying its pending writes
// (an explicit id), nil when it cannot be read.
func rootState(ctx context.Context, g *engine.Graph, thread, id string) *engine.StateSnapshot {
	snap, err := g.GetState(ctx, engine.Config{ThreadID: thread, CheckpointID: id})
	if err != nil {
		return nil
	}
	return snap
}

// taskPrefix is how history and show name a task beside its node, or
// alone when its node is not known: the first 8 characters of its id,
// which tell a checkpoint's tasks apart (the engine's task ids are
// hashes), or the whole id when it is no longer (a Saver takes any task
// id: a program's own, an imported thread's).
func taskPrefix(id string) string {
	n := 0
	for i := range id {
		if n == 8 {
			return id[:i]
		}
		n++
	}
	return id
}

// waitingInterrupts are the interrupts saved on checkpoint t that wait for
// an answer (openInterrupts), and with the graph those that the tasks of
// subgraph nodes wait on though the saved writes alone read them answered
// (checkpointStatus says why).
func waitingInterrupts(ctx context.Context, g *engine.Graph, t *engine.CheckpointTuple) []engine.PendingInterrupt {
	if !raisedInterrupts(t) {
		return nil // nothing asked here: no state to read
	}
	out := openInterrupts(t)
	snap := checkpointState(ctx, g, t)
	if snap == nil {
		return out
	}
	for _, in := range snap.Interrupts() {
		if !slices.ContainsFunc(out, func(o engine.PendingInterrupt) bool { return o.ID == in.ID && o.TaskID == in.TaskID }) {
			out = append(out, in)
		}
	}
	return out
}

// checkStore runs st's Check, ended by ctx (Ctrl-C) where the store can
// be: a PostgreSQL store's check reads every row over the network, and a
// server that stopped answering would hold it until a second Ctrl-C.
func checkStore(ctx context.Context, st Store) error {
	if c, ok := st.(interface {
		CheckContext(context.Context) error
	}); ok {
		return c.CheckContext(ctx)
	}
	return st.Check()
}
