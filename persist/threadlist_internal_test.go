package persist

import (
	"context"
	"maps"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// TestListedState_IsLoadState: at every checkpoint of a thread longer than
// fullEvery, with a fork (an update of an old checkpoint) and channels
// that are dropped and written again, listedState rebuilds the versions
// and versions_seen loadState does.
func TestListedState_IsLoadState(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("tick", func(_ context.Context, in any) (any, error) {
			return engine.Pairs("n", in.(map[string]any)["n"].(float64)+1), nil
		}).
		AddNode("tock", func(_ context.Context, in any) (any, error) { return nil, nil }).
		AddEdge(engine.Start, "tick").
		AddConditionalEdges("tick", func(_ context.Context, st map[string]any) (any, error) {
			switch n := st["n"].(float64); {
			case n >= 150:
				return engine.End, nil
			case int(n)%7 == 0:
				return "tock", nil
			}
			return "tick", nil
		}, "tick", "tock", engine.End).
		AddEdge("tock", "tick").
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"), engine.WithRecursionLimit(500)); err != nil {
		t.Fatal(err)
	}
	h, err := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.UpdateState(ctx, h[100].Config, map[string]any{"n": 140.0}, "tick"); err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, "t", "", false)
		if err != nil {
			return err
		}
		names := map[string]string{}
		return b.cps.ForEach(func(k, v []byte) error {
			id, err := parseCheckpointKey(k)
			if err != nil {
				return err
			}
			rec, err := decodeRecord(v)
			if err != nil {
				return err
			}
			want, err := loadState(b.cps, id, rec, nil)
			if err != nil {
				return err
			}
			got, err := listedState(newCache(), b.cps, "t", id, rec, names)
			if err != nil {
				return err
			}
			if !maps.Equal(got.refs, want.refs) || !maps.EqualFunc(got.seen, want.seen, maps.Equal) {
				t.Errorf("checkpoint %s (depth %d): listedState %v %v, loadState %v %v", id, rec.Depth, got.refs, got.seen, want.refs, want.seen)
			}
			checked++
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 2*fullEvery {
		t.Fatalf("only %d checkpoints", checked)
	}
}
