package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// run says when a task's retry policy runs it again and why, in text and
// in JSON lines: the attempt that worked hid the flaky tool.
func TestRun_ReportsRetries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flow := filepath.Join(dir, "retry.json")
	src := `{"name": "retry", "state": {"log": "add"},
	  "nodes": [{"name": "tool", "fail": {"times": 1, "message": "connection reset"}, "retry": {"max_attempts": 2}, "update": {"log": "['tool']"}}],
	  "edges": [["__start__", "tool"], ["tool", "__end__"]],
	  "ops": [{"op": "invoke", "input": {"log": []}}]}`
	if err := os.WriteFile(flow, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	superstep(t, "", "run", flow, "--db", db, "--thread", "a").
		want(t, 0, "step 1   tool                 retrying: attempt 1 failed: ", "connection reset", "step 1   tool                 ran")
	superstep(t, "", "run", flow, "--db", db, "--thread", "b", "--json").
		want(t, 0, `{"event":"task","step":1,"name":"tool","status":"retrying","message":"`, "connection reset")
}
