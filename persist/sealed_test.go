package persist_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// rewriteRecord replaces the stored bytes of the last record of bucket
// kind ("cp", "blob", "w", "kids") in thread th's root namespace with
// what change returns, keeping the key.
func rewriteRecord(t *testing.T, path, th, kind string, change func(k, v []byte) (newKey, newValue []byte)) {
	t.Helper()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := persist.RawRecordsForTest(tx, th, "", kind)
		k, v := b.Last()
		nk, nv := change(bytes.Clone(k), v)
		if !bytes.Equal(nk, k) {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return b.Put(nk, nv)
	})
}

// TestSealed_ChangedRecord: a record whose bytes changed after it was
// written (a value, a key, a value moved under another key) still decodes,
// and was read back as if written so before records were sealed. Now
// every read that meets it fails naming the thread and the record, and
// Check reports it.
func TestSealed_ChangedRecord(t *testing.T) {
	cases := []struct {
		name, kind string
		change     func(k, v []byte) ([]byte, []byte)
		want       string // in the read error
	}{
		{"a digit of a value", "blob", func(k, v []byte) ([]byte, []byte) {
			i := bytes.LastIndexAny(v[:len(v)-4], "0123456789")
			v[i] ^= 1 // another digit: still JSON
			return k, v
		}, "fails its checksum"},
		{"the step in a checkpoint record", "cp", func(k, v []byte) ([]byte, []byte) {
			i := bytes.Index(v, []byte(`"step":`)) + len(`"step":`)
			v[i] ^= 1
			return k, v
		}, `the record of checkpoint "00000000000000000000000000000003" fails its checksum`},
		{"a checkpoint's key", "cp", func(k, v []byte) ([]byte, []byte) {
			k[len(k)-3] ^= 1 // id "…03" becomes "…02": the record replaces its parent's
			return k, v
		}, "fails its checksum"},
		{"a pending write's value", "w", func(k, v []byte) ([]byte, []byte) {
			i := bytes.LastIndex(v[:len(v)-4], []byte("number"))
			v[i] = 'N'
			return k, v
		}, "write 0 of task"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			s := openAt(t, path, persist.Options{NoSync: true})
			chain(t, s, "t", 3)
			s.Close()
			rewriteRecord(t, path, "t", c.kind, c.change)
			s = openAt(t, path, persist.Options{ReadOnly: true})
			_, err := s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{AllNamespaces: true})
			var de *persist.DamagedRecordError
			if !errors.As(err, &de) || !errors.Is(err, persist.ErrCorrupt) || de.Thread != "t" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("List: %v, want a DamagedRecordError in thread \"t\" saying %q", err, c.want)
			}
			if err := s.Check(); !errors.Is(err, persist.ErrCorrupt) || !strings.Contains(err.Error(), "fails its checksum") {
				t.Errorf("Check: %v, want a record that fails its checksum", err)
			}
		})
	}
}

// TestSealed_MovedThread: records moved under another thread's name (a
// damaged thread name) do not open there.
func TestSealed_MovedThread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	chain(t, s, "ab", 2)
	s.Close()
	renameRaw(t, path, "ab", "ac")
	s = openAt(t, path, persist.Options{ReadOnly: true})
	infos, err := s.Threads(ctx)
	if err != nil || len(infos) != 1 || !errors.Is(infos[0].Err, persist.ErrCorrupt) {
		t.Fatalf("Threads: %+v, %v, want thread \"ac\" listed as damaged", infos, err)
	}
	if _, err := s.GetTuple(ctx, engine.Config{ThreadID: "ac"}); !errors.Is(err, persist.ErrCorrupt) {
		t.Errorf("GetTuple: %v, want ErrCorrupt", err)
	}
	if err := s.Check(); !errors.Is(err, persist.ErrCorrupt) {
		t.Errorf("Check: %v, want ErrCorrupt", err)
	}
}

// renameRaw copies thread from's buckets to the name to with bbolt, as a
// damaged bucket name would leave them.
func renameRaw(t *testing.T, path, from, to string) {
	t.Helper()
	var copyBucket func(dst, src *bolt.Bucket) error
	copyBucket = func(dst, src *bolt.Bucket) error {
		return src.ForEach(func(k, v []byte) error {
			if v != nil {
				return dst.Put(k, v)
			}
			sub, err := dst.CreateBucket(k)
			if err != nil {
				return err
			}
			return copyBucket(sub, src.Bucket(k))
		})
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		threads := tx.Bucket([]byte("threads"))
		dst, err := threads.CreateBucket([]byte(to))
		if err != nil {
			return err
		}
		if err := copyBucket(dst, threads.Bucket([]byte(from))); err != nil {
			return err
		}
		return threads.DeleteBucket([]byte(from))
	})
}

// TestCheck_FallenBackMeta: a damaged byte in the meta page bbolt would
// use makes it open the file at the commit before, silently undoing the
// last one. Check reports the damaged meta page.
func TestCheck_FallenBackMeta(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	chain(t, s, "t", 3)
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := os.Getpagesize()
	txid := func(p int) uint64 { return binary.LittleEndian.Uint64(data[p*page+16+48:]) }
	use := 0
	if txid(1) > txid(0) {
		use = 1
	}
	data[use*page+16+40] ^= 1 // its high-water mark: fails the meta checksum
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, persist.Options{ReadOnly: true})
	if err := s.Check(); !errors.Is(err, persist.ErrCorrupt) || !strings.Contains(err.Error(), "meta page") {
		t.Errorf("Check: %v, want the damaged meta page reported", err)
	}
}

