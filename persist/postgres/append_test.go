package postgres_test

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist/postgres"
)

// TestStore_GrowingListAppends: a list that grows by one element per
// superstep is stored as the appended elements, with a full copy only when
// the appended bytes outweigh the last one (a handful in 300 supersteps,
// not one every 256 or every one), and every version of it reads back, on
// a warm store and on a fresh one (issue 17 item 8).
func TestStore_GrowingListAppends(t *testing.T) {
	ctx := context.Background()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	const steps = 300
	g := enginetest.AppendLoop(t, s, steps, nil)
	if _, err := g.Invoke(ctx, map[string]any{"items": []any{"x"}, "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(steps+10)); err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]*postgres.Store{"warm": s, "fresh": open(t, u, postgres.Options{})} {
		hist, err := st.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != steps+2 {
			t.Fatalf("%s: %d checkpoints", name, len(hist))
		}
		for _, tup := range hist {
			step := tup.Metadata.Step
			items, _ := tup.Checkpoint.ChannelValues["items"].([]any)
			if step >= 1 && (len(items) != step+1 || items[0] != "x" || items[step] != float64(step-1)) {
				t.Fatalf("%s: step %d: items = %v", name, step, items)
			}
		}
	}
	all, full, packed, err := postgres.StoredVersions(ctx, s, "t", "items")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d full copies among %d stored versions of the list, %d of them in packs", full, all, packed)
	if all < steps || full < 3 || full > 12 {
		t.Errorf("%d full copies among %d versions, want a handful", full, all)
	}
	// Each superstep sets items and n at one version: their small values
	// share a pack (the large full copies of the list stay rows of their
	// own).
	if packed < all-full {
		t.Errorf("%d of %d versions in packs, want every appended one", packed, all)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
