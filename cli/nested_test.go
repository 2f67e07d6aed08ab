package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// own is a scenario file of testdata/conformance/own.
func own(name string) string {
	p, _ := filepath.Abs(filepath.Join("../testdata/conformance/own", name))
	return p
}

// A thread waiting at an interrupt of a node that runs no subgraph (the
// research graph's human_review; a functional entrypoint whose task asked)
// replays and execs: the answers were looked for in a subgraph namespace
// of that node, and both commands failed with "unknown subgraph in
// checkpoint namespace".
func TestReplay_UnansweredInterruptOfPlainNode(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "u.db")
	superstep(t, "", "run", "research", "--db", db, "--thread", "r1").want(t, 0, "interrupted")
	superstep(t, "", "replay", "r1", "--db", db).want(t, 0, "step 3: human_review match", "replay matches: 4 supersteps")
	superstep(t, "", "exec", "r1", "human_review", "--db", db).want(t, 0, "as the recording did: it waits for an answer")
	flow := own("func_interrupt_then_failure.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "f1").want(t, 1, "boom")
	r := superstep(t, "", "replay", "f1", "--db", db, "--graph", flow)
	if strings.Contains(r.stdout+r.stderr, "unknown subgraph") {
		t.Fatalf("replay looked for a subgraph of the entrypoint:\n%s%s", r.stdout, r.stderr)
	}
}

