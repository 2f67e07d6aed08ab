package engine

import (
	"context"
	"testing"
	"time"
)

func TestMemoryCache_TTLAndClear(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	c := NewMemoryCache()
	c.now = func() time.Time { return now }
	k := CacheKey{NS: cacheNamespace("a"), Key: "x"}
	c.Set(ctx, k, []Write{{Channel: "n", Value: 1.0}}, time.Minute)
	c.Set(ctx, CacheKey{NS: cacheNamespace("b"), Key: "x"}, []Write{{Channel: "n", Value: 2.0}}, 0)
	if w, ok, _ := c.Get(ctx, k); !ok || w[0].Value != 1.0 {
		t.Fatal("a fresh entry is found")
	}
	now = now.Add(time.Minute)
	if _, ok, _ := c.Get(ctx, k); ok {
		t.Fatal("an entry expires at its TTL (LangGraph: now < exp)")
	}
	c.Clear(ctx, cacheNamespace("b"))
	if _, ok, _ := c.Get(ctx, CacheKey{NS: cacheNamespace("b"), Key: "x"}); ok {
		t.Fatal("Clear drops the node's entries")
	}
}

// Translated from LangGraph.js src/tests/pregel.test.ts "in one fan out
// state graph waiting edge multiple" (cachePolicy: true): the cached node
// runs once per distinct input, its cached task is marked, ClearCache
// makes it run again.
func TestCachePolicy_ReusesWritesByInput(t *testing.T) {
	ctx := context.Background()
	runs := 0
	g, err := NewStateGraph(LastValueKey("q"), LastValueKey("out")).
		AddNode("rewrite", func(_ context.Context, in any) (any, error) {
			runs++
			return map[string]any{"out": "rewritten " + in.(map[string]any)["q"].(string)}, nil
		}, WithCachePolicy(CachePolicy{})).
		AddEdge(Start, "rewrite").
		Compile(WithSaver(NewMemorySaver()), WithCache(NewMemoryCache()))
	if err != nil {
		t.Fatal(err)
	}
	var cached []string
	hook := WithEvents(func(e Event) {
		if e.Kind == EventCached {
			cached = append(cached, e.Node)
		}
	})
	for i, q := range []string{"sf", "sf", "ny"} {
		res, err := g.Invoke(ctx, map[string]any{"q": q}, OnThread(q+string(rune('0'+i))), hook)
		if err != nil || res.Values["out"] != "rewritten "+q {
			t.Fatalf("run %d: %v %v", i, res.Values, err)
		}
	}
	if runs != 2 || len(cached) != 1 {
		t.Fatalf("runs %d, cached %v: the second sf run must come from the cache", runs, cached)
	}
	if err := g.ClearCache(ctx, "rewrite"); err != nil {
		t.Fatal(err)
	}
	g.Invoke(ctx, map[string]any{"q": "sf"}, OnThread("again"))
	if runs != 3 {
		t.Fatal("after ClearCache the node runs again")
	}
	if err := g.ClearCache(ctx, "ghost"); err == nil {
		t.Fatal("clearing an unknown node is an error")
	}
}
