package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/superstep/superstep/engine"
)

// recorder wraps a Saver and remembers every put and the last writes of
// every root-namespace task, in order: the trace is made from them.
type recorder struct {
	engine.Saver
	mu         sync.Mutex
	puts       []put
	ordinal    map[string]int
	taskWrites map[string][]engine.Write
}

type put struct {
	cfg      engine.Config
	cp       *engine.Checkpoint
	md       engine.Metadata
	parentID string
}

func (r *recorder) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	out, err := r.Saver.Put(ctx, cfg, cp, md, nv)
	if err != nil {
		return out, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cfg.CheckpointNS == "" {
		if _, ok := r.ordinal[cp.ID]; !ok {
			r.ordinal[cp.ID] = len(r.ordinal)
		}
	}
	r.puts = append(r.puts, put{cfg: out, cp: cp.Clone(), md: md, parentID: cfg.CheckpointID})
	return out, nil
}

func (r *recorder) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	if err := r.Saver.PutWrites(ctx, cfg, taskID, writes); err != nil {
		return err
	}
	if cfg.CheckpointNS == "" {
		r.mu.Lock()
		r.taskWrites[taskID] = slices.Clone(writes)
		r.mu.Unlock()
	}
	return nil
}

// Runner runs a scenario's ops on one compiled graph and records the trace.
type Runner struct {
	file    *File
	graph   *engine.Graph
	count   *Counters
	rec     *recorder
	emitted int
	fork    *engine.Config
	summary bool
	// opErr is the error of the op running, if it failed; onOpError
	// receives it (RunOptions.OpError).
	opErr     error
	onOpError func(op Op, err error)
}

// RunOptions configure Trace.
type RunOptions struct {
	// Saver stores the checkpoints (default: a new MemorySaver).
	Saver engine.Saver
	// Summary writes the short per-op form used for the perf workloads.
	Summary bool
	// IDs makes checkpoint ids (default: a counter, for identical traces).
	IDs engine.IDSource
	// Graph, when set, builds the graph to trace instead of the file's graph
	// section: the file's ops run against a graph written in Go. Node entry
	// counts are not known for such a graph; its trace's entries are empty.
	Graph func(opts ...engine.CompileOption) (*engine.Graph, error)
	// OpError, when set, receives each op that fails and its error: the
	// trace records only the error's kind (InvalidUpdateError), as
	// LangGraph.js's runner prints it. When an expression of the file
	// made the error (File.Where), err is an *Error at that expression,
	// whose message is the error's and which wraps it.
	OpError func(op Op, err error)
}

// TraceFile loads a scenario file and traces it. A graph LangGraph would
// refuse to compile (an unknown node in an edge, an unknown reducer) gives a
// trace with compile_error, as the reference runner prints; other load errors
// are returned.
func TraceFile(ctx context.Context, path string, opt RunOptions) (map[string]any, error) {
	f, err := Load(path)
	if err != nil {
		if f != nil && errors.Is(err, ErrInvalidGraph) {
			return map[string]any{"trace_version": float64(TraceVersion), "scenario": f.Name, "compile_error": "Error:Error", "ops": []any{}}, nil
		}
		return nil, err
	}
	return Trace(ctx, f, opt)
}

// Trace runs every op of f and returns its trace (TRACE-FORMAT.md) as plain
// JSON data. Errors of ops are part of the trace; the error returned is only
// for a scenario that cannot run at all.
func Trace(ctx context.Context, f *File, opt RunOptions) (map[string]any, error) {
	if opt.Saver == nil {
		opt.Saver = engine.NewMemorySaver()
	}
	if opt.IDs == nil {
		opt.IDs = &engine.CounterIDs{}
	}
	rec := &recorder{Saver: opt.Saver, ordinal: map[string]int{}, taskWrites: map[string][]engine.Write{}}
	trace := map[string]any{"trace_version": float64(TraceVersion), "scenario": f.Name}
	var g *engine.Graph
	var c *Counters
	var err error
	if opt.Graph != nil {
		c = newCounters()
		g, err = opt.Graph(engine.WithSaver(rec), engine.WithIDs(opt.IDs))
	} else {
		g, c, err = Build(f, engine.WithSaver(rec), engine.WithIDs(opt.IDs))
	}
	if err != nil {
		ces := compileErrorsIn(err)
		if len(ces) == 0 {
			return nil, err
		}
		kind := "Error:Error"
		for _, e := range ces {
			if e.Kind == "UnreachableNodeError" || e.MeantUnreached {
				kind = "UnreachableNodeError"
			}
		}
		trace["compile_error"] = kind
		trace["ops"] = []any{}
		return trace, nil
	}
	r := &Runner{file: f, graph: g, count: c, rec: rec, summary: opt.Summary, onOpError: opt.OpError}
	if opt.Summary {
		trace["summary"] = true
	}
	ops := make([]any, 0, len(f.Ops))
	for _, op := range f.Ops {
		ops = append(ops, r.runOp(ctx, op))
	}
	trace["ops"] = ops
	return trace, nil
}

