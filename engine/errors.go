package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Reserved channel and write names (LangGraph's constants).
const (
	Start            = "__start__"
	End              = "__end__"
	InputTask        = "__input__"
	InterruptChannel = "__interrupt__"
	ResumeChannel    = "__resume__"
	ErrorChannel     = "__error__"
	ScheduledChannel = "__scheduled__"
	NoWritesChannel  = "__no_writes__"
	ReturnChannel    = "__return__"
	TasksChannel     = "__pregel_tasks"
	Push             = "__pregel_push"
	Pull             = "__pregel_pull"
	// BranchPrefix prefixes a node's trigger channel: "branch:to:<node>".
	BranchPrefix = "branch:to:"
	// JoinPrefix prefixes the barrier channel of a multi-source edge.
	JoinPrefix = "join:"
)

// reservedWrite reports whether a write name never reaches a channel.
func reservedWrite(ch string) bool {
	switch ch {
	case NoWritesChannel, Push, ResumeChannel, InterruptChannel, ReturnChannel, ErrorChannel, ScheduledChannel, ErrorSourceNodeChannel:
		return true
	}
	return false
}

// Sentinel errors.
var (
	// ErrNoUpdates is BulkUpdateState's refusal of no supersteps, or of a
	// superstep with no updates.
	ErrNoUpdates = errors.New("bulk update with nothing to apply")
	// ErrEmptyInput is returned when a run has neither input nor anything
	// to resume ("Received no input writes for __start__"), and for a
	// Command input with nothing in it (a nil resume value included).
	ErrEmptyInput = errors.New(`received no input writes for "__start__"`)
	// ErrNoCheckpointer is returned when a feature needs a Saver and the
	// graph has none (resume, interrupt, state, history).
	ErrNoCheckpointer = errors.New("no checkpointer set: this needs a Saver")
	// ErrNoCheckpoint is returned when a config names a thread or
	// checkpoint that does not exist.
	ErrNoCheckpoint = errors.New("checkpoint not found")
	// ErrNothingPending says a resume found no pending interrupt to
	// answer. The engine itself does not refuse such a resume: as in
	// LangGraph (pregel/_loop.py:902-930 saves a Command's resume as a
	// null-task write without looking for an interrupt), Invoke with
	// Command{Resume: …} on a finished thread runs no task, returns
	// StatusDone and leaves the answer saved unused on the latest
	// checkpoint. On a thread that has no checkpoint at all (a mistyped
	// thread id) it is the same, and no error either: the run writes an
	// empty input checkpoint (step -1) and returns StatusDone with no
	// values, as LangGraph.js does (dist/pregel/loop.js:886-910 in
	// 1.7.3: a Command's null writes make an input checkpoint when there
	// is nothing to resume). A caller that must refuse either checks
	// StateSnapshot.Interrupts first (GetState of a thread with no
	// checkpoint has none) and returns this sentinel, as the command
	// line does.
	ErrNothingPending = errors.New("nothing to resume: the thread has no pending interrupt")
	// ErrRunFinished is returned by a Stepper that is asked to advance after
	// its run ended.
	ErrRunFinished = errors.New("the run has finished")
	// ErrRunClosed is the error of a run its Stepper's caller closed
	// (Stepper.Close) before it ended.
	ErrRunClosed = errors.New("the run was closed before it ended")
	// ErrStopped is returned when a step hook stops the run.
	ErrStopped = errors.New("run stopped by the step hook")
	// ErrUnknownNode is returned when a call names a node the graph does
	// not have.
	ErrUnknownNode = errors.New("unknown node")
	// ErrValueTooDeep is returned (inside a ValueLimitError, or from
	// EncodeValue) for a value nesting deeper than MaxValueDepth.
	ErrValueTooDeep = errors.New("value nested too deeply")
	// ErrValueTooLarge is returned (inside a ValueLimitError) for a written
	// value larger than Limits.MaxWriteBytes.
	ErrValueTooLarge = errors.New("value too large")
	// ErrStateTooLarge is returned (as a StateLimitError) when the state
	// after a superstep is larger than Limits.MaxStateBytes.
	ErrStateTooLarge = errors.New("state too large")
	// ErrUnknownSubgraph is returned when a checkpoint namespace names no
	// subgraph node of the graph.
	ErrUnknownSubgraph = errors.New("unknown subgraph in checkpoint namespace")
	// ErrOutsideNode is returned by InvokeSubgraph called outside a running
	// node.
	ErrOutsideNode = errors.New("called outside a running node")
	// ErrGraphChanged is returned when a saved thread's topology does not
	// match the graph.
	ErrGraphChanged = errors.New("the graph's topology differs from the recorded one")
	// ErrNotExecuted is returned by Stepper.EditWrites when the run is not
	// paused between Execute and Update.
	ErrNotExecuted = errors.New("the run is not paused after Execute")
	// ErrNoTask is returned when a task id names no finished task of the
	// current superstep.
	ErrNoTask = errors.New("no such task")
	// ErrAmbiguousID is returned by ResolveID when a checkpoint reference
	// matches more than one checkpoint.
	ErrAmbiguousID = errors.New("ambiguous checkpoint id")
	// ErrUnknownDurability is returned for a durability mode that is not
	// async, sync or exit (ParseDurability, a run's WithDurability).
	ErrUnknownDurability = errors.New("unknown durability mode")
	// ErrBadRecursionLimit is returned for a run given a recursion limit
	// below 1 (WithRecursionLimit), as LangGraph refuses one.
	ErrBadRecursionLimit = errors.New("the recursion limit must be at least 1")
	// ErrNoThread is returned when a graph with a saver is run without a
	// thread (OnThread), as LangGraph refuses a run with a checkpointer
	// and no thread_id (pregel/index.js:1124 in LangGraph.js 1.7.3): its
	// checkpoints would join whatever else ran without one.
	ErrNoThread = errors.New("a graph with a saver runs on a thread: pass engine.OnThread(id)")
)

// InvalidUpdateError is returned when writes cannot be applied: two values
// for a LastValue key in one superstep, a barrier write from an unknown
// source, or an update that is not a map.
type InvalidUpdateError struct {
	Channel string // the channel the writes were for; "" when not one channel's
	Msg     string // what was wrong with them
}

// Error names the channel and the problem.
func (e *InvalidUpdateError) Error() string {
	if e.Channel != "" {
		return fmt.Sprintf("invalid update for channel %q: %s", e.Channel, e.Msg)
	}
	return "invalid update: " + e.Msg
}

// UnknownKeysError is CheckStateKeys's refusal: values for keys that are
// not state keys of the graph.
type UnknownKeysError struct {
	Graph     string   // the graph's name
	Keys      []string // the keys that are not state keys, sorted
	StateKeys []string // the graph's state keys, in declaration order
}

// Error names the keys, the graph and its state keys.
func (e *UnknownKeysError) Error() string {
	what := "is not a state key"
	if len(e.Keys) > 1 {
		what = "are not state keys"
	}
	if len(e.StateKeys) == 0 {
		return fmt.Sprintf("%s %s of graph %s (it has none)", strings.Join(e.Keys, ", "), what, e.Graph)
	}
	return fmt.Sprintf("%s %s of graph %s (%sstate keys: %s)", strings.Join(e.Keys, ", "), what, e.Graph, e.meant(), strings.Join(e.StateKeys, ", "))
}

// meant is "did you mean …? " for the keys that are a likely misspelling
// of a state key (MeantName), "" when none is.
func (e *UnknownKeysError) meant() string {
	var guesses []string
	for _, k := range e.Keys {
		if m := MeantName(e.StateKeys, k); m != "" {
			if len(e.Keys) == 1 {
				guesses = append(guesses, m)
			} else {
				guesses = append(guesses, m+" for "+k)
			}
		}
	}
	if len(guesses) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(guesses, ", ") + "? "
}

// GraphRecursionError is returned when a run reaches its recursion limit
// without finishing.
type GraphRecursionError struct {
	Limit int // the run's recursion limit
	Step  int // the step the run stopped at
}

// Error says which limit was reached and how to raise it.
func (e *GraphRecursionError) Error() string {
	return e.Reached() + "; raise the limit with WithRecursionLimit"
}

// Reached says which limit was reached, without Error's hint: a program
// that sets the limit otherwise (a command's flag) names its own way.
func (e *GraphRecursionError) Reached() string {
	return fmt.Sprintf("recursion limit of %d reached without hitting a stop condition (at step %d)", e.Limit, e.Step)
}

// ReducerError is returned when a key's reducer rejects a write (for
// add_messages: removing a message id that does not exist). It is the
// reducer's error, not an InvalidUpdateError, as in LangGraph.
type ReducerError struct {
	Channel string // the reducer key
	Err     error  // the reducer's error
}

// Error names the key and the reducer's error.
func (e *ReducerError) Error() string { return fmt.Sprintf("reducer of %q: %v", e.Channel, e.Err) }

// Unwrap returns the reducer's error.
func (e *ReducerError) Unwrap() error { return e.Err }

// CancelledError is the error saved for a task that stopped because
// another task of its superstep failed first (LangGraph's CancelledError,
// LangGraph.js's AbortError). It matches context.Canceled, so a node that
// checks for its context's cancellation recognises it.
type CancelledError struct {
	// By is the node whose failure cancelled the superstep.
	By string
}

// Error names the node whose failure cancelled the task.
func (e *CancelledError) Error() string {
	return fmt.Sprintf("cancelled: node %q failed in the same superstep", e.By)
}

// Is reports whether target is context.Canceled.
func (e *CancelledError) Is(target error) bool { return target == context.Canceled }

// StepErrors is returned when a superstep failed and Task calls failed
// after its first failure, the calls it cancelled included (LangGraph.js's
// AggregateError, pregel/runner.ts:184-191: a call's task carries no abort
// signal of its own, runner.ts:582-584, so its error counts whenever it
// settles, runner.ts:160 and retry.ts:210, where a node's error that came
// after the abort does not). Errs[0] is the first failure, so errors.As
// finds its NodeError first; when the first failure is no NodeError (the
// writers refused an update), errors.As finds a later call's, so ask
// FirstFailure which failure ended the superstep.
type StepErrors struct {
	Step int     // the superstep that failed
	Errs []error // the first failure, then the calls' in the order they came
}

// Error names the superstep and every failure, the first first.
func (e *StepErrors) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return fmt.Sprintf("%d errors in superstep %d: %s", len(e.Errs), e.Step, strings.Join(msgs, "; "))
}

