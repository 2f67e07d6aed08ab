package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
)

// IsBubbleUp tells an interrupt and a Command for the parent graph,
// however wrapped, from a failure.
func TestIsBubbleUp(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a failure", errors.New("boom"), false},
		{"a node's failure", &engine.NodeError{Node: "n", Err: errors.New("boom")}, false},
		{"a cancellation", &engine.CancelledError{By: "t"}, false},
		{"an interrupt", &engine.InterruptError{}, true},
		{"an interrupt, wrapped", fmt.Errorf("calling search: %w", &engine.InterruptError{}), true},
		{"a Command for the parent", &engine.ParentCommandError{}, true},
	} {
		if got := engine.IsBubbleUp(c.err); got != c.want {
			t.Errorf("%s: IsBubbleUp = %v, want %v", c.name, got, c.want)
		}
	}
}
