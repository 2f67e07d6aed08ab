package postgres

import (
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// TestHashBlob checks hashBlob against hash/fnv's FNV-1a, which stored
// hashes (keys of the blobs table) were computed with.
func TestHashBlob(t *testing.T) {
	want := func(data []byte, has bool) int64 {
		h := fnv.New64a()
		h.Write(data)
		if !has {
			h.Write([]byte{0})
		}
		return int64(h.Sum64() >> 1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 70 {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		for _, has := range []bool{true, false} {
			if got, w := hashBlob(data, has), want(data, has); got != w {
				t.Errorf("hashBlob(%x, %v) = %d, want %d", data, has, got, w)
			}
		}
	}
	// A value fixed once: a change of either function shows here too.
	if got := hashBlob([]byte(`[{"role":"ai"}]`), true); got != want([]byte(`[{"role":"ai"}]`), true) || got != 0x65b7715d96f56a41 {
		t.Errorf("hashBlob of a fixed value = %#x", got)
	}
}
