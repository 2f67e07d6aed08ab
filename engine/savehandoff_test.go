package engine

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// goroutineID is the current goroutine's number, from its stack header.
func goroutineID() int {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return id
}

// sendFanGraph sends n items to "work", which appends its item to "out";
// ran sees each item as its node runs, and fails it by returning an error.
func sendFanGraph(t *testing.T, saver Saver, ran func(item int) error) *Graph {
	t.Helper()
	g, err := NewStateGraph(AppendKey("out"), LastValueKey("n")).
		AddNode("work", func(_ context.Context, in any) (any, error) {
			item := int(in.(map[string]any)["item"].(float64))
			if err := ran(item); err != nil {
				return nil, err
			}
			return Update{{Key: "out", Value: []any{float64(item)}}}, nil
		}).
		AddConditionalEdges(Start, func(_ context.Context, st map[string]any) (any, error) {
			var sends []any
			for i := range int(st["n"].(float64)) {
				sends = append(sends, Send{Node: "work", Arg: map[string]any{"item": float64(i)}})
			}
			return sends, nil
		}, "work").
		AddEdge("work", End).
		Compile(WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMemorySaver_TasksWritesSavedByTheLoop: with MemorySaver, a
// superstep's task goroutines leave saving their writes and reporting
// their results to the loop's goroutine, which does it as each task ends:
// every result is reported after the task's writes are in the saver, from
// a goroutine other than the task's, and before the superstep's
// checkpoint.
func TestMemorySaver_TasksWritesSavedByTheLoop(t *testing.T) {
	ctx := context.Background()
	saver := NewMemorySaver()
	const n = 40
	var mu sync.Mutex
	taskGoroutine := map[int]int{} // item -> the goroutine its node ran on
	g := sendFanGraph(t, saver, func(item int) error {
		mu.Lock()
		taskGoroutine[item] = goroutineID()
		mu.Unlock()
		return nil
	})
	results := 0
	events := func(e Event) {
		if e.Kind != EventTaskResult || e.Node != "work" {
			return
		}
		item := int(e.Update["out"].([]any)[0].(float64))
		mu.Lock()
		ran := taskGoroutine[item]
		results++
		mu.Unlock()
		if ran == goroutineID() {
			t.Errorf("item %d: its result was reported from the task's own goroutine", item)
		}
		tup, err := saver.GetTuple(ctx, Config{ThreadID: "t"})
		if err != nil {
			t.Error(err)
			return
		}
		saved := false
		for _, w := range tup.PendingWrites {
			saved = saved || w.TaskID == e.TaskID && w.Channel == "out"
		}
		if !saved {
			t.Errorf("item %d: result reported before its writes were saved", item)
		}
	}
	res, err := g.Invoke(ctx, map[string]any{"n": float64(n)}, OnThread("t"), WithEvents(events))
	if err != nil || res.Status != StatusDone {
		t.Fatalf("run: %v %v", err, res.Status)
	}
	if results != n || len(res.Values["out"].([]any)) != n {
		t.Fatalf("%d results, out %v; want %d", results, res.Values["out"], n)
	}
}

// TestMemorySaver_FailedSuperstepKeepsFinishedSiblings: when one task of a
// fan-out fails, the writes of its siblings that finished are saved
// before the run returns, and a resume runs only the failed task again.
func TestMemorySaver_FailedSuperstepKeepsFinishedSiblings(t *testing.T) {
	ctx := context.Background()
	saver := NewMemorySaver()
	const n = 30
	var mu sync.Mutex
	runs := map[int]int{}
	const fail = 7
	failing := true
	g := sendFanGraph(t, saver, func(item int) error {
		mu.Lock()
		defer mu.Unlock()
		runs[item]++
		if failing && item == fail {
			return errors.New("boom")
		}
		return nil
	})
	if _, err := g.Invoke(ctx, map[string]any{"n": float64(n)}, OnThread("f")); err == nil {
		t.Fatal("the failing run succeeded")
	}
	tup, err := saver.GetTuple(ctx, Config{ThreadID: "f"})
	if err != nil {
		t.Fatal(err)
	}
	// Every task ran to its end, the failed one and those the failure
	// cancelled included: each saved something (writes, or an error),
	// before the run returned.
	savedBy := map[string]bool{}
	kept := map[int]bool{} // items whose writes were saved without an error
	for _, w := range tup.PendingWrites {
		savedBy[w.TaskID] = true
		if w.Channel == "out" {
			kept[int(w.Value.([]any)[0].(float64))] = true
		}
	}
	if len(savedBy) != n {
		t.Fatalf("%d tasks saved writes, want %d", len(savedBy), n)
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	res, err := g.Invoke(ctx, nil, OnThread("f"))
	if err != nil || res.Status != StatusDone {
		t.Fatalf("resume: %v %v", err, res.Status)
	}
	if got := len(res.Values["out"].([]any)); got != n {
		t.Fatalf("resumed run has %d outputs, want %d", got, n)
	}
	mu.Lock()
	defer mu.Unlock()
	for item, k := range runs {
		if kept[item] && k != 1 {
			t.Errorf("item %d ran %d times; a sibling that saved its writes is reused on resume", item, k)
		}
	}
	if runs[fail] != 2 {
		t.Errorf("the failed item ran %d times, want 2", runs[fail])
	}
}

// copyingSaver embeds a MemorySaver for everything but Put, which it
// records as any saver of its own would: it reads the checkpoint's maps
// and the changed channels, and writes to the metadata's Parents.
type copyingSaver struct {
	*MemorySaver
	mu     sync.Mutex
	values []map[string]any
	newVs  []map[string]Version
}

func (s *copyingSaver) Put(ctx context.Context, cfg Config, cp *Checkpoint, md Metadata, newVersions map[string]Version) (Config, error) {
	s.mu.Lock()
	s.values = append(s.values, cp.ChannelValues)
	s.newVs = append(s.newVs, newVersions)
	s.mu.Unlock()
	if md.Parents != nil {
		md.Parents["seen-by-wrapper"] = "x" // a map of its own to change
	}
	return s.MemorySaver.Put(ctx, cfg, cp, md, newVersions)
}

// TestSaver_WrapperOfMemorySaverGetsMaterializedCheckpoints checks that a
// saver embedding *MemorySaver with its own Put is treated as any other
// saver: it receives materialized checkpoints, the channels each one
// changed, and Parents of its own (MemorySaver's shortcuts are for
// MemorySaver itself, whose methods they rely on).
func TestSaver_WrapperOfMemorySaverGetsMaterializedCheckpoints(t *testing.T) {
	s := &copyingSaver{MemorySaver: NewMemorySaver()}
	g, err := NewStateGraph(LastValueKey("n")).
		AddNode("inc", func(_ context.Context, in any) (any, error) {
			return Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
		}).
		AddEdge(Start, "inc").Compile(WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, thread := range []string{"a", "b"} {
		if _, err := g.Invoke(context.Background(), map[string]any{"n": 1.0}, OnThread(thread)); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.values) == 0 {
		t.Fatal("Put was never called")
	}
	last := s.values[len(s.values)-1]
	if last["n"] != 2.0 {
		t.Fatalf("the last checkpoint's values %v: want n = 2 (a materialized checkpoint)", last)
	}
	for i, nv := range s.newVs {
		if nv == nil {
			t.Fatalf("Put %d got no changed channels", i)
		}
	}
	if len(noParents) != 0 {
		t.Fatalf("the wrapper wrote into the Parents map MemorySaver runs share: %v", noParents)
	}
}
