//go:build !linux

package persist

import "time"

// threadCPUTime is nil where a thread's CPU time cannot be read.
var threadCPUTime func() time.Duration
