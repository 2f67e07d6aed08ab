//go:build unix

package persist_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

func TestShared_SaverSuite(t *testing.T) {
	enginetest.SaverSuite(t,
		func(t *testing.T) engine.Saver {
			s, err := persist.OpenShared(filepath.Join(t.TempDir(), "shared.db"), persist.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		func(t *testing.T, s engine.Saver) engine.Saver {
			sh := s.(*persist.Shared)
			sh.Close()
			re, err := persist.OpenShared(sh.Path(), persist.Options{NoSync: true})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			t.Cleanup(func() { re.Close() })
			return re
		})
}

// A session opened with OpenShared leaves the database readable by others
// between its calls and keeps other writers out, naming itself.
func TestShared_ReadersShareWritersRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.db")
	sh, err := persist.OpenShared(path, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	chain(t, sh, "t1", 3)

	ro, err := persist.Open(path, persist.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("a reader beside the session: %v", err)
	}
	if l, err := ro.List(ctx, engine.Config{ThreadID: "t1"}, engine.ListOptions{}); err != nil || len(l) != 3 {
		t.Fatalf("reader sees %d checkpoints, %v; want 3", len(l), err)
	}
	// The session writes while the reader is open... once it closes.
	done := make(chan error, 1)
	go func() {
		_, err := sh.Put(ctx, engine.Config{ThreadID: "t2"}, &engine.Checkpoint{ID: id(9), ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}, engine.Metadata{Source: engine.SourceInput, Step: -1}, nil)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	ro.Close()
	if err := <-done; err != nil {
		t.Fatalf("session write after the reader closed: %v", err)
	}

	_, err = persist.Open(path, persist.Options{Timeout: 100 * time.Millisecond})
	var oe *persist.OpenError
	if !errors.Is(err, persist.ErrLocked) || !errors.As(err, &oe) || oe.Holder == nil || oe.Holder.PID != os.Getpid() {
		t.Fatalf("second writer: %v, want ErrLocked naming this process", err)
	}
	if !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("message %q does not name the holder", err)
	}
	sh.Close()
	w, err := persist.Open(path, persist.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("writer after the session closed: %v", err)
	}
	w.Close()
	if h, _ := persist.ReadHolder(path); h != nil {
		t.Fatalf("lock file still names %v after every writer closed", h)
	}
}

// SetDurability on a session: exit keeps the file open and buffers (a
// reader waits meanwhile), sync commits and lets readers in again, and
// Close commits what is still buffered.
func TestShared_SetDurability(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.db")
	sh, err := persist.OpenShared(path, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Durability() != persist.DurabilitySync {
		t.Fatalf("a session starts at %v", sh.Durability())
	}
	if err := sh.SetDurability(persist.DurabilityExit); err != nil {
		t.Fatal(err)
	}
	chain(t, sh, "t1", 3)
	if sh.Durability() != persist.DurabilityExit {
		t.Fatalf("durability %v after setting exit", sh.Durability())
	}
	if _, err := persist.Open(path, persist.Options{ReadOnly: true, Timeout: 50 * time.Millisecond}); !errors.Is(err, persist.ErrLocked) {
		t.Fatalf("a reader while writes are buffered: %v, want ErrLocked", err)
	}
	if err := sh.SetDurability(persist.DurabilityAsync); err != nil {
		t.Fatal(err)
	}
	if err := sh.SetDurability(persist.DurabilitySync); err != nil {
		t.Fatal(err)
	}
	ro, err := persist.Open(path, persist.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("a reader after sync: %v", err)
	}
	if l, err := ro.List(ctx, engine.Config{ThreadID: "t1"}, engine.ListOptions{}); err != nil || len(l) != 3 {
		t.Fatalf("reader sees %d checkpoints, %v; want 3", len(l), err)
	}
	ro.Close()
	if err := sh.SetDurability(persist.DurabilityExit); err != nil {
		t.Fatal(err)
	}
	chain(t, sh, "t2", 2)
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err = persist.Open(path, persist.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if l, err := ro.List(ctx, engine.Config{ThreadID: "t2"}, engine.ListOptions{}); err != nil || len(l) != 2 {
		t.Fatalf("after Close: %d checkpoints of t2, %v; want 2", len(l), err)
	}
	if err := sh.SetDurability(persist.DurabilityAsync); !errors.Is(err, persist.ErrClosed) {
		t.Fatalf("SetDurability after Close: %v", err)
	}
}
