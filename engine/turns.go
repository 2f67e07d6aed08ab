package engine

import (
	"sync"
	"time"
)

// subgraphTurns orders the checkpoint writes of sibling subgraphs that run
// in one superstep: round-robin in planning order (Sends first, then
// triggered nodes), one write each per turn. Their work still runs
// concurrently; only the writes wait for their turn. It is a scheduling
// choice, not a LangGraph rule: concurrent siblings may write in any
// order, and a run that wants the order reproducible (a trace writer) asks
// for this one with WithSubgraphTurns.
//
// The rotation stands for JavaScript's event loop, where siblings whose
// work takes no time interleave one step each, and one that waits on time
// (a timer, I/O) lets the others run on meanwhile. So a participant whose
// turn it is but who has not come to write within absentAfter is taken
// as waiting on time: it is absent, skipped by the rotation, until it
// comes to write again; then it waits for its turn like the others.
// Scenarios make such waits explicit with margins of at least 90 ms.
type subgraphTurns struct {
	mu      sync.Mutex
	active  []bool // by participant: still running
	absent  []bool // by participant: skipped until it comes to write
	waiting []bool // by participant: at its write, waiting for its turn
	turn    int
	since   time.Time     // when the turn moved to its holder
	changed chan struct{} // closed (and replaced) when the turn moves
}

// absentAfter is how long a turn's holder may take to come to its write
// before the others go on without it: long enough that a sibling whose
// work takes no time is not skipped on a loaded machine, short enough
// that one waiting on time (≥ 90 ms in scenarios, which then keep a
// margin) is.
const absentAfter = 80 * time.Millisecond

func newSubgraphTurns(n int) *subgraphTurns {
	ls := &subgraphTurns{active: make([]bool, n), absent: make([]bool, n), waiting: make([]bool, n), since: time.Now(), changed: make(chan struct{})}
	for i := range ls.active {
		ls.active[i] = true
	}
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
	ls.waiting[i], ls.absent[i] = true, false
	for ls.turn != i {
		h := ls.turn
		if h >= 0 && !ls.waiting[h] && (ls.absent[h] || time.Since(ls.since) >= absentAfter) {
			ls.absent[h] = true // waiting on time: the others go on
			ls.advance()
			continue
		}
		changed := ls.changed
		left := absentAfter - time.Since(ls.since)
		ls.mu.Unlock()
		timer := time.NewTimer(max(left, time.Millisecond))
		select {
		case <-changed:
		case <-timer.C:
		}
		timer.Stop()
		ls.mu.Lock()
	}
	ls.mu.Unlock()
}

// pass ends i's turn: the next active participant writes next.
func (ls *subgraphTurns) pass(i int) {
	ls.mu.Lock()
	ls.waiting[i] = false
	if ls.turn == i {
		ls.advance()
	}
	ls.mu.Unlock()
}

// leave takes i out of the rotation (it finished, failed or was
// interrupted).
func (ls *subgraphTurns) leave(i int) {
	ls.mu.Lock()
	ls.active[i], ls.waiting[i] = false, false
	if ls.turn == i {
		ls.advance()
	}
	ls.mu.Unlock()
}

// advance moves the turn to the next active participant that is not
// absent (or, when all are, to the next active one); with ls.mu held.
func (ls *subgraphTurns) advance() {
	n := len(ls.active)
	next := -1
	for k := 1; k <= n; k++ {
		j := (ls.turn + k) % n
		if !ls.active[j] {
			continue
		}
		if !ls.absent[j] {
			next = j
			break
		}
		if next < 0 {
			next = j
		}
	}
	ls.turn, ls.since = next, time.Now()
	close(ls.changed)
	ls.changed = make(chan struct{})
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
