package engine

import "sync"

// subgraphTurns orders the checkpoint writes of sibling subgraphs that run
// in one superstep: round-robin in planning order (Sends first, then
// triggered nodes), one write each per turn. Their work still runs
// concurrently; only the writes wait for their turn. It is a scheduling
// choice, not a LangGraph rule: concurrent siblings may write in any
// order, and a run that wants the order reproducible (a trace writer) asks
// for this one with WithSubgraphTurns.
type subgraphTurns struct {
	mu     sync.Mutex
	cond   *sync.Cond
	active []bool // by participant: still running
	turn   int
}

func newSubgraphTurns(n int) *subgraphTurns {
	ls := &subgraphTurns{active: make([]bool, n)}
	for i := range ls.active {
		ls.active[i] = true
	}
	ls.cond = sync.NewCond(&ls.mu)
	return ls
}

// active reports whether i is still in the rotation (a retried subgraph
// task that left runs its next attempt unordered).
func (ls *subgraphTurns) isActive(i int) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.active[i]
}

// wait blocks until it is participant i's turn to write.
func (ls *subgraphTurns) wait(i int) {
	ls.mu.Lock()
	for ls.turn != i {
		ls.cond.Wait()
	}
	ls.mu.Unlock()
}

// pass ends i's turn: the next active participant writes next.
func (ls *subgraphTurns) pass(i int) {
	ls.mu.Lock()
	if ls.turn == i {
		ls.advance()
	}
	ls.mu.Unlock()
}

// leave takes i out of the rotation (it finished, failed or was
// interrupted).
func (ls *subgraphTurns) leave(i int) {
	ls.mu.Lock()
	ls.active[i] = false
	if ls.turn == i {
		ls.advance()
	}
	ls.mu.Unlock()
}

// advance moves the turn to the next active participant; with l.mu held.
func (ls *subgraphTurns) advance() {
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

// prepareSubgraphTurns sets up this superstep's turns when the run asked
// for them and more than one of the tasks about to run is a subgraph.
func (l *loop) prepareSubgraphTurns(run []*task) {
	l.turns, l.turnOf = nil, nil
	if !l.opts.SubgraphTurns {
		return
	}
	var subs []*task
	// Planning order (Sends first), the order the tasks start.
	for _, t := range run {
		if t.node.subgraph != nil {
			subs = append(subs, t)
		}
	}
	if len(subs) > 1 {
		l.turns, l.turnOf = newSubgraphTurns(len(subs)), map[string]int{}
		for i, t := range subs {
			l.turnOf[t.id()] = i
		}
	}
}
