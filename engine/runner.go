package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// execute is the Execute phase: run every planned task that has no saved
// writes, concurrently, each against the same read-only channel state. Each
// task's writes are saved as soon as it ends. The first failure, or the
// caller's cancellation, cancels the tasks still working, through their
// context, and the superstep ends without waiting for them: each saves its
// error (fanout.abandon), with what its writers wrote if they had begun.
// A task that finished keeps everything (_runner.py:574-613 commit,
// :616-634 _should_stop_others; runner.ts:149-176 tick, :425-471
// _commit). Interrupts let siblings finish.
func (l *loop) execute(ctx context.Context) error {
	l.stepCaller = ctx
	run := l.tasksToRun()
	l.beginSuperstep(run)
	firstErr, bubble := l.runSuperstep(ctx, run)
	if firstErr = l.superstepFailure(firstErr); firstErr != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(firstErr, cerr) {
			// The caller left while the superstep still waited (for a
			// call's retries, which its failure did not end): its
			// cancellation is how the run ends, as LangGraph.js's tick
			// rejects with the caller's abort (runner.ts:313-319), after
			// the failure that came first. Whether the cancelled call's
			// own error was counted by then is the goroutines' race.
			firstErr = &StepErrors{Step: l.step, Errs: append(stepErrs(firstErr), cerr)}
		}
		return l.failAbandoning(firstErr)
	}
	if err := ctx.Err(); err != nil {
		return l.failAbandoning(err)
	}
	var interrupts []PendingInterrupt
	stopped := false // a task interrupted, maybe with no interrupt values
	order := sortTasks(l.tasks)
	if l.opts.parent != nil {
		// A nested loop raises its tasks' interrupts in the order the
		// tasks stopped: LangGraph.js's tick joins each task's
		// GraphInterrupt as it settles (runner.js:69) and throws the join
		// to the parent's task, which saves it (runner.js:80).
		order = l.interrupted
	}
	for _, t := range order {
		stopped = stopped || t.result.Interrupted
		if t.node.call && l.opts.parent == nil {
			// Its caller reports the interrupt (loop.ts:874-880). A
			// nested loop raises both, the call's and its caller's
			// re-raised copy: LangGraph.js's tick joins every task's
			// GraphInterrupt (runner.js:69) and throws the join to the
			// parent's task (runner.js:80), which saves them all.
			continue
		}
		for _, in := range t.result.Interrupts {
			interrupts = append(interrupts, PendingInterrupt{Interruption: in, Node: t.name, TaskID: t.id()})
		}
	}
	if !stopped && bubble != nil && l.opts.parent != nil {
		// Interrupts win over a Command for the parent (LangGraph.js
		// pregel/runner.ts tick). In the root graph no task takes it (a
		// Command.PARENT from a stateful subgraph or from a node's
		// second subgraph run): the tick raises a bubble-up only in a
		// nested loop (runner.ts:204; 1.7.3 dist runner.js:82), so the
		// superstep ends as if the task had written nothing, its error
		// saved (handleResult).
		return l.fail(bubble)
	}
	if stopped {
		return l.stopAtInterrupts(ctx, interrupts)
	}
	if l.heldHere() {
		// A breakpoint kept a Task call from running: the superstep
		// stops as at a breakpoint, its writes pending, no checkpoint
		// written; continuing reuses them, and an interrupt_after on
		// the caller stops the run again after they are applied
		// (LangGraph.js 1.7.3 dist pregel/loop.js:620-622, tick throws
		// for acceptPush's toInterrupt before applying writes).
		return l.stopAtInterrupts(ctx, nil)
	}
	l.phase = PhaseExecuted
	return nil
}

// heldHere reports whether a breakpoint of this run held a Task call in
// the current superstep (the calls its subgraph runs' breakpoints held
// are listed too, for its view; they stop it through their task).
func (l *loop) heldHere() bool {
	for _, h := range l.heldCalls {
		if h.Namespace == l.cfg.CheckpointNS {
			return true
		}
	}
	return false
}

// tasksToRun are the superstep's tasks without saved writes to reuse: the
// planned list itself, uncopied, unless some task reuses its writes.
func (l *loop) tasksToRun() []*task {
	for i, t := range l.tasks {
		if t.result.Reused {
			run := slices.Clone(l.tasks[:i])
			for _, t := range l.tasks[i:] {
				if !t.result.Reused {
					run = append(run, t)
				}
			}
			return run
		}
	}
	return l.tasks
}

// beginSuperstep readies the loop's per-superstep bookkeeping for run.
func (l *loop) beginSuperstep(run []*task) {
	if len(run) > pendingIndexAt {
		l.mu.Lock()
		l.pending.reserve(len(l.tasks), l.saver != nil)
		l.mu.Unlock()
	}
	l.prepareSubgraphTurns(run)
	l.interrupted = l.interrupted[:0]
	l.heldCalls = nil
	if r := l.runReplay(); r != nil {
		r.release(l.reservedVisits)
		l.reservedVisits = r.reserveFirstVisits(run)
	}
	l.unfinished.Store(int32(len(run)))
	l.stepCalls.Store(false)
	if len(l.openCalls) > 0 {
		clear(l.openCalls) // the last superstep's, all ended
		l.openCalls = l.openCalls[:0]
	}
	if len(l.outlived) > 0 {
		clear(l.outlived)
	}
}

// runSuperstep runs the tasks and waits for the Task calls they made. It
// returns the first failure of a concurrent superstep (a lone task's is
// lone.err) and a Command for the parent graph, which lets siblings go on.
func (l *loop) runSuperstep(ctx context.Context, run []*task) (firstErr, bubble error) {
	switch {
	case len(run) == 0:
	case len(run) == 1:
		// The common single-task superstep: no sibling to cancel, so it
		// runs on the caller's goroutine unless the caller can cancel or
		// it is an entrypoint, whose Task calls' failure aborts it
		// (runLone, loneFailed): a node running there can be left only
		// once it returns.
		var err error
		if (ctx.Done() == nil && !l.g.entrypoint) || !abandonable(run[0]) {
			err = l.runTask(ctx, run[0], false)
		} else {
			err = l.runLone(ctx, run[0])
		}
		if isParentCommand(err) {
			bubble = err
		} else if err != nil {
			l.loneFailed(ctx, run[0], err) // unless a call of it failed first
		}
	default:
		// A route whose node wrote no state key reads the shared state
		// view from the task's goroutine (localState): build it here, so
		// that two tasks never build it at once.
		l.cs.stateView()
		firstErr, bubble = l.runConcurrently(ctx, run)
	}
	// Task calls a node started and did not wait for end with the
	// superstep (runner.ts waits for every scheduled task); those of an
	// abandoned superstep were abandoned with its tasks (abandonCalls),
	// and only their retries are waited for (retryAborted).
	l.calls.Wait()
	return firstErr, bubble
}

// superstepFailure is the error the superstep failed with, nil if none:
// its first failure (a concurrent superstep's, else lone.err), joined by
// the Task calls' failures that came after it (StepErrors). It clears the
// lone task's failure state for the next superstep.
func (l *loop) superstepFailure(firstErr error) error {
	l.mu.Lock()
	if firstErr == nil {
		firstErr = l.lone.err
	}
	later := l.laterCallErrs
	l.lone.err, l.laterCallErrs = nil, nil
	l.lone.abort.Store(nil)
	l.lone.cancelling = false
	l.mu.Unlock()
	if firstErr != nil && len(later) > 0 {
		return &StepErrors{Step: l.step, Errs: append([]error{firstErr}, later...)}
	}
	return firstErr
}

