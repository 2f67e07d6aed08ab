package engine

import "testing"

// The first visit to a subgraph namespace in a replay belongs to the first
// planned subgraph node task of the superstep, whichever run loads first
// (LangGraph.js starts tasks in planned order and each loads before it
// waits for anything), and a reservation its task never took is released
// with its superstep.
func TestReplayState_FirstVisitFollowsPlannedOrder(t *testing.T) {
	sub := &Graph{}
	first := &task{name: "sub", parentNS: "", ident: "id-1", node: &node{name: "sub", subgraph: sub}}
	second := &task{name: "sub", parentNS: "", ident: "id-2", node: &node{name: "sub", subgraph: sub}}
	plain := &task{name: "other", ident: "id-3", node: &node{name: "other"}}
	r := &replayState{bound: "cp"}
	keys := r.reserveFirstVisits([]*task{plain, first, second})
	if len(keys) != 1 || keys[0] != "sub" {
		t.Fatalf("reserved %q, want [sub]", keys)
	}
	if r.firstVisit(second.namespace(), second) {
		t.Fatal("the second planned run took the first visit by loading first")
	}
	if !r.firstVisit(first.namespace(), first) {
		t.Fatal("the first planned run did not get the first visit")
	}
	if r.firstVisit(first.namespace()+"|1", first) {
		t.Fatal("the task's second subgraph run was a first visit too")
	}
	r.release(keys)

	// A reservation that was not taken (its task never loaded) ends
	// with its superstep: the next run that loads visits first.
	r2 := &replayState{bound: "cp"}
	r2.release(r2.reserveFirstVisits([]*task{first}))
	if !r2.firstVisit(second.namespace(), second) {
		t.Fatal("a released reservation still held the first visit")
	}
	// A namespace visited in an earlier superstep is not reserved again.
	if keys := r2.reserveFirstVisits([]*task{first}); len(keys) != 0 {
		t.Fatalf("reserved the visited namespace again: %q", keys)
	}
}
