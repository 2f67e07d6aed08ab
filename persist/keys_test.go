package persist

import (
	"bytes"
	"cmp"
	"flag"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomized tests (0: time-based)")

// testSeed returns the randomized tests' seed and logs it so a failure can
// be replayed with -seed.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed=%d)", s, s)
	return s
}

// randKeyString draws from a small alphabet rich in the bytes the encoding
// treats specially (0x00, 0xff, 0x01), so prefixes and escapes collide often.
func randKeyString(r *rand.Rand) string {
	alphabet := []byte{0x00, 0x01, 0xff, 'a', 'b'}
	b := make([]byte, r.IntN(5))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func randInt(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return int64(r.IntN(9)) - 4 // the write slots live here
	case 1:
		return math.MinInt64 + int64(r.IntN(2))
	case 2:
		return math.MaxInt64 - int64(r.IntN(2))
	}
	return r.Int64() - math.MaxInt64/2
}

func TestWriteKey_RoundTripAndOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	type tuple struct {
		cp, task string
		slot     int64
	}
	compare := func(a, b tuple) int {
		return cmp.Or(cmp.Compare(a.cp, b.cp), cmp.Compare(a.task, b.task), cmp.Compare(a.slot, b.slot))
	}
	for range 20000 {
		a := tuple{randKeyString(r), randKeyString(r), randInt(r)}
		b := tuple{randKeyString(r), randKeyString(r), randInt(r)}
		ka, kb := writeKey(a.cp, a.task, a.slot), writeKey(b.cp, b.task, b.slot)
		cp, task, slot, err := parseWriteKey(ka)
		if err != nil || (tuple{cp, task, slot}) != a {
			t.Fatalf("parseWriteKey(writeKey(%+v)) = %q, %q, %d, %v", a, cp, task, slot, err)
		}
		if got, want := bytes.Compare(ka, kb), compare(a, b); got != want {
			t.Fatalf("order of %+v and %+v: keys compare %d, tuples %d", a, b, got, want)
		}
		if !bytes.HasPrefix(ka, writePrefix(a.cp)) || !bytes.HasPrefix(ka, writePrefix(a.cp, a.task)) {
			t.Fatalf("writePrefix is not a prefix of writeKey for %+v", a)
		}
		// A prefix must not match another checkpoint's or task's keys.
		if a.cp != b.cp && bytes.HasPrefix(kb, writePrefix(a.cp)) {
			t.Fatalf("writePrefix(%q) matches a key of checkpoint %q", a.cp, b.cp)
		}
	}
}

func TestBlobKey_RoundTripAndOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 2))
	type tuple struct {
		ch  string
		ver int64
		seq uint64
	}
	for range 20000 {
		a := tuple{randKeyString(r), randInt(r), uint64(r.IntN(3))}
		b := tuple{randKeyString(r), randInt(r), uint64(r.IntN(3))}
		ka, kb := blobKey(a.ch, a.ver, a.seq), blobKey(b.ch, b.ver, b.seq)
		ch, ver, seq, err := parseBlobKey(ka)
		if err != nil || (tuple{ch, ver, seq}) != a {
			t.Fatalf("parseBlobKey(blobKey(%v)) = %q, %d, %d, %v", a, ch, ver, seq, err)
		}
		want := cmp.Or(cmp.Compare(a.ch, b.ch), cmp.Compare(a.ver, b.ver), cmp.Compare(a.seq, b.seq))
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("order of %v and %v: keys compare %d, tuples %d", a, b, got, want)
		}
	}
}

func TestCheckpointKey_RoundTripAndOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	for range 20000 {
		a, b := randKeyString(r), randKeyString(r)
		ka := checkpointKey(a)
		if got, err := parseCheckpointKey(ka); err != nil || got != a {
			t.Fatalf("parseCheckpointKey(checkpointKey(%q)) = %q, %v", a, got, err)
		}
		if got, want := bytes.Compare(ka, checkpointKey(b)), cmp.Compare(a, b); got != want {
			t.Fatalf("order of %q and %q: keys compare %d, strings %d", a, b, got, want)
		}
		pa, pb := randKeyString(r), randKeyString(r)
		p, c, err := parseChildKey(childKey(pa, pb))
		if err != nil || p != pa || c != pb {
			t.Fatalf("parseChildKey(childKey(%q, %q)) = %q, %q, %v", pa, pb, p, c, err)
		}
	}
}

func TestKeys_SpecialSlotsSortFirst(t *testing.T) {
	// LangGraph's WRITES_IDX_MAP: resume -4, interrupt -3, scheduled -2,
	// error -1, then regular writes by index.
	var prev []byte
	for _, slot := range []int64{-4, -3, -2, -1, 0, 1, 2, 255, 256, 1 << 40} {
		k := writeKey("cp", "task", slot)
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("slot %d does not sort after the previous slot", slot)
		}
		prev = k
	}
}

func TestKeys_ParseRejectsMalformed(t *testing.T) {
	for _, k := range [][]byte{
		nil, {0}, {'a'}, {'a', 0}, {'a', 0, 1}, {'a', 0, 0, 'x'},
		append(appendString(nil, "cp"), 0, 0), // task terminator but no slot
	} {
		if _, err := parseCheckpointKey(k); err == nil && len(k) > 0 && k[len(k)-1] != 0 {
			t.Errorf("parseCheckpointKey(%x) accepted a malformed key", k)
		}
		if _, _, _, err := parseWriteKey(k); err == nil {
			t.Errorf("parseWriteKey(%x) accepted a malformed key", k)
		}
		if _, _, _, err := parseBlobKey(k); err == nil {
			t.Errorf("parseBlobKey(%x) accepted a malformed key", k)
		}
	}
}

// The key encoding is the file format: these bytes must never change,
// whichever path (plain copy or escaping) encodes a string.
func TestKeys_EncodingIsPinned(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{
		{"plain string", appendString(nil, "ab"), "ab\x00\x00"},
		{"empty string", appendString(nil, ""), "\x00\x00"},
		{"escaped zero", appendString(nil, "a\x00b\x00"), "a\x00\xffb\x00\xff\x00\x00"},
		{"write key", writeKey("c1", "t", -1), "c1\x00\x00t\x00\x00\x7f\xff\xff\xff\xff\xff\xff\xff"},
		{"blob key", blobKey("n", 2, 1), "n\x00\x00\x80\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01"},
		{"child key", childKey("p\x00", "c"), "p\x00\xff\x00\x00c\x00\x00"},
	} {
		if string(c.got) != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}