// stepErrs is err's list of failures: a StepErrors' own, else err alone.
func stepErrs(err error) []error {
	if se, ok := err.(*StepErrors); ok {
		return slices.Clone(se.Errs)
	}
	return []error{err}
}

// stopAtInterrupts ends a superstep in which a task interrupted. A
// subgraph stopped at its own breakpoint interrupts with no values and
// stops the parent too (Python _runner.py _panic_or_proceed raises
// GraphInterrupt for any interrupted task; _loop.py:667-671 raises an
// empty GraphInterrupt at a nested breakpoint). The finished tasks'
// writes show in the run's output, but no checkpoint is written: they stay
// pending on the current one. A held result is reported first, as it
// would have been.
func (l *loop) stopAtInterrupts(ctx context.Context, interrupts []PendingInterrupt) error {
	if err := l.releaseHeld(); err != nil {
		return l.fail(err)
	}
	// A DurabilityExit run saves the state the superstep started
	// from, before its writes are applied in memory below
	// (loop.js:713-726: finishAndHandleError saves, then
	// _suppressInterrupt applies).
	l.interrupts = interrupts
	l.status = StatusInterrupted
	if err := l.saveAtExit(ctx); err != nil {
		return err
	}
	l.status = StatusRunning
	if l.opts.parent == nil {
		// Only the root shows the finished tasks' writes applied (its
		// Result.Values, its last values event); a subgraph run's state
		// stays as its checkpoint holds it, which is what a debugger
		// stepping it shows (LangGraph.js _suppressInterrupt applies
		// them in the root only: 1.7.3 dist pregel/loop.js:719-724, :830).
		if _, err := applyWrites(l.cs, l.tasks); err != nil {
			return l.fail(err)
		}
	}
	// The last values event, pending writes applied, is the root's
	// only: a subgraph's interrupt is not suppressed
	// (LangGraph.js pregel/loop.ts:1172-1200, _suppressInterrupt
	// loop.ts:1373-1374 is false in a nested loop).
	if l.emit != nil && l.opts.parent == nil && l.g.wroteOutput(l.tasks) {
		l.emitValues()
	}
	if l.opts.parent == nil && len(interrupts) == 0 {
		// Only subgraphs' breakpoints stopped the superstep: the
		// root's interrupt has no values, and the root streams the
		// breakpoint's empty interrupt (runner.ts throws the tasks'
		// interrupts joined, dist runner.js:69,80; loop.ts:1206-1213
		// emits {__interrupt__: []} for an interrupt with none, in
		// the root only: _suppressInterrupt loop.ts:1373-1374).
		l.emitBreakpoint()
	}
	l.interrupts = interrupts
	l.finish(StatusInterrupted)
	return nil
}

// runConcurrently runs tasks concurrently, with a goroutine for each, at
// most RunOptions.MaxConcurrency at once. The first failure cancels the others,
// with a CancelledError naming the failed task as the cause, and starts no
// more; it returns that failure. A Command for the parent graph
// (ParentCommandError) cancels nothing: it comes back as bubble
// (LangGraph.js pregel/runner.ts tick lets siblings finish).
func (l *loop) runConcurrently(ctx context.Context, run []*task) (firstErr, bubble error) {
	stepCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	f := &fanout{l: l, ctx: stepCtx, cancel: cancel, slots: concurrencySlots(l.opts.MaxConcurrency, len(run))}
	f.left.Store(1) // the loop's own, until every task started
	// MemorySaver's PutWrites does no I/O and holds one lock: calls from
	// the tasks' goroutines would wait for each other anyway, and each
	// would first grow its goroutine's small stack, so the loop's
	// goroutine makes them (commitOnLoop, which names LangGraph's
	// counterpart). Any other saver may wait on I/O and is called by the
	// tasks at once, so concurrent tasks share its commits (isMemorySaver
	// says why a wrapper of it is "any other saver").
	if isMemorySaver(l.saver) && f.slots == nil {
		if l.handoff == nil {
			l.handoff = &taskHandoff{wake: make(chan struct{}, 1)} // one for the run
		}
		f.handoff = l.handoff
		f.handoff.reset(len(run) + 1) // and fail's nil
		f.caller = ctx
		l.saveOnLoop = true
	} else {
		if l.stepEnded == nil {
			l.stepEnded = make(chan struct{}, 1) // one for the run: a superstep sends at most once
		}
		f.ended = l.stepEnded
	}
	l.mu.Lock()
	l.fan = f
	l.mu.Unlock()
	l.mayAbandon.Store(true)
	// The first tasks up to the bound take their slots before any of them
	// runs, so that a Task call cannot take one first (runner.ts:325-345
	// starts them in one synchronous loop; calls are scheduled later).
	first := f.slots.takeFirst(len(run))
	l.queueTurns(run[first:])
	started := 0
	if f.slots == nil && l.turns == nil {
		started = f.startAll(run)
	} else {
		started = f.startEach(run, first)
	}
	f.wait(run[:started])
	l.saveOnLoop = false
	// Task calls run on their caller's context: the superstep ends when
	// they do, not when their callers did (runner.ts waits for every
	// scheduled task), and a failing call cancels the others through f.
	// A superstep that abandoned its tasks abandoned their calls too
	// (abandonCalls): it waits for those settling, and for the retries
	// of those whose policy retries the cancellation, until the caller
	// leaves (retryAborted).
	l.calls.Wait()
	l.mu.Lock()
	l.fan = nil
	l.mu.Unlock()
	return f.firstErr, f.bubble
}

// fanout is what the goroutines of one superstep's tasks share.
type fanout struct {
	l      *loop
	ctx    context.Context
	cancel context.CancelCauseFunc
	slots  *slots
	// left counts the started tasks whose goroutines have not ended,
	// plus one the loop holds while it starts them; the goroutine that
	// brings it to zero sends on ended (the loop's stepEnded).
	left  atomic.Int32
	ended chan struct{}
	// handoff, when not nil, takes each task as its goroutine ends, in
	// place of left: the loop's goroutine saves and reports the
	// successes (commitOnLoop).
	handoff *taskHandoff
	// caller is the caller's context, whose Done wait selects on beside
	// handoff's wake (when not nil: the caller can cancel).
	caller context.Context
	mu     sync.Mutex
	// firstErr and bubble are runConcurrently's results, under mu.
	firstErr, bubble error
	// othersRunning says another task or call was still running when
	// firstErr ended the superstep (under mu).
	othersRunning bool
	// queue is an unbounded superstep's tasks, taken in order by the
	// goroutines of startAll; taken counts those taken, spares the
	// goroutines started that have not yet taken one (work).
	queue  []*task
	taken  atomic.Int64
	spares atomic.Int32
}

// startEach starts each task of a superstep on a goroutine of its own,
// under MaxConcurrency once it has a slot (the first tasks took theirs);
// it returns how many it started. It serves a bounded superstep, and one
// whose subgraphs take turns (WithSubgraphTurns): the rotation stands for
// JavaScript's event loop, where every sibling has started, so it waits
// for a holder that has not run yet, and a sibling started only when
// another blocks (startAll) would reach its writes later than the
// rotation expects (measured: stream_sends_sub_interrupt's order changed
// in about 1 run of 30 on two cores).
func (f *fanout) startEach(run []*task, first int) int {
	l, started := f.l, 0
	for i, t := range run {
		if i >= first {
			if !f.slots.acquire(f.ctx) {
				// A failure or the caller ended the superstep: start no
				// more tasks.
				f.commitUnstarted(f.ctx, run[i:])
				break
			}
			l.startTurn(t)
		}
		if f.handoff == nil {
			f.left.Add(1)
		}
		started++
		go f.run(t)
	}
	return started
}

