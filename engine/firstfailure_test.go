package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// FirstFailure reads a StepErrors by its first failure, and nothing else:
// not an error that merely wraps one, and not a subgraph's StepErrors
// inside the NodeError of the parent's task.
func TestFirstFailure(t *testing.T) {
	refused := &InvalidUpdateError{Channel: "n", Msg: "two values"}
	aborted := &NodeError{Node: "call", TaskID: "c1", Err: &CancelledError{}}
	inner := &StepErrors{Step: 0, Errs: []error{errors.New("inner boom"), aborted}}
	subgraph := &NodeError{Node: "sub", TaskID: "s1", Err: inner}
	plain := errors.New("boom")
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"nil", nil, nil},
		{"plain error", plain, plain},
		{"the writers refused, a call was aborted", &StepErrors{Step: 2, Errs: []error{refused, aborted}}, refused},
		{"nested StepErrors", &StepErrors{Errs: []error{&StepErrors{Errs: []error{plain, aborted}}, aborted}}, plain},
		{"a subgraph's failure stays its task's", &StepErrors{Errs: []error{subgraph, aborted}}, subgraph},
		{"empty StepErrors", &StepErrors{}, nil},
	}
	for _, c := range cases {
		got := FirstFailure(c.err)
		if c.name == "empty StepErrors" {
			if _, ok := got.(*StepErrors); !ok {
				t.Errorf("%s: got %v, want the StepErrors itself", c.name, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}

	// Why it exists: errors.As finds a NodeError in any failure of the
	// superstep, an aborted call's when the first failure is none.
	first := &StepErrors{Step: 2, Errs: []error{refused, aborted}}
	var ne *NodeError
	if !errors.As(first, &ne) || ne != aborted {
		t.Fatalf("errors.As on the StepErrors: got %v, want the aborted call's NodeError", ne)
	}
	if errors.As(FirstFailure(first), &ne) {
		t.Errorf("errors.As on FirstFailure found %v, want no NodeError", ne)
	}
	wrapped := fmt.Errorf("thread t: %w", first)
	if got := FirstFailure(wrapped); got != wrapped {
		t.Errorf("a wrapped StepErrors: got %v, want the error as it is", got)
	}
	if !IsCancellation(FirstFailure(&StepErrors{Errs: []error{context.Canceled, plain}})) {
		t.Error("a StepErrors whose first failure is the caller's cancellation is no cancellation")
	}
}
