package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The run-alone verdict has no value to open, so it wraps: at 120
// columns it was cut at "…: its wri…" with no way to read the rest.
func TestModel_Rerun_VerdictWraps(t *testing.T) {
	const verdict = "nothing was recorded for this task at this checkpoint (it never ran here, or was cut off before it finished): its writes now are below"
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m := engineModel(t, "research", sz.w, sz.h)
		m = press(t, m, "n", "tab", "tab", "tab", "e") // __start__ planned, run alone
		if m.mode != modeDiff || m.err != nil {
			t.Fatalf("%dx%d: mode %v err %v", sz.w, sz.h, m.mode, m.err)
		}
		checkFrame(t, m)
		if text := boxText(m.View()); !strings.Contains(text, verdict) {
			t.Errorf("%dx%d: the verdict is not shown whole:\n%s", sz.w, sz.h, m.View())
		}
	}
}

// Rows without a value wrap, and the window is counted in lines: the
// cursor's row shows to its end however tall the rows above it are;
// rows with a value stay one line, cut (enter opens them).
func TestDiffPane_View_WrappedRowsKeepTheCursorInView(t *testing.T) {
	// Each row ends in its own word in capitals, which shows only when
	// the row is on screen to its end.
	long := func(s string) string { return strings.Repeat(s+" ", 12) + strings.ToUpper(s) }
	p := diffPane{rows: []taskRow{
		{text: long("alpha")},
		{text: long("value"), value: 1, hasValue: true},
		{text: long("beta")},
		{text: "  " + long("gamma")},
	}}
	const w, h = 20, 8 // 7 lines of rows, the last for the hint
	for cur := range p.rows {
		p.nav.cur = cur
		p.nav.follow(h-1, len(p.rows))
		v := p.View(Styles{}, w, h)
		lines := strings.Split(v, "\n")
		if len(lines) != h {
			t.Fatalf("cursor %d: %d lines, want %d:\n%s", cur, len(lines), h, v)
		}
		for _, l := range lines {
			if lipgloss.Width(l) > w {
				t.Fatalf("cursor %d: %q is wider than %d", cur, l, w)
			}
		}
		want := strings.ToUpper(strings.Fields(p.rows[cur].text)[0])
		if p.rows[cur].hasValue {
			want = "value value value value"[:w-1] + "…" // cut, not wrapped
		}
		if !strings.Contains(ansi.Strip(v), want) {
			t.Errorf("cursor %d: %q is not on screen:\n%s", cur, want, v)
		}
	}
	p.nav.cur, p.nav.off = 3, 3
	if v := p.View(Styles{}, w, h); !strings.Contains(v, "  gamma") {
		t.Errorf("a wrapped row keeps its indent:\n%s", v)
	}
}

// A click selects the row drawn where it lands, counting the lines the
// wrapped verdict above it takes.
func TestModel_Rerun_ClickBelowAWrappedRow(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "n", "tab", "tab", "tab", "e")
	// input, the verdict on two lines, then "recorded writes: none".
	m = send(t, m, click(5, bodyTop+1+3))
	if r, _ := m.diff.selected(); r.text != "recorded writes: none" {
		t.Fatalf("the click selected %q:\n%s", r.text, m.View())
	}
}