// startAll starts every task of an unbounded superstep: goroutines take
// the tasks in order (work), each running the next task not yet taken
// when its own ends, on the stack its earlier tasks grew, where a fresh
// goroutine per task starts with the smallest stack and copies it
// whenever a task's calls outgrow it (measured on fanout_1000, GC off:
// 15 of a map graph's 1,000 Send tasks grew their stacks, about 22,000
// instructions each, 25 of a typed graph's). A task never waits for
// another to end: a goroutine that takes a task while others remain
// first makes sure a spare goroutine is ready to take the next one, so
// when a task blocks (I/O, a sleep, an interrupt's wait) the spare starts
// the next task, and every task starts at once as LangGraph.js starts
// them all (pregel/runner.ts:273-276). Tasks that do not block run one
// after another on few goroutines; which task of a superstep runs first
// is unspecified there as here (each result is applied in task order).
func (f *fanout) startAll(run []*task) int {
	f.queue = run
	if f.handoff == nil {
		f.left.Add(int32(len(run)))
	}
	f.spares.Store(1)
	go f.work()
	return len(run)
}

// work is a goroutine of startAll: it runs the superstep's tasks not yet
// taken, one after another, until none is left. spares counts the
// goroutines started and not yet taking: while it is above zero one of
// them will take the next task should the one taken here block.
//
// Once the superstep abandoned its tasks (abandon), a goroutine takes no
// more: the tasks not yet taken were abandoned with the rest, and one
// whose node outlived the superstep ends when that node returns.
func (f *fanout) work() {
	f.spares.Add(-1)
	for {
		i := int(f.taken.Add(1)) - 1
		if i >= len(f.queue) {
			return
		}
		t := f.queue[i]
		if t.state.Load() == taskAbandoned {
			return
		}
		if i+1 < len(f.queue) && f.spares.CompareAndSwap(0, 1) {
			go f.work()
		}
		f.run(t)
		if t.state.Load() == taskAbandoned {
			return
		}
	}
}

// run runs one task on its goroutine. It keeps its own frame and runTask's small:
// a goroutine starts with a small stack, and a task whose calls fit in it
// costs no stack growth (a copy of every frame on it).
func (f *fanout) run(t *task) {
	defer f.done(t) // also when a node calls runtime.Goexit
	if err := f.l.runTask(f.ctx, t, true); err != nil {
		f.fail(t, err)
	}
}

// done ends t's goroutine's part: it hands t to the loop (commitOnLoop),
// or frees its slot and counts it ended. A task the superstep abandoned
// was counted by the loop: its goroutine leaves without a word.
func (f *fanout) done(t *task) {
	if !t.leave() {
		f.slots.release()
		return
	}
	if f.handoff != nil {
		f.handoff.push(t)
		return
	}
	f.slots.release()
	if f.left.Add(-1) == 0 {
		f.ended <- struct{}{}
	}
}

// wait waits for the superstep's started tasks to end, saving and
// reporting the successes the loop saves (commitOnLoop), and abandons
// the ones still running when the superstep's context ends first: the
// caller's cancellation or a sibling's failure. LangGraph.js races every
// task against that signal (pregel/retry.ts _runWithRetry hands the
// composed signal, pregel/runner.ts:101, to the node's invoke, which
// @langchain/core races against it: utils/signal.ts raceWithSignal), so
// a node that ignores its signal does not hold the run. It reports
// whether it abandoned any; their goroutines end when their nodes return.
func (f *fanout) wait(started []*task) (abandoned bool) {
	l := f.l
	if q := f.handoff; q != nil {
		// The tasks ended since the last look, taken together; the loop
		// waits only when there are none. A sibling's failure hands over
		// nil (fail).
		callerDone := f.caller.Done()
		saveCtx := saveContext(f.ctx, l)
		n := len(started)
		abandonFor := func(cause error) {
			k := f.abandon(started, cause) // none the second time
			n -= k
			abandoned = abandoned || k > 0
		}
		for n > 0 {
			ended, wait := q.take()
			for _, t := range ended { // they ended before anything below
				if t == nil {
					abandonFor(causeOf(f.ctx)) // fail cancelled it before it handed nil over
					continue
				}
				n--
				f.commitOnLoop(saveCtx, t)
			}
			callerLeft := false
			switch {
			case n == 0:
			case wait && callerDone == nil:
				<-q.wake
			case wait:
				select {
				case <-q.wake:
				case <-callerDone:
					callerLeft = true
				}
			case callerDone != nil:
				select {
				case <-callerDone:
					callerLeft = true
				default:
				}
			}
			if callerLeft {
				callerDone = nil
				// f.ctx, derived, may not be cancelled yet: the context
				// package closes a parent's Done before it cancels the
				// children.
				abandonFor(causeOf(f.caller))
			}
		}
		return abandoned
	}
	if f.left.Add(-1) == 0 { // the loop's own count
		return false
	}
	cancelled := f.ctx.Done()
	for {
		select {
		case <-f.ended:
			return abandoned
		case <-cancelled:
			cancelled = nil
			if k := f.abandon(started, causeOf(f.ctx)); k > 0 {
				abandoned = true
				if f.left.Add(int32(-k)) == 0 {
					return true
				}
			}
		}
	}
}

// taskHandoff hands the loop a superstep's tasks as their goroutines end,
// in that order (fanout.wait; MemorySaver's runs): a task appends itself
// under a lock held for a few instructions, and wakes the loop only when
// the loop waits for one. A channel cost each task a send and a receive
// under the channel's lock, ~300 instructions with the loop's wake-ups,
// where the loop now takes every task ended meanwhile at once. A run
// keeps one (loop.handoff) for its supersteps.
type taskHandoff struct {
	mu sync.Mutex
	// ended are the superstep's ended tasks (nil: fail's), taken up to
	// taken; the loop reads those it took without the lock (no task
	// writes them again, and ended never outgrows the room reset made).
	ended []*task
	taken int
	// asleep: the loop found nothing to take and waits on wake
	// (buffered for one: a push never blocks).
	asleep bool
	wake   chan struct{}
}

// reset empties the handoff for a superstep of n pushes at most (its
// tasks, and fail's nil).
func (q *taskHandoff) reset(n int) {
	clear(q.ended) // the last superstep's tasks, no longer held
	if cap(q.ended) < n {
		q.ended = make([]*task, 0, n)
	}
	q.ended, q.taken, q.asleep = q.ended[:0], 0, false
	select {
	case <-q.wake: // a wake-up the last superstep left
	default:
	}
}

// push hands t over, waking the loop if it waits.
func (q *taskHandoff) push(t *task) {
	q.mu.Lock()
	q.ended = append(q.ended, t)
	wake := q.asleep
	q.asleep = false
	q.mu.Unlock()
	if wake {
		select {
		case q.wake <- struct{}{}:
		default: // one is pending already
		}
	}
}

