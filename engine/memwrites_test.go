package engine

import (
	"fmt"
	"math/rand"
	"testing"
)

// A record's writes read back in save order, each (task, slot) once
// (a special write replacing the one before it, a regular write kept as
// first saved), whether they sit in the record's own first room, in a
// carved room of the size the first batch asked for, or in rooms grown
// from either: every move between them keeps every entry.
func TestMemWrites_EntriesSurviveEveryRoom(t *testing.T) {
	channels := []string{"a", "b", ErrorChannel, "c", InterruptChannel}
	for seed := int64(0); seed < 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		var w memWrites
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
					want[k] = wr.Value
				case k.slot < 0:
					want[k] = wr.Value // special: the last wins
				case !seenBefore && !anySpecial(writes):
					t.Fatalf("seed %d: model and put disagree on a first batch", seed)
				}
			}
			w.put(task, writes)
		}
		got := w.entries()
		if len(got) != len(order) {
			t.Fatalf("seed %d: %d entries, want %d", seed, len(got), len(order))
		}
		for i, e := range got {
			if k := (key{e.key.task, e.key.slot}); k != order[i] || e.value != want[k] {
				t.Fatalf("seed %d: entry %d = %v %v, want %v %v", seed, i, k, e.value, order[i], want[order[i]])
			}
		}
		if w.lazy != int32(len(got)) {
			t.Fatalf("seed %d: %d counted by reference, want %d", seed, w.lazy, len(got))
		}
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
		w.put(newMemTask(0, pullTask, 0), writes)
		if es := w.entries(); len(es) != k || &es[0] != &room[:1][0] || es[k-1].value != k-1 {
			t.Fatalf("%d writes: not saved in their carved room", k)
		}
	}
}
