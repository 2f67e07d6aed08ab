package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintFlag_WarnRunsTheFileAsLangGraphDoes: a file with a mistake
// LangGraph runs with (an update key that is no state key) is refused by
// every command that runs its nodes, and by graph, each finding a line
// and a last line naming --lint=warn; with --lint=warn each command warns
// of the finding, once, and goes on. A thread so started is read, and
// updated, without the flag: those commands run none of its nodes.
func TestLintFlag_WarnRunsTheFileAsLangGraphDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "note.json")
	if err := os.WriteFile(file, []byte(`{"name": "note", "state": {"n": "sum"},
 "nodes": [{"name": "a", "update": {"n": "1", "note": "'x'"}}],
 "edges": [["__start__", "a"], ["a", "__end__"]],
 "ops": [{"op": "invoke", "input": {"n": 0}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	finding := file + `:2:47: nodes[0] "a": update.note: "note" is no state key (state keys: n); declare it under "state" or write one of those`
	refused := "superstep: " + finding + "\nsuperstep: " + file + ": LangGraph runs a file with this mistake (superstep trace shows what it does); if it is meant, pass --lint=warn to go on as LangGraph does, warning of each\n"
	warned := "superstep: warning: " + finding + "\n"

	refusedEverywhere(t, file, db, refused)
	r := superstep(t, "", "run", file, "--db", db, "--thread", "t1", "--lint=warn")
	r.want(t, 0, `"n": 1`)
	if r.stderr != warned {
		t.Errorf("run --lint=warn's stderr\n%s\nwant\n%s", r.stderr, warned)
	}
	r = superstep(t, "", "graph", file, "--lint", "warn")
	r.want(t, 0, "graph note")
	if r.stderr != warned {
		t.Errorf("graph --lint warn's stderr\n%s\nwant\n%s", r.stderr, warned)
	}
	r = superstep(t, "", "tui", file, "--db", db, "--thread", "t2", "--lint=warn")
	r.want(t, 0, `"n": 1`)
	if !strings.HasPrefix(r.stderr, warned) || strings.Count(r.stderr, finding) != 1 {
		t.Errorf("tui --lint=warn's stderr\n%s\nwant it to start with\n%s", r.stderr, warned)
	}

	// The thread's recorded graph is the file: replay and exec run its
	// nodes, and lint it as run does.
	for _, args := range [][]string{{"replay", "t1"}, {"exec", "t1", "a"}} {
		r = superstep(t, "", append(args, "--db", db)...)
		if r.code != 2 || r.stderr != refused {
			t.Errorf("superstep %s: exit %d, stderr\n%s\nwant exit 2 and\n%s", strings.Join(args, " "), r.code, r.stderr, refused)
		}
		r = superstep(t, "", append(args, "--db", db, "--lint=warn")...)
		r.want(t, 0)
		if r.stderr != warned {
			t.Errorf("superstep %s --lint=warn: stderr\n%s\nwant\n%s", strings.Join(args, " "), r.stderr, warned)
		}
	}
	// history and update run none of its nodes: no finding, no refusal,
	// and the graph is at hand (update needs it).
	for _, args := range [][]string{{"history", "t1"}, {"update", "t1", "--values", `{"n": 5}`}} {
		r = superstep(t, "", append(args, "--db", db)...)
		r.want(t, 0)
		if r.stderr != "" {
			t.Errorf("superstep %s: stderr\n%s\nwant none", strings.Join(args, " "), r.stderr)
		}
	}
	superstep(t, "", "run", file, "--db", db, "--lint=none").want(t, 2, `invalid argument "none" for "--lint" flag: want error or warn, got "none"`)
}

// TestLintFlag_UpdateOps: a state update of the file's ops that names a
// key the state lacks (LangGraph drops its value) or a node the graph
// lacks (LangGraph refuses the op) is refused by every command that runs
// the file's nodes, each finding at its place; --lint=warn runs it.
func TestLintFlag_UpdateOps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "upd.json")
	if err := os.WriteFile(file, []byte(`{"name": "upd", "state": {"messages": "add"},
 "nodes": [{"name": "agent", "update": {"messages": "['x']"}}],
 "edges": [["__start__", "agent"], ["agent", "__end__"]],
 "ops": [{"op": "invoke", "input": {"messages": []}},
  {"op": "update_state", "values": {"mesages": ["y"]}, "as_node": "agnet"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	findings := []string{
		file + `:5:37: ops[1].values.mesages: "mesages" is no state key (did you mean "messages"?); LangGraph drops its value`,
		file + `:5:67: ops[1].as_node: "agnet" is no node of the graph (did you mean "agent"?): LangGraph refuses the update when it runs`,
	}
	refused := "superstep: " + findings[0] + "\nsuperstep: " + findings[1] + "\nsuperstep: " + file + ": LangGraph runs a file with these mistakes (superstep trace shows what it does); if they are meant, pass --lint=warn to go on as LangGraph does, warning of each\n"
	refusedEverywhere(t, file, db, refused)
	r := superstep(t, "", "run", file, "--db", db, "--thread", "t1", "--lint=warn")
	r.want(t, 0, `"messages": [`)
	if want := "superstep: warning: " + findings[0] + "\nsuperstep: warning: " + findings[1] + "\n"; r.stderr != want {
		t.Errorf("run --lint=warn's stderr\n%s\nwant\n%s", r.stderr, want)
	}
}

// TestLintFlag_CompileErrorFirst: a file whose graph does not compile is
// refused for that, before its lint findings and with --lint=warn too:
// LangGraph refuses it, so no flag can run it.
func TestLintFlag_CompileErrorFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "both.json")
	if err := os.WriteFile(file, []byte(`{"name": "both", "state": {"n": "sum"},
 "nodes": [{"name": "a", "update": {"m": "1"}}],
 "edges": [["__start__", "a"], ["a", "ghost"]]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "superstep: " + file + `:3:38: edges[1][1]: edge a -> ghost ends at unknown node "ghost"` + "\n"
	db := filepath.Join(dir, "t.db")
	refusedEverywhere(t, file, db, want)
	if r := superstep(t, "", "run", file, "--db", db, "--lint=warn"); r.code != 2 || r.stderr != want {
		t.Errorf("run --lint=warn: exit %d, stderr\n%s\nwant exit 2 and\n%s", r.code, r.stderr, want)
	}
}
