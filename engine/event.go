package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// EventKind names a stream event.
type EventKind string

// Stream event kinds (LangGraph's stream modes).
const (
	// EventTask: a task starts (Input and Triggers set).
	EventTask EventKind = "task"
	// EventTaskResult: a task ended (Writes, Interrupts or Err set).
	EventTaskResult EventKind = "task_result"
	// EventCheckpoint: a checkpoint was written (Checkpoint, Metadata,
	// ParentID set). Under DurabilityExit that is once, at the run's end.
	EventCheckpoint EventKind = "checkpoint"
	// EventPlanned: the run planned a superstep from its current
	// checkpoint (CheckpointID, ParentID, Metadata, Values, Output and
	// Planned set; Step is the planned superstep). It is what the checkpoints
	// stream mode streams, where LangGraph.js streams its checkpoints
	// chunk: in tick, right after planning the tasks, whether or not any
	// were planned and before an interrupt_before breakpoint stops the
	// run (1.7.3 dist pregel/loop.js:684, payload debug.js:94-126
	// mapDebugCheckpoint). So a resumed run reports the checkpoint it
	// resumes from first, the last checkpoint of a finished run is
	// reported with no tasks, and a checkpoint written where an
	// interrupt_after breakpoint stops the run is reported only by the
	// run that resumes from it. Only a run with a saver reports it, as
	// LangGraph.js streams it only with a checkpointer; and, to cost
	// nothing otherwise, only a run streaming the checkpoints or debug
	// mode (StreamModes, WithStreamParts) — a WithEvents listener sees
	// it only then.
	EventPlanned EventKind = "planned"
	// EventValues: the state after a superstep.
	EventValues EventKind = "values"
	// EventCustom: a value a node passed to Emit.
	EventCustom EventKind = "custom"
	// EventCached: a task took its writes from the node cache instead of
	// running (Writes and Update set).
	EventCached EventKind = "cached"
	// EventBreakpoint: interrupt_before/after stopped the run.
	EventBreakpoint EventKind = "breakpoint"
	// EventMessage: a chat message a node streamed (StreamMessage).
	EventMessage EventKind = "message"
	// EventRetry: a task's attempt failed and its retry policy runs it
	// again (Attempt, the attempt that failed, and Err set), after the
	// policy's wait. No stream mode carries it (LangGraph streams none;
	// it only logs the retry, pregel/retry.js:78): it is for a
	// listener's eyes, a debugger's or a log's, so that a flaky tool
	// shows before the attempt that worked hides it.
	EventRetry EventKind = "retry"
	// EventUnknownNode: a task's route or Command goto named a node the
	// graph does not have (Node and TaskID name the task, Unknown the
	// names), most often a typo in a route without declared ends.
	// LangGraph drops such a write without a word (1.7.3 dist
	// pregel/algo.js:136, a write to a channel the graph lacks) and the
	// run goes on without it, often to its end; the event says so, at the
	// Update that drops it. No stream mode carries it.
	EventUnknownNode EventKind = "unknown_node"
	// EventUnknownKey: a task's update (a returned map or Update, a
	// Command's update) named keys that are no state key of the graph
	// but close to one (Unknown the keys, Meant the state key each is
	// likely a typo of). LangGraph keeps only the graph's keys of an
	// update (1.7.3 dist graph/state.js:625) and drops the rest without
	// a word, and so does the engine; the event says so, at the Update
	// that would have applied them. Keys close to no state key (a
	// subgraph's own keys in the state it returns) raise none. No stream
	// mode carries it.
	EventUnknownKey EventKind = "unknown_key"
)

