package engine

import (
	"math/rand"
	"slices"
	"testing"
)

// Every snapshot of an idLog keeps what the slice held when it was taken,
// across deltas and bases, whatever is written after it.
func TestIDLog_SnapshotsStayFrozen(t *testing.T) {
	for _, every := range []int{1, 5, 97} {
		const n = 40
		cur := make([]int64, n)
		var l idLog[int64]
		var snaps []*idFrozen[int64]
		var want [][]int64
		r := rand.New(rand.NewSource(int64(every)))
		for i := 0; i < 3000; i++ {
			id := int32(r.Intn(n))
			cur[id] = int64(i + 1)
			l.note(id, cur[id])
			if i%every == 0 {
				f := new(idFrozen[int64])
				l.snapshotTo(f, make([]idEntry[int64], 0, 3), n, func() idFrozen[int64] { return denseBase(slices.Clone(cur)) })
				snaps, want = append(snaps, f), append(want, slices.Clone(cur))
			}
		}
		bases := 0
		for i, f := range snaps {
			if f.parent == nil {
				bases++
			}
			if got := f.flat(); !slices.Equal(got, want[i]) {
				t.Fatalf("every %d: snapshot %d = %v, want %v", every, i, got, want[i])
			}
		}
		// A delta holds at most as many changes as a base (64 here): past
		// that every snapshot is a base.
		if every < 64 && (bases < 2 || bases == len(snaps)) {
			t.Fatalf("every %d: %d bases of %d snapshots: want deltas between a few bases", every, bases, len(snaps))
		}
		if every >= 64 && bases != len(snaps) {
			t.Fatalf("every %d: %d bases of %d snapshots: want only bases", every, bases, len(snaps))
		}
	}
}

// A values log drops its references after a snapshot (its memory is
// reused), except where every one is now a kept delta's (carve): there
// clearing them would only be pointer writes through the write barrier.
// After a base, kept or not, nothing it held is referenced.
func TestIDLog_DropsReferencesUnlessKept(t *testing.T) {
	for _, kept := range []bool{false, true} {
		var l idLog[any]
		l.carve = kept
		vals := []any{absent, absent, absent, absent}
		full := func() idFrozen[any] { return denseBase(slices.Clone(vals)) }
		var f0, f1, f2 idFrozen[any]
		l.snapshotTo(&f0, nil, len(vals), full) // the first is a base
		for i := range 3 {
			v := any(&struct{ n int }{i})
			vals[i] = v
			l.note(int32(i), v)
		}
		l.snapshotTo(&f1, make([]idEntry[any], 0, 3), len(vals), full)
		if f1.parent != &f0 || len(f1.delta()) != 3 {
			t.Fatalf("kept %v: want a delta of 3 over the base, got %+v", kept, f1)
		}
		held := 0
		for _, e := range l.log[:cap(l.log)] {
			if e.val != nil {
				held++
			}
		}
		if want := map[bool]int{false: 0, true: 3}[kept]; held != want {
			t.Errorf("kept %v: the log holds %d values after a delta, want %d", kept, held, want)
		}
		// Enough changes that the next snapshot is a base.
		for i := range 70 {
			l.note(3, any(&struct{ n int }{i}))
		}
		l.snapshotTo(&f2, nil, len(vals), full)
		if f2.parent != nil {
			t.Fatalf("kept %v: want a base", kept)
		}
		for i, e := range l.log[:70] {
			if e.val != nil {
				t.Fatalf("kept %v: after a base the log still holds entry %d", kept, i)
			}
		}
	}
}

// A kept log (carve) takes a base once its deltas since the last one hold
// several times as many changes as the slice has slots, not as many: each
// base is kept too, and the run pays for its copy.
func TestIDLog_KeptTakesFewerBases(t *testing.T) {
	const n, snaps = 64, 1024
	bases := map[bool]int{}
	for _, kept := range []bool{false, true} {
		var l idLog[int64]
		l.carve = kept
		cur := make([]int64, n)
		for i := range snaps {
			cur[i%n] = int64(i + 1)
			l.note(int32(i%n), cur[i%n])
			f := new(idFrozen[int64])
			l.snapshotTo(f, make([]idEntry[int64], 0, 1), n, func() idFrozen[int64] { return denseBase(slices.Clone(cur)) })
			if f.parent == nil {
				bases[kept]++
			}
			if got := f.flat(); !slices.Equal(got, cur) {
				t.Fatalf("kept %v: snapshot %d = %v, want %v", kept, i, got, cur)
			}
		}
	}
	// One change a snapshot: a base every n + 1 snapshots unless kept.
	if plain := bases[false]; plain < snaps/(n+1) || plain > snaps/(n+1)+1 {
		t.Errorf("not kept: %d bases of %d snapshots, want %d", plain, snaps, snaps/(n+1)+1)
	}
	if 2*bases[true] > bases[false] {
		t.Errorf("kept: %d bases of %d snapshots, want at most half of %d (not kept)", bases[true], snaps, bases[false])
	}
}
