package cli

import (
	"fmt"
	"strings"
	"testing"
)

// A graph rewritten whole is named by its first differing lines and a
// count of the rest, not thousands of characters of one line.
func TestTopologyChange_NamesAtMostSomeLines(t *testing.T) {
	var recorded, current []string
	for i := range 10 {
		recorded = append(recorded, fmt.Sprintf("node old%d triggers x", i))
		current = append(current, fmt.Sprintf("node new%d triggers x", i))
	}
	s := compareTopology(recorded, current).String()
	if n := strings.Count(s, "; ") + 1; n != maxChangeLines+1 || !strings.HasSuffix(s, "; … and 8 more") || !strings.HasPrefix(s, "- node old0 triggers x; ") {
		t.Fatalf("%d parts: %q", n, s)
	}
	if s := compareTopology(recorded[:2], recorded[:1]).String(); s != "- node old1 triggers x" {
		t.Fatalf("one change: %q", s)
	}
}
