package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// PanicError is a panic of the program's code the engine called and
// recovered: a node's (the Err of a *NodeError whose Panic is set), a
// reducer's, a cache policy's Key, a retry policy's RetryOn. Error is one
// line, the panic's value and where it happened, so that it reads as any
// other error in a log, a status line or a saved checkpoint; Stack holds
// the frames, for whoever debugs it (superstep show prints them under the
// task's error, the debugger beside it).
type PanicError struct {
	// Value is what was passed to panic (a runtime.Error for a runtime
	// fault). Read back from a checkpoint (SavedError) it is the value's
	// text, an error wrapping what it wrapped when it was an error.
	Value any
	// At is the function and file:line that panicked, "main.tool,
	// tools.go:42": the first frame past the runtime's own. "" when the
	// frames could not be read.
	At string
	// Stack is the panicking goroutine's frames, innermost first, from
	// the one that panicked down to the code the engine called (the
	// engine's and the runtime's recovery frames left out), each as Go
	// prints a panic: "function\n\tfile:line\n".
	Stack string
}

// Error is the panic's value, and where it happened.
func (e *PanicError) Error() string {
	if e.At == "" {
		return fmt.Sprint(e.Value)
	}
	return fmt.Sprintf("%v (%s)", e.Value, e.At)
}

// Unwrap is the panic's value when it is an error, so that errors.Is and
// errors.As see through a panic(err).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// PanicStack is the Stack of the first *PanicError in err's chain, ""
// when err holds none: what a reader shows under a failed task's one-line
// error (a SavedError's chain holds the saved one).
func PanicStack(err error) string {
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe.Stack
	}
	return ""
}

// maxPanicFrames bounds the frames a PanicError keeps: a runaway
// recursion's stack is no use in full, and it is saved with the task.
const maxPanicFrames = 64

// enclosing is the function a closure named name is in: Go names a
// closure "pkg.f.func1", and one inside that "pkg.f.func1.2".
func enclosing(name string) string {
	for {
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			return name
		}
		last := strings.TrimPrefix(name[i+1:], "func")
		if last == "" || strings.Trim(last, "0123456789") != "" {
			return name
		}
		name = name[:i]
	}
}

// recoveredPanic is r, recovered by a deferred function of the engine's,
// as a *PanicError. It must be called from that deferred function (or a
// function it calls), while the panic is being recovered: it reads the
// panicking goroutine's frames, which then still hold the panicking ones
// below the runtime's gopanic.
func recoveredPanic(r any) *PanicError {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var all []runtime.Frame
	for {
		f, more := frames.Next()
		all = append(all, f)
		if !more {
			break
		}
	}
	pe := &PanicError{Value: r}
	start := -1
	for i, f := range all {
		if f.Function == "runtime.gopanic" {
			start = i + 1
			break
		}
	}
	if start < 0 || start >= len(all) {
		return pe
	}
	// The deferred function gopanic called sits just above it; its
	// enclosing function is the engine's frame that recovers, and where
	// the program's frames end.
	recoverer := ""
	if start >= 2 {
		recoverer = enclosing(all[start-2].Function)
	}
	var b strings.Builder
	kept := 0
	for _, f := range all[start:] {
		if f.Function == recoverer {
			break
		}
		if pe.At == "" {
			if strings.HasPrefix(f.Function, "runtime.") {
				// The runtime's raising of a fault (goPanicIndex,
				// panicBounds, mapassign): how, not where; Go's own
				// traceback hides these frames too.
				continue
			}
			pe.At = fmt.Sprintf("%s, %s:%d", shortFuncName(f.Function), filepath.Base(f.File), f.Line)
		}
		if kept == maxPanicFrames {
			b.WriteString("...\n")
			break
		}
		fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		kept++
	}
	pe.Stack = b.String()
	return pe
}

// shortFuncName is a function's name without its package's path:
// "main.tool", "engine.(*loop).attempt".
func shortFuncName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
