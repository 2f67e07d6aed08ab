package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The functional API: an entrypoint (a graph of one function) and tasks
// (functions whose calls are checkpointed). Its mechanism is LangGraph's:
// a task call made from inside a running node becomes a PUSH task of the
// current superstep, with an id derived from the caller and the call's
// position (LangGraph.js pregel/algo.ts:707-728 _prepareSingleTask for a
// Call path; pregel/runner.ts:510-590 call; loop.ts:1219 acceptPush). The
// call task's result is saved as its __return__ write against the current
// checkpoint. When the superstep runs again (resume after an interrupt, a
// retry after a failure), the caller runs again from its top, makes the
// same calls in the same order, gets the same task ids, and a call whose
// task already saved its result returns that result without running
// (runner.ts:547-560).

// PreviousChannel holds what an entrypoint saved for the next run on the
// thread (LangGraph's PREVIOUS).
const PreviousChannel = "__previous__"

// Future is the pending result of a Task call.
type Future[R any] struct {
	done chan struct{}
	val  R
	err  error
}

// Result waits for the task and returns its result or its error. An
// *InterruptError from a task that asked for input, or a Command for the
// parent graph, must be returned by the calling node, as an Interrupt
// call's would (IsBubbleUp tells them from failures).
func (f *Future[R]) Result() (R, error) {
	<-f.done
	return f.val, f.err
}

// TaskOption configures one task call.
type TaskOption func(*callSpec)

// TaskRetry retries the task's function by p (LangGraph's task({retry})).
func TaskRetry(p RetryPolicy) TaskOption { return func(c *callSpec) { c.retry = &p } }

// TaskTimeout bounds every attempt of the task's function by p
// (LangGraph.js task({timeout})).
func TaskTimeout(p TimeoutPolicy) TaskOption { return func(c *callSpec) { c.timeout = &p } }

// TaskCache caches the task's result by its argument in the graph's
// Cache (WithCache): a call whose key has an entry returns the cached
// result without running, on any thread (LangGraph.js task({cachePolicy}):
// algo.ts:791-797 cache_key from the call's input, loop.ts:1268
// _matchCachedWrites in acceptPush).
func TaskCache(p CachePolicy) TaskOption { return func(c *callSpec) { c.cache = &p } }

type callSpec struct {
	retry   *RetryPolicy
	timeout *TimeoutPolicy
	cache   *CachePolicy
}

// Task calls fn(ctx, arg) as a task of the running node: it starts at once,
// concurrently with the caller, and its result is checkpointed. When the
// node runs again in the same superstep (resumed after an interrupt, or
// after a failure), the same call — same name, same position among the
// node's calls — returns the saved result instead of calling fn again
// (LangGraph's @task / task() inside an entrypoint or a node). fn may call
// Interrupt; the interrupt then stops the caller (return the error that
// Result gives). The result goes through the checkpoint: a reused result
// of a type other than R is converted through JSON. Called outside a
// running node, Task returns a Future holding ErrOutsideNode.
//
// A call that fails (after its retries) fails its superstep even when the
// caller handles the error, as in LangGraph: the superstep's tasks still
// running, the caller among them, are aborted. Their contexts end
// (context.Cause is a *CancelledError naming the call), what they return
// no longer counts, and they are saved as cancelled, so they run again
// when the thread continues. (A graph node that is its superstep's only
// task, run on a context that cannot end, keeps running on the caller's
// goroutine: it is settled as aborted once it returns.)
//
// A breakpoint that applies to the call keeps it from running, as in
// LangGraph: when the caller is named in interrupt_after, or the task's
// name in interrupt_before, Task returns R's zero value and no error, and
// the superstep stops before applying its writes (StepView.HeldCalls).
func Task[A, R any](ctx context.Context, name string, fn func(context.Context, A) (R, error), arg A, opts ...TaskOption) *Future[R] {
	f := &Future[R]{done: make(chan struct{})}
	scope := scopeOf(ctx)
	if scope == nil {
		f.err = ErrOutsideNode
		close(f.done)
		return f
	}
	var spec callSpec
	for _, o := range opts {
		o(&spec)
	}
	body := func(ctx context.Context, _ any) (any, error) { return fn(ctx, arg) }
	// A call's input is its argument list (LangGraph.js call(func, ...args)).
	scope.run.cs.view.escapes(arg) // its task's input is published
	c := scope.run.acceptCall(scope, name, body, []any{Normalize(arg)}, spec)
	go func() {
		defer close(f.done)
		v, err := c.wait()
		if err != nil {
			f.err = err
			return
		}
		f.val, f.err = convertResult[R](name, v)
	}()
	return f
}

