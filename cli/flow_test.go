package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/superstep/superstep/engine"
)

// historyRows is superstep history --json: newest first.
func historyRows(t *testing.T, db, thread string) []map[string]any {
	t.Helper()
	r := superstep(t, "", "history", thread, "--db", db, "--json")
	r.want(t, 0)
	return decodeRows(t, r.stdout)
}

func decodeRows(t *testing.T, s string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		t.Fatalf("history --json: %v\n%s", err, s)
	}
	return rows
}

// checkpointAt is the id of thread's checkpoint at step with source.
func checkpointAt(t *testing.T, rows []map[string]any, step int, source string) string {
	t.Helper()
	for _, r := range rows {
		if r["step"] == float64(step) && r["source"] == source {
			return r["id"].(string)
		}
	}
	t.Fatalf("no %s checkpoint at step %d in %v", source, step, rows)
	return ""
}

// startUntil starts bin with args and env and reads its stdout until a line
// contains match; the rest of the output is left in the returned scanner.
// The process is killed when the test ends, if it still runs.
func startUntil(t *testing.T, bin string, env []string, match string, args ...string) (*exec.Cmd, *bufio.Scanner, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(testEnv(t), env...)
	cmd.Stderr = new(bytes.Buffer) // the caller reads it after cmd.Wait
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if strings.Contains(lines.Text(), match) {
			return cmd, lines, out
		}
	}
	t.Fatalf("%s %s ended before printing %q", bin, strings.Join(args, " "), match)
	return nil, nil, nil
}

// runApproved records thread t1 of approve.json: interrupted, then resumed
// to its end.
func runApproved(t *testing.T, db string) {
	t.Helper()
	graph := testdata("approve.json")
	superstep(t, "", "run", graph, "--db", db, "--thread", "t1").want(t, 0, "interrupted")
	// A bare word is taken as the string answer, as the debugger does.
	superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--resume", "yes").want(t, 0, "done", "answer=yes")
}

// Break 1: a run killed mid-superstep, by SIGKILL or by SIGPIPE (run | head),
// still records its graph: export carries it and replay finds it.
func TestRun_KilledRunRecordsGraph(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGKILL", "SIGPIPE"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "killed.db")
			match := `"name":"fast","status":"ran"`
			if how == "SIGPIPE" {
				match = `"event":"checkpoint"` // head -1
			}
			cmd, _, out := startUntil(t, binary, nil, match, "run", testdata("slow.json"), "--db", db, "--thread", "s1", "--json")
			if how == "SIGKILL" {
				cmd.Process.Kill() // fast's writes are on disk: its result was reported
			} else {
				out.Close() // the reader goes away: the next write gets SIGPIPE
			}
			err := cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if how == "SIGPIPE" && (!ws.Signaled() || ws.Signal() != syscall.SIGPIPE) {
				t.Fatalf("run ended with %v, want SIGPIPE", err)
			}
			r := superstep(t, "", "export", "s1", "--db", db)
			r.want(t, 0, `node slow triggers`)
			superstep(t, "", "threads", "--db", db).want(t, 0, "slow")
			// No --graph: the recorded one is found, and the replay
			// compares up to where the recording was cut off.
			superstep(t, "", "replay", "s1", "--db", db).want(t, 0, "replay matches")
			if how == "SIGKILL" {
				// exec on the cut-off superstep: fast has a recorded
				// outcome, slow has none, which is not a difference.
				superstep(t, "", "exec", "s1", "fast", "--db", db).want(t, 0, "same writes as recorded")
				superstep(t, "", "exec", "s1", "slow", "--db", db).want(t, 0, "cut off before this task finished")
			}
		})
	}
}

