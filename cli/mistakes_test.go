package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_ScenarioMistakes runs the mistakes a new user makes while
// writing a scenario file by hand (testdata/mistakes, one file each):
// run, tui and graph each refuse the file with one line that names the
// file, the line and column and the field, says what is wrong and the
// likely fix; nothing runs and no database is created. Those LangGraph
// would run (a Send to no node, a misspelt update key) are refused by
// scenario.File.Lint, with a last line that says how to run them anyway.
func TestRun_ScenarioMistakes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file string
		want string // the message after "FILE:"
		lint bool   // a Lint finding: the hint line follows
	}{
		{"misspelt_field.json", `5:23: nodes[0] "step": updte: unknown field "updte" (did you mean "update"?)`, false},
		{"edge_to_missing_node.json", `7:48: edges[1][1]: edge agent -> tool ends at unknown node "tool"`, false},
		{"string_for_number.json", `5:75: nodes[0] "fetch": retry.max_attempts: expected an integer, got the string "3": write 3 without quotes`, false},
		{"expr_no_parse.json", `5:40: nodes[0] "step": update.n: expression does not compile: unexpected token EOF (column 9)`, false},
		{"expr_unknown_name.json", `5:40: nodes[0] "step": update.n: expression does not compile: unknown name stat (did you mean state? the variables are state, resume, resumes, context, results, previous) (column 1)`, false},
		{"missing_node_name.json", `5:5: nodes[0]: missing node name`, false},
		{"duplicate_node.json", `6:5: nodes[1]: duplicate node name "step"`, false},
		{"trailing_comma.json", `5:47: invalid JSON: a comma before ']', which JSON does not allow: remove it`, false},
		{"unknown_reducer.json", `3:21: state.log: unknown reducer "append" (did you mean "add"? expected add, add_messages, concat, sum, merge or sorted)`, false},
		{"send_to_missing_node.json", `10:33: branches[0].route: Send to "wroker", which is no node of the graph (did you mean "worker"?)`, true},
		{"goto_to_missing_node.json", `5:56: nodes[0] "agent": goto: "tools" is no node of the graph (did you mean "tool"?)`, true},
		{"misspelt_update_key.json", `5:36: nodes[0] "agent": update.mesages: "mesages" is no state key (did you mean "messages"?)`, true},
		{"input_wrong_type.json", `8:41: ops[0].input.n: the sum reducer of "n" refuses "three": sum expects numbers, got a number and a string`, true},
		{"empty.json", `1:1: the file is empty: a scenario file is a JSON object with state, nodes and edges (docs/scenario-format.md)`, false},
		{"unreachable_node.json", `6:5: nodes[1] "review": node "review" is not reachable: no edge, route or Command end leads to it`, false},
		{"node_named_like_key.json", `6:5: nodes[1] "n": node name "n" is already used as a state key: rename the node or the key (a node and a state key cannot share a name)`, false},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := filepath.Join(dir, "new.db")
			file := testdata(filepath.Join("mistakes", c.file))
			want := "superstep: " + file + ":" + c.want + "\n"
			if c.lint {
				want += "superstep: " + file + ": LangGraph runs a file with this mistake (superstep trace shows what it does); if it is meant, pass --lint=warn to go on as LangGraph does, warning of each\n"
			}
			refusedEverywhere(t, file, db, want)
		})
	}
}

// refusedEverywhere checks that run, tui and graph each refuse the
// scenario file with exit 2, no output and exactly want on stderr, and
// that no database (nor its lock file) is left at db.
func refusedEverywhere(t *testing.T, file, db, want string) {
	t.Helper()
	for _, args := range [][]string{
		{"run", file, "--db", db, "--thread", "t1"},
		{"tui", file, "--db", db, "--thread", "t1"},
		{"graph", file},
	} {
		r := superstep(t, "", args...)
		if r.code != 2 || r.stderr != want || r.stdout != "" {
			t.Errorf("superstep %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 2, no output and stderr\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
		}
	}
	wantNoFiles(t, "a refused file", db, db+".lock")
}

// A directory or a URL given as the graph is refused as such, and the
// database is not created either.
func TestRun_GraphNotAFileCreatesNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	superstep(t, "", "run", dir, "--db", db).want(t, 2, dir+": not a regular file")
	superstep(t, "", "run", "https://example.com/flow.json", "--db", db).want(t, 2, "a URL, not a file")
	superstep(t, "", "run", filepath.Join(dir, "flow.json"), "--db", db).want(t, 2, "no such file")
	wantNoFiles(t, "a refused graph", db)
}

