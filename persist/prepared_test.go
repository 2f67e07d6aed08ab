package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

func prepID(n int) string { return fmt.Sprintf("%032x", n) }

// readBack checks that checkpoint id of thread t reads back with want as
// its values and that Check finds the file clean.
func readBack(t *testing.T, s *Store, thread, id string, want map[string]any) {
	t.Helper()
	got, err := s.GetTuple(context.Background(), engine.Config{ThreadID: thread, CheckpointID: id})
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatalf("checkpoint %s is missing", id)
	}
	if !reflect.DeepEqual(got.Checkpoint.ChannelValues, want) {
		t.Errorf("checkpoint %s reads back %v, want %v", id, got.Checkpoint.ChannelValues, want)
	}
	if err := s.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestPrepared_SiblingTakesTheVersion: two forks of one parent, committed
// in one round, give a channel the same next version with different
// values. Both records were worked out before the round, from the parent
// the cache held, assuming each value lands at sequence 0; the second's
// transaction finds the version taken, stores its value under a fresh
// sequence and encodes its record anew, so each fork reads back its own
// value.
func TestPrepared_SiblingTakesTheVersion(t *testing.T) {
	ctx := context.Background()
	s, parent := forkRoot(t, map[string]any{"x": "root", "y": 1.0})
	forks := []string{"a", "b", "a"}
	for i, v := range forks {
		cp := &engine.Checkpoint{ID: prepID(10 + i), ChannelValues: map[string]any{"x": v, "y": 1.0}, ChannelVersions: map[string]engine.Version{"x": 2, "y": 1}}
		if p := s.preparePut(parent, cp, mdRecord{}); p == nil || len(p.changed) != 1 || p.changed[0] != "x" {
			t.Fatalf("fork %d: prepared %+v, want the parent found and x changed", i, p)
		}
		if _, err := s.Put(ctx, parent, cp, engine.Metadata{}, map[string]engine.Version{"x": 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, v := range forks {
		readBack(t, s, "t", prepID(10+i), map[string]any{"x": v, "y": 1.0})
	}
}

// forkRoot returns a store that commits only at Flush (so that the forks
// a test puts next share one commit round) holding thread t's checkpoint
// prepID(1) with values at version 1, committed, and its config.
func forkRoot(t *testing.T, values map[string]any) (*Store, engine.Config) {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "db"), Options{NoSync: true, Durability: DurabilityExit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	versions := map[string]engine.Version{}
	for ch := range values {
		versions[ch] = 1
	}
	root := &engine.Checkpoint{ID: prepID(1), ChannelValues: values, ChannelVersions: versions}
	cfg, err := s.Put(context.Background(), engine.Config{ThreadID: "t"}, root, engine.Metadata{}, versions)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

// TestPrepared_Rewrite: a Put of a checkpoint id that is stored already
// (a replay writing it again) does not use the record worked out before
// its transaction, which assumed a new checkpoint: the old record's
// children and edge are dealt with first, as without it.
func TestPrepared_Rewrite(t *testing.T) {
	ctx := context.Background()
	s := testDB(t)
	var cfg = engine.Config{ThreadID: "t"}
	for i := 1; i <= 3; i++ {
		cp := &engine.Checkpoint{ID: prepID(i), ChannelValues: map[string]any{"n": float64(i)}, ChannelVersions: map[string]engine.Version{"n": engine.Version(i)}}
		next, err := s.Put(ctx, cfg, cp, engine.Metadata{}, map[string]engine.Version{"n": engine.Version(i)})
		if err != nil {
			t.Fatal(err)
		}
		cfg = next
	}
	// Checkpoint 2 again, from checkpoint 1, with another value.
	cp := &engine.Checkpoint{ID: prepID(2), ChannelValues: map[string]any{"n": 20.0}, ChannelVersions: map[string]engine.Version{"n": 2}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: prepID(1)}, cp, engine.Metadata{}, map[string]engine.Version{"n": 2}); err != nil {
		t.Fatal(err)
	}
	readBack(t, s, "t", prepID(2), map[string]any{"n": 20.0})
	readBack(t, s, "t", prepID(3), map[string]any{"n": 3.0})
}

// TestPrepared_OtherParentStateIgnored: a prepared record is used only when
// the transaction finds the very parent state it was worked out from. One
// worked out from another state (the cache's entry replaced meanwhile) is
// ignored, even when it is wrong, and the record is encoded in the
// transaction.
func TestPrepared_OtherParentStateIgnored(t *testing.T) {
	ctx := context.Background()
	s := testDB(t)
	root := &engine.Checkpoint{ID: prepID(1), ChannelValues: map[string]any{"n": 1.0}, ChannelVersions: map[string]engine.Version{"n": 1}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, root, engine.Metadata{}, nil); err != nil {
		t.Fatal(err)
	}
	cp := &engine.Checkpoint{ID: prepID(2), ChannelValues: map[string]any{"n": 2.0}, ChannelVersions: map[string]engine.Version{"n": 2}}
	pv, err := encodePut(cp, map[string]engine.Version{"n": 2})
	if err != nil {
		t.Fatal(err)
	}
	stale := &cpState{refs: map[string]chanRef{"n": {Version: 1}}}
	pv.prep = &preparedPut{parent: stale, st: &cpState{refs: map[string]chanRef{"n": {Version: 2}}}, changed: []string{"n"}, data: []byte{recordFormat, '{', '}'},
		key: checkpointKey(cp.ID), kidKey: childKey(root.ID, cp.ID)}
	err = s.w.submit(opCheckpoint, 0, func(tx *bolt.Tx, rc *cache) error {
		return s.putTx(tx, rc, "t", "", root.ID, cp, pv, mdRecord{})
	})
	if err != nil {
		t.Fatal(err)
	}
	readBack(t, s, "t", prepID(2), map[string]any{"n": 2.0})
}
