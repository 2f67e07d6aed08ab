package engine

import "context"

// runContextKey is the key under which a save context keeps the context
// it was detached from (RunContext).
type runContextKey struct{}

// detach returns the context a save is made with when ctx, the run's or
// its superstep's, may end: ctx's values without its cancellation
// (context.WithoutCancel), with ctx itself for RunContext. A ctx that
// cannot end is returned as it is.
func detach(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithValue(context.WithoutCancel(ctx), runContextKey{}, ctx)
}

// RunContext returns the context of the run, or of its superstep, that
// ctx, a context a Saver was called with, was detached from; nil when
// ctx was not detached.
//
// The engine saves a task's writes (Saver.PutWrites,
// WriteDeferrer.DeferWrites and its wait) and a DurabilityExit run's
// checkpoint and writes at its end with a context that keeps the run's
// values but does not end when the run is cancelled or a sibling task
// fails: a task that finished, or stopped because the run was cancelled,
// has its writes saved all the same. LangGraph does not cancel them
// either: LangGraph.js calls the checkpointer's putWrites without the
// run's abort signal (dist/pregel/loop.js:550) and awaits every such call
// when the run ends, failed or aborted (dist/pregel/index.js:1231);
// Python submits put_writes to the loop's background executor
// (pregel/_loop.py:481-493), whose exit waits for every task not marked
// cancel-on-exit (pregel/_executor.py:102-107, async :195-200).
//
// Where that wait could last forever (a database server that stopped
// answering with its connections open), a saver watches the returned
// context's Done: once it is closed, the saver may stop waiting for a
// write whose outcome it cannot learn, and returns an error saying which
// writes may or may not be stored (persist/postgres does). It does not
// give up on a write merely because the run was cancelled while the write
// can still complete.
func RunContext(ctx context.Context) context.Context {
	run, _ := ctx.Value(runContextKey{}).(context.Context)
	return run
}
