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

// The threads filter keeps what the list shows: "other graph" for a
// refused thread without a status (it matched nothing), and a refused
// thread's refusal reaches the status line as its first line, not with
// its line breaks escaped ("opens it\nthe graph's…").
func TestModel_Threads_FilterAndRefusalAsShown(t *testing.T) {
	m := pickerOver(t, []ThreadSummary{
		{ID: "mine", Status: "done"},
		{ID: "r1", Refused: "recorded with research: superstep tui research --thread r1 opens it\nthe graph's topology differs"},
		{ID: "s1", Status: "interrupted", Refused: "recorded with essay: superstep tui essay --thread s1 opens it"},
	}, 120, 30)
	m = press(t, m, "/", "other", "enter")
	if len(m.threads.shown) != 1 || m.threads.list[m.threads.shown[0]].ID != "r1" {
		t.Fatalf("/other keeps %v:\n%s", m.threads.shown, m.View())
	}
	m = press(t, m, "enter")
	if m.err == nil || m.err.Error() != "recorded with research: superstep tui research --thread r1 opens it" {
		t.Fatalf("refusal on the status line: %v", m.err)
	}
	if v := m.View(); strings.Contains(v, `\n`) {
		t.Fatalf("an escaped line break on screen:\n%s", v)
	}
	m = press(t, m, "esc", "/", "interr", "enter")
	if len(m.threads.shown) != 1 || m.threads.list[m.threads.shown[0]].ID != "s1" || !strings.Contains(m.View(), "interrupted") {
		t.Fatalf("/interr keeps %v:\n%s", m.threads.shown, m.View())
	}
}
