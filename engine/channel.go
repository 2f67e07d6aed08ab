package engine

// Channel kinds, as shown by the debugger and in graph descriptions.
const (
	KindLastValue = "LastValue"
	KindReducer   = "BinaryOperatorAggregate"
	KindEphemeral = "EphemeralValue"
	KindTopic     = "Topic"
	KindBarrier   = "NamedBarrierValue"
	// The trigger and join channels of a deferred node.
	KindLastValueAfterFinish = "LastValueAfterFinish"
	KindBarrierAfterFinish   = "NamedBarrierValueAfterFinish"
)

// channel is one named slot of graph state with LangGraph's update rules.
// update is called at most once per superstep with all of that step's writes
// in task order; a true result means "changed", and the caller then gives the
// channel the step's version. Channels are owned by one goroutine (the loop).
type channel interface {
	// get returns the value and whether the channel is available.
	get() (any, bool)
	update(vals []any) (bool, error)
	// consume is called when a task this channel triggered ran.
	consume() bool
	// finish is called when a superstep leaves nothing else to run; only
	// the after-finish channels of deferred nodes react.
	finish() bool
	// snapshot returns what a checkpoint stores, and false when nothing is
	// stored (an empty LastValue or EphemeralValue).
	snapshot() (any, bool)
	// restore sets the channel from a stored snapshot.
	restore(v any)
	clone() channel
}
