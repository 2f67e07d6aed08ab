package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// An update key close to a state key (a typo) is dropped, as LangGraph
// drops it; run says which node wrote it and which key it likely meant.
func TestRun_MisspeltUpdateKeyWarns(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "typo.json")
	if err := os.WriteFile(graph, []byte(`{"name":"typo","state":{"findings":null},
 "nodes":[{"name":"search","update":{"finidngs":"'x'"}}],
 "edges":[["__start__","search"],["search","__end__"]]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	superstep(t, "", "run", graph, "--db", filepath.Join(dir, "t.db"), "--input", `{"findings":""}`).want(t, 0,
		`step 1   search               warning: "search" wrote "finidngs" (did you mean "findings"?), which is no state key of the graph: the write was dropped, as LangGraph drops it`)
}