// convertResult gives a task's result as R: as it is when it has that
// type (a fresh call), else through JSON (a result read back from a
// checkpoint).
func convertResult[R any](name string, v any) (R, error) {
	var out R
	if v == nil {
		return out, nil
	}
	if r, ok := v.(R); ok {
		return r, nil
	}
	raw, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		return out, fmt.Errorf("task %q: saved result does not fit %T: %w", name, out, err)
	}
	return out, nil
}

// call is one task call in flight or reused.
type call struct {
	done chan struct{}
	val  any
	err  error
	// aborted is set (under loop.mu) when its caller's timeout cancelled
	// it: how its failure counts waits for the caller (timeoutAbort).
	aborted *timeoutAbort
}

func (c *call) wait() (any, error) {
	<-c.done
	return c.val, c.err
}

// acceptCall plans the task of the next call made by the task of scope and
// starts it, or returns the result its task saved earlier in this
// superstep (LangGraph.js loop.ts:1219 acceptPush, runner.ts:510-590).
func (l *loop) acceptCall(scope *taskScope, name string, fn NodeFunc, input any, spec callSpec) *call {
	c := &call{done: make(chan struct{})}
	l.stepCalls.Store(true)
	l.mu.Lock()
	closed := l.callsClosed
	l.mu.Unlock()
	if closed != nil {
		// Made by a node its superstep abandoned: the call is raced
		// against the same signal and fails at once; nothing of it is
		// planned or saved.
		c.err = closed
		close(c.done)
		return c
	}
	scope.mu.Lock()
	idx := scope.calls
	scope.calls++
	scope.mu.Unlock()
	caller := scope.t
	if l.breakpointKeeps(caller, name) {
		// A breakpoint after the caller keeps its calls from running:
		// each returns nothing, and the superstep stops (LangGraph.js
		// 1.7.3 dist pregel/loop.js:730-734 acceptPush; runner.js:233-234
		// call returns undefined when nothing was scheduled).
		close(c.done)
		return c
	}
	parentNS := caller.namespace()
	// The id depends on the checkpoint, the call's namespace, the step,
	// the name and the call's path: the caller and the call's position
	// (algo.ts:711-723 hashes [ns, step, name, PUSH, caller path, index]
	// with the checkpoint id; the caller's id stands for its path).
	id := hashID(l.cpID, parentNS+"|"+name, strconv.Itoa(l.step), name, Push, caller.id(), strconv.Itoa(idx))
	t := &task{name: name, kind: pushTask, index: idx, triggers: pushTriggers, input: input, parentNS: parentNS, ident: id,
		node: &node{name: name, fn: fn, retry: spec.retry, timeout: spec.timeout, cache: spec.cache, call: true}}
	if l.breakpointBefore(caller, t) {
		// So does a breakpoint before the called task, which is
		// planned but not added to the superstep (loop.js:749-752).
		close(c.done)
		return c
	}
	l.mu.Lock()
	saved := l.pending.batch(id)
	l.tasks = append(l.tasks, t)
	t.nullGone = l.nullResumeTaken // planned now, as acceptPush makes its scratchpad
	// Until it runs, the call is writing (not abandonable): its saved or
	// cached result is matched, and saved, before the superstep ends.
	t.state.Store(taskWriting)
	l.openCalls = append(l.openCalls, t)
	l.calls.Add(1)
	l.mu.Unlock()
	if l.emit != nil {
		l.emit(Event{Kind: EventTask, Step: l.step, Node: name, TaskID: id, Input: input, Triggers: t.triggers, IsPush: true, IsCall: true})
	}
	if l.skipDone {
		if v, ok := savedCallResult(saved); ok {
			l.mu.Lock()
			t.writes = reusableWrites(saved)
			t.result.Reused, t.result.Done, t.result.Writes = true, true, t.writes
			l.mu.Unlock()
			if l.emit != nil {
				// Its saved writes stream as cached updates (loop.ts:1266
				// _matchWrites → _outputWrites(…, cached)).
				l.emit(Event{Kind: EventTask, Step: l.step, Node: name, TaskID: id, Input: input, Triggers: t.triggers, IsPush: true, IsCall: true, Reused: true, Writes: t.writes})
			}
			c.val = v
			l.settledCall(t, c)
			return c
		}
	}
	if hit, err := l.matchCachedCall(scope.Context, t); err != nil || hit {
		c.val, c.err = callReturn(t.writes), err
		l.settledCall(t, c)
		return c
	}
	l.mu.Lock()
	var sl *slots // a running call occupies a slot of a bounded superstep
	if l.fan != nil {
		sl = l.fan.slots
	}
	closed = l.callsClosed
	if closed == nil {
		t.state.Store(taskQueued) // from now on abandonCalls may abandon it
	}
	l.mu.Unlock()
	if closed != nil {
		// Its superstep abandoned its tasks while the call was matched:
		// it is settled as they were, before the superstep ends.
		if err := l.settleAbandoned(saveContext(scope.Context, l), t, closed, nil, nil); err != nil {
			l.callFailed(scope.Context, t, err)
		} else {
			l.callAborted(t, closed)
		}
		c.err = closed
		l.settledCall(t, c)
		return c
	}
	sl.take()
	if scope.timedCalls != nil {
		scope.mu.Lock()
		*scope.timedCalls = append(*scope.timedCalls, startedCall{t, c})
		scope.mu.Unlock()
	}
	go l.runCall(scope.Context, t, c, sl)
	return c
}

