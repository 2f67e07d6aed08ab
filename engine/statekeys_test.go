package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// keyedLog records, per node, whether StateByKey read the node's state by
// position and whether what it read differs from the state map.
type keyedLog struct {
	mu    sync.Mutex
	byKey map[string]bool
	diffs []string
}

// check compares the state read by position with the map, key by key.
func (l *keyedLog) check(ctx context.Context, g *engine.Graph, who string, state map[string]any) {
	kv, ok := engine.StateByKey(ctx, state)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byKey[who] = ok
	if !ok {
		return
	}
	keys := g.StateKeys()
	if kv.Len() != len(keys) {
		l.diffs = append(l.diffs, fmt.Sprintf("%s: %d keys by position, graph has %d", who, kv.Len(), len(keys)))
		return
	}
	for i, k := range keys {
		v, has := kv.Value(i)
		mv, mhas := state[k]
		if has != mhas || !reflect.DeepEqual(v, mv) {
			l.diffs = append(l.diffs, fmt.Sprintf("%s: key %q by position %v (%v), in the map %v (%v)", who, k, v, has, mv, mhas))
		}
	}
}

func TestStateByKey_MirrorsTheStateMap(t *testing.T) {
	l := &keyedLog{byKey: map[string]bool{}}
	var g *engine.Graph
	node := func(name string, kv ...any) engine.NodeFunc {
		return func(ctx context.Context, in any) (any, error) {
			l.check(ctx, g, name, in.(map[string]any))
			return engine.Pairs(kv...), nil
		}
	}
	b := engine.NewStateGraph(engine.LastValueKey("a"), engine.AppendKey("b"), engine.LastValueKey("c"), engine.LastValueKey("never"))
	b.AddNode("x", node("x", "a", 1, "c", nil)).
		AddNode("y", node("y", "b", []any{"y"}, "a", 2)).
		// hold: its write holds the state map, which lends it; the
		// next change copies the map and the values by position.
		AddNode("hold", func(ctx context.Context, in any) (any, error) {
			state := in.(map[string]any)
			l.check(ctx, g, "hold", state)
			return engine.Pairs("c", map[string]any{"held": state}), nil
		}).
		AddNode("p1", node("p1", "b", []any{"p1"})).
		AddNode("p2", node("p2", "a", 3)).
		AddNode("z", node("z")).
		AddEdge(engine.Start, "x").AddEdge("x", "y").AddEdge("y", "hold").
		AddEdge("hold", "p1").AddEdge("hold", "p2").
		AddJoin([]string{"p1", "p2"}, "z")
	// Without WithStateByKey nothing is kept by position.
	plain := mustCompile(t, b, engine.WithSaver(engine.NewMemorySaver()))
	g = plain
	nodes := []string{"x", "y", "hold", "p1", "p2", "z"}
	res, err := plain.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread("t1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if l.byKey[n] {
			t.Errorf("graph compiled without WithStateByKey: %s read by position", n)
		}
	}
	if _, ok := res.ValuesByKey(); ok {
		t.Error("graph compiled without WithStateByKey: its result has values by position")
	}
	// With it, every run keeps the values by position from its start, a
	// run restored from a checkpoint included.
	g = mustCompile(t, b, engine.WithSaver(engine.NewMemorySaver()), engine.WithStateByKey())
	for _, thread := range []string{"t1", "t2", "t1"} {
		clear(l.byKey)
		res, err := g.Invoke(ctx, map[string]any{"a": 10}, engine.OnThread(thread))
		if err != nil {
			t.Fatal(err)
		}
		kv, ok := res.ValuesByKey()
		if !ok {
			t.Errorf("thread %s: its result has no values by position", thread)
		}
		for i, k := range g.StateKeys() {
			if !ok {
				break
			}
			v, has := kv.Value(i)
			if mv, mhas := res.Values[k]; has != mhas || !reflect.DeepEqual(v, mv) {
				t.Errorf("thread %s: result key %q by position %v (%v), in Values %v (%v)", thread, k, v, has, mv, mhas)
			}
		}
		for _, n := range nodes {
			if !l.byKey[n] {
				t.Errorf("thread %s: %s not read by position", thread, n)
			}
		}
	}
	for _, d := range l.diffs {
		t.Error(d)
	}
}

func TestStateByKey_OnlyTheSharedView(t *testing.T) {
	l := &keyedLog{byKey: map[string]bool{}}
	var g *engine.Graph
	b := engine.NewStateGraph(engine.LastValueKey("a"), engine.AppendKey("r"))
	b.AddNode("split", func(ctx context.Context, in any) (any, error) {
		l.check(ctx, g, "split", in.(map[string]any))
		return engine.Pairs("a", 1), nil
	}).
		AddNode("work", func(ctx context.Context, in any) (any, error) {
			l.check(ctx, g, "work", in.(map[string]any)) // a Send's argument
			return engine.Pairs("r", []any{1}), nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(ctx context.Context, s map[string]any) (any, error) {
			l.check(ctx, g, "route", s) // includes split's own write
			return []any{engine.Send{Node: "work", Arg: map[string]any{"x": 1}}}, nil
		}, "work").
		AddEdge("work", engine.End)
	g = mustCompile(t, b, engine.WithStateByKey())
	if _, err := g.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread("t1")); err != nil {
		t.Fatal(err)
	}
	if !l.byKey["split"] {
		t.Error("split's state not read by position")
	}
	for _, n := range []string{"work", "route"} {
		if l.byKey[n] {
			t.Errorf("%s read by position: its input is not the shared view", n)
		}
	}
	if _, ok := engine.StateByKey(context.Background(), map[string]any{"a": 1}); ok {
		t.Error("read by position outside a task")
	}
	for _, d := range l.diffs {
		t.Error(d)
	}
}

// TestStateByKey_AbandonedAttemptKeepsItsValues: an attempt abandoned by
// its timeout may still read its state after the run moved on; the map it
// was given is lent, so the loop copies it before changing the state, and
// the values by position it was given must stay as they were too.
func TestStateByKey_AbandonedAttemptKeepsItsValues(t *testing.T) {
	var attempts atomic.Int32
	release := make(chan struct{})
	late := make(chan string, 1)
	node := func(ctx context.Context, in any) (any, error) {
		state := in.(map[string]any)
		// The first attempt waits; the retry finishes the node.
		kv, ok := engine.StateByKey(ctx, state)
		if attempts.Add(1) != 1 {
			return engine.Pairs("a", 2.0), nil
		}
		if !ok {
			late <- "not read by position"
			return nil, nil
		}
		before, _ := kv.Value(0)
		<-ctx.Done() // abandoned by its timeout
		<-release    // the run has gone on and ended
		after, _ := kv.Value(0)
		if before != after || after != state["a"] {
			late <- fmt.Sprintf("read %v, then %v after the run went on (its map holds %v)", before, after, state["a"])
		} else {
			late <- ""
		}
		return nil, nil
	}
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("a")).
		AddNode("n", node, engine.WithTimeout(engine.TimeoutPolicy{Run: 20 * time.Millisecond}),
			engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Millisecond})).
		AddNode("next", func(context.Context, any) (any, error) { return engine.Pairs("a", 3.0), nil }).
		AddEdge(engine.Start, "n").AddEdge("n", "next"), engine.WithStateByKey())
	res, err := g.Invoke(ctx, map[string]any{"a": 1.0}, engine.OnThread("t1"))
	if err != nil || res.Values["a"] != 3.0 {
		t.Fatalf("%v %v", res, err)
	}
	close(release)
	if msg := <-late; msg != "" {
		t.Error(msg)
	}
}
