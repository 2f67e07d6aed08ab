package engine

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// Participants that come to write at once take turns in order; one whose
// turn it is but who does not come for absentAfter (it waits on time) is
// skipped until it comes, as JavaScript's event loop lets the others run
// while one waits on a timer.
func TestSubgraphTurns_AbsentHolderIsSkipped(t *testing.T) {
	ls := newSubgraphTurns(2)
	var mu sync.Mutex
	var order []int
	write := func(i int) {
		ls.wait(i)
		mu.Lock()
		order = append(order, i)
		mu.Unlock()
		ls.pass(i)
	}
	done := make(chan struct{})
	go func() { // participant 1 writes three times while 0 is away
		for range 3 {
			write(1)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("participant 1 waited for the absent participant 0")
	}
	write(0) // 0 comes back and writes without waiting for anyone
	ls.leave(0)
	ls.leave(1)
	if want := []int{1, 1, 1, 0}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}

}
