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
func TestCowMap_SnapshotsStayFrozen(t *testing.T) {
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
		if i%97 == 0 {
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
		th := s.f.thaw()
		th.set("new", 1)
		if _, ok := s.f.get("new"); ok {
			t.Fatalf("writing a thawed snapshot %d changed the snapshot", i)
		}
	}
}
