package engine

import "context"

// DefaultRecursionLimit bounds the supersteps of one run, as LangGraph.js.
const DefaultRecursionLimit = 25

// RunOptions configure one run. Build them with RunOption functions.
type RunOptions struct {
	// Thread is the thread to run on. A graph with a saver needs one
	// (ErrNoThread); without a saver a run keeps nothing, and is on the
	// thread "default" when none is given.
	Thread string
	// CheckpointID runs from that checkpoint instead of the thread's latest:
	// replay (time travel), which first writes a fork checkpoint.
	CheckpointID string
	// RecursionLimit bounds the supersteps of the run (default 25).
	RecursionLimit int
	// InterruptBefore and InterruptAfter override the graph's breakpoints
	// for this run when non-nil.
	InterruptBefore, InterruptAfter []string
	// Hook is called at every phase boundary; see StepHook.
	Hook StepHook
	// StepSubgraphs makes Hook see the phases of every subgraph run too
	// (WithSubgraphSteps).
	StepSubgraphs bool
	// Events receives stream events as they happen.
	Events func(Event)
	// Metadata is added to every checkpoint the run writes (Metadata.Extra).
	Metadata map[string]any
	// Context is the run's runtime context: read-only data for nodes and
	// routes (RuntimeContext), such as a user id or a model name. It is not
	// part of the state and is not checkpointed.
	Context any

	// StreamSubgraphs delivers the events of subgraph runs too, with their
	// Namespace set (LangGraph's stream(..., subgraphs=True)).
	StreamSubgraphs bool

	// MaxConcurrency bounds how many tasks of a superstep run at once (0:
	// all of them). Tasks start in planning order: Sends first, then nodes.
	MaxConcurrency int

	// Durability says what the run checkpoints (WithDurability; the
	// zero value is DurabilityAsync, LangGraph's default).
	Durability Durability

	// SubgraphTurns orders the checkpoint writes of sibling subgraph
	// tasks deterministically (see WithSubgraphTurns).
	SubgraphTurns bool

	ns     string
	parent *taskScope // set for subgraph runs
	// declaredAs names a declared subgraph's run (UsesSubgraph): its
	// checkpoints record it under MetaSubgraph.
	declaredAs string
	streamers  []*streamer // WithStreamParts
	// planEvents: a stream of the checkpoints or debug mode listens, and
	// the run reports EventPlanned (streamer.attach).
	planEvents bool
	// badLimit: WithRecursionLimit was given givenLimit, below 1 (a
	// RunOptions built by hand keeps 0 as "the default").
	badLimit   bool
	givenLimit int
	// fromNS and fromNSCheckpoint: FromConfig was given this checkpoint,
	// whose parents make the run's checkpoint map (rootOfConfig).
	fromNS, fromNSCheckpoint string
	turns                    *subgraphTurns // set for a subgraph run ordered with its siblings
	turnAt                   int            // its place in turns
}

// RunOption sets a RunOptions field.
type RunOption func(*RunOptions)

// OnThread runs on thread id: the conversation whose checkpoints the run
// continues and adds to. A graph with a saver refuses a run without it
// (ErrNoThread), as LangGraph refuses a run with a checkpointer and no
// thread_id: a service that shares one saver between conversations gives
// each its own thread.
func OnThread(id string) RunOption { return func(o *RunOptions) { o.Thread = id } }

// FromCheckpoint runs from checkpoint id of the thread (replay / fork):
// with nil input it replays from there, on a new branch when id is not the
// thread's latest checkpoint. An interrupt already answered at id keeps its
// saved answer, even when the run's input is a Command with a new one (see
// the package doc's "Time travel and forks"). An id the thread does not have
// is ErrNoCheckpoint.
func FromCheckpoint(id string) RunOption { return func(o *RunOptions) { o.CheckpointID = id } }

// FromConfig runs from the checkpoint cfg addresses, as a config returned by
// GetState, History or UpdateState. A config in a subgraph's namespace
// (SnapshotTask.State.Config, or what UpdateState returned for a subgraph
// checkpoint) runs the root graph from the root checkpoint that subgraph
// checkpoint was written under (its Metadata.Parents[""]): a run of the
// root graph drops a subgraph namespace and its checkpoint id, and takes
// the root's from the config's checkpoint map, which LangGraph fills from
// the checkpoint's parents (LangGraph.js pregel/loop.js:400-405,
// pregel/utils/index.js:38-45 patchCheckpointMap; Python
// pregel/_loop.py:341-350). Like FromCheckpoint, that replays when the
// root has moved on since (its tasks, and so their namespaces, are new).
// When it has not, the subgraph task of the config's namespace starts from
// the config's checkpoint too, as one addressed there: it replays from it,
// forking when the namespace has moved on since, and asks its interrupts
// again (the map's entry for the namespace, loop.js:405, 843). A subgraph
// checkpoint with no parents continues the thread's latest root
// checkpoint. The checkpoints such a run writes record the map as their
// parents, as LangGraph's do, so a root checkpoint's config (an
// update_state of it included) carries the map on to the next run.
func FromConfig(cfg Config) RunOption {
	return func(o *RunOptions) {
		o.Thread = cfg.ThreadID
		o.CheckpointID = ""
		if cfg.CheckpointNS == "" {
			o.CheckpointID = cfg.CheckpointID
		}
		o.fromNS, o.fromNSCheckpoint = cfg.CheckpointNS, cfg.CheckpointID
	}
}

