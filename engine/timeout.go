package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// TimeoutPolicy bounds each attempt of a node (LangGraph.js's TimeoutPolicy,
// pregel/timeout.ts runAttemptWithTimeout). Run caps an attempt's wall-clock
// time; Idle caps the time without progress, where progress is a call to
// Heartbeat or, unless HeartbeatOnly, a custom stream event (Emit). A zero
// duration is no limit. When a limit is hit the attempt's context is
// cancelled, its writes are dropped, and it fails with a *NodeTimeoutError,
// which a retry policy may retry like any other error (the clock restarts
// for each attempt). Like every task, a timed attempt is also abandoned at
// once when the run's caller cancels its context (Invoke's ctx) or a
// sibling fails (see Graph.Invoke). Task calls still running when an
// attempt hits its limit are cancelled with it, and each one's
// cancellation is a failure of its own: the superstep fails with them,
// beside the NodeTimeoutError when the policy retries no more, and
// instead of the retry when it would retry (LangGraph.js's behaviour;
// see timeoutAbort). Task calls an attempt started and left
// running when it ended before its limit (a return, an error or an
// interrupt) run on in its context: only the run's caller's cancellation
// ends them then, not a sibling's failure, and the superstep waits for
// them (LangGraph.js aborts the attempt's signal only on a timeout).
type TimeoutPolicy struct {
	Run, Idle     time.Duration // the attempt's and the idle limit (0: none)
	HeartbeatOnly bool          // only Heartbeat counts as progress, not Emit
}

// WithTimeout bounds every attempt of the node by p.
func WithTimeout(p TimeoutPolicy) NodeOption { return func(n *nodeSpec) { n.timeout = &p } }

// attemptClock tracks one timed attempt's progress; once the attempt timed
// out it is closed, and what the abandoned node still emits is dropped.
type attemptClock struct {
	mu            sync.Mutex
	last          time.Time
	closed        bool
	heartbeatOnly bool
	runEnds       time.Time     // when the run limit ends the attempt (zero: no limit)
	idle          time.Duration // the idle limit (0: none)
}

// cap returns the earlier of until (zero: no end known) and the moment the
// attempt's limits end it, as the clock stands now: a node waiting on time
// in a timed attempt waits at most until then (runAttemptWithTimeout races
// the node against the limit's timer).
func (a *attemptClock) cap(until time.Time) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	ends := a.runEnds
	if a.idle > 0 {
		if idleEnds := a.last.Add(a.idle); ends.IsZero() || idleEnds.Before(ends) {
			ends = idleEnds
		}
	}
	if until.IsZero() || (!ends.IsZero() && ends.Before(until)) {
		return ends
	}
	return until
}

type attemptClockKey struct{}

// touch records progress; auto is true for implicit progress (Emit). It
// reports whether the attempt is still live.
func (a *attemptClock) touch(auto bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed && !(auto && a.heartbeatOnly) {
		a.last = time.Now()
	}
	return !a.closed
}

func (a *attemptClock) idleSince() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

func (a *attemptClock) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
}

// attemptLive reports whether ctx's attempt may still act, counting the
// call as automatic progress.
func attemptLive(ctx context.Context) bool {
	if a, ok := ctx.Value(attemptClockKey{}).(*attemptClock); ok {
		return a.touch(true)
	}
	return true
}

// Heartbeat tells a node's idle timeout that the node is making progress.
// It does nothing outside a node with an idle timeout.
func Heartbeat(ctx context.Context) {
	if a, ok := ctx.Value(attemptClockKey{}).(*attemptClock); ok {
		a.touch(false)
	}
}

// attemptOnce runs one attempt of t, under the node's timeout policy if it
// has one.
func (l *loop) attemptOnce(ctx context.Context, scope *taskScope, t *task) ([]Write, error) {
	if tp := t.node.timeout; tp == nil || (tp.Run <= 0 && tp.Idle <= 0) {
		return l.attempt(ctx, scope, t)
	}
	return l.attemptTimed(ctx, scope, t)
}