// Break 2: after a fork, replay compares with the original run, not the
// newest branch; an explicit branch or start checkpoint is taken; a replay
// with nothing to compare is an error, never a pass.
func TestReplay_RecordedBranchAfterFork(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "fork.db")
	runApproved(t, db)
	rows := historyRows(t, db, "t1")
	step0 := checkpointAt(t, rows, 0, "loop")
	last := rows[0]["id"].(string)
	r := superstep(t, "", "update", "t1", "--db", db, "--checkpoint", engine.ShortID(step0), "--values", `{"total": 10}`)
	r.want(t, 0, "new checkpoint", "update of "+engine.ShortID(step0))
	// Continue the fork, as "try the fix" does.
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1").want(t, 0)
	fork := historyRows(t, db, "t1")[0]["id"].(string)

	superstep(t, "", "history", "t1", "--db", db).want(t, 0, engine.ShortID(last)+" step 2 loop  next: (end)  (end of the recorded run)")
	superstep(t, "", "replay", "t1", "--db", db).want(t, 0, "replay matches: 3 supersteps")
	superstep(t, "", "replay", "t1", "--db", db, "--branch", engine.ShortID(last)).want(t, 0, "replay matches")
	superstep(t, "", "replay", "t1", "--db", db, "--checkpoint", engine.ShortID(step0)).want(t, 0, "replay matches: 2 supersteps")
	superstep(t, "", "replay", "t1", "--db", db, "--branch", engine.ShortID(fork)).want(t, 2, "update_state", "--checkpoint")
	r = superstep(t, "", "replay", "t1", "--db", db, "--from", "2")
	r.want(t, 2, "nothing to replay")
	if strings.Contains(r.stdout, "matches") {
		t.Fatalf("an empty replay reported a match:\n%s", r.stdout)
	}
}

// Break 3: every command takes the short form screens show (the debugger's,
// history's), and any unique prefix of it or of the whole id.
func TestCheckpointIDs_ShortFormEverywhere(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ids.db")
	runApproved(t, db)
	rows := historyRows(t, db, "t1")
	first := rows[len(rows)-1]["id"].(string)
	short := engine.ShortID(first)
	superstep(t, "", "history", "t1", "--db", db).want(t, 0, short+" step -1 input")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "x").want(t, 0, "checkpoint "+engineShortLine(t, db, "x"))
	for _, ref := range []string{short, short[:5], first, strings.ReplaceAll(first, "-", "")[:20]} {
		superstep(t, "", "show", "t1", "--db", db, "--checkpoint", ref).want(t, 0, "step -1")
		superstep(t, "", "diff", "t1", ref, short, "--db", db).want(t, 0, "0 channels differ")
	}
}

// engineShortLine is the short form of thread's newest checkpoint.
func engineShortLine(t *testing.T, db, thread string) string {
	rows := historyRows(t, db, thread)
	return engine.ShortID(rows[0]["id"].(string))
}

func TestThreads_CopyDeleteAndTimeTravel(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "copy.db")
	runApproved(t, db)
	superstep(t, "", "copy", "t1", "t2", "--db", db).want(t, 0, "copied thread t1 to t2")
	superstep(t, "", "copy", "t1", "t2", "--db", db).want(t, 2, "already exists")
	superstep(t, "", "show", "t2", "--db", db).want(t, 0, `answer=yes`)
	superstep(t, "", "replay", "t2", "--db", db).want(t, 0, "replay matches")

	// run --checkpoint continues from a chosen checkpoint on a new branch.
	ask := checkpointAt(t, historyRows(t, db, "t2"), 0, "loop")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t2", "--checkpoint", engine.ShortID(ask)).
		want(t, 0, "interrupted", "interrupt in ask")
	superstep(t, "", "update", "t2", "--db", db, "--values", `{"nope": 1}`).want(t, 2, "nope", "not a state key")
	r := superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t3", "--input", `{"total": 1, "totl": 2}`)
	r.want(t, 0, "warning", "totl")

	superstep(t, "", "delete", "t2", "--db", db).want(t, 0, "deleted thread t2")
	superstep(t, "", "show", "t2", "--db", db).want(t, 2, "thread not found")
	superstep(t, "", "delete", "t2", "--db", db).want(t, 2, "thread not found")
	superstep(t, "", "show", "t1", "--db", db).want(t, 0, "answer=yes")
}

// Break 7: an added state key or an unused added node is a compatible
// change (a note, and the thread goes on); a renamed node is refused naming
// the difference, and --force goes on, for run, tui and replay alike.
func TestTopology_CompatibleChangesAllowed(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "topo.db")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1").want(t, 0, "interrupted")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t2").want(t, 0, "interrupted")

	added := testdata("approve_added.json")
	r := superstep(t, "", "run", added, "--db", db, "--thread", "t1", "--resume", "yes")
	r.want(t, 0, "changed compatibly", "+ channel note", "+ node audit", "done", `"note": "audited"`)

	renamed := testdata("approve_renamed.json")
	for _, cmd := range []string{"run", "tui"} {
		superstep(t, "", cmd, renamed, "--db", db, "--thread", "t2").want(t, 2, "topology differs", "- node done", "+ node finish", "--force")
	}
	superstep(t, "", "tui", renamed, "--db", db, "--thread", "t2", "--force").want(t, 0, "warning", "--force")
}

