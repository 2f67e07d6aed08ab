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

// TestResultValues_AreTheCallers checks that a run's final state is the
// caller's to change: Invoke hands over the run's own state map (nobody
// views that run again), a Stepper a copy, as its View still shows the
// state.
func TestResultValues_AreTheCallers(t *testing.T) {
	g, err := NewStateGraph(LastValueKey("n"), LastValueKey("m")).
		AddNode("inc", func(_ context.Context, in any) (any, error) {
			return Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
		}).
		AddEdge(Start, "inc").AddEdge("inc", End).Compile()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := g.Invoke(ctx, map[string]any{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	first.Values["n"], first.Values["m"] = "changed", "added"
	second, err := g.Invoke(ctx, map[string]any{"n": 1})
	if err != nil || fmt.Sprint(second.Values) != "map[n:2]" {
		t.Fatalf("second run: %v, %v", second.Values, err)
	}

	s, err := g.Start(ctx, map[string]any{"n": 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(ctx)
	if err != nil || fmt.Sprint(res.Values) != "map[n:6]" {
		t.Fatalf("stepper run: %v, %v", res.Values, err)
	}
	res.Values["n"] = "changed"
	if got := fmt.Sprint(s.View().Values); got != "map[n:6]" {
		t.Fatalf("the stepper's view after its result was changed: %s", got)
	}
	if got := fmt.Sprint(s.Result().Values); got != "map[n:6]" {
		t.Fatalf("the stepper's result asked again after the first was changed: %s", got)
	}
}

// TestKeepWrites_LoneTasksShareWriteMemory runs a chain of lone tasks
// whose writes outgrow a task's own buffer by different amounts, in and
// out of it, one of them retried after its route failed with its state
// writes already made: each superstep may write into the memory of the
// last one's writes (loop.keepWrites), and every run must still end with
// exactly the values its nodes wrote.
func TestKeepWrites_LoneTasksShareWriteMemory(t *testing.T) {
	sizes := []int{6, 8, 5, 2, 9, 7}
	var keys []KeySpec
	for i := 0; i < 12; i++ {
		keys = append(keys, LastValueKey(fmt.Sprint("k", i)))
	}
	sg := NewStateGraph(append(keys, LastValueKey("seed"))...)
	failed := map[float64]bool{}
	for i, n := range sizes {
		name := fmt.Sprint("n", i)
		sg.AddNode(name, func(_ context.Context, in any) (any, error) {
			seed := in.(map[string]any)["seed"].(float64)
			var upd Update
			for k := 0; k < n; k++ {
				upd = append(upd, KV{Key: fmt.Sprint("k", (i+k)%12), Value: seed*100 + float64(10*i+k)})
			}
			return upd, nil
		}, WithRetry(RetryPolicy{MaxAttempts: 2, RetryOn: func(error) bool { return true }}))
		if i == 0 {
			sg.AddEdge(Start, name)
		}
		next := End
		if i+1 < len(sizes) {
			next = fmt.Sprint("n", i+1)
		}
		if i == 1 {
			sg.AddConditionalEdges(name, func(_ context.Context, st map[string]any) (any, error) {
				seed := st["seed"].(float64)
				if !failed[seed] {
					failed[seed] = true
					return nil, errors.New("route fails once")
				}
				return next, nil
			}, next)
			continue
		}
		sg.AddEdge(name, next)
	}
	g, err := sg.Compile()
	if err != nil {
		t.Fatal(err)
	}
	// With a MemorySaver too, which saves copies of the writes.
	saved, err := sg.Compile(WithSaver(NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	for seed := 1.0; seed <= 6; seed++ {
		g, opts := g, []RunOption(nil)
		if seed > 3 {
			g, opts = saved, []RunOption{OnThread(fmt.Sprint(seed))}
		}
		res, err := g.Invoke(context.Background(), map[string]any{"seed": seed}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"seed": seed}
		for i, n := range sizes {
			for k := 0; k < n; k++ {
				want[fmt.Sprint("k", (i+k)%12)] = seed*100 + float64(10*i+k)
			}
		}
		if fmt.Sprint(res.Values) != fmt.Sprint(want) {
			t.Fatalf("seed %v: state %v, want %v", seed, res.Values, want)
		}
	}
	// A listener keeps the writes it was given: they stay its own.
	var got []Event
	if _, err := g.Invoke(context.Background(), map[string]any{"seed": 9.0}, WithEvents(func(e Event) {
		if e.Kind == EventTaskResult {
			got = append(got, e)
		}
	})); err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		i := int(e.Node[1] - '0')
		for k, w := range e.Writes[:sizes[i]] {
			if want := 900 + float64(10*i+k); w.Value != want {
				t.Fatalf("%s's write %d, as its event has it after the run: %v, want %v", e.Node, k, w, want)
			}
		}
	}
}

// With a MemorySaver, which saves copies of a task's writes, a lone
// task's writes that outgrow the task's own buffer still write into the
// last superstep's memory (loop.keepWrites): a chain of such tasks
// allocates less than one object a superstep more than a chain whose
// tasks' writes fit the buffer, where each superstep's writes were an
// allocation of their own. And the saved writes read back as written.
func TestKeepWrites_MemorySaverSavesCopies(t *testing.T) {
	perStep := func(writes int) float64 {
		var keys []KeySpec
		for k := 0; k < writes; k++ {
			keys = append(keys, LastValueKey(fmt.Sprint("k", k)))
		}
		upd := make(Update, writes)
		for k := range upd {
			upd[k] = KV{Key: fmt.Sprint("k", k), Value: "v"} // no value to box
		}
		allocs := func(nodes int) float64 {
			sg := NewStateGraph(keys...)
			for i := 0; i < nodes; i++ {
				sg.AddNode(fmt.Sprint("n", i), func(context.Context, any) (any, error) { return upd, nil })
				if i > 0 {
					sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
				}
			}
			ms := NewMemorySaver()
			g, err := sg.AddEdge(Start, "n0").AddEdge(fmt.Sprint("n", nodes-1), End).Compile(WithSaver(ms))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			run := 0
			return testing.AllocsPerRun(20, func() {
				run++
				thread := fmt.Sprint("t", run)
				if _, err := g.Invoke(ctx, map[string]any{}, OnThread(thread), WithRecursionLimit(200)); err != nil {
					t.Fatal(err)
				}
				if err := ms.DeleteThread(ctx, thread); err != nil {
					t.Fatal(err)
				}
			})
		}
		return (allocs(80) - allocs(40)) / 40
	}
	narrow, wide := perStep(3), perStep(9)
	if wide-narrow >= 0.75 {
		t.Errorf("a superstep of 9 writes allocates %.2f objects, of 3 writes %.2f: want the 9 in the last superstep's memory", wide, narrow)
	}
	if testing.Verbose() {
		t.Logf("allocs a superstep: 9 writes %.2f, 3 writes %.2f", wide, narrow)
	}

	ms := NewMemorySaver()
	sg := NewStateGraph(LastValueKey("a"), LastValueKey("b"), LastValueKey("c"), LastValueKey("d"), LastValueKey("e"), LastValueKey("f"))
	for i := 0; i < 3; i++ {
		sg.AddNode(fmt.Sprint("n", i), func(context.Context, any) (any, error) {
			var upd Update
			for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
				upd = append(upd, KV{Key: k, Value: fmt.Sprint(k, i)})
			}
			return upd, nil
		})
		if i > 0 {
			sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
		}
	}
	g, err := sg.AddEdge(Start, "n0").AddEdge("n2", End).Compile(WithSaver(ms))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := g.Invoke(ctx, map[string]any{}, OnThread("t")); err != nil {
		t.Fatal(err)
	}
	hist, err := ms.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saved := 0
	for _, tp := range hist {
		for _, w := range tp.PendingWrites {
			if len(w.Channel) != 1 {
				continue // a branch
			}
			saved++
			// The writes saved against the checkpoint of step s are
			// node n(s)'s (step 0 runs n0).
			if want := fmt.Sprint(w.Channel, tp.Metadata.Step); w.Value != want {
				t.Errorf("checkpoint of step %d: write %s=%v, want %v", tp.Metadata.Step, w.Channel, w.Value, want)
			}
		}
	}
	if saved != 18 {
		t.Errorf("%d state writes saved, want 18", saved)
	}
}
