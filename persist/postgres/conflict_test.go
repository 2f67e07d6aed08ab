package postgres_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

func checkpoint(n int, count float64) *engine.Checkpoint {
	return &engine.Checkpoint{
		V: engine.CheckpointFormat, ID: fmt.Sprintf("%032x", n),
		ChannelValues:   map[string]any{"count": count},
		ChannelVersions: map[string]engine.Version{"count": int64(n)},
		VersionsSeen:    map[string]map[string]engine.Version{},
	}
}

// TestStore_Put_ConcurrentWritersConflict: two processes (two stores) read
// the same thread and both try to advance it; the first wins and the
// second is refused with an error naming the thread and the winner.
func TestStore_Put_ConcurrentWritersConflict(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{Writer: "host-a pid 1"})
	b := open(t, u, postgres.Options{Writer: "host-b pid 2"})
	md := engine.Metadata{Source: engine.SourceLoop}
	if _, err := a.Put(ctx, engine.Config{ThreadID: "t"}, checkpoint(1, 1), md, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*postgres.Store{a, b} {
		if tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || tup == nil {
			t.Fatalf("GetTuple: %v %v", tup, err)
		}
	}
	parent := engine.Config{ThreadID: "t", CheckpointID: fmt.Sprintf("%032x", 1)}
	if _, err := a.Put(ctx, parent, checkpoint(2, 2), md, nil); err != nil {
		t.Fatalf("the first writer: %v", err)
	}
	// A's own next step still goes through.
	if _, err := a.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: fmt.Sprintf("%032x", 2)}, checkpoint(3, 3), md, nil); err != nil {
		t.Fatalf("the first writer's next step: %v", err)
	}
	_, err := b.Put(ctx, parent, checkpoint(4, 20), md, nil)
	var ce *postgres.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, postgres.ErrThreadConflict) {
		t.Fatalf("the second writer: %v, want a *ConflictError", err)
	}
	if ce.Thread != "t" || ce.Holder != "host-a pid 1" {
		t.Errorf("conflict names thread %q and holder %q, want t and host-a pid 1", ce.Thread, ce.Holder)
	}
	t.Logf("the loser sees: %v", err)
	// Its writes after the refusal are refused too, until it reads again.
	err = b.PutWrites(ctx, parent, "task", []engine.Write{{Channel: "count", Value: 1.0}})
	if err == nil {
		err = b.Flush()
	}
	if !errors.Is(err, postgres.ErrThreadConflict) && !errors.Is(err, persist.ErrAsyncWrite) {
		t.Errorf("a write of the loser after the conflict: %v, want it refused", err)
	}
	if tup, err := a.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || tup.Checkpoint.ID != fmt.Sprintf("%032x", 3) {
		t.Fatalf("latest after the race: %v %v, want the winner's", tup, err)
	}
	if len(mustList(t, a, "t")) != 3 {
		t.Error("the loser's checkpoint was stored")
	}
	// Having read the winner's state, the loser may write again.
	if _, err := b.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: fmt.Sprintf("%032x", 3)}, checkpoint(5, 4), md, nil); err != nil {
		t.Fatalf("after a fresh read: %v", err)
	}
}

// TestStore_Put_OtherThreadsDoNotConflict: writers of different threads
// never get in each other's way.
func TestStore_Put_OtherThreadsDoNotConflict(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{})
	b := open(t, u, postgres.Options{})
	md := engine.Metadata{Source: engine.SourceLoop}
	for i := 1; i <= 3; i++ {
		for th, s := range map[string]*postgres.Store{"a": a, "b": b} {
			if _, err := s.GetTuple(ctx, engine.Config{ThreadID: th}); err != nil {
				t.Fatal(err)
			}
			parent := ""
			if i > 1 {
				parent = fmt.Sprintf("%032x", i-1)
			}
			if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointID: parent}, checkpoint(i, float64(i)), md, nil); err != nil {
				t.Fatalf("thread %s step %d: %v", th, i, err)
			}
		}
	}
}