// breakpointKeeps reports whether an interrupt_after breakpoint on caller
// keeps the Task call to name it makes from running, and records the call
// if so.
func (l *loop) breakpointKeeps(caller *task, name string) bool {
	return len(l.after) > 0 && l.breakpointCall(l.after, caller, HeldCall{Caller: caller.name, Task: name, After: true, Namespace: l.cfg.CheckpointNS})
}

// breakpointBefore reports whether an interrupt_before breakpoint on the
// called task t keeps it from running, and records the call if so.
func (l *loop) breakpointBefore(caller, t *task) bool {
	return len(l.before) > 0 && l.breakpointCall(l.before, t, HeldCall{Caller: caller.name, Task: t.name, Namespace: l.cfg.CheckpointNS})
}

// breakpointCall applies the breakpoint on nodes to a call's task t (the
// caller or the callee, as LangGraph's shouldInterrupt takes either). The
// channels it reads are not written while tasks run.
func (l *loop) breakpointCall(nodes []string, t *task, held HeldCall) bool {
	if !shouldInterrupt(l.cs, nodes, []*task{t}) {
		return false
	}
	l.mu.Lock()
	l.heldCalls = append(l.heldCalls, held)
	l.mu.Unlock()
	return true
}

// HeldCall is a Task call a breakpoint kept from running: the node that
// made it is in interrupt_after, or the called task is named in
// interrupt_before. The call returned nil to its caller, and its superstep
// stopped before applying its writes (StepView.HeldCalls).
type HeldCall struct {
	Caller string // the task that made the call
	Task   string // the called task's name
	// After: the breakpoint after Caller held it; else the one before Task.
	After bool
	// Namespace is the checkpoint namespace of the subgraph run whose
	// breakpoint held it, "" at the root. A parent run whose task's
	// subgraph stopped so lists the call too.
	Namespace string
}

// String names the call and the breakpoint that held it: "b's call to m
// (interrupt_after b)", "s0's call to m in s (interrupt_after s0)".
func (h HeldCall) String() string {
	where := ""
	if h.Namespace != "" {
		where = " in " + strings.ReplaceAll(NamespaceNodes(h.Namespace), "|", " › ")
	}
	if h.After {
		return fmt.Sprintf("%s's call to %s%s (interrupt_after %s)", h.Caller, h.Task, where, h.Caller)
	}
	return fmt.Sprintf("%s's call to %s%s (interrupt_before %s)", h.Caller, h.Task, where, h.Task)
}

// settledCall ends call c, whose task t was settled by its caller's
// goroutine (a reused or cached result, or an abandonment).
func (l *loop) settledCall(t *task, c *call) {
	t.state.Store(taskSettling)
	close(c.done)
	l.calls.Done()
}

