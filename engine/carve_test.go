package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// A kept run carves the deltas and write batches that outgrow a
// checkpoint's or a record's own room from shared chunks (idLog.roomFor,
// memNamespace.writesRoom). Each must still read as its own: a thread
// whose supersteps change and write more than those rooms hold (8 keys,
// then once 100, past maxCarved), across several chunks, reads the same
// checkpoints and pending writes through MemorySaver as through a saver
// that gets every checkpoint and write on its own.
func TestCarvedRooms_EachCheckpointItsOwn(t *testing.T) {
	ctx := context.Background()
	const rounds, keys, wide = 30, 8, 100
	var specs []KeySpec
	for k := 0; k < wide; k++ {
		specs = append(specs, LastValueKey(fmt.Sprint("k", k)))
	}
	build := func(s Saver) *Graph {
		sg := NewStateGraph(append(specs, LastValueKey("n"))...)
		sg.AddNode("step", func(_ context.Context, in any) (any, error) {
			n := in.(map[string]any)["n"].(float64)
			width := keys
			if int(n) == rounds/2 {
				width = wide
			}
			upd := Update{{Key: "n", Value: n + 1}}
			for k := 0; k < width; k++ {
				upd = append(upd, KV{Key: fmt.Sprint("k", (int(n)+k)%wide), Value: n*1000 + float64(k)})
			}
			return upd, nil
		})
		sg.AddEdge(Start, "step")
		sg.AddConditionalEdges("step", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < rounds {
				return "step", nil
			}
			return End, nil
		}, "step", End)
		// Counted ids: the two threads' task ids (hashes of checkpoint
		// ids) are then equal too.
		g, err := sg.Compile(WithSaver(s), WithIDs(&CounterIDs{}))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	kept, plain := NewMemorySaver(), &versionsRecorder{Saver: NewMemorySaver()}
	for _, s := range []Saver{kept, plain} {
		res, err := build(s).Invoke(ctx, map[string]any{"n": 0}, OnThread("t"), WithRecursionLimit(100))
		if err != nil || res.Status != StatusDone {
			t.Fatalf("run: %v %v", err, res.Status)
		}
	}
	got, want := listBoth(t, kept, plain, "t", rounds)
	for i := range got {
		g, w := got[i], want[i]
		if !sameState(g.Checkpoint, w.Checkpoint) {
			t.Fatalf("checkpoint %d (step %d):\n got %+v\nwant %+v", i, g.Metadata.Step, g.Checkpoint, w.Checkpoint)
		}
		if !reflect.DeepEqual(g.PendingWrites, w.PendingWrites) {
			t.Fatalf("checkpoint %d (step %d) writes:\n got %v\nwant %v", i, g.Metadata.Step, g.PendingWrites, w.PendingWrites)
		}
	}
}

// listBoth lists thread's checkpoints in a kept and a plain saver, which
// must hold as many checkpoints (and at least least).
func listBoth(t *testing.T, kept, plain Saver, thread string, least int) (got, want []*CheckpointTuple) {
	t.Helper()
	var err error
	if got, err = kept.List(context.Background(), Config{ThreadID: thread}, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if want, err = plain.List(context.Background(), Config{ThreadID: thread}, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) < least {
		t.Fatalf("%d and %d checkpoints", len(got), len(want))
	}
	return got, want
}

// sameState reports whether two checkpoints hold the same values,
// versions, versions_seen and updated channels.
func sameState(g, w *Checkpoint) bool {
	return reflect.DeepEqual(g.ChannelValues, w.ChannelValues) &&
		reflect.DeepEqual(g.ChannelVersions, w.ChannelVersions) &&
		reflect.DeepEqual(g.VersionsSeen, w.VersionsSeen) &&
		reflect.DeepEqual(g.UpdatedChannels, w.UpdatedChannels)
}

// A carved room has exactly the room asked for, so an append to it
// cannot write into the next; a room past maxCarved is allocated alone.
func TestCarvedRooms_Apart(t *testing.T) {
	l := idLog[any]{carve: true}
	a, b := l.roomFor(5), l.roomFor(3)
	if len(a) != 0 || cap(a) != 5 || cap(b) != 3 {
		t.Fatalf("rooms of len %d cap %d and cap %d, want 0/5 and 3", len(a), cap(a), cap(b))
	}
	b = append(b, idEntry[any]{1, "b"})
	a = append(a[:5], idEntry[any]{2, "a"}) // past its room: a new array
	if b[0].val != "b" {
		t.Fatalf("an append to one room wrote into the next: %v", b)
	}
	chunk := len(l.chunk)
	if big := l.roomFor(maxCarved + 1); cap(big) != maxCarved+1 || len(l.chunk) != chunk {
		t.Fatalf("a room past maxCarved was carved (chunk %d -> %d)", chunk, len(l.chunk))
	}
	var n memNamespace
	w1, w2 := n.writesRoom(3), n.writesRoom(4)
	if cap(w1) != 3 || cap(w2) != 4 || &w1[:1][0] == &w2[:1][0] {
		t.Fatalf("write rooms of cap %d and %d", cap(w1), cap(w2))
	}
}
