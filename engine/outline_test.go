package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// pagingOutliner records the page sizes HistoryOutline asks for.
type pagingOutliner struct {
	enginetest.OutlineSaver
	limits []int
}

func (s *pagingOutliner) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(string) bool) ([]*engine.CheckpointTuple, error) {
	s.limits = append(s.limits, opt.Limit)
	return s.OutlineSaver.Outline(ctx, cfg, opt, keep)
}

// TestHistoryOutline_PagesAndPlans: HistoryOutline reads a long thread a
// page at a time, without state values, and plans the same tasks as
// History for every checkpoint.
func TestHistoryOutline_PagesAndPlans(t *testing.T) {
	ctx := context.Background()
	saver := &pagingOutliner{OutlineSaver: enginetest.OutlineSaver{MemorySaver: engine.NewMemorySaver()}}
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("tick", func(_ context.Context, s any) (any, error) {
			n, _ := s.(map[string]any)["n"].(float64)
			return map[string]any{"n": n + 1}, nil
		}).
		AddEdge(engine.Start, "tick").
		AddConditionalEdges("tick", func(_ context.Context, s map[string]any) (any, error) {
			if n, _ := s["n"].(float64); n < 2500 {
				return "tick", nil
			}
			return engine.End, nil
		}, "tick", engine.End).
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"), engine.WithRecursionLimit(3000)); err != nil {
		t.Fatal(err)
	}
	full, err := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.HistoryOutline(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(full) || len(full) < 2500 {
		t.Fatalf("outline has %d checkpoints, history %d", len(out), len(full))
	}
	for _, l := range saver.limits {
		if l <= 0 || l > 1024 {
			t.Errorf("outline read a page of %d checkpoints, want 1 to 1024", l)
		}
	}
	for i := range full {
		o, f := out[i], full[i]
		if o.Config != f.Config || o.ParentID != f.ParentID || o.Metadata.Step != f.Metadata.Step || !reflect.DeepEqual(o.Next, f.Next) || len(o.Tasks) != len(f.Tasks) {
			t.Fatalf("checkpoint %d: outline %+v next %v, history %+v next %v", i, o.Config, o.Next, f.Config, f.Next)
		}
		if o.Values != nil || o.Checkpoint != nil {
			t.Fatalf("checkpoint %d: the outline keeps values or the checkpoint", i)
		}
	}
	// PlannedTasks plans what the snapshots list, without building them.
	tuples, err := saver.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil || len(tuples) != len(full) {
		t.Fatalf("%d tuples, %v", len(tuples), err)
	}
	for i, tu := range tuples {
		planned, err := g.PlannedTasks(tu)
		if err != nil || len(planned) != len(full[i].Tasks) {
			t.Fatalf("checkpoint %d: %d tasks planned (%v), snapshot has %d", i, len(planned), err, len(full[i].Tasks))
		}
		for j, pt := range planned {
			st := full[i].Tasks[j]
			if pt.ID != st.ID || pt.Name != st.Name || pt.Push != st.Push || pt.Subgraph != st.Subgraph {
				t.Fatalf("checkpoint %d task %d: planned %+v, snapshot %+v", i, j, pt, st)
			}
		}
	}
	// A limit is honoured across pages.
	if some, err := g.HistoryOutline(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{Limit: 1500}); err != nil || len(some) != 1500 || some[1499].Config != full[1499].Config {
		t.Errorf("HistoryOutline with Limit 1500: %d snapshots, %v", len(some), err)
	}
}