// Unwrap returns the failures.
func (e *StepErrors) Unwrap() []error { return e.Errs }

// FirstFailure returns the failure that ended a superstep: err itself, or,
// when err is a StepErrors (as a run's error, Invoke's or a Stepper's, can
// be), its first failure. The others a StepErrors holds are calls that
// failed after it, mostly because it cancelled them, so a caller that
// names the failing task or the kind of failure reads this one. It does
// not look inside a NodeError: a subgraph's StepErrors there is the
// subgraph's, and the NodeError names the task of this run that failed
// with it.
func FirstFailure(err error) error {
	for {
		se, ok := err.(*StepErrors)
		if !ok || len(se.Errs) == 0 {
			return err
		}
		err = se.Errs[0]
	}
}

// NodeError is returned when a node fails (after its retries) or panics.
// A subgraph node whose subgraph failed, and a caller whose Task call
// failed, fail with a NodeError of their own that wraps the inner one: Node
// and Step say where in the graph the caller ran, errors.As on Err finds
// the task inside that failed.
type NodeError struct {
	Node     string // the node that failed
	Step     int    // the superstep it ran in
	TaskID   string // its task
	Attempts int    // how many times it ran, retries included
	Panic    bool   // it panicked; Err is the *PanicError, with the value and stack
	Err      error  // the node's error
}

