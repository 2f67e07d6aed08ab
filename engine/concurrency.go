package engine

import "context"

// slots bounds the tasks of a superstep that run at once; a nil slots
// bounds nothing.
type slots chan struct{}

// concurrencySlots returns the slots for n tasks under limit (≤ 0: none).
func concurrencySlots(limit, n int) slots {
	if limit <= 0 || limit >= n {
		return nil
	}
	return make(slots, limit)
}

// acquire waits for a free slot; false when ctx ended first. Without a
// bound every task starts, as LangGraph.js starts them all at once
// (pregel/runner.ts:273-276: maxConcurrency only when set).
func (s slots) acquire(ctx context.Context) bool {
	if s == nil {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	select {
	case s <- struct{}{}:
		return ctx.Err() == nil || s.releaseFalse()
	case <-ctx.Done():
		return false
	}
}

func (s slots) releaseFalse() bool { <-s; return false }

func (s slots) release() {
	if s != nil {
		<-s
	}
}
