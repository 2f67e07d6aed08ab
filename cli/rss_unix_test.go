//go:build unix

package cli_test

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSKB is the peak resident memory of a process that ended, in KiB:
// getrusage's ru_maxrss, which Linux and the BSDs give in KiB and macOS
// in bytes.
func peakRSSKB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024, true
	}
	return int64(ru.Maxrss), true
}