// attemptTimed is attemptOnce under a timeout policy.
func (l *loop) attemptTimed(ctx context.Context, scope *taskScope, t *task) ([]Write, error) {
	tp := t.node.timeout
	// The attempt runs on a copy of the task's scope: if it times out, the
	// abandoned node may go on calling Interrupt or Emit, and none of that
	// may reach the task (timeout.ts drops the attempt's late writes).
	as := scope.forAttempt()
	as.timedCalls = new([]startedCall)
	clock := &attemptClock{last: time.Now(), heartbeatOnly: tp.HeartbeatOnly, idle: max(tp.Idle, 0)}
	// The attempt, and the Task calls it starts, run on actx. It follows
	// ctx until the attempt ends; then a sibling's failure no longer
	// reaches it, and it is cancelled once the calls have ended
	// (releaseAfterCalls): an attempt that returns, an error or an
	// interrupt included, lets its calls run on. LangGraph.js aborts the
	// attempt's signal only on a timeout, and when the node settles first
	// it disposes the signal it composed from the superstep's
	// (timeout.js:191-198, utils/index.js:73-75), so a sibling's failure
	// no longer aborts them and the runner waits for them. The caller's
	// own cancellation still reaches them here: it ends the run, and the
	// calls' work with it.
	var ended atomic.Bool
	actx, cancel := context.WithCancelCause(attemptContext{context.WithValue(context.WithoutCancel(ctx), attemptClockKey{}, clock), ctx})
	stopFollowing := context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		if _, sibling := cause.(*CancelledError); sibling && ended.Load() {
			return
		}
		cancel(cause)
	})
	type outcome struct {
		writes []Write
		err    error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	if tp.Run > 0 {
		clock.runEnds = start.Add(tp.Run) // before the attempt starts: no lock needed
	}
	go func() {
		w, err := l.attempt(actx, as, t)
		done <- outcome{w, err}
	}()
	var runC, idleC <-chan time.Time
	if tp.Run > 0 {
		tm := time.NewTimer(tp.Run)
		defer tm.Stop()
		runC = tm.C
	}
	var idle *time.Timer
	if tp.Idle > 0 {
		idle = time.NewTimer(tp.Idle)
		defer idle.Stop()
		idleC = idle.C
	}
	// abandon ends the attempt with err. The Task calls it started end
	// with cause, and count among the superstep's failures: LangGraph.js's
	// calls inherit the attempt's abort signal, and every call's
	// AbortError counts (pregel/runner.ts:160, retry.ts signalAborted);
	// when cause is the timeout's, as its task decides (timeoutAbort),
	// else as ones a task's failure cancelled (callAborted).
	abandon := func(err, cause error) ([]Write, error) {
		clock.close()
		stopFollowing()
		cancel(cause)
		l.cs.view.lend() // the abandoned node may still read its state
		scope.adoptSubgraphRuns(as)
		return nil, err
	}
	timedOut := func(kind string) ([]Write, error) {
		cause := &CancelledError{By: t.name}
		l.abortCalls(scope, as.attemptCalls(), cause)
		return abandon(&NodeTimeoutError{Node: t.name, Kind: kind, Run: tp.Run, Idle: tp.Idle, Elapsed: time.Since(start)}, cause)
	}
	// The end of the superstep's context — the caller's cancellation or a
	// sibling's failure — abandons the attempt as its limit would:
	// LangGraph.js races every task against the composed abort signal
	// (pregel/runner.ts:101 combines the caller's, the step timeout's and
	// the sibling-failure signal; @langchain/core's invoke races the node
	// against it, utils/signal.ts raceWithSignal). An untimed task is
	// abandoned by the runner instead (fanout.abandon).
	for {
		select {
		case <-ctx.Done():
			return abandon(ctx.Err(), context.Cause(ctx))
		case o := <-done:
			// A node that finished late still timed out (timeout.ts
			// checks the clocks once more after the race).
			now := time.Now()
			switch {
			case tp.Run > 0 && now.Sub(start) >= tp.Run:
				return timedOut(TimeoutRun)
			case tp.Idle > 0 && now.Sub(clock.idleSince()) >= tp.Idle:
				return timedOut(TimeoutIdle)
			}
			ended.Store(true)
			started := as.attemptCalls()
			l.outlive(started)
			scope.adopt(as)
			release := func() {
				for _, sc := range started {
					<-sc.c.done // the superstep waits for them too
				}
				stopFollowing()
				cancel(nil)
			}
			if len(started) > 0 {
				go release()
			} else {
				release()
			}
			return o.writes, o.err
		case <-runC:
			return timedOut(TimeoutRun)
		case <-idleC:
			if left := tp.Idle - time.Since(clock.idleSince()); left > 0 {
				idle.Reset(left)
				continue
			}
			return timedOut(TimeoutIdle)
		}
	}
}

// forAttempt copies the scope for one timed attempt.
func (s *taskScope) forAttempt() *taskScope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &taskScope{t: s.t, run: s.run, step: s.step, resume: append([]any(nil), s.resume...),
		nullResume: s.nullResume, hasNullResume: s.hasNullResume, counter: s.counter,
		resumeWrite: s.resumeWrite, hasResume: s.hasResume, interrupt: s.interrupt, subgraphRuns: s.subgraphRuns,
		calls: s.calls}
}

// attemptCalls are the Task calls the timed attempt of s started.
func (s *taskScope) attemptCalls() []startedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(*s.timedCalls)
}

// outlive marks the calls of a timed attempt that ended and still run as
// having outlived it: a sibling's failure does not abandon them
// (abandonCalls).
func (l *loop) outlive(calls []startedCall) {
	for _, sc := range calls {
		select {
		case <-sc.c.done:
			continue // ended already
		default:
		}
		l.mu.Lock()
		if l.outlived == nil {
			l.outlived = map[*task]bool{}
		}
		l.outlived[sc.t] = true
		l.mu.Unlock()
	}
}