// Break 6: while the debugger has a database open, commands that only read
// it work from another terminal, and a second writer is told who holds it.
func TestDebugger_ReadersWorkBeside(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "session.db")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1").want(t, 0, "interrupted")
	// Without a terminal the debugger runs headless, holding the session
	// as the terminal UI does, while the slow node works.
	cmd, lines, _ := startUntil(t, binary, nil, "fast", "tui", testdata("session.json"), "--db", db, "--thread", "s1")
	superstep(t, "", "threads", "--db", db).want(t, 0, "t1", "s1")
	superstep(t, "", "show", "t1", "--db", db).want(t, 0, "approve?")
	superstep(t, "", "history", "s1", "--db", db).want(t, 0, "step -1 input")
	superstep(t, "", "export", "t1", "--db", db).want(t, 0, "superstep-thread")
	r := superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1", "--resume", "yes", "--timeout", "200ms")
	r.want(t, 2, inUse, "pid ", "tui")
	for lines.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the debugger ended with %v", err)
	}
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1", "--resume", "yes").want(t, 0, "done")
}

// Break 10: the command line items.
func TestCommandLine_Items(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "items.db")
	answer := testdata("answer.json")

	// A wrong answer that made the node fail is kept; a later --resume
	// says so and how to be asked again, which then works.
	superstep(t, "", "run", answer, "--db", db, "--thread", "a1").want(t, 0, "interrupted")
	r := superstep(t, "", "run", answer, "--db", db, "--thread", "a1", "--resume", "lots", "--json")
	r.want(t, 1, `"status":"error"`)
	if n := strings.Count(r.stdout, `"status":"error"`); n != 1 {
		t.Fatalf("the failed task is reported %d times, want once:\n%s", n, r.stdout)
	}
	r = superstep(t, "", "run", answer, "--db", db, "--thread", "a1", "--resume", "3")
	r.want(t, 2, `answered ["lots"]`, "would be ignored", "--checkpoint")
	input := checkpointAt(t, historyRows(t, db, "a1"), -1, "input")
	superstep(t, "", "run", answer, "--db", db, "--thread", "a1", "--checkpoint", engine.ShortID(input)).want(t, 0, "interrupted")
	superstep(t, "", "run", answer, "--db", db, "--thread", "a1", "--resume", "3").want(t, 0, `"total": 6`)
	superstep(t, "", "run", answer, "--db", db, "--thread", "a2", "--resume", "{x").want(t, 2, "line 1, column 2", "needs no quotes")

	// threads: the engine's status, the graph's name (not its path),
	// newest first.
	superstep(t, "", "run", testdata("failing.json"), "--db", db, "--thread", "f1").want(t, 1)
	r = superstep(t, "", "threads", "--db", db)
	r.want(t, 0, "done", "error")
	if strings.Contains(r.stdout, dir) || strings.Contains(r.stdout, "testdata/") {
		t.Fatalf("threads prints a path for the graph:\n%s", r.stdout)
	}
	if lines := strings.Split(r.stdout, "\n"); !strings.HasPrefix(lines[1], "f1 ") {
		t.Fatalf("threads is not newest first:\n%s", r.stdout)
	}
	superstep(t, "", "show", "f1", "--db", db).want(t, 0, "status error")

	// --json everywhere, snake_case.
	superstep(t, "", "check", "--db", db, "--json").want(t, 0, `"ok": true`)
	r = superstep(t, "", "replay", "a1", "--db", db, "--json", "--checkpoint", engine.ShortID(input))
	r.want(t, 0, `"result": "match"`, `"supersteps_compared"`)
	r = superstep(t, "", "graph", answer, "--json")
	r.want(t, 0, `"triggers"`, `"interrupt_before"`)
	if strings.Contains(r.stdout, `"Name"`) || strings.Contains(r.stdout, `"Triggers"`) {
		t.Fatalf("graph --json uses Go field names:\n%s", r.stdout)
	}

	// tui --thread with a typo says the thread is new.
	superstep(t, "", "tui", answer, "--db", db, "--thread", "a11").want(t, 0, `thread "a11" is not in the database`)
	// trace of a graph that does not compile says why on stderr.
	unreachable := filepath.Join(dir, "unreachable.json")
	os.WriteFile(unreachable, []byte(`{"name":"u","state":{"x":null},"nodes":[{"name":"a","update":{"x":"1"}},{"name":"b","update":{"x":"2"}}],"edges":[["__start__","a"],["a","__end__"]],"ops":[{"op":"invoke","thread":"t","input":{"x":0}}]}`), 0o644)
	r = superstep(t, "", "trace", unreachable)
	r.want(t, 0, `"compile_error"`)
	if !strings.Contains(r.stderr, `node "b" is not reachable`) {
		t.Fatalf("trace's stderr lacks the compile error:\n%s", r.stderr)
	}
	// trace records a failed op by its kind, as LangGraph.js's runner does,
	// and says on stderr which op failed and why; run refuses the file's
	// example when its recursion_limit cannot run.
	opErrors := filepath.Join("..", "testdata", "conformance", "own", "op_errors_continue.json")
	r = superstep(t, "", "trace", opErrors)
	r.want(t, 0, `"InvalidUpdateError"`)
	for _, want := range []string{`ops[1] (update_state) failed: invalid update: node "nope" does not exist`, `ops[3] (resume) failed: the recursion limit must be at least 1`} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("trace's stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	zero := filepath.Join(dir, "zero.json")
	os.WriteFile(zero, []byte(`{"name":"z","state":{"x":null},"nodes":[{"name":"a","update":{"x":"1"}}],"edges":[["__start__","a"]],"ops":[{"op":"invoke","input":{"x":0},"recursion_limit":0}]}`), 0o644)
	superstep(t, "", "run", zero, "--db", db).want(t, 2, zero+":1:158: ops[0].recursion_limit: 0: want a positive number of supersteps, or leave it out for 25")
	// bench says when it checks correctness; run takes --recursion-limit.
	perf := filepath.Join("..", "testdata", "perf", "chain_1000.json")
	superstep(t, "", "bench", perf, "--runs", "1", "--warmup", "0").want(t, 0, "checking the result against")
	superstep(t, "", "run", perf, "--db", db, "--recursion-limit", "3").want(t, 1, "recursion")
	// run FILE takes the file's first invoke as the example: its input and
	// its recursion_limit (1010 here, past the default 25).
	superstep(t, "", "run", perf, "--db", db, "--durability", "exit", "--json").want(t, 0, `"event":"done","status":"done"`)
}

