package persist_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/persist"
)

// TestCheck_DamagedRecordOnce: a checkpoint record that fails its
// checksum breaks the state of every checkpoint built on it (each is a
// delta over its parent's), and Check reported it once per such
// checkpoint: 50 identical lines for a thread of 62. It is reported once,
// saying how many checkpoints it leaves unreadable besides its own.
func TestCheck_DamagedRecordOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openAt(t, path, persist.Options{NoSync: true})
	cps := chain(t, s, "t", 12)
	s.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := persist.RawRecordsForTest(tx, "t", "", "cp")
		k, v := b.First() // the root: every other checkpoint is built on it
		i := bytes.Index(v, []byte(`"step":`)) + len(`"step":`)
		v[i] ^= 1 // still JSON: only the checksum tells
		return b.Put(k, v)
	})
	s = openAt(t, path, persist.Options{ReadOnly: true})
	err := s.Check()
	var de *persist.DamagedRecordError
	if !errors.Is(err, persist.ErrCorrupt) || !errors.As(err, &de) || de.Thread != "t" {
		t.Fatalf("Check: %v, want ErrCorrupt with the damaged record", err)
	}
	want := `database is damaged: thread "t": the record of checkpoint "` + cps[0].ID + `" fails its checksum; the state of 11 checkpoints built on it cannot be read either`
	if err.Error() != want {
		t.Errorf("Check:\n%v\nwant one line:\n%s", err, want)
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
		t.Errorf("Check reported %d problems, want 1", n)
	}
}