// compileErrorsIn are the engine's compile errors err holds: Build's, as
// placed in the file (Errors), or an entrypoint's (engine.CompileErrors).
func compileErrorsIn(err error) []*engine.CompileError {
	var out []*engine.CompileError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case *engine.CompileError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, u := range e.Unwrap() {
				walk(u)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// runOp runs one op of the file and returns its trace record.
func (r *Runner) runOp(ctx context.Context, op Op) map[string]any {
	r.count.TakeEntries()
	rec := map[string]any{"op": float64(op.Index), "kind": op.Kind, "thread": op.Thread}
	switch op.Kind {
	case OpInvoke, OpResume:
		r.invoke(ctx, op, rec)
	case OpGetState:
		r.getState(ctx, op, rec)
	case OpHistory:
		r.history(ctx, op, rec)
	case OpClearCache:
		if err := r.graph.ClearCache(ctx); err != nil {
			rec["result"] = r.errorResult(err)
		}
	case OpBulkUpdate:
		r.bulkUpdate(ctx, op, rec)
	case OpUpdateState:
		r.updateState(ctx, op, rec)
	}
	if r.opErr != nil && r.onOpError != nil {
		err := r.opErr
		if at, ok := r.file.Where(err, err.Error()); ok {
			err = at
		}
		r.onOpError(op, err)
	}
	r.opErr = nil
	entries := map[string]any{}
	for k, v := range r.count.TakeEntries() {
		entries[k] = float64(v)
	}
	rec["entries"] = entries
	if r.summary {
		return summarize(rec)
	}
	return rec
}

// getState records the thread's state, or a subgraph task's, in rec.
func (r *Runner) getState(ctx context.Context, op Op, rec map[string]any) {
	var opts []engine.StateOption
	if op.SubgraphState {
		opts = append(opts, engine.WithSubgraphState())
	}
	cfg, found, err := r.subgraphConfig(ctx, op)
	if err == nil && !found {
		err = fmt.Errorf("no pending task of subgraph node %q", op.SubgraphOf)
	}
	var snap *engine.StateSnapshot
	if err == nil {
		snap, err = r.graph.GetState(ctx, cfg, opts...)
	}
	if errors.Is(err, engine.ErrNoCheckpoint) {
		// LangGraph's get_state of a thread (or a subgraph task's
		// namespace) with no checkpoint is an empty snapshot, not an
		// error (LangGraph.js pregel/index.ts getState →
		// _prepareStateSnapshot:878-885); the engine reports
		// ErrNoCheckpoint, which the trace shows that way.
		snap, err = &engine.StateSnapshot{Config: cfg, Values: map[string]any{}, Next: []string{}}, nil
	}
	if err != nil {
		rec["result"] = r.errorResult(err)
	} else {
		rec["state"] = r.snapshotRecord(snap)
	}
}

// history records the thread's history, or a subgraph task's, in rec.
func (r *Runner) history(ctx context.Context, op Op, rec map[string]any) {
	cfg, found, err := r.subgraphConfig(ctx, op)
	opt := engine.ListOptions{Limit: op.Limit, Filter: op.Filter}
	if err == nil && op.Before != nil {
		var before engine.Config
		before, err = r.checkpointAtStep(op.Thread, *op.Before)
		opt.Before = before.CheckpointID
	}
	var hist []*engine.StateSnapshot
	if err == nil && found {
		hist, err = r.graph.History(ctx, cfg, opt)
	}
	if err != nil {
		rec["result"] = r.errorResult(err)
		return
	}
	list := make([]any, len(hist))
	for i, s := range hist {
		list[i] = r.snapshotRecord(s)
	}
	rec["history"] = list
}

// updateState runs the op's update_state and records its result and the
// thread's checkpoints in rec; a later op's "from": "fork" starts at the
// checkpoint it writes (r.fork).
func (r *Runner) updateState(ctx context.Context, op Op, rec map[string]any) {
	cfg, err := r.updateConfig(ctx, op)
	var out engine.Config
	if err == nil {
		values := op.Values
		if op.Command != nil {
			values = op.Command.engineCommand()
		}
		out, err = r.graph.UpdateState(ctx, cfg, values, op.AsNode)
	}
	r.recordUpdate(ctx, rec, out, err)
}

// recordUpdate records in rec how an update_state or a bulk_update ended:
// the checkpoint it wrote (where a later op's "from": "fork" starts), or
// its error; and the thread's checkpoints after it.
func (r *Runner) recordUpdate(ctx context.Context, rec map[string]any, out engine.Config, err error) {
	if err != nil {
		rec["result"] = r.errorResult(err)
	} else {
		r.fork = &out
		rec["result"] = map[string]any{"status": "done", "checkpoint": r.ordinalOf(out.CheckpointID)}
	}
	r.addCheckpoints(ctx, rec)
}

// errorResult is the result record of an op that failed with err: its
// kind, normalized as LangGraph.js's runner prints it. The error itself
// goes to RunOptions.OpError, for the person reading the trace.
func (r *Runner) errorResult(err error) map[string]any {
	r.opErr = err
	return map[string]any{"status": "error", "error": ErrorKind(err)}
}

// stepTask is one task of the trace's steps, filled from stream events.
type stepTask struct {
	name       string
	input      any
	push       bool
	triggers   []string
	hasResult  bool
	failed     bool
	writes     map[string]any
	interrupts []engine.Interruption
}

func (r *Runner) invoke(ctx context.Context, op Op, rec map[string]any) {
	opts := invokeOptions(op)
	stream := r.streamRecorder(op, &opts)
	runErr := r.startFrom(op, &opts)
	input, err := r.invokeInput(ctx, op)
	if err != nil {
		runErr = err
	}
	steps := &stepRecorder{tasks: map[int]map[string]*stepTask{}, order: map[int][]string{}}
	opts = append(opts, engine.WithEvents(steps.event))
	var res *engine.Result
	if runErr == nil {
		res, runErr = r.graph.Invoke(ctx, input, opts...)
	}
	rec["steps"] = steps.records(r.rec)
	if op.Stream != nil {
		rec["stream"] = stream.records()
	}
	r.addCheckpoints(ctx, rec)
	rec["result"] = r.invokeResult(ctx, op.Thread, res, runErr, steps.output())
}

// invokeOptions are the run options an invoke op asks for. Sibling
// subgraphs write their checkpoints in turns, so the trace is the same on
// every run.
func invokeOptions(op Op) []engine.RunOption {
	opts := []engine.RunOption{engine.OnThread(op.Thread), engine.WithSubgraphTurns()}
	if op.HasRecursionLimit {
		opts = append(opts, engine.WithRecursionLimit(op.RecursionLimit))
	}
	if op.Context != nil {
		opts = append(opts, engine.WithRuntimeContext(op.Context))
	}
	if op.MaxConcurrency > 0 {
		opts = append(opts, engine.WithMaxConcurrency(op.MaxConcurrency))
	}
	if d, err := engine.ParseDurability(op.Durability); err == nil && op.Durability != "" {
		opts = append(opts, engine.WithDurability(d))
	}
	return opts
}

// startFrom adds where the run starts when the op names it: the last
// update_state's checkpoint (from: fork), or the thread's checkpoint of a
// step (at_step).
func (r *Runner) startFrom(op Op, opts *[]engine.RunOption) error {
	switch {
	case op.From == "fork":
		if r.fork == nil {
			return errors.New("no update_state result to continue from")
		}
		*opts = append(*opts, engine.FromConfig(*r.fork))
	case op.AtStep != nil:
		cfg, err := r.checkpointAtStep(op.Thread, *op.AtStep)
		*opts = append(*opts, engine.FromCheckpoint(cfg.CheckpointID))
		return err
	}
	return nil
}

// invokeInput is what the op runs the graph with: its input, a Command,
// or a resume (by node, answering each node's interrupt).
func (r *Runner) invokeInput(ctx context.Context, op Op) (any, error) {
	switch {
	case op.Kind == OpResume && op.ByNode != nil:
		m, err := r.resumeByNode(ctx, op)
		return engine.Command{Resume: m}, err
	case op.Kind == OpResume:
		return engine.Command{Resume: op.Value}, nil
	case op.Command != nil:
		return op.Command.engineCommand(), nil
	}
	return op.Input, nil
}

// stepRecorder fills the trace's steps from a run's events: the root
// graph's tasks of each step, in the order they were first seen, and an
// entrypoint's output from the root's last values event.
type stepRecorder struct {
	mu         sync.Mutex
	tasks      map[int]map[string]*stepTask
	order      map[int][]string
	lastOutput any
}

func (sr *stepRecorder) event(e engine.Event) {
	if e.Kind == engine.EventValues && e.Namespace == "" {
		sr.mu.Lock()
		sr.lastOutput = e.Output
		sr.mu.Unlock()
		return
	}
	if e.Kind != engine.EventTask && e.Kind != engine.EventTaskResult || e.Namespace != "" {
		return // steps list the root graph's tasks only
	}
	if e.Unstarted {
		return // a superstep of saved writes only: LangGraph.js starts no task
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	m := sr.tasks[e.Step]
	if m == nil {
		m = map[string]*stepTask{}
		sr.tasks[e.Step] = m
	}
	t := m[e.TaskID]
	if t == nil {
		t = &stepTask{name: e.Node}
		m[e.TaskID] = t
		sr.order[e.Step] = append(sr.order[e.Step], e.TaskID)
	}
	if e.Kind == engine.EventTask {
		t.push, t.input, t.triggers = e.IsPush, e.Input, e.Triggers
		return
	}
	t.hasResult, t.writes, t.interrupts, t.failed = true, e.Update, e.Interrupts, e.Err != nil
}

// output is the entrypoint's output of the root's last values event.
func (sr *stepRecorder) output() any {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.lastOutput
}

// records are the trace's steps, in step order, each task with what the
// saver recorded it wrote (strict).
func (sr *stepRecorder) records(saved *recorder) []any {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	stepNums := make([]int, 0, len(sr.tasks))
	for s := range sr.tasks {
		stepNums = append(stepNums, s)
	}
	sort.Ints(stepNums)
	out := make([]any, 0, len(stepNums))
	for _, s := range stepNums {
		var tasks []any
		for _, id := range sr.order[s] {
			if t, ok := sr.tasks[s][id]; ok {
				tasks = append(tasks, t.record(id, saved))
			}
		}
		out = append(out, map[string]any{"step": float64(s), "tasks": sortRecords(tasks)})
	}
	return out
}

// record is the task's entry in its step's record.
func (t *stepTask) record(id string, saved *recorder) map[string]any {
	tr := map[string]any{"name": t.name}
	if t.push {
		tr["input"] = plain(t.input)
	}
	if t.hasResult {
		if t.failed {
			tr["error"] = true
		}
		tr["writes"] = plain(t.writes)
		if len(t.interrupts) > 0 {
			tr["interrupts"] = plain(t.interrupts)
		}
	} else {
		tr["reused"] = true
	}
	strict := map[string]any{"triggers": stringsToAny(t.triggers)}
	saved.mu.Lock()
	if w, ok := saved.taskWrites[id]; ok {
		list := []any{}
		for _, wr := range w {
			if engine.IsControlWrite(wr.Channel) && wr.Channel != engine.NoWritesChannel {
				continue // the oracle lists the no-writes marker
			}
			list = append(list, []any{wr.Channel, plain(wr.Value)})
		}
		strict["writes"] = list
	}
	saved.mu.Unlock()
	tr["strict"] = strict
	return tr
}

// invokeResult is the op's result record: the run's error, or its status
// and values (with an interrupted run's interrupts). lastOutput is an
// entrypoint's output from the root's last values event.
func (r *Runner) invokeResult(ctx context.Context, thread string, res *engine.Result, runErr error, lastOutput any) map[string]any {
	if runErr != nil {
		return r.errorResult(runErr)
	}
	values := any(res.Values)
	if r.graph.IsEntrypoint() {
		// LangGraph.js streams an entrypoint's values when a step
		// writes __end__ (only its node does, as it finishes) and
		// when a run resumes (loop.ts:1505-1510 streams the current
		// __end__): an interrupted run's values are the last of
		// these, if any, as the oracle takes them.
		values = entrypointValues(lastOutput)
		if res.Status == engine.StatusDone {
			values = entrypointValues(res.Output)
		}
	}
	if res.Status == engine.StatusInterrupted {
		nodeOf := r.pendingInterruptNodes(ctx, thread)
		ints := []any{}
		for _, in := range res.Interrupts {
			var node any // null: not pending at the thread's latest checkpoint
			if n, ok := nodeOf[in.ID]; ok {
				node = n
			}
			ints = append(ints, map[string]any{"node": node, "value": plain(in.Value)})
		}
		return map[string]any{"status": "interrupted", "values": plain(values), "interrupts": sortRecords(ints)}
	}
	return map[string]any{"status": "done", "values": plain(values)}
}

// pendingInterruptNodes maps the ids of the interrupts pending at the
// thread's latest checkpoint to the node of the task that raised each:
// the trace format's "node" of an interrupted run's interrupt
// (docs/trace-format.md; the oracle matches them the same way). An
// interrupt raised by a run from an older checkpoint, once the thread
// has moved on past it, is pending at none and has no node.
func (r *Runner) pendingInterruptNodes(ctx context.Context, thread string) map[string]string {
	snap, err := r.graph.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return nil
	}
	nodeOf := map[string]string{}
	for _, t := range snap.Tasks {
		for _, in := range t.Interrupts {
			nodeOf[in.ID] = t.Name
		}
	}
	return nodeOf
}

func (r *Runner) resumeByNode(ctx context.Context, op Op) (engine.ResumeMap, error) {
	snap, err := r.graph.GetState(ctx, engine.Config{ThreadID: op.Thread})
	if err != nil {
		return nil, err
	}
	m := engine.ResumeMap{}
	for _, kv := range op.ByNode {
		var ids []string
		for _, t := range snap.Tasks {
			if t.Name == kv.Key {
				for _, in := range t.Interrupts {
					ids = append(ids, in.ID)
				}
			}
		}
		if len(ids) != 1 {
			return nil, fmt.Errorf("by_node: node %q has %d pending interrupts", kv.Key, len(ids))
		}
		m[ids[0]] = kv.Value
	}
	return m, nil
}

// checkpointAtStep is the newest root checkpoint of thread with that step.
func (r *Runner) checkpointAtStep(thread string, step int) (engine.Config, error) {
	return r.checkpointAtStepIn(thread, "", step)
}

// checkpointAtStepIn is the newest checkpoint of thread in namespace ns with
// that step.
func (r *Runner) checkpointAtStepIn(thread, ns string, step int) (engine.Config, error) {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	for i := len(r.rec.puts) - 1; i >= 0; i-- {
		p := r.rec.puts[i]
		if p.cfg.ThreadID == thread && p.cfg.CheckpointNS == ns && p.md.Step == step {
			return p.cfg, nil
		}
	}
	return engine.Config{}, fmt.Errorf("no checkpoint at step %d on thread %q", step, thread)
}

func (r *Runner) ordinalOf(id string) any {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	if n, ok := r.rec.ordinal[id]; ok {
		return float64(n)
	}
	return nil
}

// addCheckpoints records the checkpoints written since the last op.
func (r *Runner) addCheckpoints(ctx context.Context, rec map[string]any) {
	r.rec.mu.Lock()
	puts := slices.Clone(r.rec.puts[r.emitted:])
	r.emitted = len(r.rec.puts)
	r.rec.mu.Unlock()
	out := []any{}
	var sub []any
	for _, p := range puts {
		if p.cfg.CheckpointNS != "" {
			sub = append(sub, map[string]any{
				"ns":               engine.NamespaceNodes(p.cfg.CheckpointNS),
				"step":             float64(p.md.Step),
				"source":           p.md.Source,
				"channel_values":   r.subgraphChannelValues(p),
				"channel_versions": versionsJSON(p.cp.ChannelVersions),
			})
			continue
		}
		out = append(out, r.checkpointRecord(ctx, p))
	}
	rec["checkpoints"] = out
	if len(sub) > 0 {
		rec["strict"] = map[string]any{"subgraph_checkpoints": sub}
	}
}

// subgraphChannelValues is a subgraph checkpoint's channel values as the
// oracle prints them. A deferred node's trigger channel is a
// LastValueAfterFinish (libs/langgraph-core/src/graph/state.ts:1936),
// whose checkpoint() is undefined while it holds nothing
// (channels/last_value.ts:113-116), and createCheckpoint stores that
// undefined under the channel's key (channels/base.ts:272); the engine
// stores nil there. The oracle prints a subgraph's channel_values as one
// object (conformance oracle run.mjs:106), and norm drops undefined
// members of an object (lib/normalize.mjs:34), while the root's
// internal_values are normed entry by entry, undefined as null
// (run.mjs:76-78): so only here does the entry go.
func (r *Runner) subgraphChannelValues(p put) any {
	out, ok := plain(p.cp.ChannelValues).(map[string]any)
	if !ok {
		return out
	}
	deferred := r.file.deferredIn(engine.NamespaceNodes(p.cfg.CheckpointNS))
	for k, v := range p.cp.ChannelValues {
		if node, ok := strings.CutPrefix(k, "branch:to:"); ok && v == nil && deferred[node] {
			delete(out, k)
		}
	}
	return out
}

// deferredIn names the deferred nodes of the graph that runs in namespace
// ns (node names joined by "|", task ids stripped): each part names the
// node of the graph so far that runs the next subgraph; a part that names
// none (a second run's counter) stays in the same graph.
func (f *File) deferredIn(ns string) map[string]bool {
	g := &f.Graph
	for _, part := range strings.Split(ns, "|") {
		if sub := f.subgraphRunBy(g, part); sub != nil {
			g = sub
		}
	}
	set := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Defer {
			set[n.Name] = true
		}
	}
	return set
}

func versionsJSON(m map[string]engine.Version) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = float64(v)
	}
	return out
}

