package engine

import "testing"

// TestTriggerFires pins LangGraph's trigger rule as the debugger reads it
// (pregel/_algo.py _triggers): an available channel newer than what the
// node saw fires; one never seen counts as seen at the null version.
func TestTriggerFires(t *testing.T) {
	for _, c := range []struct {
		available     bool
		current, seen Version
		want          bool
	}{
		{true, 1, 0, true},   // never seen: the null version
		{true, 3, 2, true},   // newer than seen
		{true, 2, 2, false},  // already seen
		{false, 3, 2, false}, // newer but cleared (a branch channel after its step)
		{false, 0, 0, false}, // never written
	} {
		if got := TriggerFires(c.available, c.current, c.seen); got != c.want {
			t.Errorf("TriggerFires(%v, %d, %d) = %v, want %v", c.available, c.current, c.seen, got, c.want)
		}
	}
}