// take returns the tasks ended since the last take; with none, the loop
// is marked asleep and wait reports that it must wait on wake.
func (q *taskHandoff) take() (ended []*task, wait bool) {
	q.mu.Lock()
	ended = q.ended[q.taken:]
	q.taken = len(q.ended)
	q.asleep = len(ended) == 0
	q.mu.Unlock()
	return ended, len(ended) == 0
}

// commitOnLoop saves and reports t, whose goroutine ended, if it
// succeeded and left that to the loop (settle, saveOnLoop); wait calls it
// for each task as it arrives: all before the superstep ends. LangGraph's
// task thread does not call the checkpointer either: the runner's commit
// hands a finished task's writes to the loop's put_writes
// (_runner.py:574-613), which submits checkpointer.put_writes to the
// loop's background executor (_loop.py:466-493). Here that saves each
// task goroutine a stack growth (a copy of its whole stack), the saver
// being deeper than a task's first stack.
func (f *fanout) commitOnLoop(saveCtx context.Context, t *task) {
	if !t.saveOnLoop {
		return
	}
	t.saveOnLoop = false
	if err := f.l.commitSuccess(saveCtx, t); err != nil {
		f.fail(t, err)
	}
}

// fail records a task's failure: the first one cancels the superstep; a
// Command for the parent graph cancels nothing, unless a task of the
// superstep already stopped at an interrupt: LangGraph.js's tick keeps a
// bubble-up only while no interrupt was seen, and takes a later one for a
// node error, which aborts the superstep and is raised before the
// interrupt (pregel/runner.ts:156-191).
func (f *fanout) fail(t *task, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if isParentCommand(err) && !f.l.anyInterrupted() {
		f.bubble = err
	} else if f.firstErr == nil {
		f.firstErr = err
		f.othersRunning = f.slots.running() > 1 // the failed one still holds its slot
		f.cancel(&CancelledError{By: t.name})
		if f.handoff != nil {
			f.handoff.push(nil) // wakes wait to abandon the others
		}
	} else if t.node.call {
		// A call's failure counts whenever it comes (StepErrors).
		f.l.mu.Lock()
		f.l.laterCallErrs = append(f.l.laterCallErrs, err)
		f.l.mu.Unlock()
	}
}

// anyInterrupted reports whether a task of the superstep stopped at an
// interrupt.
func (l *loop) anyInterrupted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range l.tasks {
		if t.result.Interrupted {
			return true
		}
	}
	return false
}

// commitUnstarted settles the tasks of a bounded superstep that a failure
// or the caller's cancellation kept from starting. LangGraph.js keeps
// filling free slots after the abort while any task is still running
// (pregel/runner.ts:322-346); a task started on the aborted signal leaves
// its retry loop before its first attempt with neither result nor error
// (pregel/retry.ts:103-107), so the runner commits it as finished with no
// writes (runner.ts:455-469): it saves __no_writes__ and does not run when
// the thread continues. When nothing else was running as the first task
// settled after the abort — the failed one, or the one the caller's abort
// rejected, all of them rejecting at once — the runner's loop ends
// (runner.ts:322-325) and the unstarted tasks save nothing: they run when
// the thread continues. Measured with the oracle's LangGraph.js 1.7.3
// (eng25-probe/bounded.mjs): maxConcurrency 2, two tasks running at the
// caller's abort, the two not started save __no_writes__.
func (f *fanout) commitUnstarted(ctx context.Context, rest []*task) {
	f.mu.Lock()
	if f.firstErr == nil {
		// The caller's cancellation: every task holding a slot still
		// runs (abandon settles them after this).
		f.othersRunning = f.slots.running() > 1
	}
	others := f.othersRunning
	f.mu.Unlock()
	if !others {
		return
	}
	l := f.l
	saveCtx := saveContext(ctx, l)
	for _, t := range rest {
		l.mu.Lock()
		t.writes, t.result.Writes, t.result.Done = nil, nil, true
		l.mu.Unlock()
		if err := l.commitSuccess(saveCtx, t); err != nil {
			f.fail(t, err)
		}
	}
}

// runTask runs one task with its retry policy and saves its outcome. It
// returns an error only for a failure that stops the superstep: a task
// that stopped because the superstep was cancelled saves its writes and
// error and returns nil. watched keeps the task's state (task.state) for
// a superstep that may abandon it (fanout.run, runLone): one abandoned
// before it started does not run, and one abandoned while it ran saves
// and reports nothing.
func (l *loop) runTask(ctx context.Context, t *task, watched bool) error {
	scope := l.newScope(t)
	if watched && !t.state.CompareAndSwap(taskQueued, taskRunning) {
		return nil // abandoned before it started
	}
	var err error
	var writes []Write
	attempt := 1
	for ; ; attempt++ {
		if attempt > 1 {
			t.state.CompareAndSwap(taskWriting, taskRunning) // its node runs again
		}
		// Each attempt re-runs the node from its top with no writes
		// (LangGraph.js pregel/retry.js:44 and _retry.py clear
		// task.writes): its Interrupt calls count from the first again,
		// and the answers gathered so far (the run's plain resume value
		// included) stay matched to them. The __resume__ write is one of
		// the cleared writes: an attempt saves the answers only if its
		// own Interrupt calls take them again (interrupt.js:76 re-sends
		// them), so a retry that stops before reaching them does not.
		scope.newAttempt()
		if t.node.timeout == nil {
			writes, err = l.attempt(ctx, scope, t) // one frame less on the task's stack
		} else {
			writes, err = l.attemptOnce(ctx, scope, t)
		}
		if err == nil || !l.retryAfter(ctx, scope, t, attempt, &err) {
			break
		}
	}
	if watched && !t.state.CompareAndSwap(taskWriting, taskSettling) && !t.state.CompareAndSwap(taskRunning, taskSettling) {
		return nil // abandoned: its superstep saved its error and ended
	}
	// Only now, not per attempt: an abandoned task's goroutine may go on
	// retrying while the superstep, which has moved on, reads its result.
	t.result.Attempts = attempt
	if cause := l.lone.abort.Load(); cause != nil && !t.node.call {
		// The lone task, aborted by its call's failure while it ran
		// (loneFailed), which it may have seen before runLone left it, or
		// on the loop's goroutine, where nothing could leave it: its own
		// outcome does not count.
		return l.settleAbandoned(ctx, t, cause, nil, scope.answersSoFar())
	}
	return l.settle(ctx, scope, t, writes, err)
}

