//go:build unix

package persist_test

import (
	"fmt"
	"os"
	"syscall"
)

// allocatedBytes returns the bytes of disk blocks a file uses.
func allocatedBytes(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprint(st.Blocks * 512)
	}
	return "?"
}
