package engine

import (
	"context"
	"sync"
)

// slots bounds the tasks of a superstep that run at once; a nil *slots
// bounds nothing. Task calls running in the superstep occupy slots too:
// they start whatever the bound, but a node task starts only while fewer
// than limit tasks, calls included, are running (LangGraph.js
// pregel/runner.ts:325-330 starts a task while executingTasksMap, where
// call() also puts its task, runner.ts:586, is below maxConcurrency).
type slots struct {
	limit int
	mu    sync.Mutex
	busy  int           // running tasks, calls included
	freed chan struct{} // closed (and replaced) when a task ends
}

// concurrencySlots returns the slots for n tasks under limit (≤ 0: none).
func concurrencySlots(limit, n int) *slots {
	if limit <= 0 || limit >= n {
		return nil
	}
	return &slots{limit: limit, freed: make(chan struct{})}
}

// acquire waits for a free slot; false when ctx ended first. Without a
// bound every task starts, as LangGraph.js starts them all at once
// (pregel/runner.ts:273-276: maxConcurrency only when set).
func (s *slots) acquire(ctx context.Context) bool {
	if s == nil {
		return true
	}
	for {
		if ctx.Err() != nil {
			return false
		}
		s.mu.Lock()
		if s.busy < s.limit {
			s.busy++
			s.mu.Unlock()
			return true
		}
		freed := s.freed
		s.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return false
		}
	}
}

// takeFirst occupies the slots of the first of n tasks at once and says
// how many: all n without a bound.
func (s *slots) takeFirst(n int) int {
	if s == nil {
		return n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := min(s.limit-s.busy, n)
	s.busy += k
	return k
}

// take occupies a slot without waiting for one: a task call starts at
// once, even past the bound.
func (s *slots) take() {
	if s != nil {
		s.mu.Lock()
		s.busy++
		s.mu.Unlock()
	}
}

// running is how many tasks, calls included, hold a slot.
func (s *slots) running() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

func (s *slots) release() {
	if s != nil {
		s.mu.Lock()
		s.busy--
		close(s.freed)
		s.freed = make(chan struct{})
		s.mu.Unlock()
	}
}
