package persist_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestStore_DamagedWriteKey: one damaged byte in the key of a saved write
// — the separator after the checkpoint id — leaves a key no record has.
// Check calls it unknown; every reader must refuse it the same way
// (ErrCorrupt naming the thread and the key) instead of reading the
// checkpoint without that write: a resume would then run a finished task
// again, and an export would carry the thread on as if it were whole.
// In both layouts: the ordered one (3) and the nested one (2), whose
// buckets hold one kind each.
func TestStore_DamagedWriteKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
		// bucket is where the thread's root namespace keeps its writes,
		// and key the stored key of write 0 of task to checkpoint cp.
		bucket func(tx *bolt.Tx, th string) *bolt.Bucket
		key    func(cp, task string) []byte
	}{
		{
			name: "layout3",
			path: func(t *testing.T) string { return filepath.Join(t.TempDir(), "superstep.db") },
			bucket: func(tx *bolt.Tx, th string) *bolt.Bucket {
				return tx.Bucket([]byte("threads")).Bucket([]byte(th))
			},
			// 'r' + checkpoint id + kind 'w' + task + slot (ordered.go)
			key: func(cp, task string) []byte { return append([]byte("r"+cp+"\x00\x00w"), writeTail(task)...) },
		},
		{
			name: "layout2",
			path: copyLayout2,
			bucket: func(tx *bolt.Tx, th string) *bolt.Bucket {
				return tx.Bucket([]byte("threads")).Bucket([]byte(th)).Bucket([]byte("n")).Bucket([]byte("w"))
			},
			key: func(cp, task string) []byte { return append([]byte(cp+"\x00\x00"), writeTail(task)...) },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			s, err := persist.Open(path, persist.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			cps := chain(t, s, "t", 3)
			last := engine.Config{ThreadID: "t", CheckpointID: cps[len(cps)-1].ID}
			for _, task := range []string{"a", "c"} {
				if err := s.PutWrites(ctx, last, task, []engine.Write{{Channel: "out", Value: task}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				b := tc.bucket(tx, "t")
				k := tc.key(last.CheckpointID, "c")
				v := b.Get(k)
				if v == nil {
					t.Fatalf("no write stored under %q", k)
				}
				v = bytes.Clone(v)
				damaged := bytes.Clone(k)
				damaged[bytes.Index(damaged, []byte(last.CheckpointID))+len(last.CheckpointID)] = 1
				if err := b.Delete(k); err != nil {
					return err
				}
				return b.Put(damaged, v)
			})

			s = openAt(t, path, persist.Options{NoSync: true})
			if err := s.Check(); !errors.Is(err, persist.ErrCorrupt) {
				t.Fatalf("Check: %v, want the unknown key", err)
			}
			refused := func(what string, err error) {
				t.Helper()
				var dre *persist.DamagedRecordError
				if !errors.Is(err, persist.ErrCorrupt) || !errors.As(err, &dre) || dre.Thread != "t" {
					t.Errorf("%s: %v, want ErrCorrupt naming thread \"t\"", what, err)
				}
			}
			_, err = s.GetTuple(ctx, engine.Config{ThreadID: "t"})
			refused("GetTuple (latest)", err)
			_, err = s.GetTuple(ctx, last)
			refused("GetTuple (by id)", err)
			_, err = s.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
			refused("List", err)
			_, err = s.PendingWrites(ctx, last)
			refused("PendingWrites", err)
			refused("Export", s.Export(ctx, "t", io.Discard, ""))
			infos, err := s.Threads(ctx)
			if err != nil || len(infos) == 0 {
				t.Fatalf("Threads: %v", err)
			}
			for _, info := range infos {
				if info.ID == "t" {
					refused("Threads (its Err)", info.Err)
				}
			}
			// A new write of a task with several writes looks for the
			// task's stored ones first.
			refused("PutWrites", s.PutWrites(ctx, last, "c", []engine.Write{{Channel: "out", Value: 1}, {Channel: "out", Value: 2}}))
		})
	}
}

// writeTail is what follows the checkpoint id's separator in a write
// key: task, its separator, slot 0 (keys.go: sign bit flipped).
func writeTail(task string) []byte {
	return binary.BigEndian.AppendUint64([]byte(task+"\x00\x00"), 1<<63)
}
