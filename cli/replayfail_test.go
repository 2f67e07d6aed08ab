package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A replay of a failed thread is run to reproduce the failure: when it
// fails again as the recording did, it says so — the step's note and the
// verdict name the node and the error — rather than only "the same tasks
// and writes". When the fix makes it succeed, the --rerun note of the step
// that diverged is headed by that step, not left under the step before.
func TestReplay_FailedThreadReproducedAndFixed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	superstep(t, "", "run", testdata("failing.json"), "--db", db, "--thread", "f1").want(t, 1, "boom")

	r := superstep(t, "", "replay", "f1", "--db", db)
	r.want(t, 0, "step 1: boom match\n  boom failed, as in the recording: boom: boom\n",
		"replay matches: 2 supersteps, the same tasks and writes; it fails as the recording did (node boom: boom: boom)")
	superstep(t, "", "replay", "f1", "--db", db, "--json").want(t, 0, `"boom failed, as in the recording: boom: boom"`)

	data, err := os.ReadFile(testdata("failing.json"))
	if err != nil {
		t.Fatal(err)
	}
	fixed := filepath.Join(dir, "fixed.json")
	fixedFlow := strings.Replace(string(data), `"fail": {"times": 5, "message": "boom"}, `, "", 1)
	if fixedFlow == string(data) {
		t.Fatal("failing.json changed: the test cannot remove its failure")
	}
	if err := os.WriteFile(fixed, []byte(fixedFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	r = superstep(t, "", "replay", "f1", "--db", db, "--graph", fixed, "--rerun", "boom")
	r.want(t, 1, "step 0: __start__ match\nstep 1: boom\n  boom ran (--rerun)\nDIVERGED at step 1, node boom: recorded a failure, replay success")
}
