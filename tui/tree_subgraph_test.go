package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// savedCount counts the checkpoints the saver holds for thread, every
// namespace's, to show that a key wrote none.
func savedCount(t *testing.T, saver *engine.MemorySaver, thread string) int {
	t.Helper()
	tuples, err := saver.List(context.Background(), engine.Config{ThreadID: thread}, engine.ListOptions{AllNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(tuples)
}

// o on a checkpoint of the tree whose step ran a subgraph task opens its
// namespace read only, as enter on the task does after time travel, but
// without the time travel: nothing is written and the run stays where it
// was. esc comes back to the tree, on the same checkpoint. It took a
// checkout first.
func TestModel_Tree_OpensSubgraphWithoutCheckout(t *testing.T) {
	m, saver := nestedModel(t, 120, 40)
	m = press(t, m, "esc", "r", "ok", "enter", "c")
	if m.view == nil || m.view.Status != engine.StatusDone {
		t.Fatalf("the run did not end: %v", m.View())
	}
	at, saved := m.view.CheckpointID, savedCount(t, saver, "nested")
	m = press(t, m, "t", "home", "j") // the checkpoint mid's step wrote
	picked := m.tree.selected().Config.CheckpointID
	if !m.tree.keys.Subgraph.Enabled() {
		t.Fatalf("o is off in the tree:\n%s", m.View())
	}
	m = press(t, m, "o")
	v := m.View()
	if m.mode != modeSubgraph || m.err != nil || !strings.Contains(v, "nested › mid") {
		t.Fatalf("o: mode %v err %v\n%s", m.mode, m.err, v)
	}
	if m.view.CheckpointID != at || savedCount(t, saver, "nested") != saved {
		t.Fatalf("o moved the run to %s (was %s) or wrote checkpoints", m.view.CheckpointID, at)
	}
	m = press(t, m, "esc")
	if m.mode != modeTree || m.tree.selected().Config.CheckpointID != picked {
		t.Fatalf("esc: mode %v, not back on the tree's checkpoint:\n%s", m.mode, m.View())
	}
	// A checkpoint whose step ran no subgraph task says so.
	m = press(t, m, "j") // the checkpoint pre's step wrote
	m = press(t, m, "o")
	if m.mode != modeTree || !strings.Contains(m.note, "ran no subgraph task") {
		t.Fatalf("o on pre's checkpoint: mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "esc")
	if m.view.CheckpointID != at || savedCount(t, saver, "nested") != saved {
		t.Fatalf("the tree moved the run to %s (was %s) or wrote checkpoints", m.view.CheckpointID, at)
	}
}

// When the step ran several subgraph tasks (a Send's copies of one node),
// o asks which, naming the copies as the tasks pane does (worker[1],
// worker[2]), and opens the one chosen; esc closes the list.
func TestModel_Tree_ChoosesAmongSubgraphTasks(t *testing.T) {
	g, saver := scenarioGraph(t, "subgraph_send_interrupt.json")
	opts := Options{Thread: "s", Input: map[string]any{"out": []any{}}, Saver: saver, GraphName: "fan"}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c", "esc")
	if m.view == nil || m.view.Status != engine.StatusInterrupted || len(m.view.Tasks) != 2 {
		t.Fatalf("not at the two workers' interrupts: %v", m.View())
	}
	at, saved := m.view.CheckpointID, savedCount(t, saver, "s")
	second := m.view.Tasks[1].ID
	m = press(t, m, "t", "o")
	v := m.View()
	if m.mode != modeTree || !m.tree.pick.on() || !strings.Contains(v, "open which subgraph") || !strings.Contains(v, "worker[1]") || !strings.Contains(v, "worker[2]") {
		t.Fatalf("o over two subgraph tasks should ask which:\n%s", v)
	}
	checkFrame(t, m)
	m = press(t, m, "esc")
	if m.mode != modeTree || m.tree.pick.on() {
		t.Fatalf("esc should close the list, mode %v", m.mode)
	}
	m = press(t, m, "o", "j", "enter")
	v = m.View()
	if m.mode != modeSubgraph || m.err != nil || !strings.Contains(v, "fan › worker[2]") || len(m.sub.path) != 1 || m.sub.path[0].taskID != second {
		t.Fatalf("o, j, enter should open worker[2]'s namespace: mode %v err %v path %+v\n%s", m.mode, m.err, m.sub.path, v)
	}
	if !strings.Contains(v, "interrupt (waiting)") {
		t.Fatalf("worker[2]'s namespace lacks its waiting interrupt:\n%s", v)
	}
	if m.view.CheckpointID != at || savedCount(t, saver, "s") != saved {
		t.Fatalf("o moved the run or wrote checkpoints")
	}
	m = press(t, m, "esc")
	if m.mode != modeTree {
		t.Fatalf("esc from the namespace: mode %v", m.mode)
	}
}
