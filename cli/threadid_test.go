package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestThreadID_WhiteSpace: run --thread " " was taken and threads showed
// it as a blank row. A blank id, or one with white space at an end, is
// refused before anything runs (exit 2, naming the id), for run and for
// copy's new id, and nothing is stored; white space inside is kept.
func TestThreadID_WhiteSpace(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "t.db")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "bug 42").want(t, 0)
	superstep(t, "", "run", "linear", "--db", db, "--thread", " ").want(t, 2, `--thread: invalid id: thread id " " is blank`)
	superstep(t, "", "run", "linear", "--db", db, "--thread", "t1 ").want(t, 2, `--thread: invalid id: thread id "t1 " starts or ends with white space ("t1" would do)`)
	superstep(t, "", "copy", "bug 42", " ", "--db", db).want(t, 2, `thread id " " is blank`)
	r := superstep(t, "", "threads", "--db", db, "--json")
	r.want(t, 0, `"bug 42"`)
	if n := strings.Count(r.stdout, `"thread":`); n != 1 {
		t.Errorf("threads after the refused ids: %d, want 1\n%s", n, r.stdout)
	}
}
