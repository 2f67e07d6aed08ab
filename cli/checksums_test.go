package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheck_OldDatabaseWithoutChecksums: a database made before records
// carried checksums (persist/testdata/layout1.db, written by the build
// before) still checks ok, and check says what it cannot see there.
func TestCheck_OldDatabaseWithoutChecksums(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "persist", "testdata", "layout1.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "old.db")
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "check", "--db", db).want(t, 0, "ok", "its records carry no checksums", "export and import")
	superstep(t, "", "check", "--db", db, "--json").want(t, 0, `"checksums": false`)
	superstep(t, "", "show", "old", "--db", db).want(t, 0, "approve")
	fresh := filepath.Join(t.TempDir(), "new.db")
	superstep(t, "", "run", testdata("approve.json"), "--db", fresh, "--thread", "t1").want(t, 0)
	r := superstep(t, "", "check", "--db", fresh)
	r.want(t, 0, "ok")
	if r.stderr != "" {
		t.Errorf("check of a new database says %q", r.stderr)
	}
}
