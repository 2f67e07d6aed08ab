package engine

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// A MemorySaver's checkpoints are carved from slabs (several to an
// allocation), and each still reads as its own: the same values,
// versions, versions_seen and metadata as a saver's that gets every
// checkpoint on its own, across slab boundaries and across two runs of
// one thread (the second run's slabs are new).
func TestCheckpointSlabs_EachCheckpointItsOwn(t *testing.T) {
	ctx := context.Background()
	const rounds = 40 // 81 supersteps: slabs of 2, 2, 4, 8, 16, 21, 21, then part of one
	build := func(s Saver) *Graph {
		sg := NewStateGraph(LastValueKey("n"), AppendKey("log"))
		sg.AddNode("ping", func(_ context.Context, in any) (any, error) {
			n := in.(map[string]any)["n"].(float64)
			return Update{{Key: "n", Value: n + 1}, {Key: "log", Value: []any{n}}}, nil
		})
		sg.AddNode("pong", func(_ context.Context, in any) (any, error) {
			return Update{{Key: "log", Value: []any{"pong"}}}, nil
		})
		sg.AddEdge(Start, "ping").AddEdge("ping", "pong")
		sg.AddConditionalEdges("pong", func(_ context.Context, st map[string]any) (any, error) {
			if int(st["n"].(float64))%rounds != 0 {
				return "ping", nil
			}
			return End, nil
		}, "ping", End)
		g, err := sg.Compile(WithSaver(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	kept, plain := NewMemorySaver(), &versionsRecorder{Saver: NewMemorySaver()}
	for _, s := range []Saver{kept, plain} {
		g := build(s)
		for run, in := range []float64{0, rounds} {
			res, err := g.Invoke(ctx, map[string]any{"n": in}, OnThread("t"), WithRecursionLimit(500))
			if err != nil || res.Status != StatusDone {
				t.Fatalf("run %d: %v %v", run, err, res.Status)
			}
		}
	}
	got, want := listBoth(t, kept, plain, "t", 4*rounds)
	for i := range got {
		g, w := got[i], want[i]
		if !sameState(g.Checkpoint, w.Checkpoint) || !reflect.DeepEqual(g.Metadata, w.Metadata) {
			t.Fatalf("checkpoint %d (step %d):\n got %+v %+v\nwant %+v %+v", i, g.Metadata.Step,
				g.Checkpoint, g.Metadata, w.Checkpoint, w.Metadata)
		}
		// List is newest first: ids carved from shared room must still
		// be whole, distinct and in order after both runs.
		if len(g.Checkpoint.ID) != idLen || (i > 0 && g.Checkpoint.ID >= got[i-1].Checkpoint.ID) {
			t.Fatalf("checkpoint %d: id %q after %q", i, g.Checkpoint.ID, got[i-1].Checkpoint.ID)
		}
		if g.Config.CheckpointID != g.Checkpoint.ID {
			t.Fatalf("checkpoint %d: config's id %q, checkpoint's %q", i, g.Config.CheckpointID, g.Checkpoint.ID)
		}
	}

}

// slabSink keeps newKept's result on the heap in AllocsPerRun.
var slabSink *keptCheckpoint

// A run whose saver does not keep every checkpoint gets each in its own
// allocation: a slab would keep the siblings of any checkpoint it holds.
func TestCheckpointSlabs_OnlyForKeptRuns(t *testing.T) {
	g, err := NewStateGraph(LastValueKey("n")).
		AddNode("a", func(context.Context, any) (any, error) { return Update{{Key: "n", Value: 1}}, nil }).
		AddEdge(Start, "a").AddEdge("a", End).Compile()
	if err != nil {
		t.Fatal(err)
	}
	cs := newChannelState(g, nil)
	a, b := cs.testCheckpoint("1", planHint{}), cs.testCheckpoint("2", planHint{})
	if cs.slab != nil || cs.made != 0 || a == b {
		t.Fatalf("not kept: slab %d, made %d", len(cs.slab), cs.made)
	}
	cs.kept = true
	var kcs []*keptCheckpoint
	for i := 0; i < 3*checkpointSlabMax; i++ {
		_, kc := cs.checkpoint(fmt.Sprint("x", i), time.Time{}, planHint{})
		kcs = append(kcs, kc)
	}
	for i, kc := range kcs { // each its own: none written over by a later one
		if kc.id() != fmt.Sprint("x", i) {
			t.Fatalf("kept: checkpoint %d's id became %q", i, kc.id())
		}
	}
	if cs.made != 3*checkpointSlabMax || len(cs.slab)-cs.slabAt >= checkpointSlabMax {
		t.Fatalf("kept: made %d, %d left in the slab", cs.made, len(cs.slab)-cs.slabAt)
	}
	// Once slabs are full size, a checkpoint costs 1/checkpointSlabMax of an allocation
	// (AllocsPerRun truncates to 0); each on its own costs one.
	if got := testing.AllocsPerRun(100, func() { slabSink = cs.newKept() }); got != 0 {
		t.Errorf("kept: %v allocations per checkpoint, want 1/%d", got, checkpointSlabMax)
	}
	cs.kept = false
	if got := testing.AllocsPerRun(100, func() { cs.checkpoint("y", time.Time{}, planHint{}) }); got != 1 {
		t.Errorf("not kept: %v allocations per checkpoint, want 1", got)
	}
}

// Ids written into a kept run's shared room are NewID's ids, and each
// stays as it was when the room's later ids are written.
func TestTimeIDs_IDInIsNewID(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return at } // stalls: ids then count on
	a, b := NewTimeIDs(clock), NewTimeIDs(clock)
	cs := &channelState{kept: true}
	var got, want []string
	for i := 0; i < 3*checkpointSlabMax; i++ {
		if i%10 == 0 {
			at = at.Add(time.Millisecond)
		}
		now, seq := a.next()
		got = append(got, idIn(cs.idRoom(), now, seq))
		want = append(want, b.NewID())
		cs.made++
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ids in room:\n%q\nwant\n%q", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { now, seq := a.next(); idSink = idIn(cs.idRoom(), now, seq) }); n != 0 {
		t.Errorf("%v allocations per id in room, want 1/%d", n, checkpointSlabMax)
	}
}

// idSink keeps idIn's result live in AllocsPerRun.
var idSink string

// testCheckpoint is checkpoint at time zero as a Checkpoint: a kept
// run's in its public form.
func (cs *channelState) testCheckpoint(id string, h planHint) *Checkpoint {
	cp, kc := cs.checkpoint(id, time.Time{}, h)
	if kc != nil {
		return kc.public()
	}
	return cp
}

// slabSinks keep the slabs of TestSlabs_FitTheirSizeClass on the heap.
var (
	recordSink []memRecord
	keptSink   []keptCheckpoint
)

// A MemorySaver's record chunks and a kept run's checkpoint slabs take
// the allocator's 8 KB size class: an object with pointers has a header
// past 512 bytes, and a slab of a full 8192 bytes would take the next
// class (9472 bytes: 16% of every slab wasted).
func TestSlabs_FitTheirSizeClass(t *testing.T) {
	perSlab := func(alloc func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			alloc()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 100
	}
	if got := perSlab(func() { recordSink = make([]memRecord, memChunk) }); got > 8192+256 {
		t.Errorf("a chunk of %d records takes %d bytes, want the 8 KB class", memChunk, got)
	}
	if got := perSlab(func() { keptSink = make([]keptCheckpoint, checkpointSlabMax) }); got > 8192+256 {
		t.Errorf("a slab of %d checkpoints takes %d bytes, want the 8 KB class", checkpointSlabMax, got)
	}
}
