package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The seen and now columns show whole in a narrow pane: at 60 columns the
// versions_seen pane is 28 cells wide and the now column was cut
// ("5    …"). The trigger column gives way first.
func TestSeenPane_View_NarrowKeepsVersions(t *testing.T) {
	m := engineModel(t, "research", 60, 20)
	m = press(t, m, "n", "n", "n") // some versions past 0
	checkFrame(t, m)
	row := regexp.MustCompile(`^\S+ +\S+ +(-|\d+) +\d+( \S)? *$`)
	for _, w := range []int{28, 24, 20} {
		lines := strings.Split(m.seen.View(m.styles, true, w, 30), "\n")
		rows := lines[1 : 1+len(m.seen.rows)] // under the header, above the explanation
		for _, l := range rows {
			l = ansi.Strip(l)
			if lipgloss.Width(l) > w {
				t.Errorf("w %d: %q is %d cells wide", w, l, lipgloss.Width(l))
			}
			if !row.MatchString(l) {
				t.Errorf("w %d: the versions are cut in %q", w, l)
			}
		}
		if len(rows) == 0 {
			t.Fatalf("w %d: no rows:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	if v := m.View(); !strings.Contains(v, "seen  now") {
		t.Errorf("the header's now is cut at 60 columns:\n%s", v)
	}
}
