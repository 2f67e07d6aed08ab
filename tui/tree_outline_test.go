package tui

import (
	"context"
	"reflect"
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
	for i, s := range m.tree.snaps {
		if !reflect.DeepEqual(s.Next, full[i].Next) || len(s.Tasks) != len(full[i].Tasks) {
			t.Errorf("checkpoint %d: outline plans %v (%d tasks), whole %v (%d)", i, s.Next, len(s.Tasks), full[i].Next, len(full[i].Tasks))
		}
	}
	before = saver.reads()
	m.View()
	m = press(t, m, "down")
	sel := m.tree.selected()
	m.View()
	if got := saver.reads() - before; got != 1 {
		t.Errorf("moving the cursor read %d checkpoints with their values, want 1", got)
	}
	if !reflect.DeepEqual(sel.Values, full[1].Values) || len(sel.Values) == 0 {
		t.Errorf("selected checkpoint values %v, want %v", sel.Values, full[1].Values)
	}
}