// retryAfter reports whether t runs again after attempt failed with *err,
// once the retry policy's delay passed. When the policy's RetryOn
// panicked, *err becomes that panic, which t then fails with.
func (l *loop) retryAfter(ctx context.Context, scope *taskScope, t *task, attempt int, errp *error) bool {
	retry := l.retries(ctx, scope, t, attempt, errp)
	if ta := scope.takeTimeoutAbort(); ta != nil {
		// The attempt timed out with calls running: they count their
		// failures as this decides, and a retry waits for them, which
		// end the superstep (timeoutAbort).
		ta.decide(retry)
		if retry && !t.node.call {
			// (A timed Task call retries all the same: its retry
			// loop watches no abort signal, retriesAbort.)
			ta.waitCalls(ctx)
			retry = ctx.Err() == nil && l.lone.abort.Load() == nil
		}
	}
	if !retry {
		return false
	}
	err := *errp
	policy := t.node.retry
	l.mu.Lock()
	l.noteRetry(t, err)
	d := policy.delay(attempt)
	if t.node.call {
		if l.callBackoffs == nil {
			l.callBackoffs = map[*task]time.Time{}
		}
		l.callBackoffs[t] = time.Now().Add(d)
	}
	l.mu.Unlock()
	if l.emit != nil {
		l.emit(Event{Kind: EventRetry, Step: l.step, Node: t.name, TaskID: t.id(), TaskNS: t.namespace(), IsCall: t.node.call, Attempt: attempt, Err: err})
	}
	if d > 0 {
		// The backoff waits on a timer (LangGraph.js pregel/retry.ts:177-179
		// awaits setTimeout): the subgraph runs t belongs to leave their
		// siblings' rotation meanwhile (WithSubgraphTurns).
		back := scope.waitingOnTime(time.Now().Add(d))
		wait := time.NewTimer(d)
		select {
		case <-wait.C:
		case <-ctx.Done():
			if retriesAbort(ctx, t) {
				<-wait.C // a call's wait is not cut short
			}
		}
		wait.Stop()
		back()
	}
	abandoned := t.state.Load() == taskAbandoned
	if t.node.call {
		// Under mu, against retryAborted: either this starts the attempt
		// waited for, or retryAborted, which abandoned t, does.
		l.mu.Lock()
		delete(l.callBackoffs, t)
		abandoned = t.state.Load() == taskAbandoned
		l.mu.Unlock()
	}
	// Cancelled while waiting: this attempt's failure stands, but for a
	// call's (retriesAbort). A call abandoned meanwhile ends here too;
	// abandonCalls saw to its remaining attempts (retryAborted).
	return (ctx.Err() == nil || retriesAbort(ctx, t)) && !abandoned
}

// retries reports whether t's policy retries it after attempt failed
// with *err, which becomes the policy's panic when RetryOn panicked.
func (l *loop) retries(ctx context.Context, scope *taskScope, t *task, attempt int, errp *error) bool {
	err := *errp
	if scope.interrupt != nil || IsBubbleUp(err) || t.state.Load() == taskAbandoned {
		return false
	}
	if !t.node.call && l.lone.abort.Load() != nil {
		return false // aborted (loneFailed): retry.ts:103-107 attempts no more
	}
	if ctx.Err() != nil && !retriesAbort(ctx, t) {
		return false
	}
	retry, panicked := t.node.retry.retries(attempt, err)
	if panicked != nil {
		*errp = panicked
	}
	return retry
}

// retriesAbort reports whether t, whose context ended, goes on retrying
// by its policy: a Task call whose superstep a task's failure cancelled.
// LangGraph.js hands a call's retry loop no abort signal
// (pregel/runner.ts:582-584), and that loop checks only its own
// (retry.ts:102-107): the policy retries the AbortError each attempt ends
// with at once, as it would any error, and each attempt enters the
// function again (retryAborted says how).
func retriesAbort(ctx context.Context, t *task) bool {
	_, ok := context.Cause(ctx).(*CancelledError)
	return ok && t.node.call
}

// settle saves and reports how t's last attempt ended: its writes, its
// interrupt or its failure. It returns an error only for a failure that
// stops the superstep.
func (l *loop) settle(ctx context.Context, scope *taskScope, t *task, writes []Write, err error) error {
	if err != nil || scope.interrupt != nil {
		return l.settleStopped(ctx, scope, t, writes, err)
	}
	// Counted finished here, on every path; only a success may defer.
	deferrer, canDefer := l.deferLast(t)
	res := &t.result
	t.writes = writes
	l.mu.Lock()
	res.Writes, res.Done = writes, true
	l.mu.Unlock()
	if !t.node.call && l.saveOnLoop { // a Task call never reads saveOnLoop
		t.saveOnLoop = true
		return nil
	}
	saveCtx := saveContext(ctx, l)
	if canDefer {
		// The checkpoint Put right after this superstep commits these
		// writes with it; the result is reported after that Put.
		wait, err := l.deferWrites(saveCtx, deferrer, t.id(), successWrites(scope, writes))
		if err != nil {
			return writesNotSaved(t, err)
		}
		l.held = &heldResult{t: t, res: res, wait: wait}
		return l.cacheWrites(saveCtx, t, writes)
	}
	return l.commitSuccess(saveCtx, t)
}

// commitSuccess saves the writes of t, which succeeded, reports its
// result and caches its writes.
func (l *loop) commitSuccess(ctx context.Context, t *task) error {
	if err := l.putTaskWrites(ctx, t, successWrites(&t.scope, t.writes)); err != nil {
		return err
	}
	l.emitResult(t, &t.result)
	return l.cacheWrites(ctx, t, t.writes)
}

// successWrites are the writes saved for a task that succeeded: its own,
// after the resume value it took, or a marker that it wrote nothing.
func successWrites(scope *taskScope, writes []Write) []Write {
	if scope.hasResume {
		writes = append([]Write{{Channel: ResumeChannel, Value: scope.resumeWrite}}, writes...)
	}
	if len(writes) == 0 {
		writes = []Write{{Channel: NoWritesChannel}}
	}
	return writes
}

// saveContext is the context a task's writes are saved with. Saving never
// takes the step's cancellation: a cancelled task saves what it wrote, as
// LangGraph's runners do. The saver can still learn of the cancellation
// (RunContext), to bound a wait that would otherwise never end.
func saveContext(ctx context.Context, l *loop) context.Context {
	if l.saver != nil {
		return detach(ctx)
	}
	return ctx
}