// timeoutAbort is what a timed attempt's timeout did to the Task calls it
// had started and that still ran: it cancelled them with cause. Each such
// call's AbortError is a failure of its own, counted when the call settles
// whoever aborted it (LangGraph.js runs a call's task with no abort signal
// of its own, runner.js:253, so the tick adds its error whenever it comes,
// runner.js:71), but how it counts depends on what the timed-out task does
// next, which LangGraph.js settles first: the task catches its
// NodeTimeoutError and chooses to retry or not in the same turn of the
// event loop as the abort (timeout.js:203-206, retry.js:50-76), before the
// call's rejection reaches the runner. When the task gives up, both
// errors count (the call's after the task's, as a later call failure);
// when it retries, the call's failure is the superstep's first and aborts
// it while the task waits out its backoff, so the retry never runs
// (retry.js:43 leaves the loop on the aborted signal, and the task's own
// error then does not count, runner.js:71). The calls wait for the
// decision (decided); the retry waits for the calls (retryAfter).
type timeoutAbort struct {
	cause   error // the attempt context's cancellation cause
	calls   []startedCall
	decided chan struct{} // closed once retries is set
	retries bool
}

// abortCalls records, in the task scope, the calls of a timed attempt that
// still run as aborted by its timeout with cause (timeoutAbort), before
// the attempt's context is cancelled.
func (l *loop) abortCalls(scope *taskScope, started []startedCall, cause error) {
	ta := &timeoutAbort{cause: cause, decided: make(chan struct{})}
	for _, sc := range started {
		select {
		case <-sc.c.done:
			continue // settled already: it was not aborted
		default:
		}
		ta.calls = append(ta.calls, sc)
	}
	if len(ta.calls) == 0 {
		return
	}
	l.mu.Lock()
	for _, sc := range ta.calls {
		sc.c.aborted = ta
	}
	l.mu.Unlock()
	scope.mu.Lock()
	scope.timeoutAbort = ta
	scope.mu.Unlock()
}

// takeTimeoutAbort returns and clears what the timeout of the scope's last
// attempt aborted, nil if none.
func (s *taskScope) takeTimeoutAbort() *timeoutAbort {
	s.mu.Lock()
	defer s.mu.Unlock()
	ta := s.timeoutAbort
	s.timeoutAbort = nil
	return ta
}

// decide publishes whether the timed-out task retries.
func (ta *timeoutAbort) decide(retries bool) {
	ta.retries = retries
	close(ta.decided)
}

// waitCalls waits until the aborted calls settled and counted their
// failures, or ctx ends (the first of those failures ends it).
func (ta *timeoutAbort) waitCalls(ctx context.Context) {
	for _, sc := range ta.calls {
		select {
		case <-sc.c.done:
		case <-ctx.Done():
			return
		}
	}
}

// countAborted counts the failure of call t, which ended with its
// context's cancellation cause, among the superstep's: as its caller's
// timeout decides when that timeout aborted it (timeoutAbort), else as
// one a task's failure cancelled (callAborted).
func (l *loop) countAborted(ctx context.Context, t *task, c *call, cause error) {
	l.mu.Lock()
	ta := c.aborted
	err := t.result.Err
	l.mu.Unlock()
	if ta == nil || ta.cause != cause {
		l.callAborted(t, cause)
		return
	}
	<-ta.decided // the caller decides at once after its attempt ends
	if ta.retries {
		l.callFailed(ctx, t, err)
		return
	}
	l.callAborted(t, cause)
}

// attemptContext is a timed attempt's context before its cancellation:
// the values of the superstep's context without its cancellation, which
// attemptTimed forwards itself, and its deadline.
type attemptContext struct {
	context.Context // context.WithoutCancel of parent
	parent          context.Context
}

func (c attemptContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// adopt takes back what a finished timed attempt did to its copy.
func (s *taskScope) adopt(as *taskScope) {
	as.mu.Lock()
	defer as.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resume, s.hasNullResume, s.counter = as.resume, as.hasNullResume, as.counter
	s.resumeWrite, s.hasResume, s.interrupt = as.resumeWrite, as.hasResume, as.interrupt
	s.subgraphRuns, s.calls = as.subgraphRuns, as.calls
}

// adoptSubgraphRuns takes back how many subgraph runs an abandoned timed
// attempt started, so the next attempt's subgraph gets a fresh namespace.
func (s *taskScope) adoptSubgraphRuns(as *taskScope) {
	as.mu.Lock()
	n, calls := as.subgraphRuns, as.calls
	as.mu.Unlock()
	s.mu.Lock()
	s.subgraphRuns = max(s.subgraphRuns, n)
	s.calls = max(s.calls, calls) // the call counter outlives attempts too
	s.mu.Unlock()
}
