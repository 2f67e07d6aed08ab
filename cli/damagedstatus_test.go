package cli_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// flipStored changes the last byte (part of its checksum) of the last
// stored value in thread's bucket that pick chooses by key (a channel
// value's key sorts by version: the last is the latest checkpoint's).
func flipStored(t *testing.T, db, thread string, pick func(k []byte) bool) {
	t.Helper()
	b, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.Update(func(tx *bolt.Tx) error {
		tb := tx.Bucket([]byte("threads")).Bucket([]byte(thread))
		var key, val []byte
		c := tb.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v != nil && pick(k) {
				key, val = bytes.Clone(k), bytes.Clone(v)
			}
		}
		if key == nil {
			t.Fatalf("no value to damage in thread %q", thread)
		}
		val[len(val)-1] ^= 0x01
		return tb.Put(key, val)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestThreads_DamagedValueIsUnreadable: a channel value that fails its
// checksum makes the thread unreadable in the list (with the stderr
// count), not of status "unknown" with nothing said.
func TestThreads_DamagedValueIsUnreadable(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "t.db")
	runApproved(t, db)
	// Layout 3: a channel value's key starts with 'b' (persist/ordered.go).
	flipStored(t, db, "t1", func(k []byte) bool { return k[0] == 'b' })
	r := superstep(t, "", "threads", "--db", db)
	if !strings.Contains(r.stdout, "unreadable: ") || !strings.Contains(r.stdout, "checksum") || !strings.Contains(r.stderr, "1 thread(s) cannot be read") {
		t.Errorf("threads with a damaged value: exit %d\n%s%s\nwant t1 unreadable, naming the checksum, and the count on stderr", r.code, r.stdout, r.stderr)
	}
}

// TestHistory_DamagedGraphRecord: the thread's recorded graph failing its
// checksum is damage for history and show (exit 1, the store's message),
// as for check, not a thread shown without its graph.
func TestHistory_DamagedGraphRecord(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "t.db")
	runApproved(t, db)
	flipStored(t, db, "t1", func(k []byte) bool { return string(k) == "fingerprint" })
	superstep(t, "", "check", "--db", db).want(t, 1, "fingerprint")
	for _, cmd := range []string{"history", "show"} {
		superstep(t, "", cmd, "t1", "--db", db).want(t, 1, "database is damaged", "fails its checksum")
	}
}
