package engine

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// keptGraph is a three-node chain with a MemorySaver.
func keptGraph(t *testing.T, ms *MemorySaver) *Graph {
	t.Helper()
	inc := func(_ context.Context, in any) (any, error) {
		n, _ := in.(map[string]any)["n"].(float64)
		return Update{{Key: "n", Value: n + 1}}, nil
	}
	g, err := NewStateGraph(LastValueKey("n")).
		AddNode("a", inc).AddNode("b", inc).AddNode("c", inc).
		AddEdge(Start, "a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", End).
		Compile(WithSaver(ms))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A checkpoint a MemorySaver keeps of a run (keptCheckpoint) is one
// Checkpoint to every reader, however many read it at once: made on the
// first read, materialized once, with the id and time the run gave it.
func TestKeptCheckpoint_OneCheckpointForEveryReader(t *testing.T) {
	ctx := context.Background()
	ms := NewMemorySaver()
	if _, err := keptGraph(t, ms).Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t")); err != nil {
		t.Fatal(err)
	}
	n := ms.threads["t"][""]
	for i := range n.order {
		if n.at(i).kept == nil {
			t.Fatalf("record %d: not kept as the run made it", i)
		}
	}
	const readers = 8
	lists := make([][]*CheckpointTuple, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[r], _ = ms.List(ctx, Config{ThreadID: "t"}, ListOptions{})
		}()
	}
	wg.Wait()
	if len(lists[0]) != 5 {
		t.Fatalf("%d checkpoints, want 5", len(lists[0]))
	}
	for i, tp := range lists[0] {
		cp := tp.Checkpoint
		if cp.ChannelVersions == nil || cp.ChannelValues == nil || cp.V != CheckpointFormat || cp.ID != tp.Config.CheckpointID || cp.TS.IsZero() {
			t.Fatalf("checkpoint %d: %+v, want it materialized with its id and time", i, cp)
		}
		for r := 1; r < readers; r++ {
			if lists[r][i].Checkpoint != cp {
				t.Fatalf("checkpoint %d: reader %d got another Checkpoint", i, r)
			}
		}
		again, _ := ms.GetTuple(ctx, tp.Config)
		if again.Checkpoint != cp {
			t.Fatalf("checkpoint %d: GetTuple gives another Checkpoint", i)
		}
	}
	if got := lists[0][0].Checkpoint.ChannelValues["n"]; got != 3.0 {
		t.Fatalf("last checkpoint n = %v, want 3", got)
	}
}

// With a listener, the checkpoint an event carries is the one the
// MemorySaver gives its readers later.
func TestKeptCheckpoint_ListenerSeesTheSavedCheckpoint(t *testing.T) {
	ctx := context.Background()
	ms := NewMemorySaver()
	var seen []*Checkpoint
	_, err := keptGraph(t, ms).Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t"), WithEvents(func(e Event) {
		if e.Kind == EventCheckpoint {
			seen = append(seen, e.Checkpoint)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 5 {
		t.Fatalf("%d checkpoint events, want 5", len(seen))
	}
	for _, cp := range seen {
		tp, _ := ms.GetTuple(ctx, Config{ThreadID: "t", CheckpointID: cp.ID})
		if tp == nil || tp.Checkpoint != cp || !reflect.DeepEqual(tp.Checkpoint.ChannelVersions, cp.ChannelVersions) {
			t.Fatalf("checkpoint %s: the saver gives %+v, the event %+v", cp.ID, tp, cp)
		}
	}
}

// countingIDs makes ids of a fixed width from a counter (width digits).
type countingIDs struct {
	mu    sync.Mutex
	n     int
	width int
}

func (c *countingIDs) NewID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("%0*d", c.width, c.n)
}

// A kept checkpoint holds its id as the bytes of the usual width, or as
// a string of any other: ids an IDSource makes read back as it made
// them, of either width, on every read path (history, a checkpoint by
// id, the latest) and as writes' checkpoint.
func TestKeptCheckpoint_IDsOfAnyWidth(t *testing.T) {
	for _, width := range []int{idLen, 5, idLen + 3} {
		ms := NewMemorySaver()
		inc := func(_ context.Context, in any) (any, error) {
			n, _ := in.(map[string]any)["n"].(float64)
			return Update{{Key: "n", Value: n + 1}}, nil
		}
		ids := &countingIDs{width: width}
		g, err := NewStateGraph(LastValueKey("n")).
			AddNode("a", inc).AddNode("b", inc).
			AddEdge(Start, "a").AddEdge("a", "b").AddEdge("b", End).
			Compile(WithSaver(ms), WithIDs(ids))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t")); err != nil {
			t.Fatal(err)
		}
		list, err := ms.List(ctx, Config{ThreadID: "t"}, ListOptions{})
		if err != nil || len(list) != ids.n || len(list) < 3 {
			t.Fatalf("width %d: %d checkpoints (%v), want %d", width, len(list), err, ids.n)
		}
		for i, tu := range list {
			want := fmt.Sprintf("%0*d", width, ids.n-i) // newest first
			if tu.Checkpoint.ID != want || tu.Config.CheckpointID != want {
				t.Fatalf("width %d: checkpoint %d has id %q (config %q), want %q", width, i, tu.Checkpoint.ID, tu.Config.CheckpointID, want)
			}
			if i+1 < len(list) && tu.ParentID != list[i+1].Checkpoint.ID {
				t.Fatalf("width %d: checkpoint %q's parent %q, want %q", width, want, tu.ParentID, list[i+1].Checkpoint.ID)
			}
			got, err := ms.GetTuple(ctx, Config{ThreadID: "t", CheckpointID: want})
			if err != nil || got == nil || got.Checkpoint != tu.Checkpoint {
				t.Fatalf("width %d: GetTuple(%q) = %v, %v", width, want, got, err)
			}
			if i > 0 && len(tu.PendingWrites) == 0 { // the next superstep's writes are saved against it
				t.Fatalf("width %d: checkpoint %q has no writes", width, want)
			}
		}
	}
}
