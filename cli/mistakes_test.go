package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// A directory or a URL given as the graph is refused as such, and the
// database is not created either.
func TestRun_GraphNotAFileCreatesNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	superstep(t, "", "run", dir, "--db", db).want(t, 2, dir+": not a regular file")
	superstep(t, "", "run", "https://example.com/flow.json", "--db", db).want(t, 2, "a URL, not a file")
	superstep(t, "", "run", filepath.Join(dir, "flow.json"), "--db", db).want(t, 2, "no such file")
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a refused graph left %s behind (%v)", db, err)
	}
}
