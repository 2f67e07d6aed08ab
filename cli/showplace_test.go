package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShow_SavedErrorAtTheExpression: show and history of a thread a
// scenario file ran place a task's saved error at the expression that
// raised it, as the failed run did (file:line:column and its field), in
// text and --json, in the root namespace and in a subgraph's; a file
// edited since, so that the field is gone, places it nowhere, as does a
// thread whose file is gone.
func TestShow_SavedErrorAtTheExpression(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "index.json")
	src := `{"name": "index", "state": {"n": "sum", "xs": null},
 "nodes": [{"name": "a", "update": {"n": "1"}}, {"name": "b", "update": {"n": "state.xs[3].v"}}],
 "edges": [["__start__", "a"], ["a", "b"], ["b", "__end__"]],
 "ops": [{"op": "invoke", "input": {"n": 0}}]}`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	place := file + `:2:79: nodes[1] "b": update.n`
	superstep(t, "", "run", file, "--db", db, "--thread", "t1").want(t, 1, "superstep: "+place+`: thread t1: node "b" failed at step 2:`)

	superstep(t, "", "show", "t1", "--db", db).want(t, 0, "__error__ = \"node \\\"b\\\" failed at step 2: update.n: cannot read 3 of null (column 9)\"\n    at "+place+"\n")
	var shown struct {
		Writes []struct{ Channel, Place string } `json:"pending_writes"`
	}
	r := superstep(t, "", "show", "t1", "--db", db, "--json")
	r.want(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil {
		t.Fatal(err)
	}
	var places []string
	for _, w := range shown.Writes {
		if w.Channel == "__error__" {
			places = append(places, w.Place)
		}
	}
	if len(places) != 1 || places[0] != place {
		t.Errorf("show --json: the error's places %q, want [%q]", places, place)
	}
	superstep(t, "", "history", "t1", "--db", db).want(t, 0, `failed in step 2: b: update.n: cannot read 3 of null (column 9) (at `+place+")")
	var rows []struct {
		Failures []string `json:"failures"`
		FailedAt []string `json:"failed_at"`
	}
	r = superstep(t, "", "history", "t1", "--db", db, "--json")
	r.want(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || len(rows[0].FailedAt) != 1 || rows[0].FailedAt[0] != place || len(rows[1].FailedAt) != 0 {
		t.Errorf("history --json: %+v, want failed_at [%q] on the newest row alone", rows, place)
	}

	// Edited: the field is another expression now (same topology, so
	// the thread still resolves its graph). Then gone.
	edited := strings.Replace(src, `{"n": "state.xs[3].v"}`, `{"n": "1", "xs": "state.xs[3].v"}`, 1)
	if err := os.WriteFile(file, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := superstep(t, "", "show", "t1", "--db", db); r.code != 0 || strings.Contains(r.stdout, "    at ") {
		t.Errorf("show of an edited file: exit %d\n%s", r.code, r.stdout)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	r = superstep(t, "", "history", "t1", "--db", db)
	r.want(t, 0, "failed in step 2: b: update.n: cannot read 3 of null (column 9)")
	if strings.Contains(r.stdout, "(at ") {
		t.Errorf("history placed an error in a file that is gone:\n%s", r.stdout)
	}
}

// TestShow_SavedErrorInASubgraph: a subgraph's node that failed is placed
// in the subgraph's definition, in the subgraph's namespace (--ns) and
// at the root, whose subgraph node's error wraps it.
func TestShow_SavedErrorInASubgraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sub.json")
	if err := os.WriteFile(file, []byte(`{"name": "sub", "state": {"n": "sum"},
 "nodes": [{"name": "s", "subgraph": "inner"}],
 "edges": [["__start__", "s"], ["s", "__end__"]],
 "subgraphs": {"inner": {"state": {"n": "sum"},
  "nodes": [{"name": "x", "update": {"n": "state.n.m.k"}}],
  "edges": [["__start__", "x"], ["x", "__end__"]]}},
 "ops": [{"op": "invoke", "input": {"n": 0}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	place := file + `:5:43: subgraphs.inner.nodes[0] "x": update.n`
	superstep(t, "", "run", file, "--db", db, "--thread", "t1").want(t, 1, "superstep: "+place+": ")
	superstep(t, "", "history", "t1", "--db", db).want(t, 0, "(at "+place+")")
	r := superstep(t, "", "show", "t1", "--db", db)
	r.want(t, 0, "    at "+place+"\n")
	const listed = "\n  --ns "
	i := strings.Index(r.stdout, listed)
	if i < 0 {
		t.Fatalf("show names no subgraph namespace:\n%s", r.stdout)
	}
	ns := strings.Trim(strings.SplitN(r.stdout[i+len(listed):], "\n", 2)[0], "'")
	superstep(t, "", "history", "t1", "--db", db, "--ns", ns).want(t, 0, "(at "+place+")")
}
