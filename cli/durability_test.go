package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_DurabilityExitKeepsOneCheckpoint: --durability is LangGraph's run
// durability, so exit writes one checkpoint when the run ends (no per-step
// history), while sync and async checkpoint every superstep.
func TestRun_DurabilityExitKeepsOneCheckpoint(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "durability.db")
	for _, c := range []struct {
		durability  string
		checkpoints int
	}{{"exit", 1}, {"sync", 4}, {"async", 4}} {
		thread := "t-" + c.durability
		superstep(t, "", "run", "linear", "--db", db, "--thread", thread, "--durability", c.durability).want(t, 0, "done")
		r := superstep(t, "", "history", thread, "--db", db)
		r.want(t, 0, "step 2 loop")
		if got := strings.Count(r.stdout, "* "); got != c.checkpoints {
			t.Errorf("--durability %s: %d checkpoints in the history, want %d:\n%s", c.durability, got, c.checkpoints, r.stdout)
		}
	}
}
