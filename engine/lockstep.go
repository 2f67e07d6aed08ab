package engine

import "sync"

// lockstep orders the checkpoint writes of sibling subgraphs that run in
// one superstep: round-robin in planning order (Sends first, then
// triggered nodes), one write each per turn, as
// LangGraph.js's single-threaded event loop interleaves them. Their work
// still runs concurrently; only the writes wait for their turn. Used when a
// run asks for reproducible traces (WithLockstepSubgraphs).
type lockstep struct {
	mu     sync.Mutex
	cond   *sync.Cond
	active []bool // by participant: still running
	turn   int
}

func newLockstep(n int) *lockstep {
	ls := &lockstep{active: make([]bool, n)}
	for i := range ls.active {
		ls.active[i] = true
	}
	ls.cond = sync.NewCond(&ls.mu)
	return ls
}

// active reports whether i is still in the rotation (a retried subgraph
// task that left runs its next attempt unordered).
func (ls *lockstep) isActive(i int) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.active[i]
}

// wait blocks until it is participant i's turn to write.
func (ls *lockstep) wait(i int) {
	ls.mu.Lock()
	for ls.turn != i {
		ls.cond.Wait()
	}
	ls.mu.Unlock()
}

// pass ends i's turn: the next active participant writes next.
func (ls *lockstep) pass(i int) {
	ls.mu.Lock()
	if ls.turn == i {
		ls.advance()
	}
	ls.mu.Unlock()
}

// leave takes i out of the rotation (it finished, failed or was
// interrupted).
func (ls *lockstep) leave(i int) {
	ls.mu.Lock()
	ls.active[i] = false
	if ls.turn == i {
		ls.advance()
	}
	ls.mu.Unlock()
}

// advance moves the turn to the next active participant; with l.mu held.
func (ls *lockstep) advance() {
	n := len(ls.active)
	for k := 1; k <= n; k++ {
		j := (ls.turn + k) % n
		if ls.active[j] {
			ls.turn = j
			ls.cond.Broadcast()
			return
		}
	}
	ls.turn = -1
	ls.cond.Broadcast()
}
