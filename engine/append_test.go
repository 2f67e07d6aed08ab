package engine

import (
	"context"
	"reflect"
	"runtime"
	"testing"
)

// TestReducerChannel_AppendInPlace: appending in place never changes a
// value handed out before (a snapshot, a node's view, a clone's list), and
// no handed-out list has room a caller's append could write into.
func TestReducerChannel_AppendInPlace(t *testing.T) {
	c := &reducerChannel{name: "l", fn: AppendReducer, appendOnly: true, val: []any{"a"}, has: true, appended: -1}
	mustUpdate := func(c channel, v any) {
		t.Helper()
		if _, err := c.update([]any{v}); err != nil {
			t.Fatal(err)
		}
	}
	mustUpdate(c, "b")
	if n, ok := c.lastAppend(); !ok || n != 1 {
		t.Errorf("lastAppend = %d, %v; want 1, true", n, ok)
	}
	v1, _ := c.snapshot()
	mustUpdate(c, "c")
	v2, _ := c.get()
	l2 := v2.([]any)
	if cap(l2) != len(l2) {
		t.Errorf("handed-out list has spare capacity %d", cap(l2)-len(l2))
	}
	_ = append(l2, "node's own") // a node appending to what it read
	cl := c.clone()
	mustUpdate(cl, "clone")
	mustUpdate(c, "d")
	mustUpdate(c, []any{"e", "f"})
	want := map[string][]any{
		"first snapshot": {"a", "b"},
		"second value":   {"a", "b", "c"},
		"clone":          {"a", "b", "c", "clone"},
		"channel":        {"a", "b", "c", "d", "e", "f"},
	}
	clv, _ := cl.get()
	cv, _ := c.get()
	got := map[string][]any{"first snapshot": v1.([]any), "second value": l2, "clone": clv.([]any), "channel": cv.([]any)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if n, ok := c.lastAppend(); !ok || n != 4 {
		t.Errorf("lastAppend after two appends in a step = %d, %v; want 4, true", n, ok)
	}
	// A local read borrows the spare capacity for the same writes the
	// superstep then applies: the channel keeps them, and two clones
	// cannot both borrow it.
	c3 := &reducerChannel{name: "l", fn: AppendReducer, appendOnly: true, val: []any{"a"}, has: true, appended: -1}
	mustUpdate(c3, "b")
	mustUpdate(c3, "c") // now with room for one more
	write := map[string]any{"id": "m1"}
	local, other := c3.clone(), c3.clone()
	mustUpdate(local, []any{write})
	mustUpdate(other, "other")
	mustUpdate(c3, []any{write})
	lv, _ := local.get()
	ov, _ := other.get()
	c3v, _ := c3.get()
	if !reflect.DeepEqual(lv, c3v) || !reflect.DeepEqual(ov, []any{"a", "b", "c", "other"}) || len(c3v.([]any)) != 4 {
		t.Errorf("local read %v, other clone %v, channel %v", lv, ov, c3v)
	}
	if &lv.([]any)[0] != &c3v.([]any)[0] {
		t.Error("the channel copied its list although the borrowed elements were its own writes")
	}
	mustUpdate(c, Overwrite{Value: []any{"z"}})
	if _, ok := c.lastAppend(); ok {
		t.Error("an Overwrite counts as an append")
	}
}

// appendGraph appends n to "items" once per superstep until n reaches
// steps, calling probe before each.
func appendGraph(t testing.TB, saver Saver, steps int, probe func(n int)) *Graph {
	t.Helper()
	g, err := NewStateGraph(AppendKey("items"), LastValueKey("n")).
		AddNode("add", func(_ context.Context, in any) (any, error) {
			n := in.(map[string]any)["n"].(float64)
			if probe != nil {
				probe(int(n))
			}
			return Update{{Key: "items", Value: []any{n}}, {Key: "n", Value: n + 1}}, nil
		}).
		AddEdge(Start, "add").
		AddConditionalEdges("add", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < float64(steps) {
				return "add", nil
			}
			return End, nil
		}, "add", End).
		Compile(WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCheckpoint_AppendsDescribeTheGrowth: every checkpoint of a growing
// list says what its superstep appended, relative to the version before,
// and every checkpoint keeps its own value while later ones grow in place.
func TestCheckpoint_AppendsDescribeTheGrowth(t *testing.T) {
	ctx := context.Background()
	saver := NewMemorySaver()
	g := appendGraph(t, saver, 20, nil)
	if _, err := g.Invoke(ctx, map[string]any{"items": []any{"x"}, "n": 0}, OnThread("t")); err != nil {
		t.Fatal(err)
	}
	hist, err := saver.List(ctx, Config{ThreadID: "t"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tup := range hist {
		step, cp := tup.Metadata.Step, tup.Checkpoint
		if step < 1 {
			continue
		}
		items := cp.ChannelValues["items"].([]any)
		if len(items) != step+1 || items[len(items)-1] != float64(step-1) {
			t.Fatalf("step %d: items = %v", step, items)
		}
		parent := hist[i+1].Checkpoint
		a, ok := cp.Appends["items"]
		if !ok || a.From != parent.ChannelVersions["items"] {
			t.Fatalf("step %d: Appends = %+v, parent's version %d", step, cp.Appends, parent.ChannelVersions["items"])
		}
		tail, ok := cp.AppendedTail("items", a.From)
		if !ok || !reflect.DeepEqual(tail, []any{float64(step - 1)}) {
			t.Errorf("step %d: AppendedTail = %v, %v", step, tail, ok)
		}
		if _, ok := cp.AppendedTail("items", a.From-1); ok {
			t.Errorf("step %d: AppendedTail answers for a version it does not append to", step)
		}
	}
}

// TestAppend_SuperstepCostIndependentOfLength: the engine's part of a
// superstep that appends to a list allocates the same whether the list
// holds a thousand elements or fifty thousand (issue 17 item 8). Before,
// every superstep copied the whole list.
func TestAppend_SuperstepCostIndependentOfLength(t *testing.T) {
	const from, window = 10, 200
	alloc := map[int]uint64{}
	for _, size := range []int{1000, 50000} {
		items := make([]any, size)
		for i := range items {
			items[i] = 0.0
		}
		var ms runtime.MemStats
		var start uint64
		g := appendGraph(t, NewMemorySaver(), from+window+1, func(n int) {
			switch n {
			case from:
				runtime.ReadMemStats(&ms)
				start = ms.TotalAlloc
			case from + window:
				runtime.ReadMemStats(&ms)
				alloc[size] = ms.TotalAlloc - start
			}
		})
		if _, err := g.Invoke(context.Background(), map[string]any{"items": items, "n": 0}, OnThread("t"), WithRecursionLimit(from+window+10)); err != nil {
			t.Fatal(err)
		}
		t.Logf("%6d items: %d bytes allocated in %d supersteps", size, alloc[size], window)
	}
	// The list of 1000 doubles once in the window (16 KB); the rest is
	// per-superstep bookkeeping. Copying 50,000 elements each superstep
	// would be 800 KB per superstep.
	if small, big := alloc[1000], alloc[50000]; big > small+small/2+64<<10 {
		t.Errorf("%d supersteps allocate %d bytes at 50,000 items, %d at 1,000", window, big, small)
	}
}
