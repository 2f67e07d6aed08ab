package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_Stream prints LangGraph's stream modes as JSON lines: each chunk
// with its mode, in the order the run made them, then the done line.
func TestRun_Stream(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	r := superstep(t, "", "run", "linear", "--db", db, "--thread", "s1", "--json", "--stream", "updates,values")
	r.want(t, 0)
	var modes []string
	var updates []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Event, Mode string
			Data        map[string]any
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		if ev.Event == "stream" {
			modes = append(modes, ev.Mode)
			if ev.Mode == "updates" {
				updates = append(updates, ev.Data)
			}
		}
	}
	if strings.Join(modes, ",") != "values,updates,values,updates,values" {
		t.Fatalf("modes %v", modes)
	}
	if _, ok := updates[0]["a"]; !ok {
		t.Fatalf("the first update is node a's: %v", updates)
	}
	superstep(t, "", "run", "linear", "--db", db, "--stream", "everything").want(t, 2, `--stream: unknown mode "everything"`)
	superstep(t, "", "run", "linear", "--db", db, "--subgraphs").want(t, 2, "--subgraphs needs --stream")
}
