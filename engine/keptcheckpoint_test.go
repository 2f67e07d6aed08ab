package engine

import (
	"context"
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
