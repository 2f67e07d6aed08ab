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

// TestOrderedKeys_EncodingIsPinned: the ordered layout's keys (layout 3,
// ordered.go) are the file format: pinned byte for byte.
func TestOrderedKeys_EncodingIsPinned(t *testing.T) {
	for _, c := range []struct {
		kind byte
		key  []byte
		want string
	}{
		{kindCheckpoint, checkpointKey("c1"), "rc1\x00\x00c"},
		{kindWrite, writeKey("c1", "t\x00", -3), "rc1\x00\x00wt\x00\xff\x00\x00\x7f\xff\xff\xff\xff\xff\xff\xfd"},
		{kindChild, childKey("c1", "c2"), "rc1\x00\x00kc2\x00\x00"},
		{kindBlob, blobKey("msgs", 5, 2), "b\x80\x00\x00\x00\x00\x00\x00\x05msgs\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02"},
	} {
		got, ok := appendOrderedKey(nil, c.kind, c.key)
		if !ok || string(got) != c.want {
			t.Errorf("ordered key of %c %q = %q, %v; want %q", c.kind, c.key, got, ok, c.want)
		}
		back, ok := kindKey(c.kind, got)
		if !ok || !bytes.Equal(back, c.key) {
			t.Errorf("kindKey(%c, %q) = %q, %v; want %q", c.kind, got, back, ok, c.key)
		}
		if kind, ok := orderedKind(got); !ok || kind != c.kind {
			t.Errorf("orderedKind(%q) = %c, %v; want %c", got, kind, ok, c.kind)
		}
	}
}

// TestOrderedKeys_RoundTripAndOrder: within each kind the ordered keys
// sort as the kind's keys do (cursors walk checkpoints, writes and child
// edges in their order), every key maps back, and a checkpoint's record,
// child edges and writes sort together, before the next checkpoint's.
func TestOrderedKeys_RoundTripAndOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 2))
	type rec struct {
		kind byte
		key  []byte
		id   string // the checkpoint the record belongs to
	}
	for i := 0; i < 2000; i++ {
		var a, b rec
		for _, p := range []*rec{&a, &b} {
			id := randKeyString(r)
			switch r.IntN(4) {
			case 0:
				*p = rec{kindCheckpoint, checkpointKey(id), id}
			case 1:
				*p = rec{kindWrite, writeKey(id, randKeyString(r), r.Int64N(7)-3), id}
			case 2:
				*p = rec{kindChild, childKey(id, randKeyString(r)), id}
			default:
				*p = rec{kindBlob, blobKey(randKeyString(r), r.Int64N(5), uint64(r.IntN(3))), ""}
			}
		}
		pa, ok1 := appendOrderedKey(nil, a.kind, a.key)
		pb, ok2 := appendOrderedKey(nil, b.kind, b.key)
		if !ok1 || !ok2 {
			t.Fatalf("no ordered key for %q or %q", a.key, b.key)
		}
		for _, x := range []struct {
			rec
			p []byte
		}{{a, pa}, {b, pb}} {
			if back, ok := kindKey(x.kind, x.p); !ok || !bytes.Equal(back, x.key) {
				t.Fatalf("kindKey(%c, %q) = %q, %v; want %q", x.kind, x.p, back, ok, x.key)
			}
			for _, other := range []byte{kindCheckpoint, kindWrite, kindChild, kindBlob} {
				if _, ok := kindKey(other, x.p); ok != (other == x.kind) {
					t.Fatalf("kindKey(%c, %q) ok = %v", other, x.p, ok)
				}
			}
		}
		got := bytes.Compare(pa, pb)
		switch {
		case a.kind == kindBlob && b.kind == kindBlob:
			// Values sort by version first: new versions sort last.
			cha, va, sa, _ := parseBlobKey(a.key)
			chb, vb, sb, _ := parseBlobKey(b.key)
			if want := cmp.Or(cmp.Compare(va, vb), cmp.Compare(cha, chb), cmp.Compare(sa, sb)); got != want {
				t.Fatalf("values %q, %q compare %d, their ordered keys %d", a.key, b.key, want, got)
			}
		case a.kind == b.kind:
			if want := bytes.Compare(a.key, b.key); got != want {
				t.Fatalf("%c keys %q, %q compare %d, their ordered keys %d", a.kind, a.key, b.key, want, got)
			}
		case a.kind != kindBlob && b.kind != kindBlob && a.id != b.id:
			if want := cmp.Compare(a.id, b.id); got != want {
				t.Fatalf("records of checkpoints %q, %q compare %d, want %d", a.id, b.id, got, want)
			}
		}
	}
}

// TestFirstLen: the length of a key's first string element, escapes
// included, and -1 for a key without a whole, well-formed one.
func TestFirstLen(t *testing.T) {
	for k, want := range map[string]int{
		"":                          -1,
		"a":                         -1,
		"a\x00":                     -1,
		"a\x00\x00":                 3,
		"a\x00\x00rest":             3,
		"\x00\x00":                  2,
		"a\x00\xffb\x00\x00":        6,
		"\x00\xff\x00\xff\x00\x00x": 6,
		"a\x00\x01\x00\x00":         -1,
		"a\x00\xff":                 -1,
	} {
		if got := firstLen([]byte(k)); got != want {
			t.Errorf("firstLen(%q) = %d, want %d", k, got, want)
		}
	}
}

// TestOrderedKeys_AnyBytes: any stored key, however damaged, is either
// exactly one kind's ordered key, mapping back to itself, or none (Check
// reports it); nothing panics.
func TestOrderedKeys_AnyBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	alphabet := []byte{0x00, 0xff, 0x80, 'b', 'c', 'k', 'r', 'w', 'x'}
	for range 50000 {
		p := make([]byte, r.IntN(28))
		for i := range p {
			p[i] = alphabet[r.IntN(len(alphabet))]
		}
		kind, ok := orderedKind(p)
		for _, k := range []byte{kindCheckpoint, kindBlob, kindWrite, kindChild} {
			kk, kok := kindKey(k, p)
			if kok != isOrderedKind(k, p) || kok != (ok && k == kind) {
				t.Fatalf("key %q, kind %c: kindKey ok %v, isOrderedKind %v, orderedKind %c %v", p, k, kok, isOrderedKind(k, p), kind, ok)
			}
			if kok {
				if back, bok := appendOrderedKey(nil, k, kk); !bok || !bytes.Equal(back, p) {
					t.Fatalf("key %q of kind %c maps to %q and back to %q, %v", p, k, kk, back, bok)
				}
			}
		}
	}
}

// TestThreadPlace: errors and check reports name a thread's root
// namespace by the thread alone, a subgraph's by both.
func TestThreadPlace(t *testing.T) {
	if got := ThreadPlace("t", ""); got != `thread "t"` {
		t.Errorf("root namespace: %s", got)
	}
	if got := ThreadPlace("t", "sub:1"); got != `thread "t" namespace "sub:1"` {
		t.Errorf("subgraph namespace: %s", got)
	}
}
