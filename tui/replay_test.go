package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// chain is START → a → b → END where b adds delta to total: two builds
// with another delta are "the code before and after a change".
func chain(t testing.TB, saver engine.Saver, delta float64) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("log")).
		AddNode("a", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", s.(map[string]any)["total"].(float64)*2, "log", []any{"a"}), nil
		}).
		AddNode("b", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", s.(map[string]any)["total"].(float64)+delta, "log", []any{"b"}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func recorded(t testing.TB) *engine.MemorySaver {
	t.Helper()
	saver := engine.NewMemorySaver()
	if _, err := chain(t, saver, 1).Invoke(context.Background(), map[string]any{"total": 5.0}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	return saver
}

// replayFromInput opens thread rec with g, selects its input checkpoint in
// the tree and starts a replay from there with R.
func replayFromInput(t *testing.T, g *engine.Graph, saver engine.Saver) Model {
	t.Helper()
	opts := Options{Thread: "rec", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "t")
	for m.tree.selected().Metadata.Source != engine.SourceInput {
		m = press(t, m, "down")
	}
	m = press(t, m, "R")
	if m.replay == nil || m.mode != modeMain || m.err != nil {
		t.Fatalf("R: replay %v mode %v err %v", m.replay, m.mode, m.err)
	}
	if h, _ := m.sess.History(context.Background()); len(h) != 4 {
		t.Fatalf("starting a replay wrote a checkpoint: %d in history", len(h))
	}
	return m
}

func TestModel_Replay_SameCodeMatches(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 1), saver)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone || !strings.Contains(m.note, "replay matches the recording: 3 supersteps compared") {
		t.Fatalf("status %v note %q err %v", m.view.Status, m.note, m.err)
	}
}

// With changed code, c stops at the Execute where the writes first differ,
// and the tasks pane says which task and channel.
func TestModel_Replay_StopsAtDivergence(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 100), saver)
	m = press(t, m, "c")
	if m.view.Phase != engine.PhaseExecuted || len(m.view.Tasks) != 1 || m.view.Tasks[0].Name != "b" {
		t.Fatalf("stopped at step %d phase %v tasks %v, want the Execute of b", m.view.Step, m.view.Phase, m.view.Tasks)
	}
	v := m.View()
	for _, want := range []string{"replay DIVERGED at recorded step 2, b: writes differ on total", "≠ recorded", "REPLAY diverged"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	// __start__ and a matched on the way.
	if m.replay.compared != 3 {
		t.Fatalf("compared %d steps", m.replay.compared)
	}
}
