package tui

import (
	"context"
	"fmt"
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
	m = press(t, m, "G") // the oldest rows have the most lanes open
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

// g and G go to the newest and oldest checkpoint; / finds a checkpoint by
// id prefix, step or source, ↓/↑ go through the matches, enter stays
// there and esc goes back.
func TestTree_FindAndEnds(t *testing.T) {
	m := forkedModel(t, 20, 100, 30)
	n := len(m.tree.snaps)
	m = press(t, m, "G")
	if m.tree.nav.cur != n-1 {
		t.Fatalf("G: cursor %d of %d", m.tree.nav.cur, n)
	}
	m = press(t, m, "g")
	if m.tree.nav.cur != 0 {
		t.Fatalf("g: cursor %d", m.tree.nav.cur)
	}
	want := m.tree.snaps[n-5].ID
	m = press(t, m, "/", shortID(want))
	if !m.typing() || m.tree.selected().Config.CheckpointID != want {
		t.Fatalf("/%s selects %s", shortID(want), m.tree.selected().Config.CheckpointID)
	}
	if v := m.View(); !strings.Contains(v, "find › "+shortID(want)) || !strings.Contains(v, "1 of 1") {
		t.Fatalf("the search box is not shown:\n%s", m.View())
	}
	m = press(t, m, "enter")
	if m.typing() || m.tree.nav.cur != n-5 {
		t.Fatalf("enter: typing %v cursor %d", m.typing(), m.tree.nav.cur)
	}
	// Letters go to the box, not to the tree's keys (f would fork).
	m = press(t, m, "/", "update")
	if m.mode != modeTree {
		t.Fatalf("typing in the search box left the tree: mode %v", m.mode)
	}
	var updates []int
	for i, h := range m.tree.snaps {
		if h.Source == engine.SourceUpdate {
			updates = append(updates, i)
		}
	}
	if len(updates) != 20 || m.tree.nav.cur != updates[0] {
		t.Fatalf("/update: cursor %d, updates at %v", m.tree.nav.cur, updates)
	}
	m = press(t, m, "down", "down")
	if m.tree.nav.cur != updates[2] || !strings.Contains(m.View(), fmt.Sprintf("3 of %d", len(updates))) {
		t.Fatalf("↓↓: cursor %d, want %d", m.tree.nav.cur, updates[2])
	}
	m = press(t, m, "esc")
	if m.typing() || m.tree.nav.cur != n-5 || m.mode != modeTree {
		t.Fatalf("esc: typing %v cursor %d mode %v", m.typing(), m.tree.nav.cur, m.mode)
	}
	// No match says what it finds by: a word of a row ("failed") is not.
	m = press(t, m, "/", "zzzz")
	if !strings.Contains(m.View(), "no match (id prefix, step, source)") || m.tree.nav.cur != n-5 {
		t.Fatalf("no match: cursor %d\n%s", m.tree.nav.cur, m.View())
	}
}

// The threads list of a database with many threads pages, jumps to its
// ends and filters by id, graph or status; the title counts them.
func TestThreads_FilterAndPage(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	for i := range 40 {
		if _, err := g.Invoke(ctx, ex.Input, engine.OnThread(fmt.Sprintf("job-%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Thread: "job-00", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	m = press(t, m, "T")
	if m.mode != modeThreads || !strings.Contains(m.View(), "Threads · 40") {
		t.Fatalf("threads:\n%s", m.View())
	}
	m = press(t, m, "G")
	if m.threads.nav.cur != 39 {
		t.Fatalf("G: cursor %d", m.threads.nav.cur)
	}
	m = press(t, m, "g", "pgdown")
	if m.threads.nav.cur < 10 {
		t.Fatalf("pgdn moved to %d", m.threads.nav.cur)
	}
	m = press(t, m, "/", "job-3")
	screen := m.View()
	if !m.typing() || !strings.Contains(screen, "Threads · 10 of 40 · /job-3") || strings.Contains(screen, "job-29") {
		t.Fatalf("filter job-3:\n%s", screen)
	}
	golden(t, "threads-filter-100x30.golden", screen)
	m = press(t, m, "enter", "G", "enter") // keep the filter, open its last
	if m.mode != modeMain || m.thread != "job-39" {
		t.Fatalf("opened %q (mode %v, err %v)", m.thread, m.mode, m.err)
	}
	m = press(t, m, "T", "/", "nothing like it")
	if !strings.Contains(m.View(), "no thread matches the filter") {
		t.Fatalf("empty filter result:\n%s", m.View())
	}
	m = press(t, m, "esc")
	if m.typing() || len(m.threads.shown) != 40 {
		t.Fatalf("esc: typing %v, %d shown", m.typing(), len(m.threads.shown))
	}
}
