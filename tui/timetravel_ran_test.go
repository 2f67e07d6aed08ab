package tui

import (
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// Time travel to a past loop checkpoint says which step's tasks wrote it
// (the tree's "by …"), and that it was written whole: the tasks are not
// ones that "saved writes before the superstep was cut off", which is
// what a thread reopened at a killed step shows, and n there forks and
// runs the next step afresh, reusing nothing (ENGINE-NOTES 7.2).
func TestModel_TimeTravel_SaysWhoWroteTheCheckpoint(t *testing.T) {
	m, _ := nestedModel(t, 120, 40)
	m = press(t, m, "r", "ok", "enter", "c")
	if m.view == nil || m.view.Status != engine.StatusDone {
		t.Fatalf("the run did not end: %v", m.View())
	}
	for _, c := range []struct {
		down   int
		by     string
		lacks  string
		expect []string
	}{
		{1, "mid", "cut off", []string{"ran: mid", "⤷ mid: enter opens its subgraph"}},
		{2, "pre", "cut off", []string{"ran: pre", `out = ["pre"]`}},
	} {
		m = press(t, m, "t", "home")
		for i := 0; i < c.down; i++ {
			m = press(t, m, "j")
		}
		m = press(t, m, "enter")
		v := m.View()
		if !strings.Contains(v, "time travel: checkpoint") || strings.Contains(v, c.lacks) {
			t.Fatalf("time travel to the checkpoint %s wrote says %q:\n%s", c.by, c.lacks, v)
		}
		for _, want := range c.expect {
			if !strings.Contains(v, want) {
				t.Fatalf("time travel to the checkpoint %s wrote lacks %q:\n%s", c.by, want, v)
			}
		}
	}
}
