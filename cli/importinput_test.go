package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportOf runs linear into a new database as thread t1 and writes its
// export to dir/t1.json, whose path and contents it returns.
func exportOf(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	db := filepath.Join(dir, "src.db")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "t1").want(t, 0)
	data := []byte(superstep(t, "", "export", "t1", "--db", db).stdout)
	path := filepath.Join(dir, "t1.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// TestImport_ByteOrderMark: an export an editor saved with a UTF-8 byte
// order mark first imports (it was "invalid character 'ï'"), and so does
// a scenario file saved so.
func TestImport_ByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, data := exportOf(t, dir)
	bom := filepath.Join(dir, "bom.json")
	if err := os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "import", bom, "--db", filepath.Join(dir, "dst.db")).want(t, 0, "imported thread t1")
	scenario, err := os.ReadFile(testdata("approve.json"))
	if err != nil {
		t.Fatal(err)
	}
	flow := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(flow, append([]byte("\xef\xbb\xbf"), scenario...), 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "graph", flow).want(t, 0)
}

// TestImport_WrongTypeNamesField: import of valid JSON whose field has
// the wrong type says which field wants what, and where, not "not JSON:
// json: cannot unmarshal … into Go struct field exportHead.version".
func TestImport_WrongTypeNamesField(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, data := exportOf(t, dir)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, bytes.Replace(data, []byte(`"version":2`), []byte(`"version":2.5`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "import", bad, "--db", filepath.Join(dir, "dst.db"))
	r.want(t, 2, `import `+bad+`: invalid thread export: field "version" wants an integer, not number 2.5 (line 1)`)
	if strings.Contains(r.stderr, "not JSON") || strings.Contains(r.stderr, "Go struct") {
		t.Errorf("import of valid JSON with a wrong type: %s", r.stderr)
	}
}

// TestOpen_ExportGivenAsDatabase: an export file given where a database
// goes (--db, pull --from, push --to) said only "not a bbolt file": it
// says the file is a thread export and gives the import command, into
// --db when the export was the other database.
func TestOpen_ExportGivenAsDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	export, _ := exportOf(t, dir)
	db := filepath.Join(dir, "bug.db")
	said := "open database " + export + ": not a superstep database: a superstep thread export (JSON); to read its thread into a database: superstep import " + export
	superstep(t, "", "threads", "--db", export).want(t, 2, said+"\n")
	superstep(t, "", "history", "t1", "--db", export).want(t, 2, said+"\n")
	superstep(t, "", "pull", "t1", "--from", export, "--db", db).want(t, 2, said+" --db "+db+"\n")
	superstep(t, "", "run", "linear", "--db", db).want(t, 0)
	superstep(t, "", "push", "t1", "--to", export, "--db", db).want(t, 2, said+" --db "+db+"\n")
}