func mustList(t *testing.T, s *postgres.Store, thread string) []*engine.CheckpointTuple {
	t.Helper()
	l, err := s.List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestStore_GroupCommit_ConflictFailsOnlyItsThread: threads committed in
// one group share a transaction, yet a thread another writer advanced is
// refused alone: its group-mates are stored, and it gets the conflict
// error naming it and the other writer.
func TestStore_GroupCommit_ConflictFailsOnlyItsThread(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	// Exit durability: Flush commits every queued thread in one group.
	b := open(t, u, postgres.Options{Writer: "host-b pid 2", Durability: persist.DurabilityExit})
	a := open(t, u, postgres.Options{Writer: "host-a pid 1"})
	md := engine.Metadata{Source: engine.SourceLoop}
	threads := []string{"m0", "m1", "x", "m2", "m3"}
	for _, th := range threads {
		if _, err := b.Put(ctx, engine.Config{ThreadID: th}, checkpoint(1, 1), md, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	// A reads x and advances it: b's next write of x must be refused.
	if _, err := a.GetTuple(ctx, engine.Config{ThreadID: "x"}); err != nil {
		t.Fatal(err)
	}
	first := engine.Config{CheckpointID: fmt.Sprintf("%032x", 1)}
	if _, err := a.Put(ctx, engine.Config{ThreadID: "x", CheckpointID: first.CheckpointID}, checkpoint(2, 2), md, nil); err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		cfg := engine.Config{ThreadID: th, CheckpointID: first.CheckpointID}
		if err := b.PutWrites(ctx, cfg, "task", []engine.Write{{Channel: "count", Value: 3.0}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Put(ctx, cfg, checkpoint(3, 3), md, nil); err != nil {
			t.Fatal(err)
		}
	}
	err := b.Flush()
	var ce *postgres.ConflictError
	if !errors.As(err, &ce) || ce.Thread != "x" || ce.Holder != "host-a pid 1" {
		t.Fatalf("Flush: %v, want the conflict of thread x with host-a pid 1", err)
	}
	for _, th := range threads {
		tup, err := a.GetTuple(ctx, engine.Config{ThreadID: th})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%032x", 3)
		if th == "x" {
			want = fmt.Sprintf("%032x", 2) // a's, and nothing of b's
		}
		if tup.Checkpoint.ID != want {
			t.Errorf("thread %s: latest %s, want %s", th, tup.Checkpoint.ID, want)
		}
		if th != "x" && len(tup.PendingWrites) != 0 {
			t.Errorf("thread %s: pending writes %v on its latest checkpoint", th, tup.PendingWrites)
		}
	}
	for _, th := range []string{"m0", "x"} {
		tup, err := a.GetTuple(ctx, engine.Config{ThreadID: th, CheckpointID: first.CheckpointID})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(tup.PendingWrites); (th == "x") != (got == 0) {
			t.Errorf("thread %s: %d pending writes on its first checkpoint", th, got)
		}
	}
}

// TestStore_GroupCommit_RowStoredAgain: a group holding a row that is
// stored already (a task's write saved again) keeps the conflict rules of
// a single commit: the first write of a slot stays, and the group's other
// rows are stored.
func TestStore_GroupCommit_RowStoredAgain(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{Durability: persist.DurabilityExit})
	md := engine.Metadata{Source: engine.SourceLoop}
	first := fmt.Sprintf("%032x", 1)
	for _, th := range []string{"a", "b"} {
		if _, err := s.Put(ctx, engine.Config{ThreadID: th}, checkpoint(1, 1), md, nil); err != nil {
			t.Fatal(err)
		}
	}
	cfgA := engine.Config{ThreadID: "a", CheckpointID: first}
	if err := s.PutWrites(ctx, cfgA, "task", []engine.Write{{Channel: "count", Value: 1.0}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// One group: a's write again, with another value, and a checkpoint
	// of each thread.
	if err := s.PutWrites(ctx, cfgA, "task", []engine.Write{{Channel: "count", Value: 99.0}}); err != nil {
		t.Fatal(err)
	}
	for _, th := range []string{"a", "b"} {
		if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointID: first}, checkpoint(2, 2), md, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	tup, err := s.GetTuple(ctx, cfgA)
	if err != nil {
		t.Fatal(err)
	}
	if len(tup.PendingWrites) != 1 || tup.PendingWrites[0].Value != 1.0 {
		t.Errorf("a's writes: %v, want the first one only", tup.PendingWrites)
	}
	for _, th := range []string{"a", "b"} {
		tup, err := s.GetTuple(ctx, engine.Config{ThreadID: th})
		if err != nil {
			t.Fatal(err)
		}
		if tup.Checkpoint.ID != fmt.Sprintf("%032x", 2) {
			t.Errorf("thread %s: latest %s, want the group's checkpoint", th, tup.Checkpoint.ID)
		}
	}
}

// TestStore_GroupCommit_ManyThreads: threads of one store saving at once
// under sync durability share commits (one, two or three at a time, so
// they wait for each other, hold back a group until it has its share of
// the threads, and take turns sending); every step of every thread is
// stored, with its task's writes.
func TestStore_GroupCommit_ManyThreads(t *testing.T) {
	t.Parallel()
	for _, commits := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("commits=%d", commits), func(t *testing.T) {
			t.Parallel()
			groupCommitManyThreads(t, commits)
		})
	}
}

func groupCommitManyThreads(t *testing.T, commits int) {
	s := open(t, schemaURL(t), postgres.Options{ConcurrentCommits: commits})
	const threads, steps = 24, 5
	md := engine.Metadata{Source: engine.SourceLoop}
	var wg sync.WaitGroup
	errs := make(chan error, threads)
	for w := range threads {
		wg.Go(func() {
			th := fmt.Sprintf("w%d", w)
			parent := ""
			for i := 1; i <= steps; i++ {
				cfg := engine.Config{ThreadID: th, CheckpointID: parent}
				if parent != "" {
					if err := s.PutWrites(ctx, cfg, "task", []engine.Write{{Channel: "count", Value: float64(i)}}); err != nil {
						errs <- err
						return
					}
				}
				if _, err := s.Put(ctx, cfg, checkpoint(i, float64(i)), md, nil); err != nil {
					errs <- err
					return
				}
				parent = fmt.Sprintf("%032x", i)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := range threads {
		th := fmt.Sprintf("w%d", w)
		l := mustList(t, s, th)
		if len(l) != steps {
			t.Fatalf("thread %s: %d checkpoints, want %d", th, len(l), steps)
		}
		for _, tup := range l[1:] { // newest first: all but the first step have a child
			if tup.Checkpoint.ChannelValues["count"] == nil {
				t.Errorf("thread %s checkpoint %s: no value", th, tup.Checkpoint.ID)
			}
			if len(tup.PendingWrites) != 1 {
				t.Errorf("thread %s checkpoint %s: %d pending writes, want 1", th, tup.Checkpoint.ID, len(tup.PendingWrites))
			}
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_GroupCommit_NewThreadsAndReplacement: the first checkpoint of
// a thread the store has not seen goes in a group, which creates the
// thread; a checkpoint that replaces a stored one fails the group's
// statement and is stored by its thread's own transaction, which keeps
// what was put for the children stored as deltas of it; the group's
// other threads are stored either way.
func TestStore_GroupCommit_NewThreadsAndReplacement(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{Durability: persist.DurabilityExit})
	md := engine.Metadata{Source: engine.SourceLoop}
	id := func(n int) string { return fmt.Sprintf("%032x", n) }
	step := func(th string, parent int, c *engine.Checkpoint) {
		t.Helper()
		cfg := engine.Config{ThreadID: th}
		if parent > 0 {
			cfg.CheckpointID = id(parent)
		}
		if _, err := s.Put(ctx, cfg, c, md, nil); err != nil {
			t.Fatal(err)
		}
	}
	shared := func(n int, count float64) *engine.Checkpoint {
		c := checkpoint(n, count)
		c.ChannelValues["kept"], c.ChannelVersions["kept"] = "from 1", 1
		return c
	}
	// One group of new threads.
	step("r", 0, shared(1, 1))
	step("m", 0, checkpoint(1, 1))
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	step("r", 1, shared(2, 2)) // a delta of r's first checkpoint
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// One group: a step, a new thread, and r's first checkpoint again.
	step("m", 1, checkpoint(2, 2))
	step("n", 0, checkpoint(1, 5))
	replaced := checkpoint(1, 10)
	replaced.ChannelValues["kept"], replaced.ChannelVersions["kept"] = "replaced", 7
	step("r", 0, replaced)
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	other := open(t, u, postgres.Options{})
	for _, c := range []struct {
		thread string
		n      int
		want   map[string]any
	}{
		{"m", 2, map[string]any{"count": 2.0}},
		{"n", 1, map[string]any{"count": 5.0}},
		{"r", 1, map[string]any{"count": 10.0, "kept": "replaced"}},
		{"r", 2, map[string]any{"count": 2.0, "kept": "from 1"}},
	} {
		tup, err := other.GetTuple(ctx, engine.Config{ThreadID: c.thread, CheckpointID: id(c.n)})
		if err != nil || tup == nil {
			t.Fatalf("thread %s checkpoint %d: %v, %v", c.thread, c.n, tup, err)
		}
		if !reflect.DeepEqual(tup.Checkpoint.ChannelValues, c.want) {
			t.Errorf("thread %s checkpoint %d: %v, want %v", c.thread, c.n, tup.Checkpoint.ChannelValues, c.want)
		}
	}
	if err := other.Check(); err != nil {
		t.Error(err)
	}
	// The threads are claimed: a store that read them may write them.
	for _, th := range []string{"m", "n", "r"} {
		if _, err := other.GetTuple(ctx, engine.Config{ThreadID: th}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := other.Put(ctx, engine.Config{ThreadID: "n", CheckpointID: id(1)}, checkpoint(2, 6), md, nil); err != nil {
		t.Fatalf("the next step of the new thread: %v", err)
	}
}

// TestStore_Put_ThreadDeletedMeanwhile: a writer that read a thread is
// refused when another process deleted it since, and stores nothing; it
// made the thread again and stored deltas from checkpoints no longer
// there, a damaged thread that delete could not remove. A thread deleted
// and made again by another process is not taken for the one it read.
func TestStore_Put_ThreadDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{Writer: "host-a pid 1"})
	b := open(t, u, postgres.Options{Writer: "host-b pid 2"})
	md := engine.Metadata{Source: engine.SourceLoop}
	first := engine.Config{ThreadID: "t", CheckpointID: fmt.Sprintf("%032x", 1)}
	if _, err := a.Put(ctx, engine.Config{ThreadID: "t"}, checkpoint(1, 1), md, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteThread(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	_, err := a.Put(ctx, first, checkpoint(2, 2), md, nil)
	var ce *postgres.ConflictError
	if !errors.As(err, &ce) || !ce.Deleted || !errors.Is(err, postgres.ErrThreadConflict) {
		t.Fatalf("a write after another process deleted the thread: %v, want a ConflictError saying it was deleted", err)
	}
	if tup, err := b.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil || tup != nil {
		t.Fatalf("after the refused write the thread holds %v (%v), want nothing", tup, err)
	}

	// Deleted and made again by b, with as many writes as a saw.
	if _, err := a.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Put(ctx, engine.Config{ThreadID: "t"}, checkpoint(1, 1), md, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteThread(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, engine.Config{ThreadID: "t"}, checkpoint(1, 5), md, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Put(ctx, first, checkpoint(2, 2), md, nil); !errors.Is(err, postgres.ErrThreadConflict) {
		t.Fatalf("a write to a thread deleted and made again since it was read: %v, want ErrThreadConflict", err)
	}
}
