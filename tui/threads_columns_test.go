package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The picker's columns line up whatever the threads hold: a long thread's
// "step 20001" and the caller's "subgraphs only" pushed SOURCE and UPDATED
// of their rows right of everyone else's (the STEP column was 8 wide, the
// STATUS column 12).
func TestModel_Threads_ColumnsLineUp(t *testing.T) {
	list := []ThreadSummary{
		{ID: "short", Step: 3, Source: "input", Status: "done"},
		{ID: "long", Step: 20001, Source: "loop", Status: "done"},
		{ID: "subonly", Step: 1, Source: "update", Status: "subgraphs only", Refused: "has checkpoints only in subgraph namespaces"},
	}
	m := pickerOver(t, list, 120, 30)
	col := map[string]int{}
	for _, line := range strings.Split(ansi.Strip(m.View()), "\n") {
		for _, th := range list {
			if strings.Contains(line, "│"+th.ID+" ") {
				col[th.ID] = strings.Index(line, " "+th.Source+" ") - strings.Index(line, th.ID)
			}
		}
	}
	if len(col) != len(list) {
		t.Fatalf("rows found %v, screen:\n%s", col, m.View())
	}
	if col["short"] != col["long"] || col["short"] != col["subonly"] {
		t.Errorf("the SOURCE column starts at %v, want one offset; screen:\n%s", col, ansi.Strip(m.View()))
	}
}
