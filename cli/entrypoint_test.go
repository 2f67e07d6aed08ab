package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_EntrypointPrintsOutput: run prints what an entrypoint returned
// (Result.Output), not its empty state-key map, in text and in the done
// line of --json; an interrupted entrypoint has returned nothing yet.
func TestRun_EntrypointPrintsOutput(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	final := filepath.Join("..", "testdata", "conformance", "own", "func_final_previous.json")
	r := superstep(t, "", "run", final, "--db", db, "--thread", "e1", "--input", "1")
	r.want(t, 0, "done: {\n  \"previous\": null,\n  \"value\": 1\n}")
	r = superstep(t, "", "run", final, "--db", db, "--thread", "e1", "--input", "2", "--json")
	r.want(t, 0)
	var done struct {
		Event  string
		Output map[string]any
		Values map[string]any
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &done); err != nil {
		t.Fatalf("last line: %v\n%s", err, r.stdout)
	}
	// entrypoint.final saved the input (1) as previous; the output is 2+1.
	if done.Event != "done" || done.Output["value"] != 3.0 || done.Output["previous"] != 1.0 || done.Values != nil {
		t.Fatalf("done line %s", lines[len(lines)-1])
	}

	asks := filepath.Join("..", "testdata", "conformance", "own", "func_task_interrupts.json")
	superstep(t, "", "run", asks, "--db", db, "--thread", "e2", "--input", "{}").want(t, 0, "interrupted: null")
	r = superstep(t, "", "run", asks, "--db", db, "--thread", "e2", "--resume", "true", "--json")
	r.want(t, 0, `"event":"done","status":"interrupted","thread":"e2","output":null`)
}

// TestRun_AnswerHintAfterTaskCallAsks: when an entrypoint's second Task
// call asks in the run that answered the first, the thread waits for that
// answer (the plain resume value was used by the first call), and the hint
// names the database and quotes words a shell would split, so pasting it
// answers the same thread.
func TestRun_AnswerHintAfterTaskCallAsks(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "my dbs", "s.db")
	asks := filepath.Join("..", "testdata", "conformance", "own", "func_task_interrupts.json")
	r := superstep(t, "", "run", asks, "--db", db, "--thread", "e 3", "--input", "{}")
	r.want(t, 0, "answer with: superstep run "+asks+" --db '"+db+"' --thread 'e 3' --resume ANSWER\n  (ANSWER is the value the node expects, as JSON")
	r = superstep(t, "", "run", asks, "--db", db, "--thread", "e 3", "--resume", "true")
	r.want(t, 0, "Hey do you want to add Will?", "answer with:")
	superstep(t, "", "run", asks, "--db", db, "--thread", "e 3", "--resume", "false").want(t, 0, "The user changed their mind about Will")
}
