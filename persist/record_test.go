package persist

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// TestAppendSuffix: the store's form of an append, the bytes after the
// previous list's last element; which changes are appends is
// engine.AppendedElements's (its own test).
func TestAppendSuffix(t *testing.T) {
	tests := []struct {
		prev, next string
		want       string // "" means not an append
	}{
		{`[1]`, `[1,2]`, `,2`},
		{`[1]`, `[1,2,3]`, `,2,3`},
		{`[{"a":1}]`, `[{"a":1},{"b":2}]`, `,{"b":2}`},
		{`[]`, `[1]`, ``},   // nothing to follow: stored whole
		{`[1]`, `[10]`, ``}, // element grew, not the list
	}
	for _, tt := range tests {
		got, ok := appendSuffix([]byte(tt.prev), []byte(tt.next))
		if ok != (tt.want != "") || string(got) != tt.want {
			t.Errorf("appendSuffix(%s, %s) = %q, %v; want %q", tt.prev, tt.next, got, ok, tt.want)
		}
	}
}

// randValue returns a random JSON-like value of the engine's kinds.
func randValue(r *rand.Rand, depth int) any {
	n := r.IntN(8)
	if depth > 2 {
		n = r.IntN(4)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return float64(r.IntN(21) - 10)
	case 3:
		return []string{"", "a", "ab", "a,b", `"`, "]"}[r.IntN(6)]
	case 4, 5:
		l := make([]any, r.IntN(3))
		for i := range l {
			l[i] = randValue(r, depth+1)
		}
		return l
	case 6:
		m := map[string]any{}
		for range r.IntN(3) {
			m[[]string{"a", "b", "c"}[r.IntN(3)]] = randValue(r, depth+1)
		}
		return m
	default:
		return engine.Send{Node: "n", Arg: randValue(r, depth+1)}
	}
}

// TestAppendSuffix_Property checks the byte-level list-prefix test against
// the element-level one on random lists.
func TestAppendSuffix_Property(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 4))
	for range 20000 {
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randValue(r, 1)
		}
		full := make([]any, 0, len(a)+2)
		full = append(full, a...)
		for range r.IntN(3) {
			full = append(full, randValue(r, 1))
		}
		var b []any
		if r.IntN(3) == 0 {
			// An unrelated list: an append must then really be one.
			b, _ = randValue(r, 0).([]any)
		} else {
			b = full
		}
		pa, _ := engine.EncodeValue(a)
		pb, _ := engine.EncodeValue(b)
		suffix, ok := appendSuffix(pa, pb)
		isAppend := len(a) > 0 && len(b) > len(a) && reflect.DeepEqual(engine.Normalize(b[:len(a)]), engine.Normalize(a))
		if ok != isAppend {
			t.Fatalf("appendSuffix(%s, %s) = %v, want %v", pa, pb, ok, isAppend)
		}
		if ok {
			rebuilt := append(append(bytes.Clone(pa[:len(pa)-1]), suffix...), ']')
			if !bytes.Equal(rebuilt, pb) {
				t.Fatalf("rebuilt %s, want %s", rebuilt, pb)
			}
		}
	}
}

// testDB opens a bare store on a temporary file.
func testDB(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRecord_DeltaDoesNotGrow runs a thread that touches a new channel and a
// new node at every step: full images grow with the thread, deltas must not.
func TestRecord_DeltaDoesNotGrow(t *testing.T) {
	s := testDB(t)
	ctx := context.Background()
	cp := &engine.Checkpoint{V: 4, ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}}
	parent := ""
	const n = 300
	for i := 1; i <= n; i++ {
		next := cp.Clone()
		next.ID = fmt.Sprintf("%032x", i)
		ch := fmt.Sprintf("channel_with_a_long_name_%04d", i)
		next.ChannelValues[ch] = float64(i)
		next.ChannelVersions[ch] = engine.Version(i)
		next.VersionsSeen[fmt.Sprintf("node_with_a_long_name_%04d", i)] = map[string]engine.Version{ch: engine.Version(i)}
		if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: parent}, next, engine.Metadata{Source: "loop", Step: i}, nil); err != nil {
			t.Fatal(err)
		}
		cp, parent = next, next.ID
	}
	var maxDelta, maxFull, fulls int
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := openNS(tx, "t", "", false)
		if err != nil {
			return err
		}
		return b.cps.ForEach(func(k, v []byte) error {
			rec, err := decodeRecord(v)
			if err != nil {
				return err
			}
			if !rec.Delta {
				fulls++
				maxFull = max(maxFull, len(v))
			} else {
				maxDelta = max(maxDelta, len(v))
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d checkpoints: %d full images (largest %d bytes), largest delta %d bytes", n, fulls, maxFull, maxDelta)
	if want := (n + fullEvery - 1) / fullEvery; fulls != want {
		t.Errorf("%d full images, want %d (one every %d)", fulls, want, fullEvery)
	}
	if maxDelta > 400 {
		t.Errorf("largest delta record is %d bytes: deltas grow with the thread", maxDelta)
	}
	got, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Checkpoint.ChannelVersions, cp.ChannelVersions) || len(got.Checkpoint.VersionsSeen) != n {
		t.Errorf("latest checkpoint rebuilt wrong: %d versions, %d seen", len(got.Checkpoint.ChannelVersions), len(got.Checkpoint.VersionsSeen))
	}
}

// FuzzDecodeValue feeds arbitrary bytes to every decoder of stored values:
// they must return an error, never panic.
func FuzzDecodeValue(f *testing.F) {
	f.Add([]byte{blobFormat, blobFull, '[', '1', ']'})
	f.Add([]byte{blobFormat, blobEmpty})
	f.Add(encodeAppendBlob(chanRef{Version: 3, Seq: 1}, chainSize{depth: 2, base: 10, appended: 8}, []byte(`,{"a":1}`)))
	f.Add([]byte{blobFormat, blobAppend, 4, 0, 1, ',', '1'})
	f.Add(encodeWrite("messages", []byte(`{"$send":{"arg":1,"node":"n"}}`)))
	rec, _ := encodeRecord(&cpRecord{V: 4, Delta: true, Depth: 3, Versions: map[string]int64{"a": 1}, Updated: []string{}})
	f.Add(rec)
	f.Add([]byte{9, 9, 9})
	f.Add([]byte{})
	// One store for the whole run: opening a file per input would dominate.
	s, err := Open(filepath.Join(f.TempDir(), "fuzz.db"), Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		if h, err := parseBlob(data); err == nil && h.kind == blobFull {
			engine.DecodeValue(h.payload)
		}
		decodeWrite(data)
		if r, err := decodeRecord(data); err == nil {
			decodeMetadata(r.Meta)
			if !r.Delta {
				r.fullState()
			} else {
				r.applyDelta(&cpState{refs: map[string]chanRef{}, seen: map[string]map[string]int64{}})
			}
		}
		// Through a real bucket, as a chain to follow; rolled back.
		s.db.Update(func(tx *bolt.Tx) error {
			b, err := openNS(tx, "fuzz", "", true)
			if err != nil {
				return err
			}
			b.blobs.Put(blobKey("c", 1, 0), data)
			b.blobs.Put(blobKey("c", 0, 0), data)
			readBlob(b.blobs, "c", chanRef{Version: 1})
			b.cps.Put(checkpointKey("x"), data)
			if r, err := decodeRecord(data); err == nil {
				loadState(b.cps, "x", r, nil)
			}
			return errRollback
		})
	})
}

var errRollback = fmt.Errorf("rollback")