// WithRecursionLimit sets the recursion limit: how many supersteps the run
// may start. A limit below 1 fails the run before it starts, as LangGraph
// refuses one ("recursion_limit must be at least 1").
func WithRecursionLimit(n int) RunOption {
	return func(o *RunOptions) {
		o.RecursionLimit = n
		o.badLimit, o.givenLimit = n < 1, n
	}
}

// BreakBefore sets this run's interrupt_before nodes.
func BreakBefore(nodes ...string) RunOption {
	return func(o *RunOptions) { o.InterruptBefore = append([]string{}, nodes...) }
}

// BreakAfter sets this run's interrupt_after nodes.
func BreakAfter(nodes ...string) RunOption {
	return func(o *RunOptions) { o.InterruptAfter = append([]string{}, nodes...) }
}

// WithMetadata tags every checkpoint the run writes with md (scalar values:
// strings, numbers, booleans), e.g. a replay id or a release.
func WithMetadata(md map[string]any) RunOption {
	return func(o *RunOptions) { o.Metadata = md }
}

// WithSubgraphTurns makes sibling subgraph tasks of a superstep write their
// checkpoints in turns, round-robin in planning order, so the order of
// their checkpoints is the same on every run (a trace writer needs that;
// LangGraph leaves it to scheduling). Their nodes still run concurrently;
// a slow sibling delays the others' checkpoint writes, unless it says it
// waits on time (Sleep, WaitingOnTime, a retry policy's backoff): then
// the others go on without it, as JavaScript's event loop runs other
// tasks while one awaits a timer.
func WithSubgraphTurns() RunOption { return func(o *RunOptions) { o.SubgraphTurns = true } }

// WithRuntimeContext passes v to the run's nodes and routes as their
// runtime context (LangGraph's invoke(..., context=...); nodes read it with
// RuntimeContext). Subgraphs see the same context.
func WithRuntimeContext(v any) RunOption { return func(o *RunOptions) { o.Context = v } }

// RuntimeContext returns the runtime context of the run that executes the
// node or route of ctx (WithRuntimeContext), or nil.
func RuntimeContext(ctx context.Context) any {
	if s := scopeOf(ctx); s != nil {
		return s.run.opts.Context
	}
	return nil
}

// WithMaxConcurrency runs at most n tasks of a superstep at once
// (LangGraph's max_concurrency; LangGraph.js pregel/runner.ts starts the
// next planned task when one ends). Subgraphs inherit the bound.
func WithMaxConcurrency(n int) RunOption { return func(o *RunOptions) { o.MaxConcurrency = n } }

// WithHook calls h at each phase boundary of the run (see StepHook): a
// debugger's way to watch or hold a run started by Invoke or Stream, as a
// Stepper does for a run its caller drives.
func WithHook(h StepHook) RunOption { return func(o *RunOptions) { o.Hook = h } }

// WithSubgraphSteps makes the run's Hook (WithHook, or a Stepper's) see
// its subgraph runs phase by phase too, nested ones included, so a
// debugger can step into them: it is called at the start of each subgraph
// run and at each of its phase boundaries, with the subgraph run's view
// (StepView.Namespace is its checkpoint namespace, never ""), from the
// goroutine of the parent task running it, while the parent's Execute
// phase waits for that task. Subgraph runs of concurrent tasks call it
// concurrently. A hook that blocks should also return when ctx ends: ctx
// is the parent task's, which ends when the superstep abandons the task
// (a sibling failed, the caller cancelled). An error the hook returns
// ends that subgraph run with it, and so fails its parent task. A
// subgraph run's last view, failed ones included, reaches the hook too.
func WithSubgraphSteps() RunOption { return func(o *RunOptions) { o.StepSubgraphs = true } }

// WithEvents delivers stream events to fn, on the run's goroutine.
func WithEvents(fn func(Event)) RunOption { return func(o *RunOptions) { o.Events = fn } }

// alsoEvents delivers the events to fn after the listener set so far
// (WithEvents): Stream and StreamModes read the run's events this way,
// so that a listener their caller passed gets them too.
func alsoEvents(fn func(Event)) RunOption {
	return func(o *RunOptions) {
		prev := o.Events
		if prev == nil {
			o.Events = fn
			return
		}
		o.Events = func(e Event) {
			prev(e)
			fn(e)
		}
	}
}

// StepHook is called at each phase boundary with the run's view. It may
// block (the debugger's pause) and returns an error to stop the run, which
// then ends with that error. A nil hook costs nothing.
type StepHook func(ctx context.Context, v *StepView) error

func buildRunOptions(opts []RunOption) RunOptions {
	o := RunOptions{RecursionLimit: DefaultRecursionLimit}
	for _, fn := range opts {
		fn(&o)
	}
	if o.RecursionLimit < 1 {
		o.RecursionLimit = DefaultRecursionLimit
	}
	if len(o.streamers) > 0 {
		events, streamers := o.Events, o.streamers
		for _, s := range streamers {
			s.attach(&o) // after every option: it reads the run's metadata
		}
		o.Events = func(e Event) {
			if events != nil {
				events(e)
			}
			for _, s := range streamers {
				s.onEvent(e)
			}
		}
	}
	return o
}
