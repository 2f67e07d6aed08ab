package persist

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// goid returns the calling goroutine's id, read from its stack header.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// TestWriter_HandsTheLeadOn: under sync durability the goroutine that
// leads a round returns once its own write is committed; a goroutine
// whose write queued meanwhile leads the next round itself. (A leader
// that led on for as long as others kept writing held its own thread
// back all that time.)
func TestWriter_HandsTheLeadOn(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "w.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := newWriter(db, DurabilitySync, 0)
	defer w.close()

	ranOn := make([]uint64, 3) // the goroutine each op's fn ran on
	op := func(i int, started chan<- struct{}, release <-chan struct{}) txFunc {
		return func(*bolt.Tx, *cache) error {
			ranOn[i] = goid()
			if started != nil {
				close(started)
				<-release
			}
			return nil
		}
	}
	submitters := make([]uint64, 3)
	var wg sync.WaitGroup
	submit := func(i int, fn txFunc) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			submitters[i] = goid()
			if err := w.submit(opCheckpoint, 0, fn); err != nil {
				t.Error(err)
			}
		}()
	}
	queued := func(n int) {
		for {
			w.mu.Lock()
			q := len(w.queue)
			w.mu.Unlock()
			if q == n {
				return
			}
			runtime.Gosched()
		}
	}
	// Op 0 commits alone and holds its round open until ops 1 and 2
	// have queued behind it.
	started, release := make(chan struct{}), make(chan struct{})
	submit(0, op(0, started, release))
	<-started
	submit(1, op(1, nil, nil))
	queued(1)
	submit(2, op(2, nil, nil))
	queued(2)
	close(release)
	wg.Wait()

	if ranOn[0] != submitters[0] {
		t.Errorf("op 0 ran on goroutine %d, want its submitter %d", ranOn[0], submitters[0])
	}
	// Ops 1 and 2 share the second round, led by one of their own
	// submitters (the first queued), not by op 0's.
	if ranOn[1] != ranOn[2] || ranOn[1] != submitters[1] {
		t.Errorf("ops 1 and 2 ran on goroutines %d and %d, want both on op 1's submitter %d (op 0's is %d)", ranOn[1], ranOn[2], submitters[1], submitters[0])
	}
	if c := w.commits.Load(); c != 2 {
		t.Errorf("%d commits, want 2", c)
	}
}
