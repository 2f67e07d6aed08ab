package persist_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestThreads_OneUnreadable: a thread whose latest checkpoint record is
// damaged is listed with Err; the others are listed as usual.
func TestThreads_OneUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "superstep.db")
	s, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, thread := range []string{"a", "bad", "z"} {
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", 1), TS: time.Unix(1700000000, 0).UTC(),
			ChannelValues: map[string]any{"x": 1.0}, ChannelVersions: map[string]engine.Version{"x": 1}, VersionsSeen: map[string]map[string]engine.Version{}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: thread}, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		cps := persist.RawRecordsForTest(tx, "bad", "", "cp")
		k, _ := cps.Last()
		return cps.Put(k, []byte{0xff, 0x00, 0x01})
	})
	s = openAt(t, path, persist.Options{ReadOnly: true})
	infos, err := s.Threads(ctx)
	if err != nil {
		t.Fatalf("Threads: %v, want the readable threads listed", err)
	}
	if len(infos) != 3 {
		t.Fatalf("Threads: %d threads, want 3: %+v", len(infos), infos)
	}
	for _, info := range infos {
		switch {
		case info.ID == "bad" && !errors.Is(info.Err, persist.ErrCorrupt) && !errors.Is(info.Err, persist.ErrUnknownValueFormat):
			t.Errorf("damaged thread: Err %v, want ErrCorrupt or ErrUnknownValueFormat", info.Err)
		case info.ID != "bad" && (info.Err != nil || info.Checkpoints != 1 || info.LastID == ""):
			t.Errorf("thread %s: %+v, want it read in full", info.ID, info)
		}
	}
}
