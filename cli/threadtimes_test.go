package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestThreads_PulledThreadShowsItsLastCheckpoint: a thread brought from
// another database lists when its latest checkpoint was written there
// (LAST CHECKPOINT), apart from when this database wrote it (UPDATED,
// the import): triaging pulled threads needs when the service ran them.
func TestThreads_PulledThreadShowsItsLastCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prod, local := filepath.Join(dir, "prod.db"), filepath.Join(dir, "local.db")
	superstep(t, "", "run", "linear", "--thread", "t-42", "--db", prod).want(t, 0)
	type row struct {
		LastCheckpoint time.Time `json:"last_checkpoint"`
		Updated        time.Time `json:"updated"`
	}
	list := func(db string) row {
		t.Helper()
		r := superstep(t, "", "threads", "--json", "--db", db)
		r.want(t, 0)
		var rows []row
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("threads --json: %v\n%s", err, r.stdout)
		}
		return rows[0]
	}
	before := list(prod)
	if before.LastCheckpoint.IsZero() {
		t.Fatalf("threads --json has no last_checkpoint: %+v", before)
	}
	export := superstep(t, "", "export", "t-42", "--db", prod)
	export.want(t, 0)
	file := filepath.Join(dir, "t-42.json")
	if err := os.WriteFile(file, []byte(export.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the import is seconds later, as a pull is
	superstep(t, "", "import", file, "--db", local).want(t, 0)
	after := list(local)
	if !after.LastCheckpoint.Equal(before.LastCheckpoint) {
		t.Errorf("imported thread's last_checkpoint %v, want the exported one's %v", after.LastCheckpoint, before.LastCheckpoint)
	}
	if !after.Updated.After(before.LastCheckpoint.Add(time.Second)) {
		t.Errorf("imported thread's updated %v, want the import's time, after %v", after.Updated, before.LastCheckpoint)
	}
	r := superstep(t, "", "threads", "--db", local)
	r.want(t, 0, "LAST CHECKPOINT", "UPDATED", before.LastCheckpoint.Local().Format("2006-01-02 15:04:05"))
	if line := strings.Split(r.stdout, "\n")[1]; strings.Count(line, before.LastCheckpoint.Local().Format("2006-01-02 15:04:05")) != 1 {
		t.Errorf("the row shows the checkpoint's time twice, not the import's as UPDATED: %s", line)
	}
}
