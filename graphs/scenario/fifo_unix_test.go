//go:build unix

package scenario

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLoad_FIFOIsRefusedAtOnce: a named pipe given as the scenario file
// is refused before it is opened; its open blocked until a writer came
// (forever), and the command held the database lock meanwhile.
func TestLoad_FIFOIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Load(path)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegularFile) {
			t.Fatalf("Load of a FIFO: %v, want ErrNotRegularFile", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load of a FIFO blocks") // the goroutine stays: the process ends with the test binary
	}
}