// settleStopped is settle for a task that stopped at an interrupt, with a
// Command for the parent graph or with a failure.
func (l *loop) settleStopped(ctx context.Context, scope *taskScope, t *task, writes []Write, err error) error {
	l.deferLast(t) // counted finished; only a success may defer
	saveCtx := saveContext(ctx, l)
	res := &t.result
	ie := interruptOf(scope, err)
	switch {
	case ie != nil:
		saved := []Write{{Channel: InterruptChannel, Value: ie.Interrupts}}
		if scope.hasResume {
			saved = append(saved, Write{Channel: ResumeChannel, Value: scope.resumeWrite})
		}
		l.mu.Lock()
		res.Interrupts, res.Interrupted, res.Done = ie.Interrupts, true, true
		l.interrupted = append(l.interrupted, t)
		l.mu.Unlock()
		// An interrupt with no values (a subgraph's breakpoint) saves
		// nothing, so the task runs again on resume, and reports no task
		// result: results are reported as writes are saved
		// (runner.ts:427-437; loop.ts:753 putWrites → _outputWrites:858).
		if len(ie.Interrupts) == 0 {
			return nil
		}
		if perr := l.putTaskWrites(saveCtx, t, saved); perr != nil {
			return perr
		}
		if !t.node.call {
			// A call's interrupt is reported by its caller
			// (LangGraph.js loop.ts:874-880).
			l.emitResult(t, res)
		}
		return nil
	case isParentCommand(err):
		// A bubble-up saves the writes the task made (its answer to an
		// earlier interrupt); with none, LangGraph.js saves it as an
		// error (pregel/runner.ts:445-453: only a bubble-up with writes
		// skips the error branch), which the subgraph's snapshot shows.
		l.mu.Lock()
		res.Done = true
		l.mu.Unlock()
		saved := []Write{{Channel: ErrorChannel, Value: encodeTaskError(err)}}
		if scope.hasResume {
			saved = []Write{{Channel: ResumeChannel, Value: scope.resumeWrite}}
		}
		if perr := l.putTaskWrites(saveCtx, t, saved); perr != nil {
			return perr
		}
		// Saved writes are reported as the task's result (1.7.3 dist
		// runner.js:200-206 putWrites → loop.js:554 _outputWrites;
		// loop.ts:858-905): the answer alone streams as {node: {}} in
		// updates, the error only as a failed task result.
		if !scope.hasResume && l.emit != nil {
			l.emit(Event{Kind: EventTaskResult, Step: l.step, Node: t.name, TaskID: t.id(), TaskNS: t.namespace(), Triggers: t.triggers, Update: map[string]any{}, Err: err})
		} else {
			l.emitResult(t, res)
		}
		return err
	default: // a failure
		// A failure after the step was cancelled is not the step's
		// failure: it is saved but not reported (runner.ts:160-176 keeps
		// only errors raised before the node saw the abort).
		cancelled := ctx.Err() != nil
		if cancelled && IsCancellation(err) {
			err = context.Cause(ctx)
		}
		// The writers' and a panic's failures are this task's NodeError
		// already; any other is wrapped in one, also a subgraph's or a
		// call's NodeError, which names a task inside this one and keeps
		// its own node, step and attempts.
		var ne *NodeError
		if !errors.As(err, &ne) || ne.TaskID != t.id() {
			ne = &NodeError{Node: t.name, Step: l.step, TaskID: t.id(), Err: err}
		}
		ne.Attempts = res.Attempts
		// The task keeps the writes its writers made before the failure,
		// saved with the error (_runner.py:596-603, runner.ts:447-453).
		// They count as its output on resume
		// (_loop.py _reapply_writes_to_succeeded_nodes); a task with none
		// runs again.
		t.writes = writes
		l.mu.Lock()
		res.Err, res.Done, res.Writes = ne, true, writes
		l.mu.Unlock()
		saved := append(slices.Clone(writes), Write{Channel: ErrorChannel, Value: encodeTaskError(ne)})
		if scope.hasResume {
			saved = append(saved, Write{Channel: ResumeChannel, Value: scope.resumeWrite})
		}
		if perr := l.putTaskWrites(saveCtx, t, saved); perr != nil {
			return perr
		}
		l.emitFailed(t, res, scope.hasResume)
		if cancelled {
			return nil
		}
		return ne
	}
}

// emitResult reports a task's result to the run's listener.
func (l *loop) emitResult(t *task, res *TaskResult) {
	if l.emit != nil && !t.node.start {
		l.emitTaskResult(t, res)
	}
}

// emitTaskResult is emitResult's event, in a frame of its own (an Event
// is large; see fanout.run).
func (l *loop) emitTaskResult(t *task, res *TaskResult) {
	update := l.g.stateUpdate(t.writes)
	if res.Interrupts != nil {
		update = map[string]any{}
	}
	l.emit(Event{Kind: EventTaskResult, Step: l.step, Node: t.name, TaskID: t.id(), TaskNS: t.namespace(), Triggers: t.triggers, Writes: res.Writes, Update: update, Interrupts: res.Interrupts, Err: res.Err})
}

// isOutput reports an output channel: a state key, or an entrypoint's
// __end__ (its only output channel, func/index.ts outputChannels: END).
func (g *Graph) isOutput(ch string) bool {
	return g.IsStateKey(ch) || g.entrypoint && ch == End
}

// stateUpdate is the part of a task's writes to the graph's output
// channels, as a map: its state keys, or an entrypoint's __end__ (what
// LangGraph reports as a task's result: its writes to the stream channels,
// LangGraph.js pregel/debug.ts mapDebugTaskResults).
func (g *Graph) stateUpdate(writes []Write) map[string]any {
	out := map[string]any{}
	for _, w := range writes {
		if g.isOutput(w.Channel) {
			out[w.Channel] = w.Value
		}
	}
	return out
}

// attempt runs the node body once and its writers, turning a panic into a
// NodeError.
func (l *loop) attempt(ctx context.Context, scope *taskScope, t *task) (writes []Write, err error) {
	defer func() {
		if r := recover(); r != nil {
			t.state.CompareAndSwap(taskRouting, taskWriting) // a route panicked: the task settles its failure
			err = &NodeError{Node: t.name, Step: l.step, TaskID: t.id(), Panic: true, Err: recoveredPanic(r)}
		}
	}()
	// Written once per scope (initScope leaves it nil): an untimed task's
	// attempts all run on the task's ctx (runTask), and a node that an
	// earlier attempt's subgraph left working (its superstep, aborted by a
	// Task call's failure, does not wait for the caller) may still read it
	// while the task retries. A timed attempt has a scope of its own
	// (forAttempt).
	if scope.Context == nil {
		scope.Context = ctx
	}
	ctx = scope // the scope is the task's context: no WithValue per task
	if t.node.start {
		writes, err := l.startWrites(ctx, t)
		if err == nil {
			err = l.g.checkWrites(InputTask, writes, &l.cs.view)
		}
		return writes, err
	}
	var ret any
	if t.node.subgraph != nil {
		ret, err = l.runSubgraph(ctx, scope, t)
	} else {
		ret, err = t.node.fn(ctx, t.input)
		if err != nil {
			// A Command.PARENT from a graph this node invoked itself
			// (InvokeSubgraph) is meant for this task: the node's
			// writers apply it as if the node had returned it
			// (LangGraph.js pregel/retry.ts:129-139: cmd.graph ===
			// the task's checkpoint_ns).
			ret, err = takeParentCommand(t.namespace(), err)
		}
	}
	if err != nil {
		return nil, err
	}
	if l.mayAbandon.Load() && t.node.timeout == nil && !t.state.CompareAndSwap(taskRunning, taskWriting) && t.state.Load() == taskAbandoned {
		// Abandoned while its node ran: its writers must not run
		// (they read the state the loop has left).
		return nil, context.Cause(ctx)
	}
	if scope.interrupt != nil {
		return nil, scope.interrupt
	}
	if perr, ok := l.parentCommand(t, ret); ok {
		l.cs.view.escapes(ret) // the parent keeps what it says
		return nil, perr
	}
	switch {
	case t.node.call:
		l.cs.view.escapes(ret) // a checkpointed result
		return []Write{{Channel: ReturnChannel, Value: Normalize(ret)}}, nil
	case t.node.entry:
		return entryWrites(ret), nil
	}
	writes, states, err := l.nodeWrites(ctx, t, ret)
	if err == nil {
		if err = l.g.checkNodeWrites(t.name, writes, states, &l.cs.view); err != nil {
			writes = nil
		}
	} else {
		writes = normalizedSends(writes) // saved unchecked with the cancellation
	}
	if err != nil && ctx.Err() == nil {
		err = &NodeError{Node: t.name, Step: l.step, TaskID: t.id(), Err: err}
	}
	return writes, err
}

