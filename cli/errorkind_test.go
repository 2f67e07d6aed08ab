package cli

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
)

// run --json names the kind of the failure that ended the superstep, not
// of a Task call that superstep's failure aborted.
func TestErrorKind_FirstFailure(t *testing.T) {
	aborted := &engine.NodeError{Node: "call", TaskID: "c1", Err: &engine.CancelledError{}}
	cases := []struct {
		err  error
		want string
	}{
		{&engine.StepErrors{Step: 1, Errs: []error{&engine.InvalidUpdateError{Channel: "n", Msg: "two values"}, aborted}}, "InvalidUpdateError"},
		{&engine.StepErrors{Step: 1, Errs: []error{&engine.NodeError{Node: "a", Err: context.DeadlineExceeded}, aborted}}, "NodeError"},
		{&engine.GraphRecursionError{Limit: 3}, "GraphRecursionError"},
		{context.Canceled, "Canceled"},
	}
	for _, c := range cases {
		if got := errorKind(c.err); got != c.want {
			t.Errorf("errorKind(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
