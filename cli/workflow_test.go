package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// buildMyAgent builds testdata/myagent, the README's "debugging your own
// graph" program, the way the README tells a user to: a module of its own
// that depends on superstep through go mod edit -replace onto a local
// clone (this repository).
func buildMyAgent(t *testing.T) string {
	t.Helper()
	return buildProgram(t, "myagent")
}

// buildProgram builds testdata/NAME/main.go as buildMyAgent builds
// myagent: module example.com/NAME, superstep replaced by this clone.
func buildProgram(t *testing.T, name string) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", name, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644))
	// The clone's go.sum has every module the program needs, so the build
	// needs no network when the module cache has them (go test filled it).
	must(os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	for _, args := range [][]string{
		{"mod", "init", "example.com/" + name},
		{"mod", "edit", "-require=github.com/superstep/superstep@v0.0.0-00010101000000-000000000000", "-replace=github.com/superstep/superstep=" + repo},
		{"build", "-mod=mod", "-o", name, "."},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return filepath.Join(dir, name)
}

// agent runs the built program like superstep, with extra environment.
func agent(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	return runProgram(t, bin, env, "", args...)
}

var fix = []string{"MYAGENT_FIX=1"}

// TestWorkflow_README walks the README's bad-case workflow as a user would,
// on real bbolt files, with a graph of their own embedded per the README:
// a run on the "server" is killed mid-superstep; the thread is exported,
// imported on the "laptop", opened in the debugger while a second process
// reads it; a fork tries a fix; the recorded branch is replayed with the fix
// (exit 1 naming the node) and without (exit 0); a graph whose node answers
// differently every run replays with --rerun (exit 0); a tool-calling agent
// whose model names its calls anew every run replays (exit 0).
func TestWorkflow_README(t *testing.T) {
	t.Parallel()
	bin := buildMyAgent(t)
	dir := t.TempDir()
	server, laptop := filepath.Join(dir, "server.db"), filepath.Join(dir, "bug.db")

	// On the server: the run is killed while lookup works.
	cmd, _, _ := startUntil(t, bin, []string{"MYAGENT_SLOW=30s"}, `"name":"search","status":"ran"`, "run", "myagent", "--db", server, "--thread", "t-42", "--json")
	cmd.Process.Kill() // search's writes are on disk: its result was reported
	cmd.Wait()

	// Export, import on the laptop.
	r := agent(t, bin, nil, "export", "t-42", "--db", server)
	r.want(t, 0, `node write triggers`)
	export := filepath.Join(dir, "t-42.json")
	if err := os.WriteFile(export, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	agent(t, bin, nil, "import", export, "--db", laptop).want(t, 0, "imported thread t-42")
	agent(t, bin, nil, "threads", "--db", laptop).want(t, 0, "t-42", "myagent", "pending")

	// The debugger (headless without a terminal, holding its session the
	// same way) continues the thread while another process reads it.
	dbg, dlines, _ := startUntil(t, bin, []string{"MYAGENT_SLOW=5s"}, "continued", "tui", "myagent", "--db", laptop, "--thread", "t-42")
	agent(t, bin, nil, "show", "t-42", "--db", laptop).want(t, 0, "searched: why?", "status pending")
	agent(t, bin, nil, "history", "t-42", "--db", laptop).want(t, 0, "step -1 input")
	agent(t, bin, nil, "run", "myagent", "--db", laptop, "--thread", "t-42", "--timeout", "200ms").want(t, 2, "in use", "pid ")
	for dlines.Scan() {
	}
	if err := dbg.Wait(); err != nil {
		t.Fatalf("the debugger ended with %v", err)
	}
	agent(t, bin, nil, "show", "t-42", "--db", laptop).want(t, 0, `"2 notes"`, "status done")

	// Fork at step 0 (what f does in the debugger) and try a fix there.
	rows := historyRowsOf(t, bin, laptop, "t-42")
	step0 := checkpointAt(t, rows, 0, "loop")
	agent(t, bin, nil, "update", "t-42", "--db", laptop, "--checkpoint", engine.ShortID(step0), "--values", `{"question":"why not?"}`).
		want(t, 0, "new checkpoint")
	agent(t, bin, fix, "run", "myagent", "--db", laptop, "--thread", "t-42").want(t, 0, "checked")

	// Replay the recorded run, not the fork: with the fix it diverges at
	// the node the fix changed; without, it matches.
	agent(t, bin, fix, "replay", "t-42", "--db", laptop).want(t, 1, "node write", `recorded "2 notes", replay "2 notes, checked"`)
	agent(t, bin, nil, "replay", "t-42", "--db", laptop).want(t, 0, "replay matches")

	// A node that calls a model: a plain replay diverges at it, --rerun of
	// the node under test reuses it and matches.
	agent(t, bin, nil, "run", "chatty", "--db", laptop, "--thread", "c1").want(t, 0, "done")
	agent(t, bin, nil, "replay", "c1", "--db", laptop).want(t, 1, "node model, channel draft")
	r = agent(t, bin, nil, "replay", "c1", "--db", laptop, "--rerun", "fetch")
	r.want(t, 0, "fetch ran (--rerun)", "model reused", "edit reused", "replay matches")
	// A changed re-run node re-executes exactly the downstream task whose
	// input it changed; --offline stops there instead.
	r = agent(t, bin, fix, "replay", "c1", "--db", laptop, "--rerun", "fetch")
	r.want(t, 1, "model reused", "edit ran (input changed: source)", "node fetch, channel source")
	agent(t, bin, fix, "replay", "c1", "--db", laptop, "--rerun", "fetch", "--offline").
		want(t, 1, "step 2, task edit", "differs from the recording in source", "--offline stops here", "\nthe replayed branch ends at checkpoint ")
	// exec: one node against its recorded input; nothing is written.
	before := len(historyRowsOf(t, bin, laptop, "c1"))
	agent(t, bin, nil, "exec", "c1", "edit", "--db", laptop).want(t, 0, "same writes as recorded")
	agent(t, bin, nil, "exec", "c1", "model", "--db", laptop).want(t, 1, "differs: draft")
	agent(t, bin, fix, "exec", "c1", "fetch", "--db", laptop, "--json").want(t, 1, `"same": false`, `"archive v2"`)
	if after := len(historyRowsOf(t, bin, laptop, "c1")); after != before {
		t.Fatalf("exec wrote %d checkpoints", after-before)
	}
	agent(t, bin, nil, "check", "--db", laptop).want(t, 0, "ok")

	// A tool-calling agent: its model names its message and its tool calls
	// anew every run, and each tool's result names the call it answers, so
	// a replay names them all differently; they are names, and it matches.
	agent(t, bin, nil, "run", "tools", "--db", laptop, "--thread", "tc").want(t, 1, `refund: bad amount "42.50"`)
	agent(t, bin, nil, "replay", "tc", "--db", laptop).want(t, 0, "step 2: tools, tools match", "it fails as the recording did")
	// The model runs again, naming its calls anew; the tools' Sends pair
	// with the recorded ones and reuse their results, answering the
	// replay's calls.
	agent(t, bin, nil, "replay", "tc", "--db", laptop, "--rerun", "model").want(t, 0, "tools reused (input equal to the recording)", "step 3: model match")
	agent(t, bin, fix, "replay", "tc", "--db", laptop).want(t, 1, "DIVERGED at step 4, node tools: recorded a failure, replay success")

	// The program speaks with its own name (Main takes it from
	// os.Args[0]): in errors, hints and help, and in the debugger's note
	// without a terminal. superstep does not know its graphs.
	agent(t, bin, nil, "show", "t-4", "--db", laptop).speaks(t, "myagent", 2, `myagent: thread not found: "t-4" (myagent threads --db `+laptop+` lists them)`)
	agent(t, bin, nil, "--help").speaks(t, "myagent", 0, "  myagent run research --json", "Usage:\n  myagent [flags]")
	agent(t, bin, nil, "tui", "chatty", "--db", laptop, "--thread", "c1").
		speaks(t, "myagent", 0, "myagent: not a terminal, running headless (myagent run GRAPH is the scripted form)")
}

func historyRowsOf(t *testing.T, bin, db, thread string) []map[string]any {
	t.Helper()
	r := agent(t, bin, nil, "history", thread, "--db", db, "--json")
	r.want(t, 0)
	return decodeRows(t, r.stdout)
}