// A thread whose subgraph failed replays as a match when the subgraph
// fails again: the failure reaches the replay as the subgraph node's
// error (node i2), and the replay looked for a recorded failure of a root
// task of that name only, so it reported a divergence where the code did
// the same thing.
func TestReplay_SubgraphFailureMatches(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	flow := own("replay_sub_failure.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "f1").want(t, 1, `node "i2" failed`)
	superstep(t, "", "replay", "f1", "--db", db, "--graph", flow).want(t, 0, "step 2: sib, sub match", "replay matches: 3 supersteps")
	superstep(t, "", "replay", "f1", "--db", db, "--graph", flow, "--rerun", "sub").want(t, 0, "replay matches")
}

// exec of a subgraph node whose subgraph failed shows the failure beside
// the recorded one, as for a plain node; it stopped with "running <task>
// again: ..." because the run's error names the subgraph's node.
func TestExec_SubgraphFailure(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	flow := own("replay_sub_failure.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "f1").want(t, 1, `node "i2" failed`)
	r := superstep(t, "", "exec", "f1", "sub", "--db", db, "--graph", flow)
	r.want(t, 1, `recorded: failed: node "sub" failed at step 2: node "i2" failed at step 2: boom`, "node sub fails with the current code as it did in the recording")
	if strings.Contains(r.stderr, "again:") {
		t.Fatalf("exec stopped at the subgraph's failure:\n%s", r.stderr)
	}
}

// A subgraph that reached the recursion limit replays as a match: the
// replay ran with the default limit where the recording ran with the
// scenario's (as run does), so the subgraph finished and the replay
// reported "recorded a failure, replay success". A thread stopped by the
// limit at the root still matches, and --recursion-limit names another.
func TestReplay_RecursionLimitOfTheRecording(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "r.db")
	flow := own("recursion_sub_send_sibling.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1").want(t, 1, "recursion limit of 4")
	superstep(t, "", "replay", "s1", "--db", db, "--graph", flow).want(t, 0, "step 2: sib, suba, subb match", "replay matches: 3 supersteps")
	superstep(t, "", "replay", "s1", "--db", db, "--graph", flow, "--recursion-limit", "25").want(t, 1, "recorded a failure, replay success")
	superstep(t, "", "replay", "s1", "--db", db, "--graph", flow, "--recursion-limit", "0").want(t, 2, "--recursion-limit 0")
	root := own("recursion_sends_continue.json")
	superstep(t, "", "run", root, "--db", db, "--thread", "r1").want(t, 1, "recursion limit of 5")
	superstep(t, "", "replay", "r1", "--db", db, "--graph", root).want(t, 0, "step 6: w, w planned, as in the recording", "replay matches: 6 supersteps")
	superstep(t, "", "run", "linear", "--db", db, "--thread", "l1", "--recursion-limit", "1").want(t, 1, "recursion limit of 1")
	superstep(t, "", "replay", "l1", "--db", db).want(t, 0, "b planned, as in the recording")
	superstep(t, "", "replay", "l1", "--db", db, "--recursion-limit", "1").want(t, 0, "b planned, as in the recording")
}

// A subgraph that stops at its own breakpoint while a root sibling asks:
// the replay took the subgraph's task for one that interrupted without a
// value ("the replay interrupted with ; the recording did not
// interrupt"), and exec stopped at the subgraph's breakpoint and reported
// no writes; the recording went on past it.
func TestReplayExec_SubgraphBreakpoint(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	flow := own("sub_breakpoint_root_interrupt.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "b1").want(t, 0, `"root?"`)
	superstep(t, "", "run", flow, "--db", db, "--thread", "b1", "--resume", "go").want(t, 0, "done", "ask:go")
	superstep(t, "", "replay", "b1", "--db", db, "--graph", flow).want(t, 0, "step 1: ask, sub match", "replay matches: 3 supersteps")
	superstep(t, "", "replay", "b1", "--db", db, "--graph", flow, "--rerun", "sub").want(t, 0, "sub ran (--rerun)", "replay matches: 3 supersteps")
	superstep(t, "", "exec", "b1", "sub", "--db", db, "--graph", flow).want(t, 0, `log = ["i1","i2"]`, "same writes as recorded")
	flow = own("subgraph_breakpoints.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "b2").want(t, 0, "interrupted")
	superstep(t, "", "run", flow, "--db", db, "--thread", "b2").want(t, 0, "interrupted")
	superstep(t, "", "run", flow, "--db", db, "--thread", "b2").want(t, 0, "done")
	superstep(t, "", "exec", "b2", "child", "--db", db, "--graph", flow).want(t, 0, "same writes as recorded")
}

// A subgraph that asks twice in a row: after the first answer the thread
// waits at the second question, and --resume answers it. The answer the
// subgraph used is saved in its namespace, so the thread's own saved
// writes showed the plain resume value as unused and run refused the
// second answer with "nothing to resume" right after telling the user to
// give it. A retried subgraph that asks again in its fresh run likewise.
func TestRun_SubgraphAsksAgain(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	flow := testdata("sub_two_asks.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "a1").want(t, 0, `"first?"`)
	superstep(t, "", "run", flow, "--db", db, "--thread", "a1", "--resume", "x").want(t, 0, `"second?"`, "answer with")
	superstep(t, "", "show", "a1", "--db", db).want(t, 0, "status interrupted", `sub id`, `"second?"`)
	superstep(t, "", "show", "a1", "--db", db, "--json").want(t, 0, `"status": "interrupted"`, `"value": "second?"`)
	superstep(t, "", "threads", "--db", db).want(t, 0, "interrupted")
	// history's head row says what it waits on, as show does (it said
	// nothing: the saved writes alone read the question answered).
	superstep(t, "", "history", "a1", "--db", db).want(t, 0, `interrupted: sub: "second?"`)
	superstep(t, "", "history", "a1", "--db", db, "--json").want(t, 0, `sub: \"second?\"`)
	superstep(t, "", "run", flow, "--db", db, "--thread", "a1", "--resume", "y").want(t, 0, "done", `"a1:x"`, `"a2:y"`)
	flow = own("subgraph_retry_interrupt.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "r1").want(t, 0, `"ok?"`)
	superstep(t, "", "run", flow, "--db", db, "--thread", "r1", "--resume", "yes").want(t, 0, `"ok?"`, "answer with")
	superstep(t, "", "run", flow, "--db", db, "--thread", "r1", "--resume", "again").want(t, 0, "done", `"ask:again"`)
}

// A retried subgraph node asks again in its fresh run's namespace
// ("<ns>|1"), where that answer is saved: replay and exec found only the
// first run's answer and diverged ("the recording interrupted only 1
// times").
func TestReplay_RetriedSubgraphAnswers(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	flow := own("subgraph_retry_interrupt.json")
	// The same answer twice: the scenario's inner node fails once per
	// process, and each run command is one, where the replay is one for
	// all; with the same answers both end alike.
	superstep(t, "", "run", flow, "--db", db, "--thread", "r1").want(t, 0, `"ok?"`)
	superstep(t, "", "run", flow, "--db", db, "--thread", "r1", "--resume", "ok").want(t, 0, `"ok?"`)
	superstep(t, "", "run", flow, "--db", db, "--thread", "r1", "--resume", "ok").want(t, 0, "done", `"ask:ok"`)
	superstep(t, "", "replay", "r1", "--db", db, "--graph", flow).want(t, 0, "step 1: child match", "replay matches: 2 supersteps")
	superstep(t, "", "exec", "r1", "child", "--db", db, "--graph", flow).want(t, 0, `log = ["ask:ok","s2"]`, "same writes as recorded")
}

// A deferred node behind a breakpoint: resumed, the run ends with the
// deferred node planned again from its last checkpoint (as LangGraph's
// does: the trace's last checkpoint has next ["qa"]). The replay ended at
// the same place, yet it compared the recording's plan with what the
// replay went on to run and reported "the recording planned qa; the
// replay planned (none)".
func TestReplay_DeferredAfterBreakpointEndsAlike(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "d.db")
	flow := own("defer_breakpoint.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "d1").want(t, 0, "interrupted")
	superstep(t, "", "run", flow, "--db", db, "--thread", "d1").want(t, 0, "done", "doc1,doc2,doc3")
	superstep(t, "", "replay", "d1", "--db", db, "--graph", flow).want(t, 0, "step 5: qa planned, as in the recording", "replay matches: 5 supersteps")
}

// Threads of the functional API replay: the replay's Task calls are tasks
// that no recorded checkpoint plans ("mapper: it ran 1 times in the
// replay, 0 in the recording"); a call that asked saved its answer under
// its own id, not its caller's ("the recording interrupted only 0
// times"); a call's failure beside its caller's interrupt is the
// recording's failure.
func TestReplay_FunctionalCalls(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	flow := own("func_tasks_basic.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "b1").want(t, 0, "done", "11")
	superstep(t, "", "replay", "b1", "--db", db, "--graph", flow).want(t, 0, "step 0: graph match", "replay matches: 1 supersteps")
	flow = own("func_task_interrupts.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "i1").want(t, 0, "add James?")
	superstep(t, "", "run", flow, "--db", db, "--thread", "i1", "--resume", "true").want(t, 0, "add Will?")
	superstep(t, "", "run", flow, "--db", db, "--thread", "i1", "--resume", "false").want(t, 0, "done", "Added James!", "changed their mind about Will")
	superstep(t, "", "replay", "i1", "--db", db, "--graph", flow).want(t, 0, "step 0: program match", "replay matches")
	// exec gives the calls the answers they saved (it said "the recording
	// has no answer for it").
	superstep(t, "", "exec", "i1", "program", "--db", db, "--graph", flow).want(t, 0, "same writes as recorded")
	flow = own("func_task_two_interrupts.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "w1").want(t, 0, "first?")
	superstep(t, "", "run", flow, "--db", db, "--thread", "w1", "--resume", "A").want(t, 0, "second?")
	superstep(t, "", "run", flow, "--db", db, "--thread", "w1", "--resume", "B").want(t, 0, "done", `"t": "A+B"`)
	superstep(t, "", "replay", "w1", "--db", db, "--graph", flow).want(t, 0, "step 0: main match", "replay matches")
	flow = own("func_interrupt_then_failure.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "x1").want(t, 1, `node "flaky" failed at step 0: boom`)
	superstep(t, "", "replay", "x1", "--db", db, "--graph", flow).want(t, 0, "replay matches")
}

// exec of a task that stops at the question the recording still waits
// on (a plain node's, a subgraph's) did what the recording did; it said
// "does not write what the recording did" and exited 1 though neither
// wrote anything.
func TestExec_WaitsAsRecorded(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "w.db")
	flow := own("subgraph_interrupt.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "s1").want(t, 0, `"total 11"`)
	r := superstep(t, "", "exec", "s1", "child", "--db", db, "--graph", flow)
	r.want(t, 0, `interrupted with "total 11", as the recording did: it waits for an answer`)
	if strings.Contains(r.stderr, "does not write") {
		t.Fatalf("a task waiting as recorded reported as different:\n%s", r.stderr)
	}
	superstep(t, "", "exec", "s1", "child", "--db", db, "--graph", flow, "--json").want(t, 0, `"same": true`)
}

// exec of a subgraph node whose subgraph reached the recursion limit runs
// under the limit the recording ran with (the scenario's, or
// --recursion-limit), which its subgraph inherits; under 25 the subgraph
// finished and exec reported different writes.
func TestExec_RecursionLimitOfTheRecording(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "r.db")
	flow := own("grandchild_parent_loop.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "g1").want(t, 1, "recursion limit of 4")
	superstep(t, "", "exec", "g1", "midnode", "--db", db, "--graph", flow).want(t, 1, "node midnode fails with the current code as it did in the recording", "recursion limit of 4")
	superstep(t, "", "exec", "g1", "midnode", "--db", db).want(t, 1, "as it did in the recording")
	superstep(t, "", "exec", "g1", "midnode", "--db", db, "--recursion-limit", "25").want(t, 1, "node midnode no longer fails as the recording did", "it runs without the error the recording saved")
	superstep(t, "", "exec", "g1", "midnode", "--db", db, "--recursion-limit", "0").want(t, 2, "--recursion-limit 0")
}

// replay of a thread whose only checkpoint waits (a functional entrypoint
// whose second call asked) runs on a new branch: a run addressed at the
// latest checkpoint resumes it, so the replay ran on the recorded
// checkpoint itself ("new branch (fork <the recorded id>)"), reused the
// finished call's saved result and saved its writes onto the recording.
func TestReplay_FromTheLatestCheckpointForks(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "h.db")
	flow := own("func_task_interrupts.json")
	superstep(t, "", "run", flow, "--db", db, "--thread", "h1").want(t, 0, "add James?")
	var rec []struct {
		ID     string `json:"id"`
		Writes int    `json:"writes"`
	}
	jsonOf(t, superstep(t, "", "history", "h1", "--db", db, "--json"), &rec)
	if len(rec) != 1 {
		t.Fatalf("the recording has %d checkpoints, want its input's only", len(rec))
	}
	superstep(t, "", "replay", "h1", "--db", db, "--graph", flow).want(t, 0, "replay matches")
	var after []struct {
		ID     string `json:"id"`
		Source string `json:"source"`
		Writes int    `json:"writes"`
	}
	jsonOf(t, superstep(t, "", "history", "h1", "--db", db, "--json"), &after)
	if len(after) != 2 || after[0].Source != "fork" {
		t.Fatalf("after the replay: %+v, want the recording and the replay's fork", after)
	}
	for _, c := range after {
		if c.ID == rec[0].ID && c.Writes != rec[0].Writes {
			t.Fatalf("the recorded checkpoint has %d writes after the replay, %d before", c.Writes, rec[0].Writes)
		}
	}
}

// A thread that ends waiting at a question replays as a match only when
// the replay asks that question: asked another (the code changed), the
// replay diverges there, as exec says. It reported a match, "the same
// tasks and writes".
func TestReplay_WaitingAtAnotherQuestion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, file := filepath.Join(dir, "q.db"), copyScenario(t, dir, "answer.json")
	superstep(t, "", "run", file, "--db", db, "--thread", "q1").want(t, 0, "how many?")
	superstep(t, "", "replay", "q1", "--db", db).want(t, 0, "replay matches")
	editScenario(t, file, "'how many?'", "'how much?'")
	superstep(t, "", "replay", "q1", "--db", db, "--force").want(t, 1, "DIVERGED", `the replay asked "how much?"; the recording waits on "how many?"`)
}

// A replay does not give a recorded human answer to a question the person
// never saw: the code now asks something else, and the replay diverges
// there naming both questions and the answer.
func TestReplay_AnswerToAnotherQuestion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, file := filepath.Join(dir, "q.db"), copyScenario(t, dir, "answer.json")
	superstep(t, "", "run", file, "--db", db, "--thread", "q1").want(t, 0, "how many?")
	superstep(t, "", "run", file, "--db", db, "--thread", "q1", "--resume", "3").want(t, 0, "6")
	superstep(t, "", "replay", "q1", "--db", db).want(t, 0, "replay matches")
	editScenario(t, file, "'how many?'", "'how much?'")
	superstep(t, "", "replay", "q1", "--db", db, "--force").want(t, 1, "DIVERGED", `the replay asked "how much?"; the recording's answer 3 was to "how many?"`)
}

// exec and update need the thread's graph: when the recorded one cannot
// be used they say why — it changed since the thread ran, or it no longer
// resolves — instead of "no recorded graph that still resolves" for both.
func TestRequireGraph_SaysWhy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, file := filepath.Join(dir, "g.db"), copyScenario(t, dir, "answer.json")
	superstep(t, "", "run", file, "--db", db, "--thread", "g1").want(t, 0, "how many?")
	editScenario(t, file, `["ask", "__end__"]`, `["ask", "more"], ["more", "__end__"]`)
	editScenario(t, file, `"update": {"total": "resume * 2"}}`, `"update": {"total": "resume * 2"}}, {"name": "more"}`)
	superstep(t, "", "exec", "g1", "ask", "--db", db).want(t, 2, "which has changed since: pass --graph "+file)
	superstep(t, "", "update", "g1", "--values", `{"total":1}`, "--db", db).want(t, 2, "which has changed since")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "exec", "g1", "ask", "--db", db).want(t, 2, "which no longer resolves")
}

// Message ids a run minted are names: a subgraph that adds a message
// without an id returns it under the id its add_messages drew, which a
// replay draws again differently, and the nodes after it edit and remove
// messages by the ids their run minted. The replay matches, and so does
// exec of the subgraph's node; --rerun of it reuses the later tasks; a
// node that now edits another message diverges.
func TestReplay_MintedMessageIDsAreNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, file := filepath.Join(dir, "m.db"), copyScenario(t, dir, "minted_ids.json")
	superstep(t, "", "run", file, "--db", db, "--thread", "m1").want(t, 0, "edited: hello 1")
	superstep(t, "", "replay", "m1", "--db", db).want(t, 0, "replay matches: 5 supersteps")
	superstep(t, "", "exec", "m1", "child", "--db", db).want(t, 0, "same writes as recorded", "\n  → edit\n")
	// --rerun reuses the tasks after child although child minted other
	// ids: their recorded writes edit and remove the replay's messages.
	superstep(t, "", "replay", "m1", "--db", db, "--rerun", "child", "--offline").want(t, 0, "edit reused (input equal to the recording)", "prune reused", "replay matches: 5 supersteps")
	show := superstep(t, "", "show", "m1", "--db", db, "--json")
	show.want(t, 0, "edited: hello 1")
	if n := strings.Count(show.stdout, `"role"`); n != 2 {
		t.Fatalf("the replay's state has %d messages, want 2 (u1 and the edited reply):\n%s", n, show.stdout)
	}
	editScenario(t, file, "msg(state.messages[1].id, 'assistant'", "msg(state.messages[0].id, 'assistant'")
	superstep(t, "", "replay", "m1", "--db", db, "--force").want(t, 1, "DIVERGED at step 3, node edit, channel messages")
}

// copyScenario copies the scenario file testdata/name into dir, for a test
// that edits it, and returns the copy's path.
func copyScenario(t *testing.T, dir, name string) string {
	t.Helper()
	src, err := os.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// editScenario replaces the first from in the scenario file with to, and
// fails the test when the file no longer has from.
func editScenario(t *testing.T, file, from, to string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), from, to, 1)
	if edited == string(src) {
		t.Fatalf("%s no longer has %s, which the test changes", filepath.Base(file), from)
	}
	if err := os.WriteFile(file, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A replay whose route sends other arguments than the recording's (run
// on past plan's difference with --rerun) names
// the Send that found no match and counts the node's Sends on both sides:
// each argument of its own is one on one side and none on the other,
// which is not how many times the node ran.
func TestReplay_UnmatchedSendNamesItsArgument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, file := filepath.Join(dir, "f.db"), copyScenario(t, dir, "fanout.json")
	superstep(t, "", "run", file, "--db", db, "--thread", "f1").want(t, 0, `"a"`, `"b"`)
	editScenario(t, file, "sendEach('work', state.items, 'item')", "sendEach('work', [state.items[0], 'c'], 'item')")
	// --rerun shows the differences downstream of plan's Sends.
	superstep(t, "", "replay", "f1", "--db", db, "--rerun", "plan").want(t, 1, `DIVERGED at step 2, node work: the recording's Send with argument {"item":"b"} has no match in the replay (2 Sends recorded, 2 replayed)`)
	// --offline runs no task --rerun does not name: not the Send the
	// recording has no run of.
	superstep(t, "", "replay", "f1", "--db", db, "--rerun", "plan", "--offline").want(t, 1,
		`stopped at step 2, task work: the recording has no such task (a Send with argument {"item":"c"}), so it would run with the current code; --offline stops here`)
	editScenario(t, file, "[state.items[0], 'c']", "[state.items[0], state.items[1], 'c']")
	superstep(t, "", "replay", "f1", "--db", db, "--rerun", "plan").want(t, 1, `DIVERGED at step 2, node work: the replay's Send with argument {"item":"c"} has no match in the recording (2 Sends recorded, 3 replayed)`)
}
