package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// An update key close to a state key (a typo) is dropped, as LangGraph
// drops it; run says which node wrote it and which key it likely meant.
// (The node returns a map it read, so the key is known only when it runs:
// a key written in the file is refused when it loads, scenario.File.Lint.)
func TestRun_MisspeltUpdateKeyWarns(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "typo.json")
	if err := os.WriteFile(graph, []byte(`{"name":"typo","state":{"findings":null,"raw":null},
 "nodes":[{"name":"search","update":"state.raw"}],
 "edges":[["__start__","search"],["search","__end__"]]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "run", graph, "--db", filepath.Join(dir, "t.db"), "--input", `{"raw":{"finidngs":"x"}}`).want(t, 0,
		`step 1   search               warning: "search" wrote "finidngs" (did you mean "findings"?), which is no state key of the graph: the write was dropped, as LangGraph drops it`)
}
