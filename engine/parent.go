package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Parent is the Command.Graph value that sends a Command to the graph
// that runs the current graph as a subgraph (LangGraph's Command.PARENT).
const Parent = "__parent__"

// ParentCommandError carries a Command from a node of a subgraph up to the
// graph it is meant for (LangGraph's ParentCommand bubble-up). It is not a
// failure: it is never retried, saves nothing for the task that raised it,
// does not cancel the task's siblings, and ends the subgraph's run; the
// task of the parent graph that ran the subgraph then applies the Command
// as if its node had returned it (its update, goto, edges and routes),
// LangGraph.js pregel/retry.ts _runWithRetry.
type ParentCommandError struct {
	Command Command // the Command for the parent graph
	// Target is the checkpoint namespace of the subgraph task that takes
	// the Command: the namespace of the graph the node ran in.
	Target string
}

// Error says that a Command is bound for the parent graph.
func (e *ParentCommandError) Error() string {
	return fmt.Sprintf("command for the parent graph (task %s) did not reach it", e.Target)
}

// parentCommand returns the Command a node's result sends to the parent
// graph, as the error that carries it up (LangGraph.js graph/state.ts
// _controlBranch raises ParentCommand; its state updater writes nothing for
// such a Command). ok is false for any other result.
func (l *loop) parentCommand(t *task, ret any) (err error, ok bool) {
	cmd, isCmd := asCommand(ret)
	if !isCmd || cmd.Graph == "" {
		return nil, false
	}
	if cmd.Graph != Parent {
		return &InvalidUpdateError{Msg: fmt.Sprintf("node %q returned a Command for graph %q: only engine.Parent is supported", t.name, cmd.Graph)}, true
	}
	if l.cfg.CheckpointNS == "" {
		return &InvalidUpdateError{Msg: fmt.Sprintf("node %q returned a Command for the parent graph, but it runs in the root graph", t.name)}, true
	}
	return &ParentCommandError{Command: cmd, Target: l.cfg.CheckpointNS}, true
}

// takeParentCommand turns a ParentCommandError meant for the task whose
// checkpoint namespace is taskNS into the Command the task's node returns;
// other errors pass through. A Command.PARENT is addressed to the
// namespace of the graph its node ran in (LangGraph.js pregel/retry.ts:139-145,
// getParentCheckpointNamespace), and a task takes only one addressed to its
// own namespace (retry.ts:132: cmd.graph === the task's checkpoint_ns). So
// it takes the Command of the first subgraph run in it, but neither that of
// a second run ("<ns>|1") nor that of a stateful subgraph, whose namespace
// has no task ids (index.ts:2313-2319): those go on up as bubble-ups.
func takeParentCommand(ns string, err error) (any, error) {
	var pc *ParentCommandError
	if errors.As(err, &pc) && pc.Target == ns {
		cmd := pc.Command
		cmd.Graph = ""
		return cmd, nil
	}
	return nil, err
}

// IsBubbleUp reports whether err, a node's or a Task call's error, is no
// failure but a signal the run handles above the node: an interrupt
// (Interrupt's *InterruptError) or a Command for a parent graph
// (*ParentCommandError), what LangGraph calls a GraphBubbleUp. It is never
// retried, and a node that handles a Task call's error (Future.Result)
// must return such a one as it is, or the run cannot ask or go to the
// parent there.
func IsBubbleUp(err error) bool {
	if err == nil {
		return false
	}
	var ie *InterruptError
	return errors.As(err, &ie) || isParentCommand(err)
}

// isParentCommand reports whether err carries a Command for a parent
// graph. Every task's outcome is asked, so nil costs nothing (errors.As
// would allocate its target).
func isParentCommand(err error) bool {
	if err == nil {
		return false
	}
	var pc *ParentCommandError
	return errors.As(err, &pc)
}

// NamespaceNodes is checkpoint namespace ns without its task ids, the
// path of subgraph nodes it names: "a:<id>|b:<id>" becomes "a|b"
// (LangGraph's recast_checkpoint_ns). A stateful subgraph keeps its one
// history per thread there.
func NamespaceNodes(ns string) string {
	parts := strings.Split(ns, "|")
	for i, p := range parts {
		parts[i], _, _ = strings.Cut(p, ":")
	}
	return strings.Join(parts, "|")
}
