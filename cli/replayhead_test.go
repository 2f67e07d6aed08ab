package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A replay's branch becomes the thread's head. history marks its
// checkpoints apart from a person's forks, and run and the debugger, going
// on from the head, say that it is a replay's and where the recorded run
// ended (a user took the replay's branch for the production run's).
func TestReplay_BranchIsMarkedAndContinuingSaysSo(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bug.db")
	superstep(t, "", "run", "linear", "--thread", "t-42", "--db", db).want(t, 0)
	superstep(t, "", "replay", "t-42", "--db", db).want(t, 0, "replay matches")
	h := superstep(t, "", "history", "t-42", "--db", db)
	h.want(t, 0, "(end of the recorded run)", "(replay)")
	var end string
	for _, line := range strings.Split(h.stdout, "\n") {
		if strings.Contains(line, "(end of the recorded run)") {
			end = strings.Fields(strings.TrimLeft(line, "*|/ "))[0]
		}
		if strings.Contains(line, " fork ") && !strings.Contains(line, "(replay)") {
			t.Errorf("the replay's fork is not marked: %s", line)
		}
	}
	superstep(t, "", "run", "linear", "--thread", "t-42", "--db", db).want(t, 0,
		`latest checkpoint`, `ends a replay's branch`, "this run goes on from the replay's branch", "the recorded run ended at "+end, "--checkpoint "+end)
	superstep(t, "", "tui", "linear", "--thread", "t-42", "--db", db).want(t, 0,
		"the debugger goes on from the replay's branch", "--thread t-42 --checkpoint "+end+" goes on from there")
	// A fork of a person's own is no replay: nothing to say.
	superstep(t, "", "run", "linear", "--thread", "t-43", "--db", db).want(t, 0)
	r := superstep(t, "", "run", "linear", "--thread", "t-43", "--db", db)
	if r.want(t, 0); strings.Contains(r.stderr, "replay") {
		t.Fatalf("a thread never replayed is said to be: %s", r.stderr)
	}
}
