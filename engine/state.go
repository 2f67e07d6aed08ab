package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// StateSnapshot is a thread's state at one checkpoint, as get_state and
// get_state_history return it.
type StateSnapshot struct {
	Config     Config         // addresses this checkpoint
	ParentID   string         // the checkpoint it follows, or ""
	Metadata   Metadata       // source and step
	CreatedAt  time.Time      // the checkpoint's timestamp
	Values     map[string]any // the state keys that have a value
	Output     any            // an entrypoint's output at this checkpoint (nil for a StateGraph)
	Next       []string       // names of the tasks still to run, sorted
	Tasks      []SnapshotTask // the tasks of the next superstep, with what they saved
	Checkpoint *Checkpoint    // the checkpoint itself
	// PendingWrites are the writes saved against this checkpoint.
	PendingWrites []PendingWrite
}

// SnapshotTask is one task planned from a checkpoint, with what was saved
// for it.
type SnapshotTask struct {
	ID   string // the task id
	Name string // its node
	Push bool   // started by a Send
	// Input is what the task reads: a Send's argument, the run's input
	// for the start node, else the state at the checkpoint, before the
	// saved writes of finished tasks (shared with Values when there are
	// none: read it, do not change it).
	Input      any
	Interrupts []Interruption // its saved interrupts
	// Answers are the saved answers to its Interrupt calls, by call
	// position; Answered reports that there are some.
	Answers  []any
	Answered bool // Answers were saved
	// Waiting: the task's interrupts wait for an answer
	// (SavedWrites.Waiting).
	Waiting bool
	// Finished: the task saved its output and is not run again when the
	// superstep resumes (SavedTask.Finished).
	Finished bool
	// Result is the task's saved writes to state keys; nil when it saved
	// no output. A key the task wrote more than once holds
	// {"$writes": [v1, v2, ...]}, its values in write order (LangGraph.js's
	// form: pregel/debug.ts mapTaskResultWrites).
	Result map[string]any
	// Output is a finished entrypoint task's output, its __end__ write
	// (LangGraph reads a single output channel as the value itself).
	Output any
	// Error is the saved error text of a failed task.
	Error string
	// Err is the failed task's saved error (nil when it did not fail), to
	// ask with errors.Is and errors.As: a *SavedError (see there), e.g.
	// errors.Is(Err, context.Canceled) for a task the caller's
	// cancellation stopped.
	Err error
	// Subgraph is the namespace of the subgraph run by this task, if any.
	Subgraph string
	// Runs are the runs of the subgraphs the node declared (UsesSubgraph)
	// in this task, in order, filled by GetState WithSubgraphState: each
	// has its namespace, which GetState, History and UpdateState take,
	// and its latest state. State is the first run's, as LangGraph shows
	// only the task's own namespace.
	Runs []SubgraphRun
	// State is the subgraph's own state in that namespace, filled by
	// GetState WithSubgraphState (LangGraph's get_state(subgraphs=True):
	// pregel/main.py:1215-1227 sets task.state to the subgraph's
	// get_state, recursively). Nil without the option or when the
	// task's last run failed (LangGraph.js leaves a failed task's state
	// out); where a subgraph node's subgraph has saved no checkpoint yet
	// it is an empty snapshot with no Checkpoint and no metadata, as
	// LangGraph.js's (a node that invokes declared subgraphs gets none:
	// its namespace may hold another graph's checkpoints).
	State *StateSnapshot
}

// SubgraphRun is one run of a declared subgraph (UsesSubgraph) inside a
// task.
type SubgraphRun struct {
	Name      string         // the name the node declared the subgraph under
	Namespace string         // where it ran: a Config.CheckpointNS
	State     *StateSnapshot // its latest state there
}

// StateOption changes what GetState returns.
type StateOption func(*stateOptions)

type stateOptions struct{ subgraphs bool }

// WithSubgraphState makes GetState read the state of every subgraph a
// planned task runs, into SnapshotTask.State, down to the deepest subgraph.
func WithSubgraphState() StateOption { return func(o *stateOptions) { o.subgraphs = true } }

// Interrupts lists the interrupts that wait for an answer, by task: nil
// when none waits. An interrupt answered since (a checkpoint of History
// that a later run resumed) is not listed; the task that raised it still
// has it in SnapshotTask.Interrupts, and its answers in Answers, so a walk
// of History finds where a question was asked by those.
func (s *StateSnapshot) Interrupts() []PendingInterrupt {
	var out []PendingInterrupt
	for _, t := range s.Tasks {
		if !t.Waiting {
			continue
		}
		for _, in := range t.Interrupts {
			out = append(out, PendingInterrupt{Interruption: in, Node: t.Name, TaskID: t.ID})
		}
	}
	return out
}

// Status says where the thread's run stands at this checkpoint, as
// SavedWrites.Status does, with each task's exact Waiting.
func (s *StateSnapshot) Status() CheckpointStatus {
	for _, t := range s.Tasks {
		if t.Waiting {
			return CheckpointInterrupted
		}
	}
	if ReadSavedWrites(s.PendingWrites).Failed() {
		return CheckpointFailed
	}
	if len(s.Tasks) > 0 {
		return CheckpointPending
	}
	return CheckpointDone
}

