package persist

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestOrdered_CheckpointWalkJumpsOverWrites: a walk over a layout 3
// namespace's checkpoint records, either way, passes a checkpoint's many
// writes and child edges with a seek, not one step each (Heads and List of
// a wide fan-out stay linear in checkpoints), and finds the same records
// as a walk that steps, including around writes saved to a checkpoint
// that has no record.
func TestOrdered_CheckpointWalkJumpsOverWrites(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "x.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const writes = 500
	ids := []string{"c1", "c2", "c4", "c5"} // c3 has writes and no record
	// Stepping over every write would take 5*501 moves; a jump after
	// skipRun of them takes skipRun+2 per checkpoint.
	const most = 5 * (skipRun + 2)
	err = db.Update(func(tx *bolt.Tx) error {
		tb, err := tx.CreateBucket([]byte("t"))
		if err != nil {
			return err
		}
		b := newNSBuckets([4]*bolt.Bucket{tb, tb, tb, tb}, "t", "", false, true)
		for i, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
			if id != "c3" {
				if err := b.cps.Put(checkpointKey(id), []byte("{}")); err != nil {
					return err
				}
			}
			if err := b.kids.Put(childKey(id, fmt.Sprint("child", i)), nil); err != nil {
				return err
			}
			for w := range writes {
				if err := b.writes.Put(writeKey(id, "task", int64(w)), []byte("w")); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		tb := tx.Bucket([]byte("t"))
		cps := newNSBuckets([4]*bolt.Bucket{tb, tb, tb, tb}, "t", "", false, true).cps
		var fwd, back []string
		c := cps.rawCursor()
		for k := c.first(); k != nil; k = c.next() {
			fwd = append(fwd, string(k[:len(k)-2]))
		}
		if !slices.Equal(fwd, ids) || c.moves > most {
			t.Errorf("forward walk: %v after %d moves past other records, want %v in at most %d", fwd, c.moves, ids, most)
		}
		c = cps.rawCursor()
		for k := c.last(); k != nil; k = c.prev() {
			back = append(back, string(k[:len(k)-2]))
		}
		slices.Reverse(back)
		if !slices.Equal(back, ids) || c.moves > most {
			t.Errorf("backward walk: %v after %d moves past other records, want %v in at most %d", back, c.moves, ids, most)
		}
		if n, err := cps.Len(); n != len(ids) || err != nil {
			t.Errorf("Len: %d, %v; want %d", n, err, len(ids))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOrdered_KeyOfAnotherShape: a key that is not of its kind's shape
// (a bug) finds nothing and writes nothing, so no record Check would call
// unknown is ever stored.
func TestOrdered_KeyOfAnotherShape(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "x.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		tb, err := tx.CreateBucket([]byte("t"))
		if err != nil {
			return err
		}
		b := newNSBuckets([4]*bolt.Bucket{tb, tb, tb, tb}, "t", "", false, true)
		bad := []byte("no terminator")
		if err := b.cps.Put(bad, []byte("{}")); err == nil {
			t.Error("Put under a malformed key succeeded")
		}
		if _, err := b.blobs.PutIfAbsent(checkpointKey("c"), []byte("1")); err == nil {
			t.Error("PutIfAbsent of a value under a checkpoint key succeeded")
		}
		if v, err := b.cps.Get(bad); v != nil || err != nil || b.cps.Has(bad) {
			t.Errorf("Get of a malformed key: %q, %v", v, err)
		}
		if err := b.cps.Delete(bad); err != nil {
			t.Errorf("Delete of a malformed key: %v", err)
		}
		if k, _ := tb.Cursor().First(); k != nil {
			t.Errorf("a key was stored: %q", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
