package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHistory_FailureNamesNodeOnce: history printed "failed: fetch:
// fetch: upstream 503": the scripted failure's text named its node, and
// the engine's error around it (and history's line) named it again. The
// node is named once, in run's report and history's line alike; a task a
// node called (functional API), which the graph does not plan, is named
// by the node its error names rather than by its id.
func TestHistory_FailureNamesNodeOnce(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	superstep(t, "", "run", testdata("failing.json"), "--db", db, "--thread", "f1").want(t, 1, `thread f1: node "boom" failed at step 1: boom; `)
	r := superstep(t, "", "history", "f1", "--db", db)
	r.want(t, 0, "failed in step 1: boom: boom  (end")
	if strings.Contains(r.stdout, "boom: boom: boom") {
		t.Errorf("history names the node twice:\n%s", r.stdout)
	}
	flow := filepath.Join("..", "testdata", "conformance", "own", "func_interrupt_then_failure.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "x1").want(t, 1, `node "flaky" failed at step 0: boom; `)
	superstep(t, "", "history", "x1", "--db", db).want(t, 0, "failed in step 0: flaky: boom  (end")
}
