//go:build !linux

package persist

import "time"

// blockThread waits for d (see blockthread_linux.go).
func blockThread(d time.Duration) { time.Sleep(d) }
