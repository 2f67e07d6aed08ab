package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkflow_BadCase is the bad-case workflow end to end: a run stops at
// an interrupt, is resumed, exported, imported into another database and
// replayed with the same graph, a changed node and a renamed node.
func TestWorkflow_BadCase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	server, laptop := filepath.Join(dir, "server.db"), filepath.Join(dir, "laptop.db")
	graph := testdata("approve.json")

	r := superstep(t, "", "run", graph, "--db", server, "--thread", "t1", "--json")
	r.want(t, 0, `"event":"interrupt"`, `"node":"ask"`, `"value":"approve?"`)
	events := jsonLines(t, r.stdout)
	if last := events[len(events)-1]; last["event"] != "done" || last["status"] != "interrupted" {
		t.Fatalf("last event %v, want done/interrupted", last)
	}

	superstep(t, "", "show", "t1", "--db", server, "--json").want(t, 0, `"interrupts"`, `"approve?"`, `"versions_seen"`)

	r = superstep(t, "", "run", graph, "--db", server, "--thread", "t1", "--resume", `"yes"`, "--json")
	r.want(t, 0, `"name":"ask","status":"ran"`, `"name":"done","status":"ran"`, `"event":"done"`)
	events = jsonLines(t, r.stdout)
	values := events[len(events)-1]["values"].(map[string]any)
	if values["total"] != 2.0 {
		t.Fatalf("values %v, want total 2", values)
	}

	export := filepath.Join(dir, "t1.json")
	r = superstep(t, "", "export", "t1", "--db", server)
	r.want(t, 0, `"superstep-thread"`)
	if err := os.WriteFile(export, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "import", export, "--db", laptop).want(t, 0, "imported thread t1")
	superstep(t, "", "import", export, "--db", laptop).want(t, 2, "already exists")
	superstep(t, "", "threads", "--db", laptop).want(t, 0, "t1")
	superstep(t, "", "check", "--db", laptop).want(t, 0, "ok")

	superstep(t, "", "replay", "t1", "--db", laptop, "--graph", graph).want(t, 0, "replay matches: 3 supersteps")
	// Without --graph the graph recorded with the thread is used, and the
	// comparison is with the recording, not with the replay just made.
	superstep(t, "", "replay", "t1", "--db", laptop).want(t, 0, "replay matches")

	superstep(t, "", "replay", "t1", "--db", laptop, "--graph", testdata("approve_changed.json")).
		want(t, 1, "step 2, node done, channel total: recorded 2, replay 3")

	superstep(t, "", "replay", "t1", "--db", laptop, "--graph", testdata("approve_renamed.json")).
		want(t, 2, "topology differs", "- node done", "+ node finish")
	superstep(t, "", "replay", "t1", "--db", laptop, "--graph", testdata("approve_renamed.json"), "--force").
		want(t, 1, "warning", "node ask")

	r = superstep(t, "", "history", "t1", "--db", laptop)
	r.want(t, 0, "step -1 input", "fork", "|/")

	superstep(t, "", "replay", "t1", "--db", laptop, "--from", "0").want(t, 0, "replay matches: 2 supersteps")
}

func TestRun_ExistingThreadContinues(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "l1").want(t, 0, "done")
	// A finished thread continued with no input has nothing left to run.
	superstep(t, "", "run", "linear", "--db", db, "--thread", "l1").want(t, 0, "continued", "done")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "l1", "--input", `{"total": 5}`).want(t, 0, `"total": 11`)
}

func TestRun_NodeFailureExitsOne(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	r := superstep(t, "", "run", testdata("failing.json"), "--db", db, "--json")
	r.want(t, 1, `"status":"error"`, `"event":"error","kind":"NodeError"`)
}

