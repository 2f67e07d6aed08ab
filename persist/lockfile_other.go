//go:build !unix

package persist

import (
	"errors"
	"os"
)

// Without flock the writer lock is bbolt's own file lock alone: lockFile
// always succeeds, and OpenShared keeps bbolt's lock for its whole life.
var errWouldBlock = errors.New("would block")

const haveWriterLock = false

func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }

func processAlive(int) bool { return true }
