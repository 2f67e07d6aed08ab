//go:build !unix

package cli_test

import "os"

// peakRSSKB reports no peak memory where getrusage does not exist.
func peakRSSKB(*os.ProcessState) (int64, bool) { return 0, false }
