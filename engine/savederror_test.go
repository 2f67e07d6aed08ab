package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A saved error read back after a JSON round trip (as bbolt, PostgreSQL
// and an export keep it) answers errors.Is and errors.As as the error did,
// with the same text, through wrappers the engine cannot rebuild.
func TestSavedError_RoundTrip(t *testing.T) {
	timeout := &NodeTimeoutError{Node: "n", Kind: TimeoutIdle, Run: time.Hour, Idle: 3 * time.Second, Elapsed: 3100 * time.Millisecond}
	cases := []struct {
		name string
		err  error
		is   []error
	}{
		{"timeout", &NodeError{Node: "n", Step: 4, TaskID: "id", Attempts: 3, Err: fmt.Errorf("calling the model: %w", timeout)}, nil},
		{"sibling", &NodeError{Node: "n", Step: 1, Err: &CancelledError{By: "m"}}, []error{context.Canceled}},
		{"caller", &NodeError{Node: "n", Step: 1, Err: fmt.Errorf("fetch: %w", context.Canceled)}, []error{context.Canceled}},
		{"deadline", &NodeError{Node: "n", Step: 1, Err: context.DeadlineExceeded}, []error{context.DeadlineExceeded}},
		{"panic", &NodeError{Node: "n", Step: 2, Panic: true, Err: &PanicError{Value: "oops", At: "main.tool, tools.go:42", Stack: "main.tool\n\t/src/tools.go:42\n"}}, nil},
		{"panic(err)", &NodeError{Node: "n", Step: 2, Panic: true, Err: &PanicError{Value: fmt.Errorf("fetch: %w", context.Canceled), At: "main.tool, tools.go:42"}}, []error{context.Canceled}},
		{"panic saved before PanicError", &NodeError{Node: "n", Step: 2, Panic: true, Err: errors.New("oops\nstack")}, nil},
		{"joined", &NodeError{Node: "n", Err: errors.Join(errors.New("a"), context.Canceled)}, []error{context.Canceled}},
		{"subgraph step errors", &NodeError{Node: "sub", Step: 1, Err: &StepErrors{Step: 2, Errs: []error{
			&NodeError{Node: "a", Step: 2, Err: errors.New("boom")},
			&NodeError{Node: "b", Step: 2, Err: &CancelledError{By: "a"}},
		}}}, []error{context.Canceled}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(encodeTaskError(c.err))
			if err != nil {
				t.Fatal(err)
			}
			var v any
			d := json.NewDecoder(bytes.NewReader(b))
			if c.name == "deadline" {
				d.UseNumber() // a store that keeps numbers as json.Number
			}
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			got := ReadSavedError(v)
			if got.Error() != c.err.Error() || got.Kind != "NodeError" {
				t.Fatalf("text %q kind %q, want %q", got.Error(), got.Kind, c.err.Error())
			}
			var ne, want *NodeError
			errors.As(c.err, &want)
			if !errors.As(got, &ne) || ne.Node != want.Node || ne.Step != want.Step || ne.TaskID != want.TaskID || ne.Attempts != want.Attempts || ne.Panic != want.Panic || ne.Error() != want.Error() {
				t.Errorf("NodeError %+v, want %+v", ne, want)
			}
			for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
				if errors.Is(got, target) != errors.Is(c.err, target) {
					t.Errorf("errors.Is(%v) = %v, want %v", target, errors.Is(got, target), errors.Is(c.err, target))
				}
			}
			var nte *NodeTimeoutError
			if errors.As(got, &nte) != errors.As(c.err, new(*NodeTimeoutError)) || (nte != nil && *nte != *timeout) {
				t.Errorf("timeout %+v", nte)
			}
			if IsCancellation(got) != IsCancellation(c.err) {
				t.Errorf("IsCancellation = %v, want %v", IsCancellation(got), IsCancellation(c.err))
			}
			if PanicStack(got) != PanicStack(c.err) {
				t.Errorf("PanicStack %q, want %q", PanicStack(got), PanicStack(c.err))
			}
			var se, wantSE *StepErrors
			if errors.As(got, &se) != errors.As(c.err, &wantSE) || (se != nil && (se.Step != wantSE.Step || len(se.Errs) != len(wantSE.Errs) || se.Error() != wantSE.Error())) {
				t.Errorf("StepErrors %+v, want %+v", se, wantSE)
			}
		})
	}
}