// A failed run's error was printed twice, as "failed: ..." on stdout and
// again on stderr. It is one line on stderr now, with the command that
// runs the thread again; stdout keeps the run's events, and with --json
// ends with the error event (the error alone), every line JSON.
func TestRun_FailureSaidOnceOnStderr(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	const why = `node "boom" failed at step 1: boom`
	again := func(thread string) string {
		return "; superstep run " + testdata("failing.json") + " --db " + db + " --thread " + thread + " runs it again, the step's finished tasks keeping their writes"
	}
	r := superstep(t, "", "run", testdata("failing.json"), "--db", db, "--thread", "f1")
	r.want(t, 1, "step 1   boom                 error")
	if r.stderr != "superstep: thread f1: "+why+again("f1")+"\n" {
		t.Errorf("stderr is not the error's one line:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, why) {
		t.Errorf("stdout repeats the error:\n%s", r.stdout)
	}

	r = superstep(t, "", "run", testdata("failing.json"), "--db", db, "--thread", "f2", "--json")
	r.want(t, 1)
	lines := jsonLines(t, r.stdout)
	if last := lines[len(lines)-1]; last["event"] != "error" || last["kind"] != "NodeError" || last["message"] != why {
		t.Errorf("stdout does not end with the error event: %v", last)
	}
	if r.stderr != "superstep: thread f2: "+why+again("f2")+"\n" {
		t.Errorf("stderr is not the error's one line:\n%s", r.stderr)
	}
}

// Without a terminal the debugger falls back to a headless run (the
// interactive path is covered by tui's teatest flows and by hand in tmux).
func TestDebugger_NoArgumentsRunsResearch(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	superstep(t, "", "--db", db).want(t, 0, "graph research", "human_review", "--resume")
	superstep(t, "", "tui", "linear", "--db", db, "--thread", "x").want(t, 0, "done")
}

// A scenario file gives the debugger a new thread id, not its path: the
// path was taken as the thread id when it was absolute (the check compared
// the graph's recorded name, a file's absolute path, with the argument).
func TestDebugger_ScenarioPathIsNoThreadID(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	abs, err := filepath.Abs(own("replay_sub_failure.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "tui", abs, "--db", db)
	r.want(t, 1, "thread t-")
	if strings.Contains(r.stdout, "thread "+abs) {
		t.Fatalf("the file's path became the thread id:\n%s", r.stdout)
	}
}

func TestInspect_ShowDiffHistory(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	superstep(t, "", "run", "research", "--db", db, "--thread", "r1").want(t, 0, "interrupted")
	r := superstep(t, "", "history", "r1", "--db", db, "--json")
	r.want(t, 0)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("history --json: %v\n%s", err, r.stdout)
	}
	if len(rows) < 4 {
		t.Fatalf("history has %d checkpoints, want at least 4", len(rows))
	}
	newest, oldest := rows[0]["id"].(string), rows[len(rows)-1]["id"].(string)
	superstep(t, "", "history", "r1", "--db", db).want(t, 0, "next: human_review", "interrupted: human_review")
	superstep(t, "", "diff", "r1", oldest[:20], newest, "--db", db).want(t, 0, "findings", "channels differ")
	superstep(t, "", "show", "r1", "--db", db, "--checkpoint", oldest).want(t, 0, "step -1", "question")
}

// TestShow_EmptyThingsSayNone: a node that has seen nothing (the input
// checkpoint's __input__) and an empty section read "(none)", as next
// does, never a name or heading with nothing after it. --json keeps the
// empty map.
func TestShow_EmptyThingsSayNone(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "db")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "l1").want(t, 0)
	r := superstep(t, "", "history", "l1", "--db", db, "--json")
	r.want(t, 0)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("history --json: %v\n%s", err, r.stdout)
	}
	input := rows[len(rows)-1]["id"].(string)
	r = superstep(t, "", "show", "l1", "--db", db, "--checkpoint", input)
	r.want(t, 0, "\nvalues\n  (none)\n", "\n  __input__: (none)\n")
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasSuffix(line, ":") || strings.HasSuffix(line, ": ") {
			t.Errorf("line %q has nothing after its name\n%s", line, r.stdout)
		}
	}
	superstep(t, "", "show", "l1", "--db", db, "--checkpoint", input, "--json").want(t, 0, `"__input__": {}`)
}

func TestGraphs_ListAndTopology(t *testing.T) {
	t.Parallel()
	superstep(t, "", "graphs").want(t, 0, "research", "linear")
	superstep(t, "", "graph", "research").want(t, 0, "│ plan_queries │", "⟲ plan_queries", "triggers", "conditional edges", "channels")
	superstep(t, "", "graph", "research", "--mermaid").want(t, 0, "graph TD;")
	superstep(t, "", "graph", testdata("approve.json"), "--json").want(t, 0, `"fingerprint"`)
}

func TestTraceAndBench(t *testing.T) {
	t.Parallel()
	superstep(t, "", "trace", testdata("approve.json")).want(t, 0, `"trace_version"`)
	r := superstep(t, "", "bench", testdata("approve.json"), "--runs", "3", "--json")
	r.want(t, 0, `"runs": 3`, `"ok": true`)
	perf := filepath.Join("..", "testdata", "perf", "fanout_1000.json")
	superstep(t, "", "bench", perf, "--runs", "1", "--warmup", "0").want(t, 0, "4 supersteps, 1002 tasks", "ok")
}

func TestHelp_EveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	r := superstep(t, "", "--help")
	r.want(t, 0, "Exit codes", "0  success", "2  usage")
	for _, c := range []string{"run", "tui", "trace", "bench", "graphs", "graph", "threads", "history", "show", "diff", "export", "import", "check", "replay", "exec", "update", "copy", "delete"} {
		superstep(t, "", c, "--help").want(t, 0, "Examples:", "superstep "+c)
	}
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}
