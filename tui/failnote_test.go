package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// fanFail is a Send fan-out to a subgraph node (work, one copy per item)
// whose next node, summarize, fails while pick is out of range: its error
// is the expression language's, long enough to fill a status line.
const fanFail = `{
  "name": "fanfail",
  "state": {"items": null, "results": "add", "pick": null, "summary": null},
  "nodes": [
    {"name": "split", "update": {"items": "[3, 1, 2]"}},
    {"name": "work", "subgraph": "inner"},
    {"name": "summarize", "update": {"summary": "'picked ' + str(state.results[state.pick] * 10)"}}
  ],
  "subgraphs": {
    "inner": {
      "state": {"n": null, "results": "add"},
      "nodes": [{"name": "square", "update": {"results": "[state.n * state.n]"}}],
      "edges": [["__start__", "square"], ["square", "__end__"]]
    }
  },
  "edges": [["__start__", "split"], ["work", "summarize"], ["summarize", "__end__"]],
  "branches": [{"from": "split", "route": "sendEach('work', state.items, 'n')", "ends": ["work"]}],
  "ops": [{"op": "invoke", "input": {"results": [], "pick": 7}}]
}`

// fanFailed is the debugger opened at w×h on thread "bad" of fanFail,
// which failed in summarize's step.
func fanFailed(t *testing.T, w, h int) (Model, *engine.Graph) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g := buildScenario(t, parseScenario(t, "fanfail.json", fanFail), saver)
	if _, err := g.Invoke(context.Background(), map[string]any{"results": []any{}, "pick": 7}, engine.OnThread("bad")); err == nil {
		t.Fatal("summarize did not fail")
	}
	opts := Options{Thread: "bad", Saver: saver}
	return newTestModel(t, newEngineSession(g, opts), opts, w, h), g
}

// A thread opened at its failure says what to do next before the error,
// which the status line may cut (at 120 columns it cut "n runs it again"
// after a long expression error).
func TestModel_Open_FailureNoteSaysTheWayOnFirst(t *testing.T) {
	m, _ := fanFailed(t, 120, 40)
	checkFrame(t, m)
	status := strings.Split(m.View(), "\n")[1]
	if !strings.Contains(status, "step 3 failed; n runs it again") {
		t.Errorf("the status line does not say how to go on:\n%s", status)
	}
	if !strings.Contains(m.note, `node "summarize" failed`) {
		t.Errorf("the note lost the error: %q", m.note)
	}
}

// o in the tree on the checkpoint a failed step stopped at, whose row
// says it was written "by work ×3" (a Send's copies of a subgraph node),
// offers those copies: the failed step's own tasks (summarize) run no
// subgraph. It said "ran no subgraph task".
func TestModel_Tree_OpenAtFailureOffersTheWriters(t *testing.T) {
	m, _ := fanFailed(t, 120, 40)
	m = press(t, m, "t", "g")
	if row := m.tree.describe(m.tree.nav.cur); !strings.Contains(row, "by work ×3") || !strings.Contains(row, "summarize failed") {
		t.Fatalf("not on the failed checkpoint: %q", row)
	}
	m = press(t, m, "o")
	v := m.View()
	if m.mode != modeTree || !m.tree.pick.on() || len(m.tree.pick.refs) != 3 || !strings.Contains(v, "work[1]") {
		t.Fatalf("o at the failure: note %q err %v\n%s", m.note, m.err, v)
	}
	m = press(t, m, "enter")
	if v := m.View(); m.mode != modeSubgraph || m.err != nil || !strings.Contains(v, "fanfail › work[1]") {
		t.Fatalf("enter on work[1]: mode %v err %v\n%s", m.mode, m.err, v)
	}
}
