package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLintFlag_FunctionalFile: a functional file's likely mistake (a
// task named like its entrypoint) is refused by run as a graph file's
// is, at its place with the fix and a last line naming --lint=warn;
// with --lint=warn it is warned of and the file runs.
func TestLintFlag_FunctionalFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "fn.json")
	if err := os.WriteFile(file, []byte(`{"name": "fn",
 "tasks": {"main": {"result": "state.x * 2"}},
 "entrypoint": {"calls": [{"task": "main", "arg": "{'x': state.x}"}], "return": "{'y': results[0]}"},
 "ops": [{"op": "invoke", "input": {"x": 2}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	finding := file + `:2:12: tasks.main: task "main" is named like the entrypoint`
	superstep(t, "", "run", file, "--db", db, "--thread", "t1").want(t, 2, "superstep: "+finding, "pass --lint=warn")
	superstep(t, "", "run", file, "--db", db, "--thread", "t1", "--lint=warn").want(t, 0, "superstep: warning: "+finding, `"y": 4`)
}