// Break 5, the command line's side: the head of a replay that diverged has
// pending writes; show, threads and run all take its status from the
// engine's facts (pending, with the next task), and run continues it.
func TestStatus_DivergedReplayHeadIsPending(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "status.db")
	runApproved(t, db)
	superstep(t, "", "replay", "t1", "--db", db, "--graph", testdata("approve_changed.json")).want(t, 1, "node done")
	superstep(t, "", "show", "t1", "--db", db).want(t, 0, "status pending", "next: done", "total = 3")
	superstep(t, "", "show", "t1", "--db", db, "--json").want(t, 0, `"status": "pending"`)
	superstep(t, "", "threads", "--db", db).want(t, 0, "pending")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1").want(t, 0, "continued", "done")
	superstep(t, "", "show", "t1", "--db", db).want(t, 0, "status done")
}

// --rerun on a graph with Sends and an answered interrupt: the reused
// tasks' Sends and answers replay as recorded.
func TestReplay_RerunReusesSendsAndAnswers(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "research.db")
	superstep(t, "", "run", "research", "--db", db, "--thread", "r1").want(t, 0, "interrupted")
	superstep(t, "", "run", "research", "--db", db, "--thread", "r1", "--resume", `{"action":"approve"}`).want(t, 0, "done")
	r := superstep(t, "", "replay", "r1", "--db", db, "--rerun", "synthesize")
	r.want(t, 0, "plan_queries reused", "human_review reused", "synthesize ran (--rerun)", "replay matches: 5 supersteps")
	superstep(t, "", "replay", "r1", "--db", db, "--rerun", "nope").want(t, 2, `--rerun: graph research has no node "nope" (nodes: `)
	superstep(t, "", "replay", "r1", "--db", db, "--rerun", "synthesise").want(t, 2, `has no node "synthesise" (did you mean "synthesize"?) (nodes: `)
	superstep(t, "", "replay", "r1", "--db", db, "--offline").want(t, 2, "--offline goes with --rerun")
	superstep(t, "", "exec", "r1", "investigate", "--db", db).want(t, 0, "same writes as recorded", "sub_query")
	superstep(t, "", "exec", "r1", "human_review", "--db", db).want(t, 0, "approved = true")
	superstep(t, "", "exec", "r1", "nope", "--db", db).want(t, 2, "no node")
}

