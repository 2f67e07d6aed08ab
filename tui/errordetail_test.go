package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestErrorDetail_PanicFrames: a task's error opened in the value viewer
// holds the panic's frames under its one-line text; another error is its
// text alone.
func TestErrorDetail_PanicFrames(t *testing.T) {
	err := &engine.NodeError{Node: "tool", Step: 2, Panic: true, Err: &engine.PanicError{Value: "boom", At: "main.tool, tools.go:42", Stack: "main.tool\n\t/src/tools.go:42\n"}}
	got := errorDetail(err)
	if want := err.Error() + "\n\npanicked at:\nmain.tool\n\t/src/tools.go:42\n"; got != want {
		t.Errorf("errorDetail = %q, want %q", got, want)
	}
	plain := &engine.NodeError{Node: "tool", Step: 2, Err: errors.New("bad input")}
	if got := errorDetail(plain); got != plain.Error() || strings.Contains(got, "panicked at") {
		t.Errorf("errorDetail of a plain error = %q", got)
	}
}
