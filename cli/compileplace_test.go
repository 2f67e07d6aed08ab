package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_GraphThatDoesNotCompile: a scenario file whose graph has
// several problems is refused with one line for each, each naming the
// file, the line and column and the field, the missing entry first (its
// fix may reach the nodes nothing reaches); nothing runs and no database
// is created. trace, which records the compile_error, warns of each.
func TestRun_GraphThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	file := testdata("graph_does_not_compile.json")
	lines := []string{
		file + `:9:3: edges: graph must have an entrypoint: add at least one edge from __start__ to another node`,
		file + `:5:5: nodes[0] "plan": node "plan" is not reachable: no edge, route or Command end leads to it`,
		file + `:7:5: nodes[2] "report": node "report" is not reachable: no edge, route or Command end leads to it`,
	}
	refusedEverywhere(t, file, db, "superstep: "+strings.Join(lines, "\nsuperstep: ")+"\n")
	r := superstep(t, "", "trace", file)
	r.want(t, 0, `"compile_error": "UnreachableNodeError"`)
	wantWarn := "superstep: warning: scenario " + file + " does not compile: " + strings.Join(lines, "\nsuperstep: warning: scenario "+file+" does not compile: ") + "\n"
	if r.stderr != wantWarn {
		t.Errorf("trace's stderr\n%s\nwant\n%s", r.stderr, wantWarn)
	}
}
