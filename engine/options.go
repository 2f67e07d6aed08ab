package engine

import "context"

// DefaultRecursionLimit bounds the supersteps of one run, as LangGraph.js.
const DefaultRecursionLimit = 25

// RunOptions configure one run. Build them with RunOption functions.
type RunOptions struct {
	// Thread is the thread to run on (default "default").
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
	// Events receives stream events as they happen.
	Events func(Event)
	// Metadata is added to every checkpoint the run writes (Metadata.Extra).
	Metadata map[string]any

	// SubgraphTurns orders the checkpoint writes of sibling subgraph
	// tasks deterministically (see WithSubgraphTurns).
	SubgraphTurns bool

	ns     string
	parent *taskScope     // set for subgraph runs
	turns  *subgraphTurns // set for a subgraph run ordered with its siblings
	turnAt int            // its place in turns
}

// RunOption sets a RunOptions field.
type RunOption func(*RunOptions)

// OnThread runs on thread id.
func OnThread(id string) RunOption { return func(o *RunOptions) { o.Thread = id } }

// FromCheckpoint runs from checkpoint id of the thread (replay / fork).
func FromCheckpoint(id string) RunOption { return func(o *RunOptions) { o.CheckpointID = id } }

// WithRecursionLimit sets the recursion limit.
func WithRecursionLimit(n int) RunOption { return func(o *RunOptions) { o.RecursionLimit = n } }

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
// a slow sibling delays the others' checkpoint writes.
func WithSubgraphTurns() RunOption { return func(o *RunOptions) { o.SubgraphTurns = true } }

// WithHook installs a step hook.
func WithHook(h StepHook) RunOption { return func(o *RunOptions) { o.Hook = h } }

// WithEvents delivers stream events to fn, on the run's goroutine.
func WithEvents(fn func(Event)) RunOption { return func(o *RunOptions) { o.Events = fn } }

// StepHook is called at each phase boundary with the run's view. It may
// block (the debugger's pause) and returns an error to stop the run, which
// then ends with that error. A nil hook costs nothing.
type StepHook func(ctx context.Context, v *StepView) error

func buildRunOptions(opts []RunOption) RunOptions {
	o := RunOptions{Thread: "default", RecursionLimit: DefaultRecursionLimit}
	for _, fn := range opts {
		fn(&o)
	}
	if o.RecursionLimit < 1 {
		o.RecursionLimit = DefaultRecursionLimit
	}
	return o
}
