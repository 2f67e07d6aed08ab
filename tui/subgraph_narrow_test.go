package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// At 80 columns the namespace's checkpoint list gives way from its least
// telling columns: the source, then the id, go before the status, which
// read "inte…" there. Every row keeps the same columns, padded so that
// they line up; at a width that holds the whole rows, nothing gives way.
func TestModel_Subgraph_NarrowListKeepsStatus(t *testing.T) {
	m, _ := nestedModel(t, 80, 24)
	m = press(t, m, "enter")
	if m.mode != modeSubgraph || m.err != nil {
		t.Fatalf("mode %v err %v\n%s", m.mode, m.err, m.View())
	}
	snaps := m.sub.level().snaps
	id := shortID(snaps[0].Config.CheckpointID)
	v := m.View()
	for _, want := range []string{id + "  step 1   interrupted", "step 0   pending"} {
		if strings.Contains(v, "inte…") || !strings.Contains(v, want) {
			t.Fatalf("at 80 columns the list lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "loop  pending") {
		t.Fatalf("at 80 columns the rows keep different columns:\n%s", v)
	}
	checkFrame(t, m)
	m = send(t, m, tea.WindowSizeMsg{Width: 160, Height: 40})
	if v := m.View(); !strings.Contains(v, id+"  step 1   loop   interrupted") {
		t.Fatalf("at 160 columns the row lost a column:\n%s", v)
	}
	// The order of giving way, column by column.
	row := [][]string{subCheckpointRow(" ", snaps[0], "run 2")}
	for _, c := range []struct {
		w    int
		want string
	}{
		{41, " " + id + "  run 2  step 1  loop  interrupted"},
		{40, " " + id + "  run 2  step 1  interrupted"},
		{34, " run 2  step 1  interrupted"},
		{20, " run 2  step 1  int…"},
	} {
		if got := subListLines(row, c.w)[0]; got != c.want {
			t.Errorf("at %d cells the row is %q, want %q", c.w, got, c.want)
		}
	}
	// Rows of steps of two widths and sources of two line up: the
	// status starts in the same cell.
	lines := subListLines([][]string{
		{" ", "00000c", "", "step 1", "loop", "done"},
		{" ", "00000a", "", "step -1", "input", "pending"},
	}, 80)
	if want := []string{" 00000c  step 1   loop   done", " 00000a  step -1  input  pending"}; strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows %q, want %q", lines, want)
	}
}
