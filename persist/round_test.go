package persist

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// TestRound_OneCommitOfMixedWrites: one commit round holding checkpoints
// and writes of several threads, a thread deleted and written again, and
// an op that fails (the round is rolled back and retried without it)
// leaves the file as the same writes committed one by one would: Check
// recomputes the digest the round wrote once, the deleted thread has only
// what was written after its deletion, and each thread written has its
// time.
func TestRound_OneCommitOfMixedWrites(t *testing.T) {
	ctx := context.Background()
	clock := time.Unix(1000, 0)
	s, err := Open(filepath.Join(t.TempDir(), "db"), Options{Durability: DurabilityExit, NoSync: true, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := enginetest.Conversation(t, s, "a", 5, true)
	enginetest.Conversation(t, s, "b", 5, true)
	if err := s.DeleteThread(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("this op fails")
	if err := s.w.submit(opOther, 0, func(*bolt.Tx, *cache) error { return failed }); err != nil {
		t.Fatal(err)
	}
	enginetest.Conversation(t, s, "a", 2, true)
	err = s.PutWrites(ctx, engine.Config{ThreadID: "b", CheckpointID: "x"}, "task", []engine.Write{{Channel: "c", Value: 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	before := s.w.commits.Load()
	if err := s.Flush(); !errors.Is(err, failed) {
		t.Fatalf("Flush: %v, want the failed op's error", err)
	}
	if n := s.w.commits.Load() - before; n != 1 {
		t.Fatalf("%d commits, want the queue in one round", n)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check after the round: %v", err)
	}
	threads, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(threads) != 2 {
		t.Fatalf("threads %+v, want a and b", threads)
	}
	for _, th := range threads {
		if !th.Updated.Equal(clock) {
			t.Errorf("thread %s updated %v, want %v", th.ID, th.Updated, clock)
		}
		if th.ID == "a" && (th.Checkpoints != 2 || th.LastID == a[4].ID) {
			t.Errorf("thread a after deletion: %+v, want only the 2 checkpoints written after it", th)
		}
	}
}
