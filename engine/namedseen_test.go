package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestNamedSeen_SnapshotsStayFrozen mirrors random changes into a
// namedSeen and a plain map, snapshotting every few changes: every
// snapshot keeps the contents it had, whatever is set later, and a
// namedSeen started from a snapshot changes without touching it.
func TestNamedSeen_SnapshotsStayFrozen(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var s namedSeen
	plain := map[string]map[string]Version{}
	type snap struct{ got, want map[string]map[string]Version }
	var snaps []snap
	for i := range 2000 {
		name := fmt.Sprint("n", rng.IntN(6))
		seen := map[string]Version{"c": Version(i)} // a new inner map each time, as the engine's
		s.set(name, seen)
		plain[name] = seen
		if rng.IntN(3) == 0 {
			snaps = append(snaps, snap{s.snapshot(), maps.Clone(plain)})
		}
		if len(snaps) > 0 && rng.IntN(50) == 0 { // a restore from a snapshot, changed on
			last := snaps[len(snaps)-1]
			r := sharing(last.got)
			r.set("restored", map[string]Version{"c": -1})
			if _, ok := last.got["restored"]; ok {
				t.Fatal("a change after a restore reached the snapshot")
			}
		}
	}
	for i, sn := range snaps {
		if !reflect.DeepEqual(sn.got, sn.want) {
			t.Fatalf("snapshot %d changed: %v, want %v", i, sn.got, sn.want)
		}
	}
	if got := s.toMap(); !reflect.DeepEqual(got, plain) {
		t.Fatalf("toMap %v, want %v", got, plain)
	}
}