// Error names the node, the step and the attempts, then the cause.
func (e *NodeError) Error() string {
	kind := "failed"
	if e.Panic {
		kind = "panicked"
	}
	att := ""
	if e.Attempts > 1 {
		att = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return fmt.Sprintf("node %q %s at step %d%s: %v", e.Node, kind, e.Step, att, e.Err)
}

// Unwrap returns the node's own error.
func (e *NodeError) Unwrap() error { return e.Err }

// Kinds of NodeTimeoutError.
const (
	TimeoutRun  = "run"
	TimeoutIdle = "idle"
)

// NodeTimeoutError is returned when an attempt of a node exceeds its
// TimeoutPolicy (LangGraph.js's NodeTimeoutError): Kind says which limit,
// Elapsed how long the attempt ran. It reaches the caller inside a
// *NodeError.
type NodeTimeoutError struct {
	Node      string        // the node that timed out
	Kind      string        // TimeoutRun or TimeoutIdle
	Run, Idle time.Duration // the policy's limits
	Elapsed   time.Duration // how long the attempt ran
}

// Error names the node, the limit it hit and how long it ran.
func (e *NodeTimeoutError) Error() string {
	if e.Kind == TimeoutIdle {
		return fmt.Sprintf("node %q exceeded its idle timeout of %v without making progress (elapsed: %v)", e.Node, e.Idle, e.Elapsed.Round(time.Millisecond))
	}
	return fmt.Sprintf("node %q exceeded its run timeout of %v (elapsed: %v)", e.Node, e.Run, e.Elapsed.Round(time.Millisecond))
}

// CompileError is returned by StateGraph.Compile; it names what is wrong.
// Besides the message it says which declaration the problem is about, so
// that a caller that built the graph from a source of its own (a file, a
// form) can point at the place to edit: Node, Key, Edge and Interrupt are
// set as they apply, and a problem with none of them set is the graph's
// as a whole (it has no entry: no edge or route leaves Start).
type CompileError struct {
	Kind string // e.g. "UnreachableNodeError", "UnknownNode", "DuplicateNode"
	Msg  string // the problem, naming the node, edge or key at fault
	// Node is the node the problem is about, as the builder was given
	// it: one nothing reaches, one AddNode or AddSubgraph refused (its
	// name is invalid, reserved, a state key's or added before), or one
	// whose declared ends (WithEnds) name no node. With Edge, it is the
	// edge's, join's or route's end that is at fault (a name that is no
	// node, or Start or End where it cannot be); with Interrupt, the name
	// the interrupt list gives. "" when no node is at fault.
	Node string
	// Key is the state key the problem is about ("" when none).
	Key string
	// Edge is the edge, join or route the problem is in; nil when none.
	Edge *EdgeRef
	// Interrupt is "before" or "after" when Node is a name given to
	// WithInterruptBefore or WithInterruptAfter that is no node; "" else.
	Interrupt string
	// End is, with Node, the name in Node's declared ends (WithEnds)
	// that is no node; "" else.
	End string
	// Meant is, for a name that is no node (Kind "UnknownNode"), the node
	// it most likely meant (MeantName), the one its message suggests; ""
	// when none is close.
	Meant string
	// MeantUnreached is set when the unknown name is an end (of an edge,
	// join or route, or in a node's declared ends) and no declared end
	// names Meant: only the misspelt name leads to it. Compile presumes
	// the suggestion and does not report Meant unreachable as well, a
	// consequence of this one mistake. LangGraph.js checks reachability
	// over the ends as declared, before it checks that they are nodes
	// (dist/graph/graph.js:165-172), so it refuses such a graph with
	// UnreachableNodeError for Meant.
	MeantUnreached bool
}

// EdgeRef says which declared edge, join or route a CompileError is
// about: its ends as declared, and its place among the builder's calls.
type EdgeRef struct {
	// From are its sources: an edge's or a route's one, a join's all.
	From []string
	// To is an edge's or a join's target; "" for a route, whose ends
	// are its own.
	To string
	// Join is set for a join (AddJoin), Route for a route
	// (AddConditionalEdges, AddConditionalEdgesMap).
	Join, Route bool
	// Index is its place, from 0, among the builder's AddEdge and AddJoin
	// calls together (an edge or a join), or among its
	// AddConditionalEdges and AddConditionalEdgesMap calls (a route).
	// Calls the builder refused are counted.
	Index int
}

// Error returns Msg.
func (e *CompileError) Error() string { return e.Msg }

// CompileErrors joins several CompileErrors.
type CompileErrors []*CompileError

// Error joins the messages of every problem found.
func (es CompileErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Msg
	}
	return "graph does not compile: " + strings.Join(parts, "; ")
}

