package engine

import (
	"context"
	"slices"
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
// work takes no time interleave one step each, and a task that awaits a
// timer leaves the rotation until the timer fires. So a participant is
// away, skipped by the rotation, exactly while something under it says it
// waits on time (WaitingOnTime: Sleep, a retry policy's backoff) or while
// it has not started (a superstep bounded by MaxConcurrency starts it when
// a slot frees; JS has not scheduled it yet). A wait of known length
// (Sleep, a backoff) ends at its deadline, as a JS timer is due then and
// timers fire in deadline order: two siblings sleeping alike rejoin in
// the order they started sleeping, whichever goroutine wakes first. A
// turn's holder that is neither at its write, away nor finished is
// working without waiting on time, and the others wait for it.
type subgraphTurns struct {
	mu      sync.Mutex
	changed sync.Cond     // broadcast whenever the turn or a participant's state moves
	active  []bool        // by participant: still running
	away    [][]*awayMark // by participant: the waits that may hold it out
	waiting []bool        // by participant: at its write, waiting for its turn
	turn    int           // the holder, -1 when nobody is active
}

// awayMark is one wait holding a participant out of the rotation: until
// its deadline, or until it is taken back when until is zero.
type awayMark struct{ until time.Time }

func newSubgraphTurns(n int) *subgraphTurns {
	ls := &subgraphTurns{active: make([]bool, n), away: make([][]*awayMark, n), waiting: make([]bool, n)}
	ls.changed.L = &ls.mu
	for i := range ls.active {
		ls.active[i] = true
	}
	return ls
}

// isActive reports whether i is still in the rotation (a retried subgraph
// task that left runs its next attempt unordered).
func (ls *subgraphTurns) isActive(i int) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.active[i]
}

// present reports whether the rotation waits for i when i holds the turn;
// with ls.mu held. A participant at its write is present whatever waits
// below it (a timed-out attempt's abandoned sleep, say).
func (ls *subgraphTurns) present(i int) bool {
	if !ls.active[i] {
		return false
	}
	if ls.waiting[i] {
		return true
	}
	var now time.Time
	for _, m := range ls.away[i] {
		if m.until.IsZero() {
			return false
		}
		if now.IsZero() {
			now = time.Now()
		}
		if now.Before(m.until) {
			return false
		}
	}
	return true
}

// wait blocks until it is participant i's turn to write.
func (ls *subgraphTurns) wait(i int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.waiting[i] = true
	for ls.turn != i {
		if h := ls.turn; h < 0 || !ls.present(h) {
			ls.skip() // finds i at the latest: it is waiting
			continue
		}
		ls.changed.Wait()
	}
}

// pass ends i's turn: the next active participant holds it (next).
func (ls *subgraphTurns) pass(i int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.waiting[i] = false
	if ls.turn == i {
		ls.next()
	}
}

// leave takes i out of the rotation (it finished, failed or was
// interrupted).
func (ls *subgraphTurns) leave(i int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.active[i], ls.waiting[i] = false, false
	if ls.turn == i {
		ls.next()
	}
	ls.changed.Broadcast()
}

// goAway holds i out of the rotation until until (zero: until back).
func (ls *subgraphTurns) goAway(i int, until time.Time) *awayMark {
	m := &awayMark{until}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.away[i] = append(ls.away[i], m)
	ls.changed.Broadcast()
	return m
}

// back ends the wait m of i.
func (ls *subgraphTurns) back(i int, m *awayMark) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.away[i] = slices.DeleteFunc(ls.away[i], func(x *awayMark) bool { return x == m })
	ls.changed.Broadcast()
}

// next gives the turn to the next active participant; with ls.mu held.
// Whether it is away is asked only when someone comes to write (wait):
// a sibling that goes to sleep just after passing the turn must not take
// it back from one whose timer is due first.
func (ls *subgraphTurns) next() {
	ls.moveTo(func(j int) bool { return ls.active[j] })
}