// GetState returns the state of cfg's checkpoint (the thread's latest when
// cfg.CheckpointID is empty). For the latest checkpoint the pending writes of
// tasks that finished are applied to Values and those tasks leave Next. It
// returns ErrNoCheckpoint for an unknown thread or checkpoint.
//
// A cfg.CheckpointNS names a subgraph's namespace (as SnapshotTask.Subgraph
// and Event.Namespace give it): the state is read with that subgraph's
// channels, as LangGraph's get_state finds the subgraph by the namespace
// without task ids (pregel/main.py:1404-1416). An unknown subgraph is
// ErrUnknownSubgraph.
func (g *Graph) GetState(ctx context.Context, cfg Config, opts ...StateOption) (*StateSnapshot, error) {
	if g.saver == nil {
		return nil, ErrNoCheckpointer
	}
	var o stateOptions
	for _, opt := range opts {
		opt(&o)
	}
	owner, err := g.graphForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
	if err != nil {
		return nil, err
	}
	cfg.CheckpointNS = owner.ownNamespace(cfg.CheckpointNS)
	t, err := g.saver.GetTuple(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%w: thread %q namespace %q checkpoint %q", ErrNoCheckpoint, cfg.ThreadID, cfg.CheckpointNS, cfg.CheckpointID)
	}
	snap, err := owner.snapshot(t, cfg.CheckpointID == "")
	if err != nil {
		return nil, err
	}
	if err := owner.subgraphsWaiting(ctx, g.saver, snap); err != nil {
		return nil, err
	}
	if o.subgraphs {
		if err := owner.readSubgraphStates(ctx, g.saver, snap); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// subgraphsWaiting makes Waiting exact for the tasks of nodes that run
// subgraphs whose saved interrupt the saved plain resume value seems to
// answer (SavedWrites.Waiting): a subgraph saves the answers it used in its
// own namespace, never as its parent task's, so the parent's saved writes
// cannot tell that the value was used there and the subgraph asked again
// (a second Interrupt call; a retry's fresh run asking once more). Such a
// task waits when a run of its subgraph ("<ns>", "<ns>|1", …; runChild)
// waits at its latest checkpoint.
func (g *Graph) subgraphsWaiting(ctx context.Context, saver Saver, snap *StateSnapshot) error {
	for i := range snap.Tasks {
		st := &snap.Tasks[i]
		n := g.nodes[st.Name]
		if st.Waiting || st.Finished || len(st.Interrupts) == 0 || len(st.Answers) > 0 || st.Subgraph == "" || n == nil || !n.runsSubgraphs() {
			continue
		}
		for k := 0; !st.Waiting; k++ {
			ns := SubgraphRunNamespace(st.Subgraph, k)
			sub, t, err := n.subgraphIn(ctx, saver, snap.Config.ThreadID, ns)
			if err != nil {
				return err
			}
			if t == nil {
				break
			}
			// Its saved interrupts, without applying its pending
			// writes: a plain get_state does not read the subgraph's
			// state (LangGraph.js getState recurses only with
			// subgraphs, pregel/index.js:519), so writes there that
			// conflict must not fail it.
			inner, err := sub.snapshot(t, false)
			if err != nil {
				return err
			}
			if err := sub.subgraphsWaiting(ctx, saver, inner); err != nil {
				return err
			}
			st.Waiting = len(inner.Interrupts()) > 0
		}
	}
	return nil
}

// readSubgraphStates fills each subgraph task's State with the latest state
// of its namespace (pregel/main.py:1200-1227; a stateful subgraph's one
// namespace without task ids, as its get_state recasts it at :1418-1423),
// and a task of a node with declared subgraphs its Runs.
func (g *Graph) readSubgraphStates(ctx context.Context, saver Saver, snap *StateSnapshot) error {
	thread := snap.Config.ThreadID
	for i := range snap.Tasks {
		st := &snap.Tasks[i]
		n := g.nodes[st.Name]
		if n == nil || st.Subgraph == "" {
			continue
		}
		if n.subgraph != nil {
			sub, t, err := n.subgraphIn(ctx, saver, thread, st.Subgraph)
			if err != nil {
				return err
			}
			if t == nil {
				if st.Error == "" {
					st.State = emptySnapshot(thread, st.Subgraph)
				}
				continue
			}
			// Read (its errors count) but not shown for a task whose last
			// run failed (LangGraph.js pregel/index.ts _prepareStateSnapshot
			// reads every subgraph task's state, then debug.ts:312
			// tasksWithWrites returns a failed task without it).
			state, err := sub.stateWithSubgraphs(ctx, saver, t)
			if err != nil {
				return err
			}
			if st.Error == "" {
				st.State = state
			}
			continue
		}
		// A declared subgraph's runs in this task: "<ns>", "<ns>|1", …
		// up to the first that left no checkpoint of one (runChild
		// numbers them).
		for k := 0; ; k++ {
			ns := SubgraphRunNamespace(st.Subgraph, k)
			sub, t, err := n.subgraphIn(ctx, saver, thread, ns)
			if err != nil {
				return err
			}
			if t == nil {
				if k == 0 && st.Error == "" {
					// Nothing saved there yet: the empty snapshot, as for
					// a subgraph node (LangGraph.js reads the state of
					// every planned task of a node with subgraphs,
					// declared ones included: pregel/index.ts:940-975).
					// A namespace an undeclared graph wrote is not read.
					saved, err := n.savedIn(ctx, saver, thread, ns)
					if err != nil {
						return err
					}
					if !saved {
						st.State = emptySnapshot(thread, st.Subgraph)
					}
				}
				break
			}
			run := SubgraphRun{Name: n.declaredName(sub), Namespace: ns}
			if run.State, err = sub.stateWithSubgraphs(ctx, saver, t); err != nil {
				return err
			}
			if k == 0 && st.Error == "" {
				st.State = run.State // not for a failed task, as above
			}
			st.Runs = append(st.Runs, run)
		}
	}
	return nil
}

// emptySnapshot is the state of a subgraph task's namespace where no
// checkpoint was saved yet (the task has not run): LangGraph.js reads the
// state of every planned subgraph task and gets an empty snapshot for such
// a namespace, with no metadata (pregel/index.ts:878-884, 942-975).
func emptySnapshot(thread, ns string) *StateSnapshot {
	return &StateSnapshot{Config: Config{ThreadID: thread, CheckpointNS: ns}, Values: map[string]any{}, Next: []string{}}
}

// stateWithSubgraphs is the snapshot of a subgraph's latest checkpoint t
// with its own subgraphs' states, recursively.
func (g *Graph) stateWithSubgraphs(ctx context.Context, saver Saver, t *CheckpointTuple) (*StateSnapshot, error) {
	snap, err := g.snapshot(t, true)
	if err != nil {
		return nil, err
	}
	if err := g.readSubgraphStates(ctx, saver, snap); err != nil {
		return nil, err
	}
	return snap, nil
}

// graphForNamespace finds the graph whose checkpoints live in ns of thread:
// the node names of ns without task ids and run counters, each naming a
// node of the graph before it that runs subgraphs (recast_checkpoint_ns,
// _internal/_config.py:38-49; get_subgraphs, pregel/main.py:1076). A
// subgraph node runs its one graph; for a node with declared subgraphs
// (UsesSubgraph) the checkpoints of that run say which one ran, and
// before one ran it is the first declared.
func (g *Graph) graphForNamespace(ctx context.Context, thread, ns string) (*Graph, error) {
	owner, _, err := g.declaredForNamespace(ctx, thread, ns)
	return owner, err
}

// declaredForNamespace is graphForNamespace that also says, when ns's last
// part is a node's declared subgraph (UsesSubgraph), the name it was
// declared under: what the checkpoints written there record.
func (g *Graph) declaredForNamespace(ctx context.Context, thread, ns string) (owner *Graph, declared string, err error) {
	if ns == "" {
		return g, "", nil
	}
	cur := g
	parts := strings.Split(ns, "|") // NS_SEP
	for i, part := range parts {
		name, _, _ := strings.Cut(part, ":") // NS_END
		if isRunCounter(name) {
			continue
		}
		n := cur.nodes[name]
		if n == nil || !n.runsSubgraphs() {
			return nil, "", fmt.Errorf("%w: %q in namespace %q", ErrUnknownSubgraph, name, ns)
		}
		if n.subgraph != nil {
			cur, declared = n.subgraph, ""
			continue
		}
		// The run this part names: its task's namespace and run counter.
		end := i + 1
		if end < len(parts) && isRunCounter(parts[end]) {
			end++
		}
		runNS := strings.Join(parts[:end], "|")
		if g.saver == nil {
			return nil, "", ErrNoCheckpointer
		}
		sub, t, err := n.subgraphIn(ctx, g.saver, thread, runNS)
		if err != nil {
			return nil, "", err
		}
		if t == nil {
			// Nothing has run there yet (its task is pending): the
			// node's first declared subgraph, as LangGraph.js's
			// getSubgraphs yields the first of a node's subgraphs for its
			// namespace (1.7.3 dist pregel/index.js:398-405). Checkpoints
			// no declared subgraph wrote are not read as its.
			saved, err := n.savedIn(ctx, g.saver, thread, runNS)
			if err != nil {
				return nil, "", err
			}
			if saved {
				return nil, "", fmt.Errorf("%w: thread %q namespace %q: no subgraph that node %q declares has run there", ErrNoCheckpoint, thread, runNS, name)
			}
			sub = n.uses[0].g
		}
		cur, declared = sub, n.declaredName(sub)
	}
	return cur, declared, nil
}

// ownNamespace is where a graph run in ns keeps its checkpoints: a stateful
// subgraph's one history per thread has no task ids (pregel/main.py:1418-1423
// recasts the namespace when checkpointer is True).
func (g *Graph) ownNamespace(ns string) string {
	if g.stateful {
		return NamespaceNodes(ns)
	}
	return ns
}

// isRunCounter reports a namespace part that numbers a repeated subgraph run
// inside one task ("<ns>|1", see runSubgraph).
func isRunCounter(part string) bool {
	if part == "" {
		return false
	}
	for _, r := range part {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// History lists every checkpoint of cfg's thread and namespace, newest first,
// across all branches. Pending writes are not applied.
func (g *Graph) History(ctx context.Context, cfg Config, opt ListOptions) ([]*StateSnapshot, error) {
	if g.saver == nil {
		return nil, ErrNoCheckpointer
	}
	owner, err := g.graphForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
	if err != nil {
		return nil, err
	}
	tuples, err := g.saver.List(ctx, Config{ThreadID: cfg.ThreadID, CheckpointNS: owner.ownNamespace(cfg.CheckpointNS)}, opt)
	if err != nil {
		return nil, err
	}
	return owner.snapshots(tuples)
}

// SnapshotOf builds the snapshot of a stored checkpoint tuple; applyPending
// applies finished tasks' writes as GetState does for the latest one.
func (g *Graph) SnapshotOf(t *CheckpointTuple, applyPending bool) (*StateSnapshot, error) {
	return g.snapshot(t, applyPending)
}

// PlannedTasks lists the tasks planned from a stored checkpoint tuple,
// sorted by name as its snapshot's Tasks are, with only their id, name,
// Push flag and subgraph namespace: what a listing of many checkpoints
// shows (the command line's history), without the snapshot's values,
// results and saved-write states. The tuple may be an outline
// (Outliner): planning reads versions and internal channels only.
func (g *Graph) PlannedTasks(t *CheckpointTuple) ([]SnapshotTask, error) {
	_, tasks, err := g.plan(t)
	if err != nil {
		return nil, err
	}
	out := make([]SnapshotTask, len(tasks))
	for i, tk := range tasks {
		out[i] = SnapshotTask{ID: tk.id(), Name: tk.name, Push: tk.kind == pushTask}
		if tk.node.subgraph != nil {
			out[i].Subgraph = tk.namespace()
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// plan restores a stored checkpoint's channels, applies the null task's
// writes (an input Command) and plans the next superstep from them, as
// get_state does (LangGraph.js pregel/index.ts _prepareStateSnapshot).
func (g *Graph) plan(t *CheckpointTuple) (*channelState, []*task, error) {
	cs := newChannelState(g, t.Checkpoint)
	cs.versionless = true
	if err := applyNullWrites(cs, t.PendingWrites); err != nil {
		return nil, nil, err
	}
	return cs, prepareNextTasks(cs, t.Checkpoint.ID, t.Config.CheckpointNS, t.Metadata.TaskStep(), planHint{}), nil
}

func (g *Graph) snapshot(t *CheckpointTuple, applyPending bool) (*StateSnapshot, error) {
	cs, tasks, err := g.plan(t)
	if err != nil {
		return nil, err
	}
	snap := &StateSnapshot{
		Config:        t.Config,
		ParentID:      t.ParentID,
		Metadata:      t.Metadata,
		CreatedAt:     t.Checkpoint.TS,
		Checkpoint:    t.Checkpoint,
		PendingWrites: t.PendingWrites,
	}
	// read is the state the planned PULL tasks read: the checkpoint's,
	// before the saved writes of finished tasks change it below.
	var read map[string]any
	if applyPending {
		g.attachSavedWrites(tasks, t.PendingWrites)
		var withWrites []*task
		for _, tk := range tasks {
			if len(tk.writes) > 0 {
				withWrites = append(withWrites, tk)
			}
		}
		if len(withWrites) > 0 {
			read = cs.stateValues()
			if _, err := applyWrites(cs, withWrites); err != nil {
				return nil, err
			}
		}
	}
	snap.Values = cs.stateValues()
	if read == nil {
		read = snap.Values
	}
	snap.Output = cs.output()
	saved := ReadSavedWrites(t.PendingWrites)
	for _, tk := range tasks {
		if len(tk.writes) == 0 {
			snap.Next = append(snap.Next, tk.name)
		}
		st := SnapshotTask{ID: tk.id(), Name: tk.name, Push: tk.kind == pushTask}
		switch {
		case tk.kind == pushTask, tk.node.start, tk.node.entry:
			st.Input = tk.input // a Send's argument, or the run's input
		default:
			st.Input = read
		}
		if tk.node.runsSubgraphs() {
			st.Subgraph = tk.namespace()
		}
		if sv, ok := saved.Task(tk.id()); ok {
			st.Interrupts, st.Answers, st.Error, st.Err = sv.Interrupts, sv.Answers, sv.Error, sv.Err
			st.Answered, st.Waiting, st.Finished = sv.Answered(), saved.waitingTask(sv, tk), sv.Finished
			if upd := g.taskResult(sv.Writes); len(upd) > 0 && sv.Finished {
				st.Result = upd
				if g.entrypoint {
					st.Output = upd[End]
				}
			}
		}
		snap.Tasks = append(snap.Tasks, st)
	}
	sort.Strings(snap.Next)
	sort.SliceStable(snap.Tasks, func(i, j int) bool { return snap.Tasks[i].Name < snap.Tasks[j].Name })
	return snap, nil
}

func interruptionsOf(v any) []Interruption {
	switch x := v.(type) {
	case []Interruption:
		return x
	case Interruption:
		return []Interruption{x}
	case []any:
		var out []Interruption
		for _, e := range x {
			if in, ok := e.(Interruption); ok {
				out = append(out, in)
			}
		}
		return out
	}
	return nil
}

// Special as-node values for UpdateState.
const (
	// AsInput writes values as new graph input: an input checkpoint.
	AsInput = InputTask
	// AsClear (with nil values) finishes the pending tasks without running
	// them.
	AsClear = End
	// AsCopy copies the checkpoint as a fork: a "fork" checkpoint with the
	// same values, step + 1, whose parent is the copied checkpoint's
	// parent, so it starts a branch beside the copied one.
	AsCopy = "__copy__"
)

// UpdateState writes values into the thread at cfg's checkpoint (the latest
// when cfg.CheckpointID is empty) as if node asNode had returned them: its
// edges and routes fire. It writes a checkpoint with source "update", step
// + 1, parented to the checkpoint it was applied to (so updating an old
// checkpoint forks the thread), and returns its config. asNode "" picks the
// node that ran last; Start applies values as input through the start node;
// AsInput writes an input checkpoint; AsClear with nil values finishes the
// pending tasks; AsCopy copies the checkpoint as a fork beside it.
func (g *Graph) UpdateState(ctx context.Context, cfg Config, values any, asNode string) (Config, error) {
	return g.updateSuperstep(ctx, cfg, []StateUpdate{{Values: values, AsNode: asNode}})
}

// updateSuperstep applies updates as the tasks of one superstep and writes
// one checkpoint (LangGraph.js pregel/index.ts bulkUpdateState's
// updateSuperStep). The special as-nodes take a single update. A cfg in a
// subgraph's namespace updates that subgraph's checkpoint, with the
// subgraph's channels and nodes, in its namespace (index.ts:1216-1238
// delegates to the subgraph found by the namespace without task ids;
// Python pregel/main.py bulk_update_state likewise).
func (g *Graph) updateSuperstep(ctx context.Context, cfg Config, updates []StateUpdate) (Config, error) {
	if s := scopeOf(ctx); s != nil {
		// Called from a node: the checkpoint keeps what the node lends.
		for _, u := range updates {
			s.run.cs.view.escapes(u.Values)
		}
	}
	if g.saver == nil {
		return Config{}, ErrNoCheckpointer
	}
	if cfg.CheckpointNS != "" {
		owner, declared, err := g.declaredForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
		if err != nil {
			return Config{}, err
		}
		// The subgraph, writing to this graph's saver with its ids, as
		// the subgraph's runs do, and recording the name it was declared
		// under as they do (the first checkpoint there may be this one).
		sub := *owner
		sub.saver, sub.ids, sub.clock, sub.wallClock = g.saver, g.ids, g.clock, g.wallClock
		sub.declaredAs = declared
		cfg.CheckpointNS = owner.ownNamespace(cfg.CheckpointNS)
		return sub.applyUpdates(ctx, cfg, updates)
	}
	return g.applyUpdates(ctx, cfg, updates)
}

// applyUpdates is updateSuperstep in the graph that owns cfg's namespace.
func (g *Graph) applyUpdates(ctx context.Context, cfg Config, updates []StateUpdate) (Config, error) {
	if err := checkUpdateBatch(updates); err != nil {
		return Config{}, err
	}
	saved, err := g.saver.GetTuple(ctx, cfg)
	if err != nil {
		return Config{}, err
	}
	if saved == nil && cfg.CheckpointID != "" {
		return Config{}, fmt.Errorf("%w: %s", ErrNoCheckpoint, cfg.CheckpointID)
	}
	u := g.startUpdate(cfg, saved)
	values, asNode := updates[0].Values, updates[0].AsNode
	if values == nil && asNode == "" {
		return u.put(ctx, SourceUpdate, u.step+1)
	}
	switch asNode {
	case AsCopy:
		return g.applyCopy(ctx, saved, values)
	case AsClear:
		if values == nil {
			return u.clear(ctx)
		}
	case AsInput:
		return u.input(ctx, values)
	}
	if cfg.CheckpointID == "" {
		if err := u.applySavedWrites(); err != nil {
			return Config{}, err
		}
	}
	if asNode == "" {
		if asNode, err = g.inferAsNode(u.l.cs); err != nil {
			return Config{}, err
		}
		updates[0].AsNode = asNode
	}
	tasks, err := u.nodeTasks(ctx, updates)
	if err != nil {
		return Config{}, err
	}
	if err := u.saveWrites(ctx, tasks); err != nil {
		return Config{}, err
	}
	if _, err := applyWrites(u.l.cs, tasks); err != nil {
		return Config{}, err
	}
	return u.put(ctx, SourceUpdate, u.step+1)
}

// checkUpdateBatch refuses an empty batch, and a batch of several updates
// with one whose node is unnamed or special: those take a single update.
func checkUpdateBatch(updates []StateUpdate) error {
	if len(updates) == 0 {
		return &InvalidUpdateError{Msg: "no updates provided"}
	}
	if len(updates) == 1 {
		return nil
	}
	for _, u := range updates {
		switch u.AsNode {
		case "":
			return &InvalidUpdateError{Msg: "the node to apply as is required when applying several updates"}
		case AsInput, AsClear, AsCopy:
			return &InvalidUpdateError{Msg: fmt.Sprintf("%s takes a single update, not %d", u.AsNode, len(updates))}
		}
	}
	return nil
}

// updateStep is one applyUpdates under way: the saved checkpoint it
// updates (nil for a thread's first), a loop holding that checkpoint's
// channels, and the step and parents the new checkpoint follows.
type updateStep struct {
	g     *Graph
	l     *loop
	cfg   Config
	saved *CheckpointTuple
	// step is saved's step (-1 without one); parents its parents.
	step    int
	parents map[string]string
}

// startUpdate loads saved's channels (none when nil) into a loop that
// writes nothing but the one checkpoint put writes.
func (g *Graph) startUpdate(cfg Config, saved *CheckpointTuple) *updateStep {
	l := &loop{g: g, saver: g.saver, ids: g.ids, cfg: Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS}}
	u := &updateStep{g: g, l: l, cfg: cfg, saved: saved, step: -1}
	var cp *Checkpoint
	if saved != nil {
		cp = saved.Checkpoint
		l.cpID = cp.ID
		idsAfter(l.ids, cp.ID)
		l.md = saved.Metadata
		u.step = saved.Metadata.Step
	} else {
		l.md = Metadata{Parents: map[string]string{}}
	}
	l.cs = newChannelState(g, cp)
	u.parents = l.md.Parents
	return u
}

// put saves the updated channels as a checkpoint of step stepNo from
// source, child of the one updated.
func (u *updateStep) put(ctx context.Context, source string, stepNo int) (Config, error) {
	g, l := u.g, u.l
	l.step = stepNo
	id := l.ids.NewID()
	ncp, _ := l.cs.checkpoint(id, g.clock(), planHint{}) // not kept: l.cs.kept is false
	md := Metadata{Source: source, Step: stepNo, Parents: maps.Clone(u.parents), Extra: declaredMark(l.md)}
	if md.Extra == nil && g.declaredAs != "" {
		md.Extra = map[string]any{MetaSubgraph: g.declaredAs}
	}
	if md.Parents == nil {
		md.Parents = map[string]string{}
	}
	newVersions := l.cs.newVersionsFor(g.saver)
	return g.putFirst(ctx, g.saver, Config{ThreadID: u.cfg.ThreadID, CheckpointNS: u.cfg.CheckpointNS, CheckpointID: l.cpID}, forSaver(g.saver, ncp), md, newVersions)
}

// pendingTasks are the tasks saved plans next, with the writes saved for
// them.
func (u *updateStep) pendingTasks() []*task {
	ts := prepareNextTasks(u.l.cs, u.l.cpID, u.cfg.CheckpointNS, u.step+1, planHint{})
	u.g.attachSavedWrites(ts, u.saved.PendingWrites)
	return ts
}

// applyCopy is an update as __copy__: a fork of saved, with the copy's
// updates applied to it when it has some.
func (g *Graph) applyCopy(ctx context.Context, saved *CheckpointTuple, values any) (Config, error) {
	fork, err := g.copyCheckpoint(ctx, saved, values)
	if err != nil {
		return Config{}, err
	}
	withUpdates, err := copyUpdates(values)
	if err != nil || withUpdates == nil {
		return fork, err
	}
	return g.updateCopy(ctx, saved, fork, withUpdates)
}

// clear is an update as __clear__ (End) without values: the planned
// tasks' saved writes applied, so the new checkpoint plans nothing more.
func (u *updateStep) clear(ctx context.Context) (Config, error) {
	if u.saved != nil {
		ts := u.pendingTasks()
		if err := applyNullWrites(u.l.cs, u.saved.PendingWrites); err != nil {
			return Config{}, err
		}
		if _, err := applyWrites(u.l.cs, ts); err != nil {
			return Config{}, err
		}
	}
	return u.put(ctx, SourceUpdate, u.step+1)
}

// input is an update as __input__: values written as a run's input, in a
// checkpoint of source input.
func (u *updateStep) input(ctx context.Context, values any) (Config, error) {
	pairs, err := updatePairs(values)
	if err != nil || len(pairs) == 0 {
		return Config{}, &InvalidUpdateError{Msg: "update as __input__ needs a map of state keys"}
	}
	for _, kv := range pairs {
		if err := u.g.limits.checkWrite(InputTask, kv.Key, kv.Value); err != nil {
			return Config{}, err
		}
	}
	if _, err := applyWrites(u.l.cs, []*task{{name: InputTask, writes: []Write{{Channel: Start, Value: Normalize(values)}}}}); err != nil {
		return Config{}, err
	}
	next := -1
	if u.saved != nil {
		next = u.step + 1
	}
	return u.put(ctx, SourceInput, next)
}

// applySavedWrites applies what saved's tasks already wrote (null writes
// first), for an update of a thread's latest checkpoint (LangGraph.js
// pregel/index.ts:1534-1589, "apply pending writes, if not on specific
// checkpoint").
func (u *updateStep) applySavedWrites() error {
	if u.saved == nil || len(u.saved.PendingWrites) == 0 {
		return nil
	}
	ts := u.pendingTasks()
	if err := applyNullWrites(u.l.cs, u.saved.PendingWrites); err != nil {
		return err
	}
	var withWrites []*task
	for _, t := range ts {
		if len(t.writes) > 0 {
			withWrites = append(withWrites, t)
		}
	}
	if len(withWrites) == 0 {
		return nil
	}
	_, err := applyWrites(u.l.cs, withWrites)
	return err
}

// nodeTasks makes one task per update with the writes its node's writers
// make of the update's values. The tasks are ordered by position (path
// [__interrupt__, i]), ids uuid5("__interrupt__[:i]", checkpoint id) as
// LangGraph.js (pregel/index.ts:1687-1688).
func (u *updateStep) nodeTasks(ctx context.Context, updates []StateUpdate) ([]*task, error) {
	g, l := u.g, u.l
	tasks := make([]*task, 0, len(updates))
	for i, up := range updates {
		n := g.nodes[up.AsNode]
		if n == nil {
			return nil, &InvalidUpdateError{Msg: fmt.Sprintf("node %q does not exist", up.AsNode)}
		}
		name := InterruptChannel
		if i > 0 {
			name = fmt.Sprintf("%s:%d", InterruptChannel, i)
		}
		id := up.taskID
		if id == "" {
			id = hashID(name, l.cpID)
		}
		t := &task{name: up.AsNode, kind: pushTask, index: i, triggers: []string{InterruptChannel}, input: up.Values, node: n, ident: id}
		writes, err := u.writesAs(ctx, t, up)
		if err != nil {
			return nil, err
		}
		t.writes = writes
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// writesAs is what t, the update up as its node, writes: its node's
// writers applied to up's values, checked against the limits.
func (u *updateStep) writesAs(ctx context.Context, t *task, up StateUpdate) ([]Write, error) {
	var writes []Write
	var err error
	switch n := t.node; {
	case n.start:
		writes, err = u.l.startWrites(ctx, t)
	case n.entry:
		// An entrypoint's writers: the values become its output and
		// what the next run sees as previous (func/index.ts:218-228).
		writes = entryWrites(up.Values)
	default:
		writes, _, err = u.l.nodeWrites(ctx, t, up.Values)
	}
	if err == nil {
		err = u.g.checkWrites(up.AsNode, writes, nil)
	}
	return writes, err
}

// saveWrites saves the tasks' writes with the checkpoint updated, when
// there is one, as pending writes (the update's record).
func (u *updateStep) saveWrites(ctx context.Context, tasks []*task) error {
	if u.saved == nil {
		return nil
	}
	for _, t := range tasks {
		if len(t.writes) > 0 {
			if err := u.g.saver.PutWrites(ctx, u.saved.Config, t.id(), t.writes); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyCheckpoint writes a copy of saved as a fork beside it: same channel
// values and versions, step + 1, parented to saved's parent (a root
// checkpoint's copy is a root too), with nothing new to store
// (main.py:1800-1824, index.ts:1390-1418).
func (g *Graph) copyCheckpoint(ctx context.Context, saved *CheckpointTuple, values any) (Config, error) {
	if saved == nil {
		return Config{}, &InvalidUpdateError{Msg: "cannot copy a checkpoint that does not exist"}
	}
	cp, _ := newChannelState(g, saved.Checkpoint).checkpoint(g.ids.NewID(), g.clock(), planHint{}) // not kept
	md := Metadata{Source: SourceFork, Step: saved.Metadata.Step + 1, Parents: maps.Clone(saved.Metadata.Parents), Extra: declaredMark(saved.Metadata)}
	if md.Parents == nil {
		md.Parents = map[string]string{}
	}
	parent := Config{ThreadID: saved.Config.ThreadID, CheckpointNS: saved.Config.CheckpointNS, CheckpointID: saved.ParentID}
	return g.putFirst(ctx, g.saver, parent, forSaver(g.saver, cp), md, map[string]Version{})
}

// copyUpdates reads the values of an update as __copy__: nil for a plain
// copy, or the updates of a copy with updates — a list of (values,
// as_node) pairs, as []StateUpdate or in the JSON form [[values, "node"],
// …] (LangGraph.js index.ts:1403-1408 isCopyWithUpdates: any other value
// is ignored, as there).
func copyUpdates(values any) ([]StateUpdate, error) {
	switch v := values.(type) {
	case []StateUpdate:
		if len(v) == 0 {
			return nil, nil
		}
		return slices.Clone(v), nil
	case []any:
		if len(v) == 0 {
			return nil, nil
		}
		out := make([]StateUpdate, 0, len(v))
		for _, item := range v {
			pair, ok := item.([]any)
			if !ok || len(pair) != 2 {
				return nil, nil
			}
			node, ok := pair[1].(string)
			if !ok {
				return nil, &InvalidUpdateError{Msg: fmt.Sprintf("update as __copy__: the node of an update must be a name, got %T", pair[1])}
			}
			out = append(out, StateUpdate{Values: pair[0], AsNode: node})
		}
		return out, nil
	}
	return nil, nil
}

// updateCopy applies a copy's updates to the fork as one superstep, each as
// the task it stands for: the k-th update as node n takes the id of the
// fork's k-th planned task of n (its next step's ids), so the update's
// writes are that task's result on the fork; updates are grouped by node
// in order of first appearance (index.ts:1422-1463, main.py:1826-1862).
func (g *Graph) updateCopy(ctx context.Context, saved *CheckpointTuple, fork Config, updates []StateUpdate) (Config, error) {
	forked, err := g.saver.GetTuple(ctx, fork)
	if err != nil {
		return Config{}, err
	}
	if forked == nil {
		return Config{}, fmt.Errorf("%w: %s", ErrNoCheckpoint, fork.CheckpointID)
	}
	cs := newChannelState(g, forked.Checkpoint)
	planned := prepareNextTasks(cs, forked.Checkpoint.ID, fork.CheckpointNS, saved.Metadata.Step+2, planHint{})
	idsByNode := map[string][]string{}
	for _, t := range planned {
		idsByNode[t.name] = append(idsByNode[t.name], t.id())
	}
	var order []string
	byNode := map[string][]StateUpdate{}
	for _, u := range updates {
		if _, seen := byNode[u.AsNode]; !seen {
			order = append(order, u.AsNode)
		}
		if ids := idsByNode[u.AsNode]; len(byNode[u.AsNode]) < len(ids) {
			u.taskID = ids[len(byNode[u.AsNode])]
		}
		byNode[u.AsNode] = append(byNode[u.AsNode], u)
	}
	grouped := make([]StateUpdate, 0, len(updates))
	for _, n := range order {
		grouped = append(grouped, byNode[n]...)
	}
	return g.applyUpdates(ctx, fork, grouped)
}

// inferAsNode picks the node an update is attributed to when none is given:
// the only node, the start node on a fresh thread, or the node that saw the
// highest version (a tie is ambiguous).
// InferAsNode names the node UpdateState would write as at cfg's
// checkpoint when asNode is "" (LangGraph's update_state: the node that
// saw the newest channel version), so a UI can say so before writing. It
// returns ErrNoCheckpoint for an unknown checkpoint, or an
// *InvalidUpdateError when the choice is ambiguous.
func (g *Graph) InferAsNode(ctx context.Context, cfg Config) (string, error) {
	if g.saver == nil {
		return "", ErrNoCheckpointer
	}
	t, err := g.saver.GetTuple(ctx, cfg)
	if err != nil {
		return "", err
	}
	if t == nil {
		return "", fmt.Errorf("%w: thread %q checkpoint %q", ErrNoCheckpoint, cfg.ThreadID, cfg.CheckpointID)
	}
	return g.inferAsNode(newChannelState(g, t.Checkpoint))
}

func (g *Graph) inferAsNode(cs *channelState) (string, error) {
	if len(g.nodeOrder) == 1 {
		// The only node (index.ts:1607 counts this.nodes, which holds a
		// StateGraph's __start__ node too: only an entrypoint has one).
		return g.nodeOrder[0], nil
	}
	type seenAt struct {
		v    Version
		node string
	}
	var all []seenAt
	fresh := true // nothing has seen a version, the interrupt included
	for node, m := range cs.seenMap() {
		for _, v := range m {
			if v == 0 {
				continue
			}
			fresh = false
			if node != InterruptChannel {
				all = append(all, seenAt{v, node})
			}
		}
	}
	// A thread nothing has seen yet is updated as its input; one where
	// only the interrupt has seen versions (a Command's update or goto
	// on a new thread) names no node: ambiguous (LangGraph.js
	// dist/pregel/index.js:839-857: nonNullVersion counts the interrupt's
	// entry, lastSeenByNode leaves it out, then InvalidUpdateError).
	// LangGraph.js 1.7.3 fails there with a TypeError, reading the last of
	// an empty list; InvalidUpdateError is the refusal its code means.
	if fresh {
		return Start, nil
	}
	if len(all) == 0 {
		return "", &InvalidUpdateError{Msg: "ambiguous update: specify the node to apply it as"}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	if len(all) == 1 || all[len(all)-1].v != all[len(all)-2].v {
		return all[len(all)-1].node, nil
	}
	return "", &InvalidUpdateError{Msg: "ambiguous update: specify the node to apply it as"}
}

// applyNullWrites applies the writes saved for no task (Command input, a
// resume value) to cs, as the input pseudo-task: no superstep bump.
func applyNullWrites(cs *channelState, pending []PendingWrite) error {
	var ws []Write
	for _, pw := range pending {
		if pw.TaskID == NullTaskID {
			ws = append(ws, savedWrite(pw))
		}
	}
	if len(ws) == 0 {
		return nil
	}
	_, err := applyWrites(cs, []*task{{name: InputTask, writes: ws}})
	return err
}

// attachSavedWrites gives each task the writes saved for it, as get_state
// and update_state count them: everything but error, interrupt and
// scheduled bookkeeping (a resume answer counts, LangGraph's quirk that
// takes a twice-interrupted task out of next).
func (g *Graph) attachSavedWrites(tasks []*task, pending []PendingWrite) {
	byID := make(map[string]*task, len(tasks))
	for _, t := range tasks {
		byID[t.id()] = t
	}
	for _, pw := range pending {
		t := byID[pw.TaskID]
		switch {
		case t == nil, pw.Channel == ErrorChannel, pw.Channel == ErrorSourceNodeChannel, pw.Channel == InterruptChannel, pw.Channel == ScheduledChannel:
			continue
		}
		t.writes = append(t.writes, savedWrite(pw))
	}
}

// taskResult is a snapshot task's result: its writes to state keys, a key
// written more than once as {"$writes": [values in order]} (LangGraph.js
// libs/langgraph-core/src/pregel/debug.ts mapTaskResultWrites, used by
// tasksWithWrites for every snapshot task).
func (g *Graph) taskResult(writes []Write) map[string]any {
	out := map[string]any{}
	for _, w := range writes {
		if !g.isOutput(w.Channel) {
			continue
		}
		prev, seen := out[w.Channel]
		if !seen {
			out[w.Channel] = w.Value
			continue
		}
		list := []any{prev}
		if m, ok := prev.(map[string]any); ok { // a key seen twice already (or a value of that form, as in JS)
			if l, ok := m["$writes"].([]any); ok {
				list = l[:len(l):len(l)] // appended to as a copy: a saved value is never changed
			}
		}
		out[w.Channel] = map[string]any{"$writes": append(list, w.Value)}
	}
	return out
}
