package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplay_RecordedGraphGone: replay of a thread whose recorded
// scenario file is gone said only `unknown graph "…": … no such file`,
// neither that it was the recorded graph nor what to do. It says what
// exec and update say, word for word.
func TestReplay_RecordedGraphGone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	data, err := os.ReadFile(testdata("approve.json"))
	if err != nil {
		t.Fatal(err)
	}
	flow := filepath.Join(dir, "svc.json")
	if err := os.WriteFile(flow, data, 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1").want(t, 0, "interrupted")
	if err := os.Remove(flow); err != nil {
		t.Fatal(err)
	}
	want := `thread "s1" was recorded with graph ` + flow + `, which no longer resolves (unknown graph "` + flow + `": not a built-in graph`
	superstep(t, "", "replay", "s1", "--db", db).want(t, 2, want, "no such file): pass --graph\n")
	superstep(t, "", "exec", "s1", "ask", "--db", db).want(t, 2, want, "no such file): pass --graph\n")
	superstep(t, "", "update", "s1", "--db", db, "--values", "{}").want(t, 2, want, "no such file): pass --graph\n")
}
