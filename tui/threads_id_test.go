package tui

import "testing"

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
