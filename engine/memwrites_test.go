package engine

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// A record's writes read back in save order, each (task, slot) once
// (a special write replacing the one before it, a regular write kept as
// first saved), whether they sit in the record's own first room, in a
// carved room of the size the first batch asked for, or in rooms grown
// from either: every move between them keeps every entry.
func TestMemWrites_EntriesSurviveEveryRoom(t *testing.T) {
	channels := []string{"a", "b", ErrorChannel, "c", InterruptChannel}
	// The graph whose channel ids some batches come with (as a run's
	// do): "a" and "c" are its channels, the rest are not.
	g := &Graph{channelOrder: []string{"x", "c", "a"}}
	chanIDs := map[string]chanID{"a": 2, "c": 1}
	for seed := int64(0); seed < 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		var w memWrites
		var names memNames
		if seed%3 == 0 { // as putTaskWrites does for a first batch > first
			var n memNamespace
			w.setRoom(n.writesRoom(3 + r.Intn(5)))
		}
		type key struct {
			task memTask
			slot int32
		}
		var order []key
		want := map[key]any{}
		wantCh := map[key]string{}
		for call := 0; call < 1+r.Intn(12); call++ {
			task := newMemTask(r.Intn(4), pullTask, 0)
			var writes []Write
			for i := 0; i < r.Intn(6); i++ {
				writes = append(writes, Write{Channel: channels[r.Intn(len(channels))], Value: fmt.Sprint(seed, call, i)})
			}
			seenBefore := w.from(task) >= 0
			for i, wr := range writes {
				k := key{task, int32(WriteSlot(wr.Channel, i))}
				_, had := want[k]
				switch {
				case !had:
					order = append(order, k)
					want[k], wantCh[k] = wr.Value, wr.Channel
				case k.slot < 0:
					want[k], wantCh[k] = wr.Value, wr.Channel // special: the last wins
				case !seenBefore && !anySpecial(writes):
					t.Fatalf("seed %d: model and put disagree on a first batch", seed)
				}
			}
			var ids []chanID
			if r.Intn(2) == 0 { // with the ids, as a run saves
				ids = make([]chanID, len(writes))
				for i, wr := range writes {
					if id, ok := chanIDs[wr.Channel]; ok {
						ids[i] = id
					} else {
						ids[i] = -1
					}
				}
			}
			w.put(&names, task, writes, ids, false)
		}
		got := w.entries()
		if len(got) != len(order) {
			t.Fatalf("seed %d: %d entries, want %d", seed, len(got), len(order))
		}
		for i, e := range got {
			if k := (key{e.key.task, e.key.slot}); k != order[i] || e.value != want[k] || names.channel(&got[i], g) != wantCh[k] {
				t.Fatalf("seed %d: entry %d = %v %v %q, want %v %v %q", seed, i, k, e.value, names.channel(&got[i], g), order[i], want[order[i]], wantCh[order[i]])
			}
		}
		if w.lazy != int32(len(got)) {
			t.Fatalf("seed %d: %d counted by reference, want %d", seed, w.lazy, len(got))
		}
	}
}

// One task's many writes, usually all their checkpoint gets (a run's
// input), make no index of tasks; the index is made when a task is looked
// for among them, and finds the task's first entry.
func TestMemWrites_IndexMadeWhenLookedFor(t *testing.T) {
	var w memWrites
	var names memNames
	writes := make([]Write, 3*memWritesIndexAt)
	for i := range writes {
		writes[i] = Write{Channel: fmt.Sprint("c", i), Value: i}
	}
	a, b := newMemTask(0, pullTask, 0), newMemTask(1, pullTask, 0)
	w.put(&names, a, writes, nil, false)
	if w.indexed() {
		t.Fatalf("%d writes of one task: indexed", len(writes))
	}
	w.put(&names, b, writes[:2], nil, false)
	if !w.indexed() {
		t.Fatalf("a second task's writes after %d: not indexed", len(writes))
	}
	if got, want := w.from(a), 0; got != want {
		t.Fatalf("first of task a: %d, want %d", got, want)
	}
	if got, want := w.from(b), len(writes); got != want {
		t.Fatalf("first of task b: %d, want %d", got, want)
	}
}

// A batch given a carved room (putTaskWrites: a first batch larger than
// the record's own) is saved in that room, not in one grown anew.
func TestMemWrites_CarvedRoomIsUsed(t *testing.T) {
	var n memNamespace
	for k := 3; k <= 9; k++ {
		var w memWrites
		room := n.writesRoom(k)
		w.setRoom(room)
		writes := make([]Write, k)
		for i := range writes {
			writes[i] = Write{Channel: fmt.Sprint("c", i), Value: i}
		}
		w.put(&n.names, newMemTask(0, pullTask, 0), writes, nil, false)
		if es := w.entries(); len(es) != k || &es[0] != &room[:1][0] || es[k-1].value != k-1 {
			t.Fatalf("%d writes: not saved in their carved room", k)
		}
	}
}

