package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A route to a node the graph does not have is dropped, as LangGraph
// drops it, and the run ends early: run says which task routed where,
// in its text and as a warning event of --json. (The name is computed
// when the route runs: a literal one is refused when the file loads,
// scenario.File.Lint.)
func TestRun_RouteToUnknownNodeWarns(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "typo.json")
	if err := os.WriteFile(graph, []byte(`{"name":"typo","state":{"log":"add"},
 "nodes":[{"name":"a","update":{"log":"['a']"}},{"name":"b","update":{"log":"['b']"}}],
 "edges":[["__start__","a"],["b","__end__"]],
 "branches":[{"from":"a","route":"'b' + 'b'"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	for _, json := range []bool{false, true} {
		var out, errb bytes.Buffer
		args := []string{"run", graph, "--db", db, "--input", `{"log":[]}`}
		if json {
			args = append(args, "--json")
		}
		if code := (&App{Stdout: &out, Stderr: &errb}).Run(context.Background(), args); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		// The warning points at the route in the file that made it.
		want := `warning: ` + graph + `:4:34: branches[0].route: "a" routed to "bb" (did you mean "b"?), which is no node of the graph`
		if json {
			want = `{"event":"warning","step":1,"name":"a","message":"\"a\" routed to \"bb\" (did you mean \"b\"?), which is no node of the graph`
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("run (json %v) printed no warning %s:\n%s", json, want, out.String())
		}
	}
}
