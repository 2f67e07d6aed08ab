//go:build linux

package persist

import (
	"syscall"
	"time"
)

// threadCPUTime returns the CPU time (user and system) the calling OS
// thread has used, or 0 where it cannot be read.
var threadCPUTime = func() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
