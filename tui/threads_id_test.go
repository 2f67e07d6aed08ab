package tui

import (
	"testing"
	"time"
)

// TestThreadsPane_UnusedID: a thread started from the threads list gets
// an id no thread of the database has, however many share its second.
func TestThreadsPane_UnusedID(t *testing.T) {
	var p threadsPane
	p.list = []ThreadSummary{{ID: "run-1"}, {ID: "run-1-2"}, {ID: "other"}}
	if got := p.unusedID("run-0"); got != "run-0" {
		t.Errorf("unusedID(run-0) = %q, want it as it is", got)
	}
	if got := p.unusedID("run-1"); got != "run-1-3" {
		t.Errorf("unusedID(run-1) = %q, want run-1-3 (run-1 and run-1-2 exist)", got)
	}
}

// A thread started from the list takes the id the debugger was opened on
// when the database does not have it (tui --thread ty1 on a graph with no
// example input: T, n), else one made of the time.
func TestThreadsPane_NewID(t *testing.T) {
	now := time.Date(2026, 12, 3, 9, 49, 17, 0, time.UTC)
	p := threadsPane{list: []ThreadSummary{{ID: "t1"}}}
	if got := p.newID("ty1", now); got != "ty1" {
		t.Errorf("newID(ty1) = %q, want ty1, the thread the debugger was opened on", got)
	}
	if got := p.newID("t1", now); got != "run-20261203-094917" {
		t.Errorf("newID(t1) = %q, want an id made of the time: t1 exists", got)
	}
	if got := p.newID("", now); got != "run-20261203-094917" {
		t.Errorf("newID(\"\") = %q, want an id made of the time", got)
	}
}
