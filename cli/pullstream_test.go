package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPull_MissingThreadLeavesNoDatabase: pull reads the source's export
// as it writes the copy, so it opens the receiving database first; a pull
// that fails (here: a thread --from does not have) removes the database
// it created, as an import of a bad file leaves none.
func TestPull_MissingThreadLeavesNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	superstep(t, "", "run", "linear", "--db", src, "--thread", "t1").want(t, 0)
	db := filepath.Join(dir, "new.db")
	superstep(t, "", "pull", "ghost", "--from", src, "--db", db).want(t, 2, `thread "ghost" is not in `+src)
	wantNoFiles(t, "a failed pull", db, db+".lock")
	// A database that was there stays, without the thread.
	superstep(t, "", "pull", "t1", "--from", src, "--db", db).want(t, 0, "pulled thread t1")
	superstep(t, "", "pull", "ghost", "--from", src, "--db", db).want(t, 2, `thread "ghost" is not in `+src)
	superstep(t, "", "threads", "--db", db).want(t, 0, "t1")
}

// TestImport_StdinSpooledAndRemoved: an export piped to import is kept in
// a temporary file while it is checked and then imported, never whole in
// memory; the file is gone afterwards, whether the import worked or the
// input was refused (with its line and column, as from a file).
func TestImport_StdinSpooledAndRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, data := exportOf(t, dir)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + tmp}
	db := filepath.Join(dir, "dst.db")
	superstepEnv(t, env, string(data), "import", "-", "--db", db).want(t, 0, "imported thread t1")
	superstepEnv(t, env, "{\n  \"format\": \"superstep-thread\",\n  \"thread\": \n}", "import", "-", "--db", db).want(t, 2, "import stdin", "line 4, column 1")
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("import - left %v in the temporary directory (%v)", left, err)
	}
}
