package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// run says why a run with no question stopped: at a breakpoint, or
// because a breakpoint held a node's Task call (in text and in JSON), and
// how to go on.
func TestRun_SaysWhyItStoppedAtABreakpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flow := filepath.Join(dir, "held.json")
	src := `{"name": "held", "state": {"log": "add"},
	  "tasks": {"m": {"result": "'m:' + state"}},
	  "nodes": [{"name": "b", "calls": [{"task": "m", "arg": "'b'"}], "update": {"log": "['b', str(results[0])]"}}],
	  "edges": [["__start__", "b"], ["b", "__end__"]],
	  "interrupt_after": ["b"],
	  "ops": [{"op": "invoke", "input": {"log": []}}]}`
	if err := os.WriteFile(flow, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "h.db")
	superstep(t, "", "run", flow, "--db", db, "--thread", "a").
		want(t, 0, "a breakpoint held b's call to m (interrupt_after b), which returned nothing", "continue it with: superstep run ")
	superstep(t, "", "run", flow, "--db", db, "--thread", "a").
		want(t, 0, "stopped at a breakpoint (interrupt_before/after); continue it with: ")
	superstep(t, "", "run", flow, "--db", db, "--thread", "j", "--json").
		want(t, 0, `"held_calls":[{"caller":"b","task":"m","breakpoint":"interrupt_after"}]`)
}