// Error writes saved before, or by LangGraph.js, read as text, and a
// LangGraph.js abort as a cancellation.
func TestSavedError_OtherForms(t *testing.T) {
	if e := ReadSavedError("node \"a\" failed at step 1: boom"); e.Message != "node \"a\" failed at step 1: boom" || e.Kind != "" || errors.Unwrap(e) != nil {
		t.Errorf("text: %+v", e)
	}
	if e := ReadSavedError(map[string]any{"message": "This operation was aborted", "name": "AbortError"}); !errors.Is(e, context.Canceled) || e.Error() != "This operation was aborted" {
		t.Errorf("AbortError: %+v", e)
	}
	if e := ReadSavedError(map[string]any{"message": "boom", "name": "Error"}); errors.Is(e, context.Canceled) || e.Error() != "boom" {
		t.Errorf("JS error: %+v", e)
	}
	if e := ReadSavedError(42.0); e.Error() != "42" {
		t.Errorf("number: %+v", e)
	}
	// A chain deeper than kept is cut to text, and still reads.
	var err error = context.Canceled
	for i := range 20 {
		err = fmt.Errorf("level %d: %w", i, err)
	}
	e := ReadSavedError(encodeTaskError(err))
	if e.Error() != err.Error() {
		t.Errorf("deep: %q", e.Error())
	}
}

// A StepErrors is a failure, not a cancellation, when its first error is
// one: the calls after it were cancelled because of it. The default retry
// policy then retries it, as LangGraph.js's handler retries an
// AggregateError (retry.ts:28-35 reads only its name and message).
func TestIsCancellation_StepErrorsByTheirFirstFailure(t *testing.T) {
	boom := &NodeError{Node: "a", Err: errors.New("boom")}
	aborted := &NodeError{Node: "b", Err: &CancelledError{By: "a"}}
	cases := []struct {
		name      string
		err       error
		cancelled bool
	}{
		{"failure then cancelled calls", &NodeError{Node: "sub", Err: &StepErrors{Errs: []error{boom, aborted}}}, false},
		{"cancelled first", &StepErrors{Errs: []error{aborted, boom}}, true},
		{"wrapped caller cancellation", fmt.Errorf("fetch: %w", context.Canceled), true},
		{"sibling's failure", &NodeError{Err: &CancelledError{By: "x"}}, true},
		{"joined with a cancellation", errors.Join(errors.New("a"), context.Canceled), true},
		{"failure", boom, false},
		{"empty step errors", &StepErrors{}, false},
	}
	for _, c := range cases {
		if got := IsCancellation(c.err); got != c.cancelled {
			t.Errorf("%s: IsCancellation = %v, want %v", c.name, got, c.cancelled)
		}
		if got := DefaultRetryOn(c.err); got == c.cancelled {
			t.Errorf("%s: DefaultRetryOn = %v, want %v", c.name, got, !c.cancelled)
		}
	}
}

// placedErr is a caller's error that keeps facts of its own.
type placedErr struct {
	field string
	err   error
}

func (e *placedErr) Error() string { return e.err.Error() }
func (e *placedErr) Unwrap() error { return e.err }
func (e *placedErr) SavedDetail() (string, map[string]any) {
	if e.field == "" {
		return "", nil
	}
	return "test.placed", map[string]any{"field": e.field, "line": 4}
}

// An error that keeps facts of its own (SavedDetailer) is read back from
// a saved task error as a *DetailedError with them, its text and what it
// wrapped, after a JSON round trip; one that keeps none, and an "Error"
// saved before detail_kind existed, read as they did.
func TestSavedError_Detail(t *testing.T) {
	roundTrip := func(err error) *SavedError {
		t.Helper()
		b, jerr := json.Marshal(encodeTaskError(err))
		if jerr != nil {
			t.Fatal(jerr)
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if jerr := d.Decode(&v); jerr != nil {
			t.Fatal(jerr)
		}
		return ReadSavedError(v)
	}
	cause := fmt.Errorf("update.total: %w", context.DeadlineExceeded)
	run := &NodeError{Node: "b", Step: 2, Err: &placedErr{field: "nodes[1].update.total", err: cause}}
	got := roundTrip(run)
	var de *DetailedError
	if !errors.As(got, &de) {
		t.Fatalf("no DetailedError in %#v", got)
	}
	if de.Kind != "test.placed" || de.Detail["field"] != "nodes[1].update.total" || savedInt(de.Detail["line"]) != 4 || de.Error() != cause.Error() {
		t.Errorf("DetailedError %q %v %q", de.Kind, de.Detail, de.Error())
	}
	if got.Error() != run.Error() || !errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("text %q, Is(DeadlineExceeded) %v: the detail hides the rest", got.Error(), errors.Is(got, context.DeadlineExceeded))
	}
	if got := roundTrip(&NodeError{Node: "b", Err: &placedErr{err: cause}}); errors.As(got, &de) {
		t.Errorf("an error that keeps nothing read back as %#v", de)
	}
	old := map[string]any{"name": "NodeError", "node": "b", "message": "node b failed", "cause": map[string]any{"name": "Error", "message": "update.total: boom"}}
	if got := ReadSavedError(old); errors.As(got, &de) || got.Error() != "node b failed" {
		t.Errorf("a saved error of before read back as %q, %#v", got.Error(), de)
	}
}
