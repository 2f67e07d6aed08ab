package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestThreads_ManyReadsOfAFewThreads: Threads lists every thread once, in
// id order, across as many read transactions as threadsPerRead makes of
// them (not one long read of the whole file), and a thread added between
// two of them is listed or not, never twice.
func TestThreads_ManyReadsOfAFewThreads(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "many.db"), Options{NoSync: true, Durability: DurabilityExit})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const threads = 2*threadsPerRead + 7
	put := func(thread string) {
		cp := &engine.Checkpoint{ID: fmt.Sprintf("%032x", 1), ChannelValues: map[string]any{"n": 1.0}, ChannelVersions: map[string]engine.Version{"n": 1}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: thread}, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, map[string]engine.Version{"n": 1}); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i := range threads {
		id := fmt.Sprintf("t%04d", i)
		put(id)
		want = append(want, id)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	before := s.db.Stats().TxN
	infos, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if reads := s.db.Stats().TxN - before; reads != 3 {
		t.Errorf("%d threads read in %d transactions, want 3 of at most %d", threads, reads, threadsPerRead)
	}
	var got []string
	for _, info := range infos {
		if info.Err != nil || info.Checkpoints != 1 {
			t.Fatalf("thread %s: %+v", info.ID, info)
		}
		got = append(got, info.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d threads, want %d in id order", len(got), len(want))
	}

	// Threads written while the list is read, before and after where it
	// has got to: each listed at most once, the order kept.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			put(fmt.Sprintf("t%04d-late", i%threads))
			if err := s.Flush(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 5 {
		infos, err := s.Threads(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(infos))
		for i, info := range infos {
			ids[i] = info.ID
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("a list read beside writes is out of order or repeats a thread")
		}
	}
	<-done
}
