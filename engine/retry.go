package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// RetryPolicy retries a failing node (LangGraph's RetryPolicy; the loop is
// LangGraph.js pregel/retry.ts _runWithRetry, Python pregel/_retry.py).
// Without a policy a node is never retried. Interrupts are never retried.
// Each attempt runs the node from its top with no writes kept from the
// previous one; what a failed attempt streamed (Emit, StreamMessage) was
// streamed already, and stays so, as in LangGraph.
//
// A zero field takes the default its comment names, which is not always
// LangGraph's: RetryPolicy{MaxAttempts: 3} retries at once, without
// backoff or jitter, where Python's RetryPolicy(max_attempts=3) waits 0.5s
// and then longer; DefaultRetryPolicy is LangGraph's default policy.
type RetryPolicy struct {
	// MaxAttempts counts every attempt, the first included (0: 3).
	MaxAttempts int
	// InitialInterval is the wait before the first retry; each further
	// retry waits BackoffFactor times longer, at most MaxInterval (0: no
	// cap). A zero InitialInterval retries at once.
	InitialInterval time.Duration
	BackoffFactor   float64       // how much longer each retry waits (0: 2)
	MaxInterval     time.Duration // the longest wait
	// Jitter adds a random wait of up to one second to each retry, as
	// LangGraph does, so that many failing tasks do not retry in step.
	Jitter bool
	// RetryOn decides whether an error is retried; nil is DefaultRetryOn.
	RetryOn func(error) bool
}

// defaultMaxAttempts is LangGraph.js's DEFAULT_MAX_RETRIES (retry.ts).
const defaultMaxAttempts = 3

// DefaultRetryPolicy is LangGraph's default policy: 3 attempts, 0.5s
// doubling up to 128s, with jitter, retrying what DefaultRetryOn accepts.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, InitialInterval: 500 * time.Millisecond, BackoffFactor: 2, MaxInterval: 128 * time.Second, Jitter: true}
}

// HTTPStatusError is implemented by errors that carry an HTTP status code
// (a client library's error for a failed request); DefaultRetryOn reads it.
type HTTPStatusError interface {
	error
	StatusCode() int // the response's HTTP status
}

// noRetryStatus are the HTTP statuses LangGraph.js does not retry by
// default (retry.ts DEFAULT_STATUS_NO_RETRY): the request itself is wrong.
var noRetryStatus = []int{400, 401, 402, 403, 404, 405, 406, 407, 409}

// DefaultRetryOn is the retry predicate of a policy without RetryOn,
// LangGraph.js's DEFAULT_RETRY_ON_HANDLER (retry.ts:28-55) in Go terms: a
// cancelled run, a missing checkpointer and an HTTP error for a bad request
// (400-407, 409) are not retried; everything else is, timeouts included.
// A subgraph's StepErrors is retried unless its first failure is a
// cancellation (IsCancellation): the handler reads the AggregateError's
// own name and message, which name no cancellation.
func DefaultRetryOn(err error) bool {
	if IsCancellation(err) || errors.Is(err, ErrNoCheckpointer) {
		return false
	}
	var hs HTTPStatusError
	if errors.As(err, &hs) && slices.Contains(noRetryStatus, hs.StatusCode()) {
		return false
	}
	return true
}

// retries reports whether a failed attempt number attempt is retried. A
// RetryOn that panics retries nothing, and panicked says so, to fail the
// task with in err's place: a panic on a task's goroutine would end the
// process.
func (p *RetryPolicy) retries(attempt int, err error) (retry bool, panicked error) {
	if p == nil {
		return false, nil
	}
	maxAttempts := p.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = defaultMaxAttempts
	}
	if attempt >= maxAttempts {
		return false, nil
	}
	if p.RetryOn != nil {
		defer func() {
			if r := recover(); r != nil {
				retry, panicked = false, panicError(fmt.Sprintf("the retry policy's RetryOn, given %q,", err), r)
			}
		}()
		return p.RetryOn(err), nil
	}
	return DefaultRetryOn(err), nil
}

// delay is the wait after failed attempt number attempt: min(MaxInterval,
// InitialInterval * BackoffFactor^(attempt-1)), plus up to a second of
// jitter (retry.ts _runWithRetry).
func (p RetryPolicy) delay(attempt int) time.Duration {
	d := float64(p.InitialInterval)
	for i := 1; i < attempt; i++ {
		d *= max(p.BackoffFactor, 1)
	}
	if p.MaxInterval > 0 && d > float64(p.MaxInterval) {
		d = float64(p.MaxInterval)
	}
	if p.Jitter {
		d += rand.Float64() * float64(time.Second)
	}
	return time.Duration(d)
}