// runCall is the goroutine of a call's task t. Its superstep waits for it
// (calls) unless it abandoned it (abandonCalls): then the loop saved its
// error and counted it ended, and the goroutine, when fn returns, drops
// its outcome, so that nothing of it reaches the saver after the run
// returned (LangGraph.js races a call's task against its caller's signal:
// runner.ts call hands _runWithRetry no signal of its own, and
// @langchain/core's ensureConfig, runnables/config.js:88-93, fills the
// config's signal from the calling node's; measured with the oracle's
// LangGraph.js 1.7.3, /work/notes/eng25-probe/call.mjs: a call ignoring
// its signal saves {name: "AbortError"} at the abort, its late return
// nothing).
func (l *loop) runCall(ctx context.Context, t *task, c *call, sl *slots) {
	defer func() {
		if t.leave() {
			l.calls.Done()
		}
	}()
	defer close(c.done)
	// The slot is freed once the call's failure is counted: a failure
	// finds the failed call still holding it, as LangGraph.js's runner
	// takes a task from its executing map only as it settles, and starts
	// the tasks that wait for a slot on the aborted superstep only while
	// another runs (fanout.fail, commitUnstarted).
	defer sl.release()
	err := l.runTask(ctx, t, true)
	if t.state.Load() == taskAbandoned {
		l.mu.Lock()
		c.err = l.callsClosed
		l.mu.Unlock()
		return
	}
	l.mu.Lock()
	res := t.result
	l.mu.Unlock()
	switch {
	case err == nil && res.Err != nil:
		// It ended with its superstep's cancellation, or its caller's
		// timeout's (settleStopped).
		l.countAborted(ctx, t, c, context.Cause(ctx))
	case err != nil && res.Err != nil && err != error(res.Err) && ctx.Err() != nil:
		// It ended with the cancellation, and saving that failed: both
		// count, the cancellation first, as abandonCalls counts a call
		// it abandoned whose save failed. Which of the two settles a
		// call the abort reaches as it returns is the goroutines' race.
		l.countAborted(ctx, t, c, context.Cause(ctx))
		l.callFailed(ctx, t, err)
	case err != nil:
		l.callFailed(ctx, t, err)
	}
	switch {
	case res.Interrupted:
		c.err = &InterruptError{Interrupts: res.Interrupts}
	case err != nil:
		c.err = err
	case res.Err != nil:
		c.err = res.Err
	default:
		c.val = callReturn(t.writes)
	}
}

// abandonCalls abandons, with the superstep's tasks, the Task calls they
// started that still run or wait to: each is settled as failed with cause
// and counted ended; a call made after this fails at once with cause
// (acceptCall). A failure to save one's error comes back with its task.
func (l *loop) abandonCalls(ctx context.Context, cause error) (failed *task, err error) {
	l.mu.Lock()
	if l.callsClosed == nil {
		l.callsClosed = cause
	}
	open := l.openCalls
	l.mu.Unlock()
	_, sibling := cause.(*CancelledError)
	for _, t := range open {
		if sibling && l.outlivedCall(t) {
			continue // it runs on, and the superstep waits for it (attemptTimed)
		}
		if l.retryAborted(ctx, t, cause) {
			continue
		}
		abandoned, serr := l.abandonTask(ctx, t, cause)
		if abandoned {
			l.callAborted(t, cause)
			l.calls.Done()
		}
		if serr != nil && err == nil {
			failed, err = t, serr
		}
	}
	return failed, err
}

// outlivedCall reports whether call t outlived its timed caller's
// attempt (loop.outlived).
func (l *loop) outlivedCall(t *task) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.outlived[t]
}