func (r *Runner) checkpointRecord(ctx context.Context, p put) map[string]any {
	values, internal := map[string]any{}, map[string]any{}
	for k, v := range p.cp.ChannelValues {
		if r.graph.IsStateKey(k) {
			values[k] = plain(v)
		} else {
			internal[k] = plain(v)
		}
	}
	next := []any{}
	if snap, err := r.graph.GetState(ctx, p.cfg); err == nil {
		next = stringsToAny(snap.Next)
	}
	seen := map[string]any{}
	for n, m := range p.cp.VersionsSeen {
		seen[n] = versionsJSON(m)
	}
	return map[string]any{
		"id":     r.ordinalOf(p.cp.ID),
		"parent": r.ordinalOf(p.parentID),
		"thread": p.cfg.ThreadID,
		"step":   float64(p.md.Step),
		"source": p.md.Source,
		"values": values,
		"next":   next,
		"strict": map[string]any{
			"channel_versions": versionsJSON(p.cp.ChannelVersions),
			"versions_seen":    seen,
			"internal_values":  internal,
		},
	}
}

func (r *Runner) snapshotRecord(s *engine.StateSnapshot) map[string]any {
	tasks := []any{}
	for _, t := range s.Tasks {
		tr := map[string]any{"name": t.Name, "interrupts": plain(interruptValues(t.Interrupts))}
		if t.Result != nil {
			tr["result"] = plain(t.Result)
			if r.graph.IsEntrypoint() {
				tr["result"] = plain(t.Output)
			}
		}
		if t.Error != "" {
			tr["error"] = true
		}
		if t.State != nil {
			// A subgraph's checkpoints have no ordinals: its state is
			// recorded without checkpoint and parent.
			sub := r.snapshotRecord(t.State)
			delete(sub, "checkpoint")
			delete(sub, "parent")
			tr["state"] = sub
		}
		tasks = append(tasks, tr)
	}
	var values any = s.Values
	if r.graph.IsEntrypoint() && s.Output != nil {
		values = s.Output // the snapshot's values are the output channel's
	}
	var step, source any = float64(s.Metadata.Step), s.Metadata.Source
	if s.Checkpoint == nil {
		step, source = nil, nil // a namespace with no checkpoint yet
	}
	return map[string]any{
		"checkpoint": r.ordinalOf(s.Config.CheckpointID),
		"parent":     r.ordinalOf(s.ParentID),
		"step":       step,
		"source":     source,
		"values":     plain(values),
		"next":       stringsToAny(s.Next),
		"tasks":      sortRecords(tasks),
	}
}

