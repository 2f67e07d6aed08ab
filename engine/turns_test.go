package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// turnLog records the order in which participants write.
type turnLog struct {
	ls    *subgraphTurns
	mu    sync.Mutex
	order []int
}

func (tl *turnLog) write(i int) {
	tl.ls.wait(i)
	tl.mu.Lock()
	tl.order = append(tl.order, i)
	tl.mu.Unlock()
	tl.ls.pass(i)
}

func (tl *turnLog) got() []int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return slices.Clone(tl.order)
}

// within fails t unless done closes in time: a rotation that waits for
// the wrong participant never lets it close.
func within(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

// A participant away on time (until told back) is skipped, however long
// it stays away; back again, it waits for its turn like the others.
func TestSubgraphTurns_AwayHolderIsSkipped(t *testing.T) {
	tl := &turnLog{ls: newSubgraphTurns(2)}
	m := tl.ls.goAway(0, time.Time{})
	done := make(chan struct{})
	go func() { // participant 1 writes three times while 0 is away
		for range 3 {
			tl.write(1)
		}
		close(done)
	}()
	within(t, done, "participant 1 waited for the away participant 0")
	tl.ls.back(0, m)
	tl.write(0)
	tl.ls.leave(0)
	tl.ls.leave(1)
	if want := []int{1, 1, 1, 0}; !slices.Equal(tl.got(), want) {
		t.Fatalf("order %v, want %v", tl.got(), want)
	}
}

// holderComesLate has participant 1 come to write while 0 holds the turn,
// and 0 come later; it fails t unless 0 writes first.
func holderComesLate(t *testing.T, tl *turnLog) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		tl.write(1)
		close(done)
	}()
	// No clock decides: 1 is still waiting once 0 comes, whenever that is
	// (longer than the 80 ms an earlier rotation gave a holder).
	time.Sleep(100 * time.Millisecond)
	tl.write(0)
	within(t, done, "participant 1 never wrote")
	if want := []int{0, 1}; !slices.Equal(tl.got(), want) {
		t.Fatalf("order %v, want %v", tl.got(), want)
	}
}

// A holder that is neither away nor at its write is working without
// waiting on time: the others wait for it however long it takes.
func TestSubgraphTurns_PresentHolderIsWaitedFor(t *testing.T) {
	holderComesLate(t, &turnLog{ls: newSubgraphTurns(2)})
}

// A wait with a deadline ends at the deadline, as a JS timer is due then,
// whether or not its goroutine has woken: a sibling whose own timer is due
// later and that comes to write first waits for the holder.
func TestSubgraphTurns_DueTimerRejoinsAtItsDeadline(t *testing.T) {
	tl := &turnLog{ls: newSubgraphTurns(2)}
	tl.ls.goAway(0, time.Now().Add(-time.Millisecond)) // due, not taken back yet
	holderComesLate(t, tl)
}

// Passing the turn does not skip a sibling that is away at that moment:
// the question is asked when someone comes to write, so a participant
// that passes and then sleeps does not keep the turn from one whose timer
// is due first.
func TestSubgraphTurns_PassGoesToTheNextSiblingEvenIfAway(t *testing.T) {
	ls := newSubgraphTurns(2)
	ls.turn = 1
	ls.goAway(0, time.Now().Add(time.Hour))
	ls.wait(1)
	ls.pass(1)
	if ls.turn != 0 {
		t.Fatalf("turn went to %d, want 0", ls.turn)
	}
}

// Sleep marks every subgraph run its node belongs to, at each level of
// nesting, as away for the length of the wait, and back afterwards.
func TestSleep_MarksEveryEnclosingTurnAway(t *testing.T) {
	outer, inner := newSubgraphTurns(2), newSubgraphTurns(3)
	parentRun := &loop{}
	parentRun.opts.turns, parentRun.opts.turnAt = outer, 1
	parentTask := &task{}
	parentScope := &taskScope{Context: context.Background(), t: parentTask, run: parentRun}
	childRun := &loop{}
	childRun.opts.turns, childRun.opts.turnAt, childRun.opts.parent = inner, 2, parentScope
	scope := &taskScope{Context: context.Background(), t: &task{}, run: childRun}

	awayNow := func() (bool, bool) {
		outer.mu.Lock()
		o := !outer.present(1)
		outer.mu.Unlock()
		inner.mu.Lock()
		defer inner.mu.Unlock()
		return o, !inner.present(2)
	}
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(scope)
	go func() {
		defer close(done)
		_ = Sleep(ctx, time.Hour)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for o, i := awayNow(); !o || !i; o, i = awayNow() {
		if time.Now().After(deadline) {
			t.Fatalf("while sleeping: outer away %v, inner away %v; want both", o, i)
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	within(t, done, "Sleep did not end with its context")
	if o, i := awayNow(); o || i {
		t.Fatalf("after sleeping: outer away %v, inner away %v; want neither", o, i)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("Sleep outside a node: %v", err)
	}
}

// WaitingOnTime brackets a wait of unknown length: the node's subgraph run
// is away from its siblings' rotation until done is called, and a second
// call of done changes nothing. Outside a node it does nothing.
func TestWaitingOnTime_AwayUntilDone(t *testing.T) {
	turns := newSubgraphTurns(2)
	run := &loop{}
	run.opts.turns, run.opts.turnAt = turns, 1
	scope := &taskScope{Context: context.Background(), t: &task{}, run: run}
	away := func() bool {
		turns.mu.Lock()
		defer turns.mu.Unlock()
		return !turns.present(1)
	}
	done := WaitingOnTime(scope)
	if !away() {
		t.Fatal("while waiting: present, want away")
	}
	done()
	if away() {
		t.Fatal("after done: away, want present")
	}
	other := WaitingOnTime(scope)
	done() // already called: must not end the other wait
	if !away() {
		t.Fatal("a second call of the first done ended the second wait")
	}
	other()
	WaitingOnTime(context.Background())() // outside a node: nothing to mark
}

// A wait in a timed attempt lasts at most until the attempt's limit ends
// it: the node races its timer (runAttemptWithTimeout).
func TestAttemptClock_CapsAWaitAtTheTimeout(t *testing.T) {
	now := time.Now()
	run := &attemptClock{last: now, runEnds: now.Add(time.Second)}
	if got := run.cap(now.Add(time.Hour)); !got.Equal(now.Add(time.Second)) {
		t.Errorf("run limit: a wait of an hour ends at %v, want the limit %v", got, now.Add(time.Second))
	}
	if got := run.cap(time.Time{}); !got.Equal(now.Add(time.Second)) {
		t.Errorf("run limit: a wait of unknown length ends at %v, want the limit", got)
	}
	if got := run.cap(now.Add(time.Millisecond)); !got.Equal(now.Add(time.Millisecond)) {
		t.Errorf("run limit: a short wait ends at %v, want its own end", got)
	}
	idle := &attemptClock{last: now, idle: time.Minute, runEnds: now.Add(time.Hour)}
	if got := idle.cap(time.Time{}); !got.Equal(now.Add(time.Minute)) {
		t.Errorf("idle limit: a wait ends at %v, want the idle limit %v", got, now.Add(time.Minute))
	}
	if got := (&attemptClock{last: now}).cap(time.Time{}); !got.IsZero() {
		t.Errorf("no limit: a wait of unknown length ends at %v, want no end", got)
	}
}