// TestSealed_LayoutOne: a file made before records were sealed (layout 1,
// testdata/layout1.db, written by the build before) is read and written
// as it is, without seals, so older builds still read it; Sealed says so.
func TestSealed_LayoutOne(t *testing.T) {
	path := copyFixture(t, "layout1.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	if sealed, err := s.Sealed(); err != nil || sealed {
		t.Fatalf("Sealed: %v, %v, want false", sealed, err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "old"})
	if err != nil || tup == nil || len(tup.PendingWrites) == 0 {
		t.Fatalf("GetTuple of the old thread: %+v, %v", tup, err)
	}
	chain(t, s, "new", 3)
	if err := s.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	s.Close()
	// The new records are unsealed too: a raw read finds the JSON record
	// ending in its closing brace, not in a seal.
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		_, v := persist.RawRecordsForTest(tx, "new", "", "cp").Last()
		if v[len(v)-1] != '}' {
			t.Errorf("a record written to a layout 1 file ends in %x, want no seal", v[len(v)-4:])
		}
		return nil
	})
	fresh := openTemp(t, persist.Options{NoSync: true})
	if sealed, err := fresh.Sealed(); err != nil || !sealed {
		t.Errorf("Sealed of a new file: %v, %v, want true", sealed, err)
	}
}

// TestCheck_RolledBack: sealed records that are each intact, but older
// than the file (a damaged page id pointing at the old copy of a page
// bbolt left behind) or gone with their page, are found by the file's
// digest.
func TestCheck_RolledBack(t *testing.T) {
	cases := map[string]func(t *testing.T, path string, old []byte){
		"an older record back in place": func(t *testing.T, path string, old []byte) {
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("threads")).Bucket([]byte("t")).Put([]byte("updated"), old)
			})
		},
		"a record gone": func(t *testing.T, path string, _ []byte) {
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				kids := persist.RawRecordsForTest(tx, "t", "", "kids")
				k, _ := kids.Last()
				return kids.Delete(k)
			})
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			now := time.Unix(1700000000, 0)
			s := openAt(t, path, persist.Options{NoSync: true, Now: func() time.Time { return now }})
			chain(t, s, "t", 2)
			s.Close()
			var old []byte
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				old = bytes.Clone(tx.Bucket([]byte("threads")).Bucket([]byte("t")).Get([]byte("updated")))
				return nil
			})
			now = now.Add(time.Hour)
			s = openAt(t, path, persist.Options{NoSync: true, Now: func() time.Time { return now }})
			chain(t, s, "t", 3)
			if err := s.Check(); err != nil {
				t.Fatalf("Check before the damage: %v", err)
			}
			s.Close()
			damage(t, path, old)
			s = openAt(t, path, persist.Options{ReadOnly: true})
			if err := s.Check(); !errors.Is(err, persist.ErrCorrupt) || !strings.Contains(err.Error(), "do not add up") {
				t.Errorf("Check: %v, want the digest mismatch reported", err)
			}
		})
	}
}

// TestDigest_FollowsEveryWrite: after puts, overwrites, deletions,
// imports over a thread and settings, the digest matches the records.
func TestDigest_FollowsEveryWrite(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	richThread(t, s, "rich")
	chain(t, s, "a", 5)
	chain(t, s, "b", 3)
	var export bytes.Buffer
	if err := s.Export(ctx, "rich", &export, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, &export, persist.ImportOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	chain(t, s, "a", 5) // the same ids again: overwrites and detaches
	for _, err := range []error{
		s.DeleteThread(ctx, "b"),
		s.SetFingerprint(ctx, "a", "fp1"),
		s.SetFingerprint(ctx, "a", "fp2"),
		s.PutSetting(ctx, "k", []byte("v1")),
		s.PutSetting(ctx, "k", []byte("v2")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
}

// TestCheck_BranchKeyOutOfRange: a damaged key in a branch page that still
// sorts among its neighbours sends lookups of some keys to the wrong child,
// where they are not found, while a walk of the pages still meets every
// key. Check must report it.
func TestCheck_BranchKeyOutOfRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	chain(t, s, "t", 200) // buckets of many pages, under branch pages
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := os.Getpagesize()
	// Every branch page, reachable or an old copy: raise the last byte
	// of element 1's key. It still sorts between elements 0 and 2, but
	// its child's first key is now below it.
	damaged := false
	for p := 2; p < len(data)/page; p++ {
		b := data[p*page:]
		flags, count := binary.LittleEndian.Uint16(b[8:]), int(binary.LittleEndian.Uint16(b[10:]))
		if flags != 0x01 || count < 3 || binary.LittleEndian.Uint64(b) != uint64(p) {
			continue
		}
		e := b[16+16:]
		pos, ksize := int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
		if key := e[pos : pos+ksize]; key[ksize-1] != 0xff {
			key[ksize-1]++
			damaged = true
		}
	}
	if !damaged {
		t.Fatal("no branch page to damage")
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = persist.Open(path, persist.Options{ReadOnly: true})
	if err == nil {
		err = s.Check()
		s.Close()
	}
	// Reported by the page walk itself, whatever lookups it made fail.
	if !errors.Is(err, persist.ErrCorrupt) || !strings.Contains(err.Error(), "outside the range its parent page gives it") {
		t.Fatalf("Open and Check: %v, want the branch key reported", err)
	}
}