// retryAborted abandons call t, running, when a task's failure cancelled
// its superstep and t's retry policy retries that, and ends it as
// LangGraph.js does: a call's retry loop watches no abort signal (call()
// hands _runWithRetry none, runner.ts:582-584, and retry.ts:102-107 checks
// only that one), so its policy retries the AbortError its attempt ends
// with (retry.ts:151-179); each further attempt enters the function
// (RunnableCallable calls it, langgraph utils.ts, before @langchain/core's
// RunnableSequence races it against the aborted signal,
// runnables/base.js:958-959) and ends with the AbortError at once; the
// superstep waits for the last (runner.ts:586 keeps the call among the
// tasks the tick waits for). Only a RetryOn that retries cancellations
// gets here: DefaultRetryOn refuses them, as retry.ts's default handler
// refuses an AbortError. It reports whether it took t, which it settles
// and counts ended once its policy gives up or the caller left.
func (l *loop) retryAborted(ctx context.Context, t *task, cause error) bool {
	p := t.node.retry
	if _, ok := cause.(*CancelledError); !ok || p == nil {
		return false
	}
	// Under mu, against retryAfter: either t's goroutine starts the
	// attempt it waited for, or this does.
	l.mu.Lock()
	attempt := len(l.retried[t]) + 1 // the one running, or waited for
	wake, waiting := l.callBackoffs[t]
	retry := waiting
	if !retry {
		retry, _ = p.retries(attempt, cause) // a RetryOn that panics retries nothing: the call ends aborted
	}
	took := retry && t.state.CompareAndSwap(taskRunning, taskAbandoned)
	l.mu.Unlock()
	if !took {
		return false
	}
	answers := t.scope.answersSoFar()
	l.markAbandoned()
	caller := l.stepCaller
	go func() {
		defer l.calls.Done()
		if waiting {
			// Its wait ends, then the attempt it waited for starts.
			if !l.enterAborted(caller, ctx, t, cause, time.Until(wake)) {
				attempt = 0 // the caller left
			}
		}
		for ; attempt > 0; attempt++ {
			if retry, _ := p.retries(attempt, cause); !retry {
				break
			}
			l.mu.Lock()
			l.noteRetry(t, cause)
			l.mu.Unlock()
			if !l.enterAborted(caller, ctx, t, cause, p.delay(attempt)) {
				break
			}
		}
		err := l.settleAbandoned(ctx, t, cause, nil, answers)
		l.callAborted(t, cause) // as abandonCalls counts one it settles
		if err != nil {
			l.callFailed(ctx, t, err)
		}
	}()
	return true
}

// noteRetry records that task t is retried after an attempt that failed
// with err (TaskView.Retried). The caller holds l.mu: a live view may
// read it meanwhile.
func (l *loop) noteRetry(t *task, err error) {
	if l.retried == nil {
		l.retried = map[*task][]error{}
	}
	l.retried[t] = append(l.retried[t], err)
}

// enterAborted is a further attempt of call t after its superstep was
// cancelled with cause (retryAborted), once delay passed: its function
// runs on a context ended with cause (which keeps ctx's values), in a
// scope of its own, and its outcome is dropped. The superstep waits for
// it, so that what it did on entering happened before the superstep ends,
// until the caller leaves: a function that ignores its context does not
// hold the run. It reports whether the caller is still there.
func (l *loop) enterAborted(caller, ctx context.Context, t *task, cause error, delay time.Duration) bool {
	left := caller.Done()
	if delay > 0 {
		wait := time.NewTimer(delay)
		defer wait.Stop()
		select {
		case <-wait.C:
		case <-left:
			return false
		}
	}
	var s taskScope
	l.initScope(&s, t)
	aborted, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	cancel(cause)
	s.Context = aborted
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }() // a panic is an outcome too
		_, _ = t.node.fn(&s, t.input)
	}()
	select {
	case <-done:
		return true
	case <-left:
		return false
	}
}

// callAborted counts the error of call t, which its superstep abandoned
// with cause, among the superstep's failures when a task's failure
// cancelled it: LangGraph.js races a call against the signal the abort
// fires (the caller's, which @langchain/core's ensureConfig hands on,
// runnables/config.js:88-93), and counts the AbortError it settles with,
// as it counts every call's error (runner.ts:160). The caller's
// cancellation throws at once instead (runner.ts:313-319, 350).
func (l *loop) callAborted(t *task, cause error) {
	if _, ok := cause.(*CancelledError); !ok {
		return
	}
	l.mu.Lock()
	l.laterCallErrs = append(l.laterCallErrs, t.result.Err)
	l.mu.Unlock()
}

