package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestScratch_SharedByRunsOfAGraph runs one graph many times at once and
// in turn: runs hand applyWrites' working memory to later runs of the
// graph (takeScratch), which must find it empty and never share it with a
// run still going. Each run writes its own values, some runs fail in
// applyWrites (two values for a LastValue key) half-way through a
// superstep, and every other run must still end with its own state.
func TestScratch_SharedByRunsOfAGraph(t *testing.T) {
	fails := func(seed float64) bool { return int(seed)%5 == 4 }
	g, err := NewStateGraph(LastValueKey("seed"), LastValueKey("a"), LastValueKey("b"), AppendKey("log")).
		AddNode("one", func(_ context.Context, in any) (any, error) {
			s := in.(map[string]any)["seed"].(float64)
			return Update{{Key: "log", Value: []any{s}}, {Key: "a", Value: s}}, nil
		}).
		AddNode("two", func(_ context.Context, in any) (any, error) {
			s := in.(map[string]any)["seed"].(float64)
			if fails(s) {
				return Update{{Key: "a", Value: -s}}, nil // a second value for a
			}
			return Update{{Key: "log", Value: []any{-s}}}, nil
		}).
		AddNode("three", func(_ context.Context, in any) (any, error) {
			s := in.(map[string]any)["seed"].(float64)
			return Update{{Key: "b", Value: 2 * s}}, nil
		}).
		AddEdge(Start, "one").AddEdge(Start, "two").AddEdge("one", "three").AddEdge("two", "three").
		AddEdge("three", End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				seed := float64(w*100 + i)
				res, err := g.Invoke(context.Background(), map[string]any{"seed": seed})
				if fails(seed) {
					var bad *InvalidUpdateError
					if !errors.As(err, &bad) {
						errs <- fmt.Errorf("seed %v: err %v, want an InvalidUpdateError", seed, err)
						return
					}
					continue
				}
				want := map[string]any{"seed": seed, "a": seed, "b": 2 * seed, "log": []any{seed, -seed}}
				if err != nil || fmt.Sprint(res.Values) != fmt.Sprint(want) {
					errs <- fmt.Errorf("seed %v: state %v (%v), want %v", seed, res.Values, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	sc := g.takeScratch()
	for _, cw := range sc.groups[:cap(sc.groups)] {
		if cw.one[0] != nil || len(cw.more) > 0 {
			t.Fatalf("a released scratch keeps a write: %+v", cw)
		}
	}
	for id, s := range sc.slot {
		if s != 0 {
			t.Fatalf("a released scratch has channel %d grouped", id)
		}
	}
}
