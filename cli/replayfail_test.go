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
	r.want(t, 0, "step 1: boom match\n  boom failed, as in the recording: boom\n",
		"replay matches: 2 supersteps, the same tasks and writes; it fails as the recording did (node boom: boom)")
	superstep(t, "", "replay", "f1", "--db", db, "--json").want(t, 0, `"boom failed, as in the recording: boom"`)

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

// exec of a task the recording left waiting at a question, when the
// current code asks another (a model wrote the question): the difference
// is the question, and both are shown — not "the recording has no answer
// for it" and "does not write what the recording did", which sent the user
// looking for writes that neither run made.
func TestExec_WaitingTaskAsksAnotherQuestion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "w1").want(t, 0, "interrupt in ask")
	superstep(t, "", "exec", "w1", "ask", "--db", db, "--graph", testdata("approve.json")).
		want(t, 0, `interrupted with "approve?", as the recording did: it waits for an answer`)

	data, err := os.ReadFile(testdata("approve.json"))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "approve.json")
	if err := os.WriteFile(other, []byte(strings.Replace(string(data), `'approve?'`, `'approve this?'`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "exec", "w1", "ask", "--db", db, "--graph", other)
	r.want(t, 1, `interrupted with "approve this?"; the recording asked "approve?" and waits for its answer`,
		"node ask asks another question than the recording did")
	if strings.Contains(r.stdout+r.stderr, "no answer") || strings.Contains(r.stderr, "does not write") {
		t.Fatalf("exec blames the answers or the writes:\n%s%s", r.stdout, r.stderr)
	}
	superstep(t, "", "exec", "w1", "ask", "--db", db, "--graph", other, "--json").want(t, 1, `"recorded_interrupts": [`)
}

// history shows where a failed thread failed: the checkpoint whose task
// saved an error says which node failed and with what, as it says which
// one asks for an answer — the first question of the bad-case workflow.
func TestHistory_ShowsWhereTheThreadFailed(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	superstep(t, "", "run", testdata("failing.json"), "--db", db, "--thread", "f1").want(t, 1, "boom")
	r := superstep(t, "", "history", "f1", "--db", db)
	// The node's own error, once after the node's name: the scripted
	// failure's text named its node too ("boom: boom: boom").
	r.want(t, 0, `next: boom  failed in step 1: boom: boom  (end of the recorded run)`)
	if n := strings.Count(r.stdout, "failed in step"); n != 1 {
		t.Fatalf("history shows %d failures, want the one checkpoint's:\n%s", n, r.stdout)
	}
	superstep(t, "", "history", "f1", "--db", db, "--json").want(t, 0, `"failures": [`, `"boom: boom"`)
}

// A task cancelled by its sibling's failure saved its cancellation as its
// error: history names it cancelled, not as a second failure, and show
// prints the saved error's text, not its structure.
func TestHistory_CancelledSiblingIsNotAFailure(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "c.db")
	flow := filepath.Join("..", "testdata", "conformance", "own", "fail_while_sibling_works.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "c1").want(t, 1, "boom")
	r := superstep(t, "", "history", "c1", "--db", db)
	r.want(t, 0, `failed in step 1: a: boom  cancelled: b  (end of the recorded run)`)
	if strings.Contains(r.stdout, "failed in step 1: b") {
		t.Fatalf("history calls the cancelled sibling a failure:\n%s", r.stdout)
	}
	superstep(t, "", "history", "c1", "--db", db, "--json").want(t, 0, `"cancelled": [`)
	superstep(t, "", "show", "c1", "--db", db).want(t, 0, `__error__ = "node \"b\" failed at step 1: cancelled: node \"a\" failed in the same superstep"`)
}

// exec of a subgraph's node (as history --ns or the debugger shows it)
// says which parent node runs it: exec runs the parent's task, whose
// subgraph runs with it.
func TestExec_SubgraphNodeNamesItsParent(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	flow := testdata("sub_two_asks.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1").want(t, 0, `"first?"`)
	superstep(t, "", "exec", "s1", "a1", "--db", db, "--graph", flow).
		want(t, 2, `has no node "a1" (nodes: sub); a1 is a node of the subgraph of sub: exec sub runs it with its subgraph`)
	superstep(t, "", "exec", "s1", "zz", "--db", db, "--graph", flow).want(t, 2, `has no node "zz" (nodes: sub)`)
}

// --recursion-limit's help states its default once: it said "(default:
// the scenario's, else 25) (default 25)", the second added by the flag
// library.
func TestHelp_RecursionLimitDefaultOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"run", "replay", "exec"} {
		r := superstep(t, "", c, "--help")
		r.want(t, 0, "--recursion-limit int", "a scenario's own limit when it sets one (default 25)")
		if strings.Count(r.stdout, "default: the scenario's") > 0 {
			t.Fatalf("%s --help states the default twice:\n%s", c, r.stdout)
		}
	}
}

// A thread that failed in production and was then run on past the failure
// (invoke(null) after an error: the flaky node ran again and passed) keeps
// both attempts. A replay with the code that failed reproduces both: it
// fails as the recording's run did, runs the step again as that run did,
// and matches. Code that fails twice diverges there; code without the
// failure matches, with a note that the recording failed first.
func TestReplay_FailureTheRecordingWentOnPast(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	data, err := os.ReadFile(testdata("flaky.json"))
	if err != nil {
		t.Fatal(err)
	}
	variant := func(name, from, to string) string {
		t.Helper()
		text := strings.Replace(string(data), from, to, 1)
		if text == string(data) {
			t.Fatalf("flaky.json changed: cannot make %s", name)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fixed := variant("fixed.json", `"fail": {"times": 1, "message": "flaky", "after_ms": 50}, `, "")
	twice := variant("twice.json", `"times": 1`, `"times": 2`)

	superstep(t, "", "run", testdata("flaky.json"), "--db", db, "--thread", "f1").want(t, 1, "check                error", "slow                 cancelled")
	superstep(t, "", "run", fixed, "--db", db, "--thread", "f1").want(t, 0, "check                ran", "slow                 ran")

	r := superstep(t, "", "replay", "f1", "--db", db, "--graph", testdata("flaky.json"))
	r.want(t, 0, "step 2: check, slow match\n  check failed, as the recording's run did before it went on past the failure: flaky; running the step again, as it did\nstep 3: after match\n",
		"replay matches: 4 supersteps")

	superstep(t, "", "replay", "f1", "--db", db, "--graph", twice).
		want(t, 1, "DIVERGED at step 2, node check: the replay failed again: flaky; the recording's run failed here once, then ran")

	r = superstep(t, "", "replay", "f1", "--db", db, "--graph", fixed)
	r.want(t, 0, "step 2: check, slow match\n  check ran at once; the recording's run failed here first (", "replay matches: 4 supersteps")
	if strings.Contains(r.stdout, "slow ran at once") {
		t.Errorf("a task cancelled beside the failure is noted as failing first:\n%s", r.stdout)
	}
}

// --offline runs no task --rerun does not name, and a task whose recorded
// run failed has no writes to reuse: the replay stops before it, saying
// how it failed, rather than calling what it calls by surprise.
func TestReplay_OfflineStopsBeforeARecordedFailure(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	superstep(t, "", "run", testdata("flaky.json"), "--db", db, "--thread", "f1").want(t, 1, "flaky")
	superstep(t, "", "replay", "f1", "--db", db, "--rerun", "start", "--offline").want(t, 1,
		"start ran (--rerun)",
		"stopped at step 2, task check: the recording has no finished writes for it (it failed: ",
		"so it would run with the current code; --offline stops here")
}
