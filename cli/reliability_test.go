package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRun_LostBufferedCheckpoints: under --durability exit the checkpoints
// of a run are committed when it ends. When that commit fails (here the
// file may not grow: a disk as good as full) and the run failed too, the
// user must hear both: that the node failed, and that the thread's
// checkpoints were not saved.
func TestRun_LostBufferedCheckpoints(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal("sh is needed to limit the file size")
	}
	db := filepath.Join(t.TempDir(), "full.db")
	scenario := testdata("boom_after_20.json")
	superstep(t, "", "run", scenario, "--db", db, "--thread", "first").want(t, 1, `node "boom" failed`)
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	// ulimit -f counts 512-byte blocks: no write past the current end.
	limit := fi.Size() / 512
	r := runProgram(t, nil, "", "sh", "-c", `ulimit -f "$1"; shift; exec "$@"`, "sh",
		strconv.FormatInt(limit, 10), binary, "run", scenario, "--db", db, "--thread", "second", "--durability", "exit")
	r.want(t, 1, `node "boom" failed`, "saving the database failed", "22 checkpoints", "not saved")
}
