package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// run --checkpoint X --resume answers the interrupt waiting at X, an older
// checkpoint, on a new branch from it, as the debugger's answer box does
// there and as LangGraph resumes a config naming a checkpoint_id. It looked
// for the interrupt at the thread's latest checkpoint instead and, the
// thread having finished since, said "nothing to resume".
func TestRun_ResumeAtOlderCheckpoint(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	graph := testdata("approve.json")
	superstep(t, "", "run", graph, "--db", db, "--thread", "t1").want(t, 0, "interrupted")
	asked := checkpointAt(t, historyRows(t, db, "t1"), 0, "loop")
	// New input leaves that question unanswered and asks again; the
	// answer to the second one ends the thread.
	superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--input", `{"total": 10, "visited": []}`).want(t, 0, "interrupted")
	superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--resume", "no").want(t, 0, "done", `"total": 11`)

	x := engine.ShortID(asked)
	r := superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--checkpoint", x, "--resume", "yes")
	r.want(t, 0, "done", `"total": 2`, `"answer=yes"`)
	rows := historyRows(t, db, "t1")
	if head := rows[0]; head["step"] != float64(2) {
		t.Fatalf("the answered run did not end the thread's newest branch: %v", head)
	}
	branch := checkpointAt(t, rows, 1, "loop")
	for _, row := range rows {
		if row["id"] == branch && row["parent"] != asked {
			t.Fatalf("the answer's branch starts at %v, want %s", row["parent"], asked)
		}
	}

	// X's question has its answer now: a second one would be ignored, as
	// LangGraph keeps a saved answer, so it is refused naming X and the
	// fork that asks again.
	r = superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--checkpoint", x, "--resume", "maybe")
	r.want(t, 2, "nothing to resume", "checkpoint "+x+` of thread "t1"`, `node ask was answered there (["yes"])`, "--checkpoint "+x+", then --resume")

	// A checkpoint none of whose tasks asked is named too.
	first := engine.ShortID(checkpointAt(t, rows, -1, "input"))
	r = superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--checkpoint", first, "--resume", "yes")
	r.want(t, 2, "nothing to resume", "checkpoint "+first+` of thread "t1"`, "none of its tasks asked")
	if strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
		t.Fatalf("want one line on stderr and nothing on stdout:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
