package persist_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/persist"
)

// TestOpen_FailureLeavesNoLockFile: an open that refuses the file (not a
// database, another program's bbolt file, a damaged database, a
// directory) leaves nothing beside it: no FILE.lock, and the file as it
// was. `push t1 --to scenario.json` once left scenario.json.lock.
func TestOpen_FailureLeavesNoLockFile(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(path string){
		"not a database": func(path string) {
			write(t, path, []byte(`{"graph": "not a database"}`))
		},
		"empty":         func(path string) { write(t, path, nil) },
		"foreign bbolt": func(path string) { writeForeignBolt(t, path) },
		"damaged": func(path string) {
			s, err := persist.Open(path, persist.Options{})
			if err != nil {
				t.Fatal(err)
			}
			chain(t, s, "t", 3)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Both meta pages' checksums, so neither can stand in.
			data[0x10+60] ^= 0xff
			data[4096+0x10+60] ^= 0xff
			write(t, path, data)
			// As if copied here alone: the lock file its writer left
			// is not this open's to remove (see the test below).
			os.Remove(persist.LockPath(path))
		},
		"directory": func(path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, make := range cases {
		for _, ro := range []bool{false, true} {
			if name == "empty" && !ro {
				continue // a writable open sets an empty file up
			}
			t.Run(name+map[bool]string{false: "/writable", true: "/read-only"}[ro], func(t *testing.T) {
				path := filepath.Join(dir, name+map[bool]string{false: "-w", true: "-r"}[ro])
				make(path)
				before := contents(t, path)
				s, err := persist.Open(path, persist.Options{ReadOnly: ro})
				if err == nil {
					s.Close()
					t.Fatal("Open succeeded")
				}
				if _, serr := os.Lstat(persist.LockPath(path)); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("after the failed open (%v), %s is there (%v)", err, persist.LockPath(path), serr)
				}
				if after := contents(t, path); !bytes.Equal(before, after) {
					t.Errorf("the failed open changed the file")
				}
			})
		}
	}
}

// TestOpen_FailureKeepsALockFileItDidNotMake: a lock file that was there
// before the open may guard a database another process uses; a failed
// open leaves it as it was.
func TestOpen_FailureKeepsALockFileItDidNotMake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in-use.db")
	sh, err := persist.OpenShared(path, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if _, err := persist.Open(path, persist.Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, persist.ErrLocked) {
		t.Fatalf("second writer: %v, want ErrLocked", err)
	}
	if h, err := persist.ReadHolder(path); err != nil || h == nil || h.PID != os.Getpid() {
		t.Fatalf("after the refused writer the lock file names %v (%v), want this process", h, err)
	}
	// Still held: a third writer is refused too.
	if _, err := persist.Open(path, persist.Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, persist.ErrLocked) {
		t.Fatalf("third writer: %v, want ErrLocked", err)
	}

	// A lock file left beside a file that is not a database stays too.
	other := filepath.Join(t.TempDir(), "notes.txt")
	write(t, other, []byte("not a database"))
	write(t, persist.LockPath(other), nil)
	if _, err := persist.Open(other, persist.Options{}); !errors.Is(err, persist.ErrNotDatabase) {
		t.Fatalf("Open: %v, want ErrNotDatabase", err)
	}
	if _, err := os.Stat(persist.LockPath(other)); err != nil {
		t.Errorf("a lock file the open did not make was removed: %v", err)
	}
}

// writeForeignBolt makes path a bbolt database of another program.
func writeForeignBolt(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("someone-elses"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// contents is the file's bytes, or nil for a directory.
func contents(t *testing.T, path string) []byte {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
