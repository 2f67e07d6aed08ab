package tui

import (
	"slices"
	"testing"
)

// A long line wraps after the last space that fits, so an id or a word is
// never cut in two unless it is longer than a row; wide (CJK) text breaks
// between its characters.
func TestWrapLine(t *testing.T) {
	for _, c := range []struct {
		line string
		w    int
		want []string
	}{
		{"search(q) · call call_fdb5b40276e3", 24, []string{"search(q) · call ", "call_fdb5b40276e3"}},
		{"aaa bbb ccc", 6, []string{"aaa ", "bbb ", "ccc"}},
		{"abcdefghij klm", 4, []string{"abcd", "efgh", "ij ", "klm"}},
		{"fits exactly", 12, []string{"fits exactly"}},
		{"可靠性 - 性能瓶颈与基准", 10, []string{"可靠性 - ", "性能瓶颈与", "基准"}},
		// A panic's frame's file under its function: the indent is no
		// break (it left a blank row), the path is cut where the row ends.
		{"    /usr/local/go/src/runtime/panic.go:236", 36, []string{"    /usr/local/go/src/runtime/panic.", "go:236"}},
		{"  a bb", 4, []string{"  a ", "bb"}},
	} {
		var got []string
		for _, r := range wrapLine(nil, 0, c.line, c.w) {
			got = append(got, c.line[r.from:r.to])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("wrapLine(%q, %d) = %q, want %q", c.line, c.w, got, c.want)
		}
	}
}
