//go:build unix

package persist

import (
	"os"
	"syscall"
	"time"

	berrors "go.etcd.io/bbolt/errors"
)

// lockRetry is how often lockFile retries a lock another process holds,
// as bbolt's own flock loop does.
const lockRetry = 50 * time.Millisecond

// flockWait takes the lock bbolt will take on f (exclusive unless shared),
// waiting up to timeout, so that the file can be checked before bbolt
// reads it and cannot change meanwhile. bbolt's own flock of the same
// descriptor then succeeds at once. It returns bbolt's ErrTimeout when
// the wait runs out.
func flockWait(f *os.File, shared bool, timeout time.Duration) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	start := time.Now()
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err != syscall.EWOULDBLOCK {
			return err
		}
		if time.Since(start) > timeout-lockRetry {
			return berrors.ErrTimeout
		}
		time.Sleep(lockRetry)
	}
}
