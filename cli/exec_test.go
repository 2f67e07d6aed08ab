package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenarioFile writes a scenario of one node "n" between start and end,
// whose definition is node (a JSON object's fields after the name).
func scenarioFile(t *testing.T, dir, name, node string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	doc := `{"name":"one","state":{"log":"add"},"nodes":[{"name":"n",` + node + `}],` +
		`"edges":[["__start__","n"],["n","__end__"]],"ops":[{"op":"invoke","input":{"log":[]}}]}`
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// exec judges the outcome before the writes, as the debugger's e does
// (recording.JudgeRerun): each case exited 0 with "same writes as
// recorded" or was taken for a question the recording has no answer for.
func TestExec_JudgesTheOutcome(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")

	// A node answered once that waits on its second question asks it
	// again: the recording's outcome.
	two := scenarioFile(t, dir, "two.json", `"interrupt":["'first'","'second ' + resume"],"update":{"log":"resumes"}`)
	superstep(t, "", "run", two, "--db", db, "--thread", "q").want(t, 0, "first")
	superstep(t, "", "run", two, "--db", db, "--thread", "q", "--resume", "A").want(t, 0, "second A")
	superstep(t, "", "exec", "q", "n", "--db", db, "--graph", two).want(t, 0, `interrupted with "second A", as the recording did`)

	// The code no longer asks the question the recording waits on.
	quiet := scenarioFile(t, dir, "quiet.json", `"update":{"log":"['no question']"}`)
	superstep(t, "", "exec", "q", "n", "--db", db, "--graph", quiet).want(t, 1,
		`finished without asking; the recording asked "second A" and waits for its answer`, "node n no longer asks the question the recording waits on")

	// The recording failed; the fixed code runs and writes nothing, as the
	// failed run wrote nothing: a difference, not "same writes".
	failing := scenarioFile(t, dir, "failing.json", `"fail":{"times":1,"message":"boom"}`)
	superstep(t, "", "run", failing, "--db", db, "--thread", "f").want(t, 1, "boom")
	superstep(t, "", "exec", "f", "n", "--db", db, "--graph", failing).want(t, 1, "node n fails with the current code as it did in the recording")
	fixed := scenarioFile(t, dir, "fixed.json", `"update":"null"`)
	r := superstep(t, "", "exec", "f", "n", "--db", db, "--graph", fixed)
	r.want(t, 1, "it runs without the error the recording saved", "node n no longer fails as the recording did")
	if strings.Contains(r.stdout, "same writes as recorded") {
		t.Fatalf("a fixed failure reported as the recording's outcome:\n%s", r.stdout)
	}
}
