package postgres

import (
	"fmt"
	"testing"
)

// TestGroupable: which threads' ops a group's one statement can hold.
func TestGroupable(t *testing.T) {
	writes := func(task string, slots ...int64) *op {
		o := &op{cp: "c1", task: task}
		for _, s := range slots {
			o.writes = append(o.writes, taskWrite{slot: s})
		}
		return o
	}
	put := func(mayExist bool) *op { return &op{put: &putOp{id: "c2", mayExist: mayExist}} }
	for _, c := range []struct {
		name string
		ops  []*op
		want bool
	}{
		{"a superstep", []*op{writes("t", 0), put(false)}, true},
		{"two tasks", []*op{writes("t", 0), writes("u", 0, 1), put(false)}, true},
		{"a task's special and regular writes", []*op{writes("t", -1), writes("t", 0)}, true},
		{"a task's writes saved twice", []*op{writes("t", 0), writes("t", 0)}, false},
		{"a task's special writes saved twice", []*op{writes("t", -3), writes("t", -1)}, false},
		{"a checkpoint that may replace one", []*op{put(true)}, true},
	} {
		if got := groupable(c.ops); got != c.want {
			t.Errorf("%s: groupable = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMayStart: with no group being sent, the open group goes at once
// (a lone thread waits for no one); with every commit slot taken it
// waits; in between it goes once it holds its share of the crowd, and at
// the latest when the groups being sent end, whose sender then wakes one
// of its waiters.
func TestMayStart(t *testing.T) {
	s := &Store{maxInFlight: 2, open: newGroup()}
	join := func(n int) {
		for range n {
			s.open.members = append(s.open.members, &member{q: &threadQueue{}})
		}
	}
	join(1)
	if !s.mayStart(s.open) {
		t.Fatal("nothing being sent: a lone thread must go at once")
	}
	s.seal(s.open)
	join(15)
	if !s.mayStart(s.open) {
		t.Fatal("crowd of 16, one group of 1 being sent: a group of 15 must go")
	}
	s.seal(s.open)
	if s.crowd != 16 || s.flying != 16 || s.inFlight != 2 {
		t.Fatalf("crowd %d, flying %d, in flight %d; want 16, 16, 2", s.crowd, s.flying, s.inFlight)
	}
	join(1)
	if s.mayStart(s.open) {
		t.Fatal("both commit slots taken: the open group must wait")
	}
	// The group of 1 ends: one slot frees, but 1 thread is not its share
	// of a crowd of 16, so no waiter is woken.
	s.inFlight, s.flying = 1, 15
	s.signalOpen()
	if s.mayStart(s.open) || s.open.led {
		t.Fatal("one slot free: a group of 1 of a crowd of 16 must wait")
	}
	join(7)
	if !s.mayStart(s.open) {
		t.Fatal("one slot free: a group of 8 of a crowd of 16 must go")
	}
	// The group of 15 ends too: nothing is being sent, and the waiting
	// group is woken whatever its size.
	s.open.members = s.open.members[:1]
	s.inFlight, s.flying = 0, 0
	s.signalOpen()
	select {
	case <-s.open.lead:
	default:
		t.Fatal("nothing being sent: the open group's waiter was not woken")
	}
	// The crowd shrinks when fewer threads commit at once.
	for range 20 {
		s.seal(s.open)
		s.inFlight, s.flying = 0, 0
		join(1)
	}
	if s.crowd > 2 {
		t.Errorf("crowd %d after 20 lone commits, want at most 2", s.crowd)
	}
}

// TestMayStart_Away: the threads a group's end left with nothing queued
// (between two supersteps) count in the crowd until they queue again, so
// the next group waits for its share of them instead of going with the
// first few back; and the crowd forgets them two group ends later.
func TestMayStart_Away(t *testing.T) {
	s := &Store{maxInFlight: 2, open: newGroup(), queues: map[string]*threadQueue{},
		observed: map[string]int64{}, heads: map[nsKey]*head{}}
	queue := func(threads ...int) {
		for _, i := range threads {
			th := fmt.Sprintf("t%d", i)
			s.enqueue(th, &op{})
			s.want(th, s.queues[th])
		}
	}
	end := func(g *group) {
		s.ended(g)
		if g.led {
			<-g.lead
		}
	}
	upTo := func(n int) []int {
		var is []int
		for i := range n {
			is = append(is, i)
		}
		return is
	}
	queue(upTo(16)...)
	a := s.open
	s.seal(a)
	end(a) // its 16 threads leave
	if s.away != 16 {
		t.Fatalf("away %d after a group of 16 left, want 16", s.away)
	}
	queue(0) // the first one back goes at once: nothing is being sent
	if !s.mayStart(s.open) {
		t.Fatal("nothing being sent: the first thread back must go at once")
	}
	b := s.open
	s.seal(b)
	if s.crowd != 16 {
		t.Fatalf("crowd %d, want 16: 1 sealed and 15 away", s.crowd)
	}
	queue(1, 2, 3, 4, 5, 6, 7)
	if s.mayStart(s.open) {
		t.Fatal("7 of a crowd of 16 with a group being sent: must wait for its share")
	}
	queue(8)
	if !s.mayStart(s.open) {
		t.Fatal("8 of a crowd of 16: must go")
	}
	if s.away != 7 {
		t.Fatalf("away %d with 9 of 16 back, want 7", s.away)
	}
	// Two groups end whose threads queued their next superstep
	// meanwhile: the 7 still away are forgotten.
	c := s.open
	s.seal(c)
	for i := range 9 {
		s.enqueue(fmt.Sprintf("t%d", i), &op{})
	}
	end(b)
	end(c)
	if s.away != 0 {
		t.Fatalf("away %d after two groups ended, want 0", s.away)
	}
}
