package tui

import (
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A subgraph a node function invokes, declared on the node
// (engine.UsesSubgraph; scenario nodes with "invoke"), is entered like a
// subgraph node's, and an interrupt raised inside it is shown with its
// path and answered from the parent.
func TestModel_Subgraph_InvokedFromNode(t *testing.T) {
	g, saver := scenarioGraph(t, "invoke_subgraph_state.json")
	opts := Options{Thread: "inv", Input: map[string]any{"myKey": ""}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c") // inner stops before inner2, outer1 finished beside it
	for m.focus != paneTasks {
		m = press(t, m, "tab")
	}
	for i := 0; i < 10 && !strings.HasPrefix(m.tasks.rows[m.tasks.nav.cur].text, "inner interrupted  ⤷"); i++ {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	v := m.View()
	if m.mode != modeSubgraph || m.err != nil || !containsLine(v, "› inner  read only · namespace inner:") {
		t.Fatalf("mode %v err %v:\n%s", m.mode, m.err, v)
	}
	for _, want := range []string{"Checkpoints · 3", `myKey = "got here"`} {
		if !strings.Contains(v, want) {
			t.Fatalf("invoked subgraph view lacks %q:\n%s", want, v)
		}
	}
	m = press(t, m, "esc", "c") // on to asker, whose subgraph asks
	if m.mode != modeAnswer || !strings.Contains(m.View(), "asker › ask") {
		t.Fatalf("the interrupt inside the invoked subgraph, mode %v:\n%s", m.mode, m.View())
	}
	m = press(t, m, "yes", "enter", "c")
	if m.err != nil || m.view.Status != engine.StatusDone || !strings.HasSuffix(m.view.Values["myKey"].(string), " asked:yes") {
		t.Fatalf("after the answer: status %v values %v err %v", m.view.Status, m.view.Values, m.err)
	}
}