// callFailed makes a call task's failure its superstep's, as a node's
// is: the running tasks are cancelled and the superstep fails once they
// ended, even when the caller caught the failure or had already stopped at
// an interrupt, and the failure wins over interrupts (LangGraph.js
// pregel/runner.ts:145-196 tick: every settled task's error, calls
// included, aborts the others and is thrown before any GraphInterrupt).
func (l *loop) callFailed(ctx context.Context, t *task, err error) {
	l.mu.Lock()
	fan := l.fan
	l.mu.Unlock()
	if fan != nil {
		fan.fail(t, err)
		return
	}
	l.loneFailed(ctx, t, err)
}

// loneFailed records a failure in a superstep of one task: the task's
// own, or one of its calls'. The first one fails the superstep and aborts
// the calls still running (runner.ts:175 aborts the signal every call
// inherits, even when one task runs); after it only a call's failure
// counts (StepErrors), a failure to save an aborted call's error among
// them, as fanout.fail counts them. When a call failed first, the lone
// task is aborted too, as fanout.fail aborts a superstep's running tasks:
// the abort rejects the task's run at once (@langchain/core races a
// runnable against its signal, runnables/base.js:958-959), so it is
// saved with the abort's error and runs again when the thread continues,
// whatever its function went on to do (measured with the oracle's
// LangGraph.js 1.7.3: an entrypoint that catches its call's failure and
// returns saves {name: "AbortError"}, and runs again on resume). runLone
// abandons the task it runs (woken here); a task running on the loop's
// goroutine, which nothing can leave, is settled as aborted when it
// returns (runTask). The first failure also cancels the context runLone
// runs the task on, and so its calls' (loneContext), as a fanout's
// failure does; a task on the loop's goroutine runs on the caller's
// context, which cannot end, so there its calls are abandoned without
// their contexts ending.
func (l *loop) loneFailed(ctx context.Context, t *task, err error) {
	l.mu.Lock()
	first := l.lone.err == nil
	if !first {
		if t.node.call {
			l.laterCallErrs = append(l.laterCallErrs, err)
		}
		l.mu.Unlock()
		return
	}
	l.lone.err = err
	cause := &CancelledError{By: t.name}
	if t.node.call {
		l.lone.abort.Store(cause)
	}
	wake := l.lone.abortWake
	var cancel context.CancelCauseFunc
	if l.lone.cancelling {
		cancel = l.lone.cancel
	}
	l.mu.Unlock()
	if cancel != nil {
		cancel(cause)
	}
	if t.node.call && wake != nil {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	if call, serr := l.abandonCalls(saveContext(ctx, l), cause); serr != nil {
		l.loneFailed(ctx, call, serr)
	}
}

// matchCachedCall gives a cached call's task the writes cached for its
// input, saved as its writes, as matchCachedWrites does for planned tasks;
// on a miss it keeps the key so the result is cached once the call
// succeeds.
func (l *loop) matchCachedCall(ctx context.Context, t *task) (hit bool, err error) {
	k, ok, err := l.g.cacheKeyOf(t)
	if err != nil || !ok {
		return false, err
	}
	t.cacheKey = &k
	writes, hit, err := l.g.cache.Get(ctx, k)
	if err != nil || !hit {
		return false, err
	}
	l.mu.Lock()
	t.writes = writes
	t.result.Reused, t.result.Done, t.result.Cached, t.result.Writes = true, true, true, writes
	l.mu.Unlock()
	if err := l.putTaskWrites(ctx, t, writes); err != nil {
		return false, err
	}
	if l.emit != nil {
		l.emit(Event{Kind: EventCached, Step: l.step, Node: t.name, TaskID: t.id(), Writes: writes, Update: l.g.stateUpdate(writes)})
	}
	return true, nil
}

// savedCallResult is the result a call's task saved (runner.ts:547-556).
// ok is false when it saved none: a task that failed or was interrupted
// runs again, since its error, interrupt and answer writes are not matched
// to it (loop.ts:1976-1987 _matchWrites).
func savedCallResult(saved []Write) (v any, ok bool) {
	for _, w := range saved {
		if w.Channel == ReturnChannel {
			return w.Value, true
		}
	}
	return nil, false
}

func reusableWrites(saved []Write) []Write {
	var out []Write
	for _, w := range saved {
		if reusable(PendingWrite{Channel: w.Channel}) || w.Channel == ReturnChannel {
			out = append(out, w)
		}
	}
	return out
}

// callReturn is the result a call task wrote.
func callReturn(writes []Write) any {
	for _, w := range writes {
		if w.Channel == ReturnChannel {
			return w.Value
		}
	}
	return nil
}

// callTasks tracks the call tasks still running, so that a superstep ends
// only when they have (LangGraph.js runner.ts waits for every scheduled
// task, calls included).
type callTasks = sync.WaitGroup

// Final is what an entrypoint returns to give the caller one value and
// save another for the thread's next run (LangGraph's entrypoint.final):
// Value is the run's output, Save what Previous returns next time.
type Final struct {
	Value, Save any // the run's output; what Previous returns next time
}

// Previous returns what the entrypoint's last run on this thread returned
// (or saved with Final), nil on a thread's first run (LangGraph's
// getPreviousState; the value of the __previous__ channel as the task was
// planned, algo.ts:801). Read back from a saver that encodes, it is JSON's
// values, whatever Go value was returned (see NewEntrypoint).
func Previous(ctx context.Context) any {
	s := scopeOf(ctx)
	if s == nil || !s.run.g.entrypoint {
		return nil
	}
	// Channels are read-only while tasks run.
	v, _ := s.run.cs.channel(PreviousChannel).get()
	return v
}

// EntrypointOption configures an entrypoint.
type EntrypointOption = CompileOption

// NewEntrypoint compiles fn as a functional-API graph (LangGraph's
// entrypoint, func/index.ts:175-260): a single node named name, triggered
// by the run's input on the __start__ channel, whose return value is
// written to __end__ (the run's output) and to __previous__ (what Previous
// gives the next run). A Final return splits the two. Inside fn, Task
// calls are checkpointed. Pass WithSaver to make it resumable.
//
// fn gets the run's input as the caller gave it, until a run reads it back
// from a saver that encodes (package persist, persist/postgres): then it is
// JSON's values, and a Go struct given as input is a map[string]any (as
// Previous's value is). typed.Decode reads either into a Go type.
func NewEntrypoint(name string, fn NodeFunc, opts ...CompileOption) (*Graph, error) {
	switch {
	case name == "" || isReservedName(name) || name == PreviousChannel:
		return nil, CompileErrors{&CompileError{Kind: "InvalidNode", Node: name, Msg: fmt.Sprintf("entrypoint name %q is empty or reserved", name)}}
	case fn == nil:
		return nil, CompileErrors{&CompileError{Kind: "InvalidNode", Node: name, Msg: fmt.Sprintf("entrypoint %q has no function", name)}}
	}
	g := newGraph(name, opts)
	g.entrypoint = true
	g.triggerToNodes[Start] = []string{name}
	// The channels of func/index.ts:241-245, then the task topic every
	// Pregel has.
	g.addChannel(Start, channelInfo{kind: KindEphemeral, internal: true})
	g.addChannel(End, channelInfo{kind: KindLastValue, internal: true})
	g.addChannel(PreviousChannel, channelInfo{kind: KindLastValue, internal: true})
	g.addChannel(TasksChannel, channelInfo{kind: KindTopic, internal: true})
	g.nodes[name] = &node{name: name, fn: fn, triggers: []string{Start}, entry: true}
	g.nodeOrder = []string{name}
	// For display: the input reaches the function, whose return ends the
	// run (LangGraph draws an entrypoint as __start__ → name → __end__).
	g.edges = []EdgeInfo{{From: []string{Start}, To: name, Channel: Start}, {From: []string{name}, To: End}}
	g.indexChannels()
	g.fingerprint = g.computeFingerprint()
	return g, nil
}

// entryWrites are the entrypoint node's writes: its value to __end__ and
// what it saves to __previous__ (func/index.ts:218-228 pluckReturnValue,
// pluckSaveValue).
func entryWrites(ret any) []Write {
	value, save := ret, ret
	switch f := ret.(type) {
	case Final:
		value, save = f.Value, f.Save
	case *Final:
		if f != nil {
			value, save = f.Value, f.Save
		}
	}
	return []Write{{Channel: End, Value: Normalize(value)}, {Channel: PreviousChannel, Value: Normalize(save)}}
}

// IsEntrypoint reports whether g was made by NewEntrypoint: its output is
// Result.Output, and it has no state keys.
func (g *Graph) IsEntrypoint() bool { return g.entrypoint }