// A run's writes keep their channels as ids once the node's ids are
// known (the graph's second run), read back by name, and keep their
// names when their checkpoint is put again as a plain Checkpoint, which
// has no graph to name ids with.
func TestMemWrites_ChannelsByIDReadAsNames(t *testing.T) {
	ms := NewMemorySaver()
	g := keptGraph(t, ms)
	ctx := context.Background()
	for _, thread := range []string{"cold", "warm"} {
		if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread(thread)); err != nil {
			t.Fatal(err)
		}
	}
	byID := 0
	n := ms.threads["warm"][""]
	for i := range n.order {
		r := n.at(i)
		for _, e := range r.writes.entries() {
			if e.ch >= 0 {
				byID++
			}
		}
	}
	if byID == 0 {
		t.Fatal("no write of the warm run was kept by channel id")
	}
	cold, err := ms.List(ctx, Config{ThreadID: "cold"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := ms.List(ctx, Config{ThreadID: "warm"}, ListOptions{})
	if err != nil || len(warm) != len(cold) {
		t.Fatalf("%d and %d checkpoints (%v)", len(warm), len(cold), err)
	}
	names := func(ws []PendingWrite) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Channel+"="+fmt.Sprint(w.Value))
		}
		return out
	}
	withWrites := 0
	for i := range warm {
		got, want := names(warm[i].PendingWrites), names(cold[i].PendingWrites)
		if !slices.Equal(got, want) {
			t.Fatalf("checkpoint %d: writes %v, want %v (the cold run's)", i, got, want)
		}
		if len(got) > 0 {
			withWrites++
		}
	}
	if withWrites < 3 {
		t.Fatalf("%d checkpoints with writes", withWrites)
	}
	// Put again as a plain Checkpoint: the ids' graph goes with the old one.
	for i, tp := range warm {
		plain := tp.Checkpoint.Clone()
		plain.ID = tp.Checkpoint.ID
		if _, err := ms.Put(ctx, Config{ThreadID: "warm", CheckpointID: tp.ParentID}, plain, tp.Metadata, nil); err != nil {
			t.Fatal(err)
		}
		again, err := ms.GetTuple(ctx, tp.Config)
		if err != nil || again == nil {
			t.Fatal(err)
		}
		if got, want := names(again.PendingWrites), names(cold[i].PendingWrites); !slices.Equal(got, want) {
			t.Fatalf("checkpoint %d put again: writes %v, want %v", i, got, want)
		}
	}
}

// A namespace's names table reads back every name by its ch, across its
// chunks, and ids by the graph's channel order.
func TestMemNames_ReadBackAcrossChunks(t *testing.T) {
	var names memNames
	var chs []int32
	for i := range 3*memNamesChunk + 7 {
		chs = append(chs, names.byName(fmt.Sprint("c", i)))
	}
	for i, ch := range chs {
		if got := names.channel(&memWrite{ch: ch}, nil); got != fmt.Sprint("c", i) {
			t.Fatalf("name %d reads back as %q", i, got)
		}
	}
	g := &Graph{channelOrder: []string{"x", "y"}}
	if got := names.channel(&memWrite{ch: 1}, g); got != "y" {
		t.Fatalf("id 1 reads back as %q", got)
	}
}

// memTaskIndex finds what was set last for every task, through its growth
// and the collisions of tasks that differ only in their node or path, as a
// map would.
func TestMemTaskIndex_AsAMap(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var x memTaskIndex
	want := map[uint64]int{}
	var keys []uint64
	for i := 0; i < 5000; i++ {
		var task memTask
		switch r.Intn(3) {
		case 0:
			task = newMemTask(r.Intn(4), pushTask, r.Intn(2000))
		case 1:
			task = newMemTask(r.Intn(4), pullTask, r.Intn(8))
		default:
			task = memTask{memByID, int32(r.Intn(500))}
		}
		k := task.slot()
		keys = append(keys, k)
		x.set(k, i)
		want[k] = i
		if got, ok := x.get(k); !ok || got != i {
			t.Fatalf("set %d: get = %d %v", i, got, ok)
		}
	}
	if x.n != len(want) {
		t.Fatalf("%d entries, want %d", x.n, len(want))
	}
	for _, k := range keys {
		if got, ok := x.get(k); !ok || got != want[k] {
			t.Fatalf("task %x: %d %v, want %d", k, got, ok, want[k])
		}
	}
	if _, ok := x.get(newMemTask(5, pullTask, 0).slot()); ok {
		t.Fatal("a task never set is found")
	}
	var empty memTaskIndex
	if _, ok := empty.get(keys[0]); ok {
		t.Fatal("found in an empty index")
	}
}
