//go:build unix

package persist

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestWriterLock_WaiterOnARemovedLockFile: a writer waiting on a lock file
// that the open holding it then removes (discard, after refusing the file)
// must not end up holding a lock on a file no longer at the path, while the
// next writer creates a new one and holds that: two writers at once.
func TestWriterLock_WaiterOnARemovedLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	first, _, err := acquireWriterLock(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !first.created {
		t.Fatal("the first lock did not create the lock file")
	}
	type result struct {
		wl  *writerLock
		err error
	}
	waiter := make(chan result)
	go func() {
		wl, _, err := acquireWriterLock(path, 10*time.Second)
		waiter <- result{wl, err}
	}()
	time.Sleep(200 * time.Millisecond) // the waiter opens the file and waits
	first.discard()
	w := <-waiter
	if w.err != nil {
		t.Fatalf("waiter: %v", w.err)
	}
	defer w.wl.release()
	third, _, err := acquireWriterLock(path, 100*time.Millisecond)
	if err == nil {
		third.release()
		t.Fatal("a third writer took the lock while the waiter holds it")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("third writer: %v, want ErrLocked", err)
	}
}