// startWrites are the writes of the hidden __start__ task: the input's state
// keys, then the edges and routes out of __start__.
func (l *loop) startWrites(ctx context.Context, t *task) ([]Write, error) {
	var pairs Update
	var gotos []any
	switch in := t.input.(type) {
	case Command:
		p, err := updatePairs(in.Update)
		if err != nil {
			return nil, err
		}
		pairs, gotos = p, in.Goto
	case map[string]any:
		if writes, ok := l.g.largeInputWrites(in, len(t.node.edgeWrites)+len(t.node.branches)); ok {
			return l.startRoutes(ctx, t, writes, nil)
		}
		pairs, _ = updatePairs(in)
	default:
		p, err := updatePairs(t.input)
		if err != nil {
			return nil, &InvalidUpdateError{Msg: fmt.Sprintf("graph input must be a map of state keys, got %T", t.input)}
		}
		pairs = p
	}
	var writes []Write
	for _, kv := range pairs {
		if l.g.IsStateKey(kv.Key) {
			writes = append(writes, Write{Channel: kv.Key, Value: kv.Value})
		}
	}
	return l.startRoutes(ctx, t, writes, gotos)
}

// largeInputWrites are the writes of an input map of many keys, as
// updatePairs and the state-key filter would make them (state keys only,
// sorted by name), found by walking the graph's state keys in name order
// instead of sorting the map's keys, with room for routes more. It reports
// false for a map too small for the walk to be the cheaper one.
func (g *Graph) largeInputWrites(in map[string]any, routes int) ([]Write, bool) {
	if len(in) < 16 || len(g.keysByName) > 8*len(in) {
		return nil, false
	}
	writes := make([]Write, 0, len(in)+routes)
	for _, k := range g.keysByName {
		if v, ok := in[k]; ok {
			writes = append(writes, Write{Channel: k, Value: v})
		}
	}
	return writes, true
}

// startRoutes adds to the __start__ task's state writes its gotos, its
// edges and its routes' writes.
func (l *loop) startRoutes(ctx context.Context, t *task, writes []Write, gotos []any) ([]Write, error) {
	for _, d := range gotos {
		w, err := l.g.gotoWrite(Start, d)
		if err != nil {
			return nil, err
		}
		writes = append(writes, w...)
	}
	writes = append(writes, t.node.edgeWrites...)
	if len(t.node.branches) > 0 {
		local, err := l.localState(writes)
		if err != nil {
			return nil, err
		}
		for _, br := range t.node.branches {
			dest, err := br.route(ctx, local)
			if err != nil {
				return nil, err
			}
			if writes, err = l.g.routeWrites(writes, br, dest); err != nil {
				return nil, err
			}
		}
	}
	return writes, nil
}

// interruptOf is the interrupt that stopped a task: its scope's, or one its
// node returned (nil if none). Looking costs nothing when err is nil.
func interruptOf(scope *taskScope, err error) *InterruptError {
	if scope.interrupt != nil {
		return scope.interrupt
	}
	if err == nil {
		return nil
	}
	var ie *InterruptError
	if errors.As(err, &ie) {
		return ie
	}
	return nil
}

// newScope prepares what Interrupt needs for t: its saved answers, an answer
// addressed to it by interrupt id, and the run's plain resume value. The
// scope lives in the task (one allocation less per task).
func (l *loop) newScope(t *task) *taskScope {
	return l.initScope(&t.scope, t)
}

// initScope makes s what newScope makes t's scope.
func (l *loop) initScope(s *taskScope, t *task) *taskScope {
	*s = taskScope{t: t, run: l, step: l.step}
	if len(l.resumes.byTask) > 0 { // no id made when no answer waits
		s.resume = slices.Clone(l.resumes.byTask[t.id()])
	}
	s.nullResume, s.hasNullResume = l.resumes.null, l.resumes.hasNull
	if t.nullGone {
		// A call's task is planned when the call is made (acceptCall), not
		// when it starts: a plain resume value an earlier task took is
		// gone for it, one taken later is not (LangGraph.js algo.ts
		// _scratchpad copies nullResume into the scratchpad acceptPush
		// makes, loop.ts:1233; consumeNullResume splices it from the
		// pending writes only for tasks planned afterwards).
		s.hasNullResume = false
	}
	if l.resumeMap != nil {
		if v, ok := l.resumeMap[interruptID(t.namespace(), len(s.resume))]; ok {
			s.resume = append(s.resume, v)
		} else if v, ok := l.resumeMap[interruptID(t.namespace(), 0)]; ok {
			s.resume = append(s.resume, v)
		}
	}
	return s
}

// A task's state says who settles it, where its superstep may abandon it
// (task.state). Its goroutine moves it from queued to running when it
// starts and from running to settling once its attempts ended; the loop
// moves a queued or running one to abandoned when the superstep's context
// ends first (fanout.abandon). Whoever moves it last settles it: a
// settling task saves and reports its own outcome and the loop waits for
// it; an abandoned one is settled by the loop, and its goroutine drops
// whatever its node still does.
//
// An untimed task's goroutine moves it from running to writing once its
// node returned, before its writers run: the loop does not abandon a task
// whose node is done, so that the writes its writers made before they saw
// the cancellation are saved with its error, as LangGraph.js saves a
// cancelled task's writes so far (runner.ts:447-453 commits task.writes,
// which its writers filled, with the error). While one of its routes
// runs (the caller's code, which may ignore its context) it is routing,
// with its writes so far in t.writes, and the loop may abandon it, saving
// those with the cancellation: LangGraph.js races a route against the
// signal too (graph.js Branch._route calls path.invoke, a RunnableLambda
// whose @langchain/core _callWithConfig, runnables/base.js:158-166, races
// it; measured, eng25-probe/route.mjs: a route ignoring its signal, the
// run throws at the abort and the task saves its state writes with its
// AbortError).
const (
	taskQueued uint32 = iota
	taskRunning
	taskWriting
	taskSettling
	taskAbandoned
	taskRouting
)

// leave is t's goroutine ending: it reports whether the superstep still
// counts on it, settling a task that never did (a node that called
// runtime.Goexit) so that the loop does not abandon it afterwards.
func (t *task) leave() bool {
	return t.state.Load() == taskSettling || t.state.CompareAndSwap(taskRunning, taskSettling) || t.state.CompareAndSwap(taskWriting, taskSettling) || t.state.CompareAndSwap(taskRouting, taskSettling)
}

// abandonable reports whether a lone task whose context can end must run
// on a goroutine of its own so that the run can leave it: its node has no
// time limit (a timed attempt already runs apart and is abandoned on the
// context's end: attemptTimed).
func abandonable(t *task) bool {
	tp := t.node.timeout
	return tp == nil || (tp.Run <= 0 && tp.Idle <= 0)
}

// abandon ends the superstep without its tasks that are still running or
// not yet started: each is settled here as failed with the context's
// cause — the caller's cancellation (context.Canceled, or the cause it
// gave), its deadline, or a sibling's failure (*CancelledError) — and its
// goroutine, when its node returns, saves and reports nothing. LangGraph.js
// commits each such task with its abort error (pregel/runner.ts:447-453
// _commit; measured with the oracle's LangGraph.js 1.7.3: a node ignoring
// its signal saves {name: "AbortError"} and the run throws at once, under
// every durability) while finished siblings keep their writes. It returns
// how many it abandoned.
func (f *fanout) abandon(started []*task, cause error) int {
	l := f.l
	saveCtx := saveContext(f.ctx, l)
	n := 0
	for _, t := range started {
		abandoned, err := l.abandonTask(saveCtx, t, cause)
		if abandoned {
			n++
		}
		if err != nil {
			f.fail(t, err)
		}
	}
	if t, err := l.abandonCalls(saveCtx, cause); err != nil {
		f.fail(t, err)
	}
	return n
}

