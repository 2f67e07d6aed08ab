package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestCowMap_SnapshotsStayFrozen mirrors random writes into a cowMap and a
// plain map, snapshotting along the way: every snapshot must keep the
// contents it had, whatever is written later, across the split into shards.
// Snapshots taken every few writes are deltas on earlier ones (and every
// cowDeltaDepth-th a base); taken rarely, most are bases.
func TestCowMap_SnapshotsStayFrozen(t *testing.T) {
	for _, every := range []int{1, 5, 97} {
		t.Run(fmt.Sprint("every_", every), func(t *testing.T) { testCowMapSnapshots(t, every) })
	}
}

func testCowMapSnapshots(t *testing.T, every int) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	c := newCowMap[int]()
	plain := map[string]int{}
	type snap struct {
		f    frozenMap[int]
		want map[string]int
	}
	var snaps []snap
	for i := 0; i < 3000; i++ {
		k := fmt.Sprint("k", rng.IntN(400))
		if rng.IntN(5) == 0 {
			c.del(k)
			delete(plain, k)
		} else {
			c.set(k, i)
			plain[k] = i
		}
		if rng.IntN(every) == 0 {
			want := map[string]int{}
			for k, v := range plain {
				want[k] = v
			}
			snaps = append(snaps, snap{c.snapshot(), want})
		}
	}
	if !reflect.DeepEqual(c.toMap(), plain) || c.len() != len(plain) {
		t.Fatal("live map diverged from the plain map")
	}
	for i, s := range snaps {
		if got := s.f.toMap(); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("snapshot %d changed after later writes", i)
		}
		for k, v := range s.want {
			if got, ok := s.f.get(k); !ok || got != v {
				t.Fatalf("snapshot %d: get(%q) = %d, %v; want %d", i, k, got, ok, v)
			}
		}
		if _, ok := s.f.get("k400"); ok {
			t.Fatalf("snapshot %d: get of a key never set found one", i)
		}
		if got := s.f.flat().toMap(); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("snapshot %d flattened differs", i)
		}
		th := s.f.thaw()
		if got := th.toMap(); !reflect.DeepEqual(got, s.want) || th.len() != len(s.want) {
			t.Fatalf("snapshot %d thawed differs", i)
		}
		th.set("new", 1)
		if _, ok := s.f.get("new"); ok {
			t.Fatalf("writing a thawed snapshot %d changed the snapshot", i)
		}
	}
}
