package cli

import (
	"context"
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestFailedNodeHint: after a node's failure run says how to run the
// thread again; after a panic, first how to see where it panicked (the
// frames saved with the task's error).
func TestFailedNodeHint(t *testing.T) {
	r := &runner{graphArg: "agent", thread: "t 1"}
	failed := &engine.NodeError{Node: "tool", Step: 2, Err: errors.New("bad amount")}
	if got, want := r.failedNodeHint(context.Background(), failed), "; superstep run agent --thread 't 1' runs it again, the step's finished tasks keeping their writes"; got != want {
		t.Errorf("after a failure: %q, want %q", got, want)
	}
	panicked := &engine.NodeError{Node: "tool", Step: 2, Panic: true, Err: &engine.PanicError{Value: "boom", At: "main.tool, tools.go:42", Stack: "main.tool\n\t/src/tools.go:42\n"}}
	if got, want := r.failedNodeHint(context.Background(), panicked), "; superstep show 't 1' prints where it panicked, and superstep run agent --thread 't 1' runs it again"; got != want {
		t.Errorf("after a panic: %q, want %q", got, want)
	}
}