// run prints the final state as its values are: a page's "<html>" and
// "a & b" as written, not as encoding/json's \u003c and \u0026.
func TestRun_FinalStateUnescaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	graph := filepath.Join(dir, "page.json")
	if err := os.WriteFile(graph, []byte(`{"name": "page", "state": {"page": null},
 "nodes": [{"name": "fetch", "update": {"page": "'<html>a & b</html>'"}}],
 "edges": [["__start__", "fetch"], ["fetch", "__end__"]],
 "ops": [{"op": "invoke", "input": {"page": ""}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "run", graph, "--db", filepath.Join(dir, "t.db"))
	r.want(t, 0, `"page": "<html>a & b</html>"`)
	if strings.Contains(r.stdout, `\u003c`) {
		t.Errorf("escaped output:\n%s", r.stdout)
	}
}

// A file with no ops and no name runs as a first file is often written:
// run asks for --input (the file has no example; it ran {}, which the
// engine then refused naming no cause), and the graph takes the file's
// name (run said "on graph " and threads showed no GRAPH).
func TestRun_ScenarioWithoutNameOrOps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	graph := filepath.Join(dir, "first.json")
	if err := os.WriteFile(graph, []byte(`{"state": {"n": "sum"},
 "nodes": [{"name": "step", "update": {"n": "1"}}],
 "edges": [["__start__", "step"]]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	r := superstep(t, "", "run", graph, "--db", db, "--thread", "t1")
	r.want(t, 2, "first.json has no example input (no invoke op with an input): pass --input")
	if countLines(r.stderr) != 1 {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	// Refused before the database opens: no thread can be stored in a
	// file that does not exist, nor under a new thread's id.
	superstep(t, "", "run", graph, "--db", db).want(t, 2, "has no example input")
	wantNoFiles(t, "a refused run", db)
	superstep(t, "", "run", graph, "--db", db, "--thread", "t2", "--input", `{"n": 1}`).want(t, 0, "thread t2 (new) on graph first\n", `"n": 2`)
	superstep(t, "", "threads", "--db", db).want(t, 0, "first")
	// The database exists: a thread named in it goes on without input, a
	// new one is still refused.
	superstep(t, "", "run", graph, "--db", db, "--thread", "t2").want(t, 0, "thread t2 (continued)", `"n": 2`)
	superstep(t, "", "run", graph, "--db", db, "--thread", "t3").want(t, 2, "has no example input")
	superstep(t, "", "run", graph, "--db", db).want(t, 2, "has no example input")
}

// tui without a terminal runs headless, which has no --input: a file with
// no example input is refused on a new thread, saying how to start one,
// before a database is created (the engine refused it after, naming its
// __start__ channel); a thread the database has opens as before.
func TestTUI_HeadlessWithoutExampleInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	graph := filepath.Join(dir, "first.json")
	if err := os.WriteFile(graph, []byte(`{"state": {"n": "sum"},
 "nodes": [{"name": "step", "update": {"n": "1"}}],
 "edges": [["__start__", "step"]]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	const refused = "has no example input (no invoke op with an input), and without a terminal the debugger runs headless, with no way to ask for one: superstep run "
	for _, args := range [][]string{{"tui", graph, "--db", db}, {"tui", graph, "--db", db, "--thread", "t1"}} {
		r := superstep(t, "", args...)
		r.want(t, 2, refused)
		if strings.Contains(r.stderr, "__start__") {
			t.Errorf("stderr names the engine's channel:\n%s", r.stderr)
		}
		wantNoFiles(t, "a refused tui", db)
	}
	superstep(t, "", "run", graph, "--db", db, "--thread", "t1", "--input", `{"n": 1}`).want(t, 0, `"n": 2`)
	superstep(t, "", "tui", graph, "--db", db, "--thread", "t2").want(t, 2, refused)
	superstep(t, "", "tui", graph, "--db", db, "--thread", "t1").want(t, 0, `"n": 2`)
}

// A --input value its key's reducer refuses (a string for a sum) is
// refused before the database opens: the run wrote its input checkpoint
// and then failed. An input its reducers take runs.
func TestRun_InputRefusedByReducer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	file := testdata(filepath.Join("mistakes", "input_wrong_type.json"))
	graph := filepath.Join(dir, "counter.json")
	if err := os.WriteFile(graph, []byte(`{"name": "counter", "state": {"n": "sum", "log": "add"},
 "nodes": [{"name": "step", "update": {"n": "1"}}],
 "edges": [["__start__", "step"]]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "run", graph, "--db", db, "--input", `{"n": "two"}`)
	if want := "superstep: --input: n: the sum reducer of \"n\" refuses \"two\": sum expects numbers, got a number and a string\n"; r.code != 2 || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 2 and\n%s", r.code, r.stdout, r.stderr, want)
	}
	wantNoFiles(t, "a refused input", db)
	superstep(t, "", "run", graph, "--db", db, "--input", `{"n": 2, "log": {"__overwrite__": ["x"]}}`).want(t, 0, `"n": 3`)
	// The file's own input is refused where it is written.
	superstep(t, "", "run", file, "--db", db).want(t, 2, "input_wrong_type.json:8:41: ops[0].input.n")
}
