//go:build !unix

package persist

import (
	"os"
	"time"
)

// flockWait does nothing where flock does not exist: bbolt takes its own
// lock after the check, which then runs unprotected.
func flockWait(*os.File, bool, time.Duration) error { return nil }
