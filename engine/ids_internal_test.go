package engine

import (
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"strconv"
	"testing"
)

// fnvHashID is the definition task ids are kept equal to: FNV-1a/128 from
// hash/fnv over the parts, each ended by a 0 byte.
func fnvHashID(parts ...string) string {
	h := fnv.New128a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var raw [16]byte
	h.Sum(raw[:0])
	return layout(raw)
}

// TestHashID_MatchesFNV pins task and interrupt ids to hash/fnv's FNV-1a:
// ids saved by earlier versions must still match re-planned tasks.
func TestHashID_MatchesFNV(t *testing.T) {
	cp := idFrom(0x0123456789abcdef, 42)
	for _, step := range []int{-1, 0, 7, 1234567} {
		for _, ns := range []string{"", "outer:" + cp, "a|b:c"} {
			if got, want := pullTaskID(cp, ns, step, "node", "branch:to:node"), fnvHashID(cp, ns, strconv.Itoa(step), "node", Pull, "branch:to:node"); got != want {
				t.Errorf("pullTaskID(step %d, ns %q) = %s, want %s", step, ns, got, want)
			}
			for _, idx := range []int{0, 9, 999} {
				if got, want := pushTaskID(cp, ns, step, "work", idx), fnvHashID(cp, ns, strconv.Itoa(step), "work", Push, strconv.Itoa(idx)); got != want {
					t.Errorf("pushTaskID(step %d, idx %d) = %s, want %s", step, idx, got, want)
				}
			}
		}
	}
	for _, parts := range [][]string{nil, {""}, {"x"}, {"é", "\x00", "long part " + cp + cp}} {
		if got, want := hashID(parts...), fnvHashID(parts...); got != want {
			t.Errorf("hashID(%q) = %s, want %s", parts, got, want)
		}
	}
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], 1)
	if layout(raw) != "00000000-0000-0001-0000-000000000000" {
		t.Errorf("layout = %s", layout(raw))
	}
}

// layout is hex in the 8-4-4-4-12 groups of a UUID, for every byte value
// at every position.
func TestLayout_IsGroupedHex(t *testing.T) {
	for v := 0; v < 256; v++ {
		var raw [16]byte
		for i := range raw {
			raw[i] = byte(v + 17*i)
		}
		h := hex.EncodeToString(raw[:])
		want := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		if got := layout(raw); got != want {
			t.Fatalf("layout(%x) = %s, want %s", raw, got, want)
		}
	}
}

func TestPullTaskID_DoesNotAllocateButTheID(t *testing.T) {
	cp := idFrom(1, 2)
	if n := testing.AllocsPerRun(100, func() { _ = pullTaskID(cp, "", 12, "node", "branch:to:node") }); n > 1 {
		t.Errorf("pullTaskID allocates %v times, want 1 (the id)", n)
	}
}
