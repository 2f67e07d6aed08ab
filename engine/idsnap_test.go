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
