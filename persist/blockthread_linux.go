//go:build linux

package persist

import (
	"syscall"
	"time"
)

// blockThread blocks the calling OS thread in the kernel for d, as a
// write waiting for the disk does (fdatasync): a benchmark's stand-in for
// a disk of known speed. Unlike time.Sleep, whose short waits the
// runtime may round up to a millisecond, it keeps d's precision.
func blockThread(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