// subgraphConfig addresses an op's thread: its root namespace, or with
// "subgraph" the namespace of the latest checkpoint's pending task for that
// node (the "subgraph_task"-th of them); found is false when there is no
// such task.
func (r *Runner) subgraphConfig(ctx context.Context, op Op) (cfg engine.Config, found bool, err error) {
	cfg = engine.Config{ThreadID: op.Thread}
	if op.SubgraphOf == "" {
		return cfg, true, nil
	}
	snap, err := r.graph.GetState(ctx, cfg)
	if err != nil {
		return cfg, false, err
	}
	n := 0
	for _, t := range snap.Tasks {
		// A failed task has no state to address (LangGraph.js
		// pregel/debug.ts:312 tasksWithWrites leaves its state out).
		if t.Name == op.SubgraphOf && t.Subgraph != "" && t.Error == "" {
			if n == op.SubgraphTask {
				cfg.CheckpointNS = t.Subgraph
				return cfg, true, nil
			}
			n++
		}
	}
	return cfg, false, nil
}

// updateConfig addresses an update_state: the thread's latest root
// checkpoint, or the subgraph namespace's; "at" picks the newest checkpoint
// of a step in that namespace.
func (r *Runner) updateConfig(ctx context.Context, op Op) (engine.Config, error) {
	cfg, found, err := r.subgraphConfig(ctx, op)
	if err != nil {
		return cfg, err
	}
	if !found {
		return cfg, fmt.Errorf("no pending task of subgraph node %q", op.SubgraphOf)
	}
	if op.AtStep == nil {
		return cfg, nil
	}
	if cfg.CheckpointNS == "" {
		return r.checkpointAtStep(op.Thread, *op.AtStep)
	}
	// The namespace the subgraph's checkpoints really live in (a stateful
	// subgraph's has no task ids).
	snap, err := r.graph.GetState(ctx, cfg)
	if err != nil {
		return cfg, err
	}
	return r.checkpointAtStepIn(op.Thread, snap.Config.CheckpointNS, *op.AtStep)
}

func interruptValues(ins []engine.Interruption) []any {
	out := make([]any, len(ins))
	for i, in := range ins {
		out[i] = in.Value
	}
	return out
}

// summarize keeps the short per-op form of perf traces.
func summarize(rec map[string]any) map[string]any {
	out := map[string]any{"op": rec["op"], "kind": rec["kind"], "thread": rec["thread"], "entries": rec["entries"]}
	if v, ok := rec["result"]; ok {
		out["result"] = v
	}
	if steps, ok := rec["steps"].([]any); ok {
		n := 0
		for _, s := range steps {
			n += len(s.(map[string]any)["tasks"].([]any))
		}
		out["n_steps"] = float64(len(steps))
		out["n_tasks"] = float64(n)
	}
	if cps, ok := rec["checkpoints"].([]any); ok {
		out["n_checkpoints"] = float64(len(cps))
		if len(cps) > 0 {
			last := cps[len(cps)-1].(map[string]any)
			out["last_checkpoint"] = map[string]any{"step": last["step"], "source": last["source"], "next": last["next"]}
		}
	}
	return out
}
