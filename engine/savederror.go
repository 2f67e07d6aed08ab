package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// A task's error is saved as its __error__ write. LangGraph saves the
// error's kind beside its text: LangGraph.js {message, name}
// (pregel/runner.ts:448 _commit), Python the exception's repr
// (checkpoint/serde/jsonplus.py:531 _msgpack_default), which get_state
// hands back as the task's error. superstep saves the chain of the
// engine's own errors it can rebuild, so that a reader of the checkpoint
// asks errors.Is and errors.As as a caller of the run does, with no
// matching on text:
//
//	{"name": "NodeError", "message": <the whole text>, "node": …, "step": …,
//	 "task_id": …, "attempts": …, "panic": …, "cause": {…}}
//
// where a cause is one of {"name": "NodeTimeoutError", "node", "kind",
// "run_ns", "idle_ns", "elapsed_ns"}, {"name": "PanicError", "value",
// "at", "stack", "cause"?} (the panic's value as text, where it happened
// and its frames; the cause when the value was an error), {"name":
// "CancelledError", "by"},
// {"name": "Canceled"}, {"name": "DeadlineExceeded"}, {"name":
// "StepErrors", "step", "errors": [{…}, …]} (a subgraph's failure and the
// calls it cancelled, each encoded as a cause), or {"name": "Error",
// "message", "cause"?, "detail_kind"?, "detail"?} for any other error
// (its text, what it wraps, and what it keeps of its own: SavedDetailer).
// Writes saved before held the text alone (a string), and still read;
// "Error"s saved before detail_kind existed read as they did, and a
// version that does not know detail_kind reads one saved with it as an
// "Error" (its text and cause).

// SavedError is a task's error as a checkpoint saved it (SavedTask.Err,
// SnapshotTask.Err). Error returns the text the run reported. Unwrap
// returns the error rebuilt from what was saved: a *NodeError whose Err is
// the node's own error — a *NodeTimeoutError, a *CancelledError (a
// sibling's failure), context.Canceled or context.DeadlineExceeded (the
// caller's), or an error with the node's text — so errors.Is(err,
// context.Canceled), errors.Is(err, context.DeadlineExceeded) and
// errors.As(err, &timeout) answer as they did for the run's own error.
// Text saved by an older version, or with no kind, unwraps to nothing.
type SavedError struct {
	Message string // the error's text when it was saved
	// Kind is the saved kind of the outermost error ("NodeError", or
	// "Error" for any other); "" for a write that saved text alone.
	Kind string
	err  error
}

// Error returns the saved text.
func (e *SavedError) Error() string { return e.Message }

// Unwrap returns the rebuilt error, nil when only text was saved.
func (e *SavedError) Unwrap() error { return e.err }

// SavedDetailer is implemented by an error of a caller's own that keeps
// facts beside its text when a checkpoint saves it in a task's error:
// SavedDetail returns a kind that names them for the reader that knows
// them (a package-qualified name, "" to keep none) and plain data (JSON
// values: strings, numbers, booleans, maps and lists of them). A reader
// of the checkpoint finds them as a *DetailedError, where the error was
// in the saved chain. The scenario package keeps the field of the
// expression that failed, so that a thread's failure read from a store
// is placed in its file as the run placed it.
type SavedDetailer interface {
	// SavedDetail returns what to keep: kind ("" for nothing) and the
	// data, read when the task's error is saved.
	SavedDetail() (kind string, detail map[string]any)
}

// DetailedError is, in an error read back from a checkpoint (the chain
// a *SavedError unwraps to), an error that kept facts of its own
// (SavedDetailer): its text, those facts and what it wrapped. errors.As
// finds it; Kind says whose facts Detail holds.
type DetailedError struct {
	Kind   string         // the saved SavedDetail kind
	Detail map[string]any // the saved data, as the store gave it back
	msg    string
	err    error
}

// Error returns the saved text.
func (e *DetailedError) Error() string { return e.msg }

// Unwrap returns the error it wrapped, rebuilt (nil when none).
func (e *DetailedError) Unwrap() error { return e.err }

// maxSavedErrorDepth bounds how many wrapped errors a saved error keeps;
// deeper ones are kept as text.
const maxSavedErrorDepth = 8

// encodeTaskError is the value saved as a task's __error__ write.
func encodeTaskError(err error) map[string]any {
	return encodeErrorAt(err, 0)
}

func encodeErrorAt(err error, depth int) map[string]any {
	var out map[string]any
	switch e := err.(type) {
	case *NodeError:
		out = map[string]any{"name": "NodeError", "node": e.Node, "step": int64(e.Step), "task_id": e.TaskID, "attempts": int64(e.Attempts), "panic": e.Panic}
		if e.Err != nil {
			out["cause"] = encodeCause(e.Err, depth)
		}
	case *NodeTimeoutError:
		out = map[string]any{"name": "NodeTimeoutError", "node": e.Node, "kind": e.Kind, "run_ns": int64(e.Run), "idle_ns": int64(e.Idle), "elapsed_ns": int64(e.Elapsed)}
	case *CancelledError:
		out = map[string]any{"name": "CancelledError", "by": e.By}
	case *PanicError:
		out = map[string]any{"name": "PanicError", "value": fmt.Sprint(e.Value), "at": e.At, "stack": e.Stack}
		if inner := e.Unwrap(); inner != nil {
			out["cause"] = encodeCause(inner, depth)
		}
	case *StepErrors:
		errs := make([]any, len(e.Errs))
		for i, err := range e.Errs {
			errs[i] = encodeCause(err, depth)
		}
		out = map[string]any{"name": "StepErrors", "step": int64(e.Step), "errors": errs}
	default:
		switch err {
		case context.Canceled:
			out = map[string]any{"name": "Canceled"}
		case context.DeadlineExceeded:
			out = map[string]any{"name": "DeadlineExceeded"}
		default:
			out = map[string]any{"name": "Error"}
			if d, ok := err.(SavedDetailer); ok {
				if kind, detail := d.SavedDetail(); kind != "" {
					out["detail_kind"], out["detail"] = kind, detail
				}
			}
			if inner := errors.Unwrap(err); inner != nil {
				out["cause"] = encodeCause(inner, depth)
			} else if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				// An error that matches a cancellation by its own Is
				// (not by wrapping): keep what it matches.
				out["cause"] = encodeCause(cancellationOf(err), depth)
			}
		}
	}
	out["message"] = err.Error()
	return out
}