// causeOf is why ctx ended: the cause it was cancelled with, or its error.
func causeOf(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return ctx.Err()
}

// abandonTask abandons t unless its goroutine already settles it, and then
// settles it as failed with cause; it reports whether it did.
func (l *loop) abandonTask(ctx context.Context, t *task, cause error) (bool, error) {
	var answers []any
	var writes []Write
	switch {
	case t.state.CompareAndSwap(taskQueued, taskAbandoned):
	case t.state.CompareAndSwap(taskRunning, taskAbandoned):
		answers = t.scope.answersSoFar()
	case t.state.CompareAndSwap(taskRouting, taskAbandoned):
		writes, answers = t.writes, t.scope.answersSoFar()
	default:
		return false, nil
	}
	l.markAbandoned()
	return true, l.settleAbandoned(ctx, t, cause, writes, answers)
}

// markAbandoned records that the superstep leaves a task behind.
func (l *loop) markAbandoned() {
	// An abandoned node may still read the state it was given: the loop
	// must not change that map in place any more.
	l.cs.view.lend()
	l.abandoned.Store(true)
}

// answersSoFar are the answers the scope's task took so far, saved with
// its error as a failed task's are; the scope's lock orders this after
// its Interrupt calls.
func (s *taskScope) answersSoFar() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hasResume {
		return s.resumeWrite
	}
	return nil
}

// runLone runs a superstep's only task on a goroutine of its own, where
// the caller can cancel or the task is an entrypoint (runSuperstep): the
// loop waits for it, for ctx to end or for a call of it to fail first
// (loneFailed), and then abandons it as fanout.abandon abandons a
// concurrent superstep's tasks. It runs on a child of ctx that the
// superstep's first failure cancels (loneContext).
func (l *loop) runLone(ctx context.Context, t *task) error {
	l.mayAbandon.Store(true)
	if l.lone.done == nil {
		l.lone.done = make(chan error, 1) // one for the run: at most one send a superstep
		l.mu.Lock()
		l.lone.abortWake = make(chan struct{}, 1) // one for the run: loneFailed sends once a superstep
		l.mu.Unlock()
	}
	select {
	case <-l.lone.abortWake: // a late call's failure in an earlier superstep
	default:
	}
	l.lone.task, l.lone.ctx = t, l.loneContext(ctx) // read by the goroutine: no closure to allocate
	go l.runLoneTask()
	var abandoned bool
	var err error
	select {
	case err := <-l.lone.done:
		return err
	case <-l.lone.abortWake:
		// One of its calls failed first (loneFailed), which abandoned
		// the calls.
		abandoned, err = l.abandonTask(saveContext(ctx, l), t, l.lone.abort.Load())
	case <-ctx.Done():
		saveCtx, cause := saveContext(ctx, l), causeOf(ctx)
		abandoned, err = l.abandonTask(saveCtx, t, cause)
		if _, cerr := l.abandonCalls(saveCtx, cause); err == nil {
			err = cerr
		}
	}
	if !abandoned {
		if lerr := <-l.lone.done; lerr != nil || err == nil {
			return lerr // it was settling: its outcome stands
		}
	}
	return err
}

// loneContext is the context runLone runs a task on: a child of ctx, so
// that the superstep's first failure cancels the task and its calls, as a
// fanout's cancels its tasks (LangGraph.js aborts the signal they all
// inherit, runner.ts:175, even when one task runs). One serves the run's
// supersteps while the caller passes the same ctx and no failure
// cancelled it; finish releases it.
func (l *loop) loneContext(ctx context.Context) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lone.parent != ctx || l.lone.taskCtx.Err() != nil {
		if l.lone.cancel != nil {
			l.lone.cancel(nil)
		}
		l.lone.taskCtx, l.lone.cancel = context.WithCancelCause(ctx)
		l.lone.parent = ctx
	}
	l.lone.cancelling = true
	return l.lone.taskCtx
}

// runLoneTask is runLone's goroutine: fanout.run for the lone task, which
// hands its outcome back on lone.done (also after runtime.Goexit).
func (l *loop) runLoneTask() {
	ctx, t, done := l.lone.ctx, l.lone.task, l.lone.done
	var err error
	defer func() { done <- err }()
	err = l.runTask(ctx, t, true)
}

// settleAbandoned saves and reports t, abandoned, as failed with err,
// with the writes its writers made before a route it was left in.
func (l *loop) settleAbandoned(ctx context.Context, t *task, err error, writes []Write, answers []any) error {
	l.deferLast(t) // counted finished, as every task is once
	ne := &NodeError{Node: t.name, Step: l.step, TaskID: t.id(), Err: err}
	res := &t.result
	// Its goroutine may append past them; they were not checked, which
	// normalizes Sends (writeCheck.write).
	writes = normalizedSends(slices.Clip(writes))
	l.mu.Lock()
	res.Err, res.Done, res.Writes = ne, true, writes
	l.mu.Unlock()
	saved := append(slices.Clone(writes), Write{Channel: ErrorChannel, Value: encodeTaskError(ne)})
	if answers != nil {
		saved = append(saved, Write{Channel: ResumeChannel, Value: answers})
	}
	if perr := l.putTaskWrites(ctx, t, saved); perr != nil {
		return perr
	}
	l.emitFailed(t, res, answers != nil)
	return nil
}

// emitFailed reports the result of t, which failed, with the writes its
// writers made before it failed (res.Writes: t.writes may be its
// goroutine's). answered says it had taken an answer. LangGraph.js keeps a
// failed task's writes and appends the error (runner.ts:448; 1.7.3 dist
// runner.js:201-210), interrupt() putting the answers first
// (interrupt.ts:89-101), and _outputWrites looks only at the first write
// to leave out a failure's update (loop.ts:872-885, dist loop.js:578;
// io.ts:207-212 mapOutputUpdates, dist io.js:105): a task that wrote (its
// route failed after its update was written) or took an answer before it
// failed streams its update.
func (l *loop) emitFailed(t *task, res *TaskResult, answered bool) {
	if l.emit != nil && !t.node.start {
		l.emit(Event{Kind: EventTaskResult, Step: l.step, Node: t.name, TaskID: t.id(), TaskNS: t.namespace(), Triggers: t.triggers, Writes: res.Writes, Update: l.g.stateUpdate(res.Writes), Err: res.Err, failedUpdate: answered || len(res.Writes) > 0})
	}
}

// emitGate lets a run's listener be called from the run's goroutines
// until the run is over for its caller (close): a node abandoned on
// cancellation may go on calling Emit, or run a subgraph that reports its
// own tasks, after Invoke returned, when a Stream's channel is closed.
type emitGate struct {
	mu     sync.RWMutex
	closed bool
}

// wrap returns emit behind the gate.
func (g *emitGate) wrap(emit func(Event)) func(Event) {
	return func(e Event) {
		g.mu.RLock()
		defer g.mu.RUnlock()
		if !g.closed {
			emit(e)
		}
	}
}

// close waits for the calls under way and drops every later one.
func (g *emitGate) close() {
	if g != nil {
		g.mu.Lock()
		g.closed = true
		g.mu.Unlock()
	}
}

// failAbandoning is fail for a superstep that failed or was cancelled; if
// it abandoned tasks, the run's gate closes once the run's own last
// events are out (fail reports a held result).
func (l *loop) failAbandoning(err error) error {
	err = l.fail(err)
	if l.abandoned.Load() {
		l.gate.close()
	}
	return err
}