// Unwrap exposes the individual errors to errors.Is/As.
func (es CompileErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// IsCancellation reports whether a task's error says it was stopped
// before it finished rather than failing by itself: another task of its
// superstep failed first (CancelledError) or the run's caller cancelled
// the run (context.Canceled). It reads a run's error and a saved one
// (SavedError) alike. A node's time limit is a failure, as LangGraph
// reports a timed-out node. A StepErrors (a subgraph's failure with the
// calls it cancelled) is read by its first failure alone: the others
// were cancelled because of it.
func IsCancellation(err error) bool {
	for err != nil {
		if err == context.Canceled {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(context.Canceled) {
			return true
		}
		switch e := err.(type) {
		case *StepErrors:
			if err = FirstFailure(e); err == e {
				return false // no failure in it
			}
		case interface{ Unwrap() []error }:
			return slices.ContainsFunc(e.Unwrap(), IsCancellation)
		case interface{ Unwrap() error }:
			err = e.Unwrap()
		default:
			return false
		}
	}
	return false
}

// panicError is r, recovered from a function the graph was built with
// that is not a node (a reducer, a cache key, a retry policy's RetryOn),
// as an error: what panicked, and the *PanicError, as a node's panic is
// reported (NodeError.Panic). It must be called from the deferred
// function that recovered r (recoveredPanic reads the frames).
func panicError(what string, r any) error {
	return fmt.Errorf("%s panicked: %w", what, recoveredPanic(r))
}
