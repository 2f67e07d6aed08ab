package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// forkedModel is the linear graph's thread with n forks, each an update
// of an earlier checkpoint, so the tree has many lanes; the debugger is
// open on it at w×h with the tree shown.
func forkedModel(t *testing.T, n, w, h int) Model {
	t.Helper()
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	if _, err := g.Invoke(ctx, ex.Input, engine.OnThread("forks")); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		hist, err := g.History(ctx, engine.Config{ThreadID: "forks"}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Fork from an old checkpoint each time: every fork opens a lane.
		base := hist[len(hist)-1-i%3].Config
		if _, err := g.UpdateState(ctx, base, map[string]any{"total": float64(i)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Thread: "forks", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, w, h)
	return press(t, m, "t")
}

// Every checkpoint row of a tree with more lanes than the pane can draw
// still shows its checkpoint id: the lanes past a third of the pane fold.
func TestTree_ManyForksKeepIDsInView(t *testing.T) {
	m := forkedModel(t, 40, 100, 30)
	if len(m.tree.snaps) < 40 {
		t.Fatalf("%d checkpoints", len(m.tree.snaps))
	}
	for range len(m.tree.snaps) { // to the oldest rows: they have the most lanes open
		m = press(t, m, "down")
	}
	screen := m.View()
	golden(t, "tree-forks-100x30.golden", screen)
	shown := 0
	for r := m.tree.nav.off; r < len(m.tree.rows) && r < m.tree.nav.off+m.bodyHeight()-2; r++ {
		row := m.tree.rows[r]
		if row.snap < 0 {
			continue
		}
		shown++
		if id := shortID(m.tree.snaps[row.snap].ID); !strings.Contains(screen, id+" step") {
			t.Errorf("checkpoint %s is drawn without its id", id)
		}
	}
	if shown < 10 {
		t.Fatalf("only %d checkpoint rows drawn", shown)
	}
}

