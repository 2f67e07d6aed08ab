package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

type statusErr int

func (e statusErr) Error() string   { return fmt.Sprintf("HTTP %d", int(e)) }
func (e statusErr) StatusCode() int { return int(e) }

// Translated from LangGraph.js pregel/retry.ts DEFAULT_RETRY_ON_HANDLER and
// its tests (src/tests/pregel.test.ts "retry"): what is retried by default,
// and how many attempts a policy allows.
func TestRetryPolicy_Retries(t *testing.T) {
	p := &RetryPolicy{MaxAttempts: 3}
	cases := []struct {
		err     error
		attempt int
		want    bool
	}{
		{errors.New("transient"), 1, true},
		{errors.New("transient"), 2, true},
		{errors.New("transient"), 3, false}, // MaxAttempts counts the first
		{fmt.Errorf("wrapped: %w", context.Canceled), 1, false},
		{ErrNoCheckpointer, 1, false},
		{statusErr(404), 1, false},
		{statusErr(409), 1, false},
		{statusErr(429), 1, true},
		{statusErr(503), 1, true},
		{&NodeTimeoutError{Kind: TimeoutRun}, 1, true},
	}
	for _, c := range cases {
		if got := retries(p, c.attempt, c.err); got != c.want {
			t.Errorf("retries(%d, %v) = %v, want %v", c.attempt, c.err, got, c.want)
		}
	}
	var none *RetryPolicy
	if retries(none, 1, errors.New("x")) {
		t.Error("no policy, no retry")
	}
	if !retries(&RetryPolicy{}, 2, errors.New("x")) || retries(&RetryPolicy{}, 3, errors.New("x")) {
		t.Error("MaxAttempts 0 means LangGraph's default of 3")
	}
	only := &RetryPolicy{MaxAttempts: 5, RetryOn: func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }}
	if retries(only, 1, errors.New("x")) || !retries(only, 1, context.DeadlineExceeded) {
		t.Error("RetryOn replaces the default predicate")
	}
}

func TestRetryPolicy_Delay(t *testing.T) {
	p := RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffFactor: 2, MaxInterval: 300 * time.Millisecond}
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 300 * time.Millisecond, 9: 300 * time.Millisecond} {
		if got := p.delay(attempt); got != want {
			t.Errorf("delay(%d) = %v, want %v", attempt, got, want)
		}
	}
	p.Jitter = true
	for i := 0; i < 20; i++ {
		if d := p.delay(1); d < 100*time.Millisecond || d >= 1100*time.Millisecond {
			t.Fatalf("jitter adds up to one second, got %v", d)
		}
	}
}

// retries is p.retries without its panic report, for policies that do not
// panic.
func retries(p *RetryPolicy, attempt int, err error) bool {
	retry, _ := p.retries(attempt, err)
	return retry
}