// exec of a task whose recording failed shows the recorded error beside
// the one now, and says the node fails, not that it "does not write what
// the recording did" when neither wrote anything.
func TestExec_RecordedFailure(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	flow, _ := filepath.Abs("../testdata/conformance/own/interrupt_and_failure.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "f1").want(t, 1, "bad")
	r := superstep(t, "", "exec", "f1", "bad", "--db", db)
	r.want(t, 1, `recorded: failed: node "bad" failed at step 2: boom`, "node bad fails with the current code as it did in the recording")
	if strings.Contains(r.stderr, "does not write") {
		t.Fatalf("a failure reported as different writes:\n%s", r.stderr)
	}
	superstep(t, "", "exec", "f1", "bad", "--db", db, "--json").want(t, 1, `"recorded_error": "node \"bad\" failed at step 2: boom"`)
}

// A thread whose answers went to interrupts its subgraphs raised replays
// with those answers: they are saved in the subgraphs' namespaces, and the
// replay found none and diverged at once ("the recording interrupted only
// 0 times").
func TestReplay_SubgraphInterruptAnswers(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	flow, _ := filepath.Abs("../testdata/conformance/own/subgraph_send_interrupt.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1").want(t, 0, "interrupt")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1", "--resume", "yes").want(t, 0, "check:x:yes", "check:y:yes")
	superstep(t, "", "replay", "s1", "--db", db, "--graph", flow).want(t, 0, "step 2: worker, worker match", "replay matches: 4 supersteps")
	r := superstep(t, "", "exec", "s1", "worker", "--db", db, "--graph", flow)
	r.want(t, 0, "same writes as recorded")
	if strings.Contains(r.stdout, "no answer") {
		t.Fatalf("exec found no answer for the subgraph's interrupt:\n%s", r.stdout)
	}
}

// The debugger runs a scenario under the scenario's recursion limit, as run
// does: a loop of 31 supersteps with recursion_limit 40 failed at 25 when
// opened in the debugger (here headless: no terminal).
func TestTUI_ScenarioRecursionLimit(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "l.db")
	flow, _ := filepath.Abs("testdata/loop_limit_40.json")
	r := superstep(t, "", "tui", flow, "--db", db, "--thread", "a")
	r.want(t, 0, "done", `"n": 30`)
}

// Ctrl-C (or SIGTERM) during a run stops the tasks still running: they show
// as cancelled, not as failed with "context canceled", the run says how to
// go on (once, on stderr; with --json the error event ends stdout), and
// going on runs only what did not finish.
func TestRun_InterruptedBySignal(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "signal.db")
			args := []string{"run", testdata("slow.json"), "--db", db, "--thread", "s1"}
			match, slowLine, end := "fast                 ran", "slow                 cancelled", ""
			if mode == "json" {
				args = append(args, "--json")
				match, slowLine, end = `"name":"fast","status":"ran"`, `"name":"slow","status":"cancelled"`, `"kind":"Canceled"`
			}
			cmd, lines, _ := startUntil(t, binary, nil, match, args...)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			var rest []string
			for lines.Scan() {
				rest = append(rest, lines.Text())
			}
			cmd.Wait()
			out := strings.Join(rest, "\n")
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Fatalf("exit code %d, want 1\n%s", code, out)
			}
			if !strings.Contains(out, slowLine) || !strings.Contains(out, end) || strings.Contains(out, "context canceled") {
				t.Fatalf("after Ctrl-C:\n%s\nwant %q and %q, and no %q", out, slowLine, end, "context canceled")
			}
			if mode == "text" && strings.Contains(out, "the run was stopped") {
				t.Fatalf("stdout repeats the error after Ctrl-C:\n%s", out)
			}
			stderr := cmd.Stderr.(*bytes.Buffer).String()
			if !strings.HasPrefix(stderr, "superstep: thread s1: cancelled: the run was stopped") || !strings.Contains(stderr, "; continue it with: superstep run ") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("stderr after Ctrl-C is not one line saying how to go on:\n%s", stderr)
			}
			r := superstep(t, "", "run", testdata("slow.json"), "--db", db, "--thread", "s1")
			r.want(t, 0, "slow                 ran", `"slow"`, `"fast"`)
			if strings.Contains(r.stdout, "fast                 ran") {
				t.Fatalf("going on ran fast again:\n%s", r.stdout)
			}
		})
	}
}
