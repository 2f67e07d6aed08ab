package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestTreeLayoutJoins draws a thread whose checkpoint c1 has three forks
// and c3 two, a branch crossing a lane on its way back: each
// branch gets a lane while its newer checkpoints are drawn, and a
// connector row joins the lanes where their parent is reached.
func TestTreeLayoutJoins(t *testing.T) {
	heads := []engine.CheckpointHead{ // newest first
		{ID: "a", ParentID: "c1"},
		{ID: "b", ParentID: "c3"},
		{ID: "c", ParentID: "c1"},
		{ID: "d", ParentID: "c3"},
		{ID: "e", ParentID: "c1"},
		{ID: "c3", ParentID: "c2"},
		{ID: "c2", ParentID: "c1"},
		{ID: "c1"},
	}
	p := &treePane{snaps: heads}
	p.layout()
	var got []string
	for _, r := range p.rows {
		got = append(got, strings.TrimRight(r.graph, " "))
	}
	want := []string{
		"●",
		"│ ●",
		"│ │ ●",
		"│ │ │ ●",
		"│ │ │ │ ●",
		"│ ├─┼─┘ │",
		"│ ● │   │",
		"│ ● │   │",
		"├─┴─┴───┘",
		"●",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, row := range p.points {
		if p.rows[row].snap != i {
			t.Errorf("points[%d] = row %d, which draws snapshot %d", i, row, p.rows[row].snap)
		}
	}
}

// TestTreeOutcome: a checkpoint row names the failed tasks, and the ones
// cancelled beside them; a run its caller stopped names its cancelled
// tasks alone, with no stray separator.
func TestTreeOutcome(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		tasks []engine.SnapshotTask
		want  string
	}{
		{[]engine.SnapshotTask{{Name: "a", Error: "boom", Err: boom}, {Name: "b", Error: "cancelled", Err: context.Canceled}}, " " + glyphFailed + " a failed, b cancelled"},
		{[]engine.SnapshotTask{{Name: "a", Error: "boom", Err: boom}}, " " + glyphFailed + " a failed"},
		{[]engine.SnapshotTask{{Name: "b", Error: "cancelled", Err: context.Canceled}}, " " + glyphFailed + " b cancelled"},
		{[]engine.SnapshotTask{{Name: "b"}}, ""},
	} {
		if got := outcome(&engine.StateSnapshot{Tasks: c.tasks}); got != c.want {
			t.Errorf("outcome(%v) = %q, want %q", c.tasks, got, c.want)
		}
	}
}

// TestTree_CollidingShortIDs: checkpoints whose short forms collide are
// named whole in the tree, so that no two rows read the same.
func TestTree_CollidingShortIDs(t *testing.T) {
	heads := []engine.CheckpointHead{
		{ID: "18ed5db7-0000-0000-0000-000000000002", ParentID: "18ed5db7-0000-0000-0000-000000000001", Step: 0, Source: engine.SourceLoop},
		{ID: "18ed5db7-0000-0000-0000-000000000001", Step: -1, Source: engine.SourceInput},
	}
	p := newTreePane(context.Background(), heads, heads[0].ID, "t", nil)
	for i, h := range heads {
		if row := p.describe(i); !strings.HasPrefix(row, h.ID) {
			t.Errorf("row %d %q does not name its checkpoint whole", i, row)
		}
	}
}

// TestTree_RowKeepsCurrentMark: a row too long for the pane gives up what
// made the checkpoint, then what runs next, and keeps its "← current"
// mark and what its tasks left (the research thread travelled back to
// its answered review at 120 columns, where the row was cut mid-mark).
func TestTree_RowKeepsCurrentMark(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c", `{"action":"approve"}`, "enter", "c", "t")
	var answered string
	for _, s := range m.tree.snaps {
		if strings.Contains(m.tree.describe(m.tree.byID[s.ID]), glyphOK+" answered") {
			answered = s.ID
		}
	}
	if answered == "" {
		t.Fatal("no answered checkpoint in the tree")
	}
	m.tree.nav.cur = m.tree.byID[answered]
	m = press(t, m, "enter", "t", "g") // current, and the cursor away from it
	checkFrame(t, m)
	screen := m.View()
	golden(t, "tree-current-120x40.golden", screen)
	var row string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, shortID(answered)+" step") {
			row = l
		}
	}
	if !strings.Contains(row, glyphOK+" answered ← current") {
		t.Errorf("the current row lost its outcome or mark:\n%s", row)
	}
	if strings.Contains(row, " by ") {
		t.Errorf("the row kept what made it and cut something it needs:\n%s", row)
	}
}

// TestFitRow: parts give way highest drop first, then the marks give up
// their words, then the text is cut at its end; the marks are never cut.
// The branch's tag goes before what the tasks left is cut.
func TestFitRow(t *testing.T) {
	parts := []headerPart{{"abc step 1  loop  ", 0}, {" [replay]", dropBranch}, {" by x", dropMadeBy}, {" → y", dropNext}, {" ✗ z failed", 0}}
	for _, c := range []struct {
		w    int
		want string
	}{
		{70, "abc step 1  loop   [replay] by x → y ✗ z failed ← current"},
		{53, "abc step 1  loop   [replay] → y ✗ z failed ← current"},
		{49, "abc step 1  loop   [replay] → y ✗ z failed ←"},
		{43, "abc step 1  loop   [replay] ✗ z failed ←"},
		{34, "abc step 1  loop   ✗ z failed ←"},
		{24, "abc step 1  loop   ✗ … ←"},
	} {
		if got := fitRow(parts, " ← current", " ←", c.w); got != c.want {
			t.Errorf("fitRow(%d) = %q, want %q", c.w, got, c.want)
		}
	}
}