// skip gives the turn, held by an away participant, to the next present
// one (or, when none is, to the next active one); with ls.mu held.
func (ls *subgraphTurns) skip() {
	if !ls.moveTo(ls.present) {
		ls.next()
	}
}

// moveTo gives the turn to the next participant after the holder that ok
// accepts and reports whether there was one; none leaves the turn at -1.
func (ls *subgraphTurns) moveTo(ok func(int) bool) bool {
	n := len(ls.active)
	defer ls.changed.Broadcast()
	for k := 1; k <= n; k++ {
		if j := (ls.turn + k + n) % n; ok(j) {
			ls.turn = j
			return true
		}
	}
	ls.turn = -1
	return false
}

// WaitingOnTime says that the node running in ctx starts waiting on time —
// a timer, a backoff, a poll interval — and returns the function that
// says the wait ended (call it exactly once; later calls do nothing). It
// affects only the order of sibling subgraphs' checkpoints under
// WithSubgraphTurns, which stands for JavaScript's event loop: while a
// node waits on time, every subgraph run it belongs to (at each level of
// nesting) leaves its siblings' rotation, as a JS task awaiting a timer
// lets the others run, and rejoins when the wait ends. Outside a running
// node, or without WithSubgraphTurns, it does nothing. Sleep brackets its
// wait with it.
func WaitingOnTime(ctx context.Context) (done func()) {
	return waitingOnTime(ctx, time.Time{})
}

// waitingOnTime is WaitingOnTime for a wait that ends by until at the
// latest (zero: unknown).
func waitingOnTime(ctx context.Context, until time.Time) func() {
	s := scopeOf(ctx)
	if s == nil {
		return func() {}
	}
	if a, ok := ctx.Value(attemptClockKey{}).(*attemptClock); ok {
		until = a.cap(until) // the node's timeout ends the wait by then
	}
	return s.waitingOnTime(until)
}

// Sleep waits d in the node running in ctx, or until ctx ends (it then
// returns context.Cause(ctx)), saying meanwhile that the node waits on time
// (WaitingOnTime). A node that sleeps should call it rather than
// time.Sleep so that a run with WithSubgraphTurns orders its subgraphs'
// checkpoints as JavaScript would; otherwise the two are alike.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	defer waitingOnTime(ctx, time.Now().Add(d))()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// waitingOnTime marks every subgraph run that s's task belongs to, up
// through its parents, as away from the rotation it takes turns in, and
// returns what marks them back. A subgraph run's own task takes no turns
// in its own loop's rotation when it waits (a retried one already left
// it), so the walk starts at the loop running s.
func (s *taskScope) waitingOnTime(until time.Time) func() {
	type mark struct {
		ls *subgraphTurns
		at int
		m  *awayMark
	}
	var marks []mark
	for ; s != nil; s = s.run.opts.parent {
		if ls := s.run.opts.turns; ls != nil {
			at := s.run.opts.turnAt
			marks = append(marks, mark{ls, at, ls.goAway(at, until)})
		}
	}
	if len(marks) == 0 {
		return func() {}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, m := range marks {
				m.ls.back(m.at, m.m)
			}
		})
	}
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

// queueTurns holds the participants among tasks, which wait for a slot of
// a bounded superstep, away from the rotation until startTurn: a task
// LangGraph.js has not started yet takes no part in the event loop
// (pregel/runner.ts:322-346 starts one when a slot frees).
func (l *loop) queueTurns(tasks []*task) {
	if l.turns == nil {
		return
	}
	for _, t := range tasks {
		if at, ok := l.turnOf[t.id()]; ok {
			l.turns.goAway(at, time.Time{})
		}
	}
}

// startTurn brings a queued participant into the rotation as it starts.
func (l *loop) startTurn(t *task) {
	if l.turns == nil {
		return
	}
	if at, ok := l.turnOf[t.id()]; ok {
		l.turns.mu.Lock()
		l.turns.away[at] = nil // only the queue held it: it has not run
		l.turns.changed.Broadcast()
		l.turns.mu.Unlock()
	}
}