// Event is one stream event. Fields not meaningful for the kind are zero.
type Event struct {
	Kind   EventKind // what happened
	Step   int       // the superstep it happened in
	Node   string    // the task's node (task events)
	TaskID string    // the task (task events)
	// TaskNS is the task's checkpoint namespace ("node:task-id").
	TaskNS string
	// Input and Triggers describe a starting task; Input is set for Send
	// tasks and reused tasks too.
	Input    any
	Triggers []string // the channels that triggered it (PULL tasks)
	IsPush   bool     // the task was started by a Send or a Task call
	IsCall   bool     // the task is a Task call's (functional API)
	// Writes are a finished task's writes (all channels, in order).
	Writes []Write
	// Update is a task's state-key update (EventTaskResult, EventCached).
	Update     map[string]any
	Interrupts []Interruption // the task's interrupts
	Err        error          // the task's failure (EventRetry: the attempt's)
	Attempt    int            // the attempt that failed, from 1 (EventRetry)
	// Unknown are the node names no node has (EventUnknownNode), or the
	// update keys no state key has (EventUnknownKey).
	Unknown []string
	// Meant is, for each of Unknown, the node or state key it likely
	// meant (a typo of it), or "" when none is close.
	Meant  []string
	Reused bool // its writes were saved before and reused, not recomputed
	// Checkpoint and Metadata describe a written checkpoint.
	Checkpoint *Checkpoint
	Metadata   Metadata // the checkpoint's metadata
	ParentID   string   // the checkpoint's parent, "" for the first
	Namespace  string   // the checkpoint namespace ("" at the root)
	// CheckpointID is the checkpoint a superstep was planned from
	// (EventPlanned): under DurabilityExit the one the run started from
	// ("" for none), as its later ones are not saved until the end.
	CheckpointID string
	// Planned are the tasks planned from it (EventPlanned), in planning
	// order, with what was saved for them against it.
	Planned []PlannedTask
	// Values is the state (EventValues) or a custom value (EventCustom).
	Values map[string]any
	// Output is an entrypoint's output in its EventValues and
	// EventPlanned (its __end__ value, nil when unset); a StateGraph's
	// state is Values.
	Output any
	Value  any // the custom value (EventCustom, EventMessage)
	// Unstarted marks a reused task (EventTask with Reused) of a
	// superstep whose every task had its writes saved: nothing runs and
	// the superstep goes on to apply them. LangGraph streams them as
	// cached updates and streams no task start (no tasks-mode chunk).
	Unstarted bool

	// graph is the (sub)graph whose run made the event, when it is not
	// the one the listener was given to (set for subgraph events).
	graph *Graph
	// config and parentConfig address the checkpoint an EventPlanned
	// reports and its parent (nil for none), as a checkpoints chunk does.
	config, parentConfig *CheckpointConfig
	// lastStart marks the last task start of a superstep (EventTask): the
	// streamer streams the superstep's held starts with it.
	lastStart bool
	// streamNS is the namespace a root run's breakpoint streams its empty
	// interrupt under (EventBreakpoint; loop.breakpointStreamNS). Namespace
	// stays the root's: the root's loop stopped.
	streamNS string
	// failedUpdate marks a failed task's result (EventTaskResult) whose
	// update streams: it wrote, or took an answer, before it failed
	// (emitFailed).
	failedUpdate bool
}

// Warning says what an event that warns means, for a person
// (EventUnknownNode, EventUnknownKey), and is "" for the other kinds: a
// listener that shows warnings shows these, and those added later.
func (e Event) Warning() string {
	switch e.Kind {
	case EventUnknownNode:
		return e.UnknownNodeText()
	case EventUnknownKey:
		return e.unknownKeyText()
	}
	return ""
}

// unknownKeyText says what an EventUnknownKey means: which task wrote
// which keys, and that they were dropped.
func (e Event) unknownKeyText() string {
	names, what := e.unknownNames("is no state key", "are no state keys")
	return fmt.Sprintf("%s wrote %s, which %s of the graph: the write was dropped, as LangGraph drops it", strconv.Quote(e.Node), names, what)
}

// UnknownNodeText says what an EventUnknownNode means, for a person:
// which task routed where, and that the write was dropped.
func (e Event) UnknownNodeText() string {
	names, what := e.unknownNames("is no node", "are no nodes")
	return fmt.Sprintf("%s routed to %s, which %s of the graph: the route was dropped, as LangGraph drops it, and the run went on without it", strconv.Quote(e.Node), names, what)
}

// unknownNames lists Unknown, quoted, each with the name it likely meant,
// and says one or many: what the warning events name.
func (e Event) unknownNames(one, many string) (names, what string) {
	q := make([]string, len(e.Unknown))
	for i, n := range e.Unknown {
		q[i] = strconv.Quote(n)
		if i < len(e.Meant) {
			q[i] += meantHint(e.Meant[i])
		}
	}
	if len(q) > 1 {
		return strings.Join(q, ", "), many
	}
	return strings.Join(q, ", "), one
}