// encodeCause encodes an error's cause one level deeper, as text alone
// past maxSavedErrorDepth.
func encodeCause(err error, depth int) map[string]any {
	if depth+1 >= maxSavedErrorDepth {
		return map[string]any{"name": "Error", "message": err.Error()}
	}
	return encodeErrorAt(err, depth+1)
}

// cancellationOf is the context error err matches.
func cancellationOf(err error) error {
	if errors.Is(err, context.Canceled) {
		return context.Canceled
	}
	return context.DeadlineExceeded
}

// ReadSavedError reads the value of a task's saved __error__ write (the
// structured form, or the text older versions saved).
func ReadSavedError(v any) *SavedError {
	switch x := v.(type) {
	case string:
		return &SavedError{Message: x}
	case map[string]any:
		msg, _ := x["message"].(string)
		name, _ := x["name"].(string)
		if msg == "" && name == "" {
			break
		}
		return &SavedError{Message: msg, Kind: name, err: decodeErrorValue(x, 0)}
	}
	return &SavedError{Message: foreignErrorText(v)}
}

// maxForeignErrorText bounds the message made of a saved error value no
// run saves.
const maxForeignErrorText = 200

// foreignErrorText is the message of an error value no run saves (an
// imported thread's, a program's own write to the error channel): its
// JSON, as the value is shown everywhere else, cut short past
// maxForeignErrorText bytes (a megabyte value is no one-line message).
func foreignErrorText(v any) string {
	b, err := EncodeValue(v)
	if err != nil {
		return fmt.Sprintf("(a saved error of %T)", v)
	}
	s := string(b)
	if len(s) <= maxForeignErrorText {
		return s
	}
	cut := maxForeignErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// decodeErrorValue rebuilds one saved error and its causes.
func decodeErrorValue(m map[string]any, depth int) error {
	name, _ := m["name"].(string)
	msg, _ := m["message"].(string)
	var cause error
	if c, ok := m["cause"].(map[string]any); ok && depth < maxSavedErrorDepth {
		cause = decodeErrorValue(c, depth+1)
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	switch name {
	case "NodeError":
		p, _ := m["panic"].(bool)
		return &NodeError{Node: str("node"), Step: int(savedInt(m["step"])), TaskID: str("task_id"), Attempts: int(savedInt(m["attempts"])), Panic: p, Err: cause}
	case "NodeTimeoutError":
		return &NodeTimeoutError{Node: str("node"), Kind: str("kind"), Run: time.Duration(savedInt(m["run_ns"])), Idle: time.Duration(savedInt(m["idle_ns"])), Elapsed: time.Duration(savedInt(m["elapsed_ns"]))}
	case "CancelledError":
		return &CancelledError{By: str("by")}
	case "PanicError":
		pe := &PanicError{Value: str("value"), At: str("at"), Stack: str("stack")}
		if cause != nil {
			pe.Value = &savedCause{msg: str("value"), err: cause}
		}
		return pe
	case "Canceled", "AbortError": // AbortError: LangGraph.js's cancellation
		if name == "AbortError" {
			return &savedCause{msg: msg, err: context.Canceled}
		}
		return context.Canceled
	case "DeadlineExceeded":
		return context.DeadlineExceeded
	case "StepErrors":
		se := &StepErrors{Step: int(savedInt(m["step"]))}
		list, _ := m["errors"].([]any)
		for _, v := range list {
			if c, ok := v.(map[string]any); ok && depth < maxSavedErrorDepth {
				se.Errs = append(se.Errs, decodeErrorValue(c, depth+1))
			}
		}
		if len(se.Errs) > 0 {
			return se
		}
	}
	if kind, _ := m["detail_kind"].(string); kind != "" {
		detail, _ := m["detail"].(map[string]any)
		return &DetailedError{Kind: kind, Detail: detail, msg: msg, err: cause}
	}
	return &savedCause{msg: msg, err: cause}
}

// savedCause is a saved error the engine cannot rebuild: its text, and
// the error it wrapped.
type savedCause struct {
	msg string
	err error
}

func (e *savedCause) Error() string { return e.msg }
func (e *savedCause) Unwrap() error { return e.err }

// savedInt reads a saved integer, whichever number type the store's
// encoding gave it back as.
func savedInt(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int64:
		return n
	case int32:
		return int64(n)
	case uint64:
		if n > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(n)
	case float64:
		return int64(n)
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			f, _ := n.Float64()
			return int64(f)
		}
		return i
	}
	return 0
}
