package tui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/graphs"
)

// outlineSaver is a MemorySaver that can outline (engine.Outliner), and
// counts the checkpoints read with their state values.
type outlineSaver struct {
	enginetest.OutlineSaver
	mu         sync.Mutex
	withValues int
}

func (s *outlineSaver) count(n int) {
	s.mu.Lock()
	s.withValues += n
	s.mu.Unlock()
}

func (s *outlineSaver) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.withValues
}

func (s *outlineSaver) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	out, err := s.MemorySaver.List(ctx, cfg, opt)
	s.count(len(out))
	return out, err
}

func (s *outlineSaver) GetTuple(ctx context.Context, cfg engine.Config) (*engine.CheckpointTuple, error) {
	out, err := s.MemorySaver.GetTuple(ctx, cfg)
	if out != nil {
		s.count(1)
	}
	return out, err
}

// TestTree_ReadsOutlineAndSelectedOnly is item 5 of issue 17 for the
// debugger: the tree loaded every checkpoint with its values (History).
// Now it loads an outline, reads the checkpoint under the cursor whole,
// once while the cursor stays, and draws the same tasks and next nodes.
func TestTree_ReadsOutlineAndSelectedOnly(t *testing.T) {
	ctx := context.Background()
	ex, _ := graphs.Get("linear")
	saver := &outlineSaver{OutlineSaver: enginetest.OutlineSaver{MemorySaver: engine.NewMemorySaver()}}
	g, err := ex.Build(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, ex.Input, engine.OnThread("t1")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t1", Saver: saver}
	sess := newEngineSession(g, opts)
	m := newTestModel(t, sess, opts, 120, 30)
	before := saver.reads()
	m = press(t, m, "t")
	if m.mode != modeTree || len(m.tree.snaps) < 3 {
		t.Fatalf("tree: mode %v, %d checkpoints", m.mode, len(m.tree.snaps))
	}
	if got := saver.reads() - before; got != 1 {
		t.Errorf("opening the tree read %d checkpoints with their values, want 1 (the selected one)", got)
	}
	full, err := g.History(ctx, engine.Config{ThreadID: "t1"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Opening it planned the rows it draws (in a Cmd): all of them here.
	for i := range m.tree.snaps {
		s := m.tree.plan(i)
		if s == nil {
			t.Fatalf("checkpoint %d is drawn but not planned", i)
		}
		if !reflect.DeepEqual(s.Next, full[i].Next) || len(s.Tasks) != len(full[i].Tasks) {
			t.Errorf("checkpoint %d: outline plans %v (%d tasks), whole %v (%d)", i, s.Next, len(s.Tasks), full[i].Next, len(full[i].Tasks))
		}
	}
	before = saver.reads()
	m = press(t, m, "down") // and the Cmd that reads the checkpoint
	sel := m.tree.selected()
	m.View()
	if got := saver.reads() - before; got != 1 {
		t.Errorf("moving the cursor read %d checkpoints with their values, want 1", got)
	}
	if !reflect.DeepEqual(sel.Values, full[1].Values) || len(sel.Values) == 0 {
		t.Errorf("selected checkpoint values %v, want %v", sel.Values, full[1].Values)
	}
}

// planCounter is an outlineSaver that counts the checkpoints it outlines
// (plans without values).
type planCounter struct {
	*outlineSaver
	outlined int
}

func (s *planCounter) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(string) bool) ([]*engine.CheckpointTuple, error) {
	out, err := s.outlineSaver.Outline(ctx, cfg, opt, keep)
	s.mu.Lock()
	s.outlined += len(out)
	s.mu.Unlock()
	return out, err
}

func (s *planCounter) planned() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outlined
}

// TestTree_PlansDrawnRowsOnly is item 5 of issue 17 for a long thread:
// the tree holds a head per checkpoint and plans only the rows it draws
// (and their parents), so opening and paging through a tree of n
// checkpoints plans a screenful at a time, whatever n is.
func TestTree_PlansDrawnRowsOnly(t *testing.T) {
	ctx := context.Background()
	saver := &planCounter{outlineSaver: &outlineSaver{OutlineSaver: enginetest.OutlineSaver{MemorySaver: engine.NewMemorySaver()}}}
	g := enginetest.AppendLoop(t, saver, 800, nil)
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("long"), engine.WithRecursionLimit(1000)); err != nil {
		t.Fatal(err)
	}
	const height = 30
	opts := Options{Thread: "long", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, height)
	values, plans := saver.reads(), saver.planned()
	m = press(t, m, "t")
	view := m.View()
	if m.mode != modeTree || len(m.tree.snaps) < 800 {
		t.Fatalf("tree: mode %v, %d checkpoints", m.mode, len(m.tree.snaps))
	}
	if got := saver.reads() - values; got != 1 {
		t.Errorf("opening the tree read %d checkpoints with values, want 1", got)
	}
	if got := saver.planned() - plans; got > 2*height {
		t.Errorf("opening the tree planned %d checkpoints, want at most %d (a screenful)", got, 2*height)
	}
	if !strings.Contains(view, "→ add") || !strings.Contains(view, "by add") {
		t.Errorf("the drawn rows lack their plans:\n%s", view)
	}
	for range 5 {
		plans = saver.planned()
		m = press(t, m, "pgdown")
		m.View()
		if got := saver.planned() - plans; got > 2*height {
			t.Errorf("a page down planned %d checkpoints, want at most %d", got, 2*height)
		}
	}
	// The pane keeps a window of plans, not one per checkpoint seen.
	if w := m.tree.plans; len(w.snaps)+len(w.extra) > 2*height {
		t.Errorf("the pane holds %d plans", len(w.snaps)+len(w.extra))
	}
}

// TestTreePane_NoObjectPerRow: laying out a thread without forks makes no
// object per checkpoint (the rows share their graph string), so the
// tree's memory is its heads, a row and an index entry each.
func TestTreePane_NoObjectPerRow(t *testing.T) {
	const n = 5000
	heads := make([]engine.CheckpointHead, n)
	for i := range heads {
		heads[i] = engine.CheckpointHead{ID: fmt.Sprintf("%08d", n-i), Step: n - i - 2, Source: engine.SourceLoop}
		if i < n-1 {
			heads[i].ParentID = fmt.Sprintf("%08d", n-i-1)
		}
	}
	allocs := testing.AllocsPerRun(3, func() { newTreePane(context.Background(), heads, "", "t", nil) })
	if allocs > n/20 {
		t.Errorf("laying out %d checkpoints made %v allocations, want at most %d", n, allocs, n/20)
	}
}
