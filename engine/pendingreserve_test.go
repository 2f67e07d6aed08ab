package engine

import "testing"

// reserve makes room in every list for the superstep's tasks, though the
// lists' capacities differ: each grows on its own, rounded to its element
// size's class.
func TestPendingWrites_ReserveSizesEveryList(t *testing.T) {
	p := &pendingWrites{}
	for _, id := range []string{"a", "b", "c"} {
		p.push(id, nil)
	}
	p.order = append(make([]string, 0, 64), p.order...) // order alone has room
	p.reserve(40, true)
	if cap(p.order) < 40 || cap(p.refs) < 40 || cap(p.batches) < 40 {
		t.Fatalf("caps after reserve(40): order %d, refs %d, batches %d; want 40 each", cap(p.order), cap(p.refs), cap(p.batches))
	}
	if len(p.order) != 3 || len(p.refs) != 3 || len(p.batches) != 3 || p.order[2] != "c" {
		t.Fatalf("reserve changed the entries: %v", p.order)
	}
	refs := cap(p.refs)
	p.reserve(40, false) // not saved: no entries to make room for
	if cap(p.refs) != refs {
		t.Fatal("reserve grew a list for a superstep that saves nothing")
	}
}
