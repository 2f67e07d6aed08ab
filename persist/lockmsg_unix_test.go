//go:build unix

package persist_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superstep/superstep/persist"
)

// TestOpen_LockedByAnotherProgram: when the file's lock is held by a
// program that did not record itself in the lock file (not superstep, as
// far as anyone can tell), the message says the database is locked and
// does not claim that superstep holds it.
func TestOpen_LockedByAnotherProgram(t *testing.T) {
	path := filepath.Join(t.TempDir(), "held.db")
	s, err := persist.Open(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// bbolt's own lock, as any program using bbolt on the file takes it.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		s, err := persist.Open(path, persist.Options{ReadOnly: ro, Timeout: 50 * time.Millisecond})
		if err == nil {
			s.Close()
			t.Fatalf("Open(read-only %v) of a locked file succeeded", ro)
		}
		if !errors.Is(err, persist.ErrLocked) {
			t.Fatalf("Open(read-only %v): %v, want ErrLocked", ro, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "database "+path+" is locked by another process") || strings.Contains(msg, "superstep") {
			t.Errorf("Open(read-only %v): %q, want it locked by another process, superstep not named", ro, msg)
		}
	}
}
