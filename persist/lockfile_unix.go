//go:build unix

package persist

import (
	"os"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

// haveWriterLock: the lock file can be locked, so OpenShared may let go of
// bbolt's file lock between calls.
const haveWriterLock = true

func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
