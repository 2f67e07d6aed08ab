package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	bolt "go.etcd.io/bbolt"
)

// TestInspect_ReadsOnlyWhatItShows: history prints metadata and must not
// read the state's values; show of one checkpoint must not read another
// checkpoint's. The proof is a stored value that cannot be decoded: the
// value of "step" at version 1, which only the first checkpoint uses.
// history and show of the latest checkpoint must work; show of the first
// checkpoint must name the damage (exit 1).
func TestInspect_ReadsOnlyWhatItShows(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	ids := putSteps(t, db, "t", 3)
	damageBlob(t, db, "t", "step", 1)

	r := superstep(t, "", "history", "t", "--db", db, "--json")
	if r.code != 0 {
		t.Fatalf("history with one unreadable value: exit %d\n%s", r.code, r.stderr)
	}
	for _, id := range ids {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("history does not list %s:\n%s", id, r.stdout)
		}
	}
	r = superstep(t, "", "show", "t", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "step = 3") {
		t.Fatalf("show of the latest checkpoint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = superstep(t, "", "show", "t", "--db", db, "--checkpoint", ids[1])
	if r.code != 0 || !strings.Contains(r.stdout, "step = 2") {
		t.Fatalf("show of the second checkpoint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Short forms and prefixes still resolve (engine.ResolveID).
	r = superstep(t, "", "show", "t", "--db", db, "--checkpoint", engine.ShortID(ids[1]), "--json")
	if r.code != 0 || !strings.Contains(r.stdout, ids[1]) {
		t.Fatalf("show by short id: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = superstep(t, "", "show", "t", "--db", db, "--checkpoint", ids[0])
	if r.code != 1 || !strings.Contains(r.stderr, "damaged") {
		t.Fatalf("show of the checkpoint whose value is unreadable: exit %d, want 1 naming the damage\n%s", r.code, r.stderr)
	}
	r = superstep(t, "", "show", "t", "--db", db, "--checkpoint", "ffffffff")
	if r.code != 2 || !strings.Contains(r.stderr, `thread "t"`) {
		t.Fatalf("show of no such checkpoint: exit %d, want 2 naming the thread\n%s", r.code, r.stderr)
	}
	r = superstep(t, "", "show", "nosuch", "--db", db, "--checkpoint", "1")
	if r.code != 2 || !strings.Contains(r.stderr, `"nosuch"`) {
		t.Fatalf("show on no such thread: exit %d, want 2 naming it\n%s", r.code, r.stderr)
	}
}

// putSteps writes n checkpoints to thread, each with its own value of
// "step" (a fresh blob per version), and returns their ids, oldest first.
func putSteps(t *testing.T, db, thread string, n int) []string {
	t.Helper()
	s, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var ids []string
	parent := ""
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("1f0a3c00-%04x-6000-8000-00000000000%x", i, i)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000000, int64(i)).UTC(),
			ChannelValues:   map[string]any{"step": float64(i)},
			ChannelVersions: map[string]engine.Version{"step": engine.Version(i)},
			VersionsSeen:    map[string]map[string]engine.Version{},
			UpdatedChannels: []string{"step"}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: thread, CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1}, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		parent = id
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// damageBlob overwrites the stored value of channel at version with bytes
// that decode as nothing, the way a flipped byte on disk would.
func damageBlob(t *testing.T, db, thread, channel string, version int64) {
	t.Helper()
	b, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// persist's key layout (layout 3, the root namespace's values in the
	// thread's bucket): 'b', the version as 8 big-endian bytes with the
	// sign bit flipped, the channel, 0x00 0x00, then a sequence number.
	prefix := []byte{'b', 0x80, 0, 0, 0, 0, 0, 0, byte(version)}
	prefix = append(append(prefix, channel...), 0, 0)
	err = b.Update(func(tx *bolt.Tx) error {
		blobs := tx.Bucket([]byte("threads")).Bucket([]byte(thread))
		c := blobs.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			return blobs.Put(bytes.Clone(k), []byte{0} /* shorter than any value record */)
		}
		return fmt.Errorf("no blob of %s version %d", channel, version)
	})
	if err != nil {
		t.Fatal(err)
	}
}
