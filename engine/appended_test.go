package engine

import "testing"

// TestAppendedElements: the elements a grown list's encoding adds to its
// previous one's, and no answer for any other change.
func TestAppendedElements(t *testing.T) {
	for _, tt := range []struct {
		prev, next string
		want       string // "" means not an append
	}{
		{`[1]`, `[1,2]`, `2`},
		{`[1]`, `[1,2,3]`, `2,3`},
		{`[]`, `[1]`, `1`},
		{`[]`, `[1,[2]]`, `1,[2]`},
		{`[[1]]`, `[[1],[2]]`, `[2]`},
		{`["a"]`, `["a","b"]`, `"b"`},
		{`[{"a":1}]`, `[{"a":1},{"b":2}]`, `{"b":2}`},
		{`[1]`, `[1]`, ``},                   // same value
		{`[]`, `[]`, ``},                     // ditto
		{`[1]`, `[10]`, ``},                  // element grew, not the list
		{`[1]`, `[10,2]`, ``},                // ditto
		{`["a"]`, `["ab"]`, ``},              // string grew
		{`[{"a":1}]`, `[{"a":1,"b":2}]`, ``}, // object grew
		{`[1,2]`, `[1]`, ``},                 // shrank
		{`[2]`, `[1,2]`, ``},                 // prepended
		{`"ab"`, `"abc"`, ``},                // not a list
		{`{"a":[1]}`, `{"a":[1,2]}`, ``},
	} {
		got, ok := AppendedElements([]byte(tt.prev), []byte(tt.next))
		if ok != (tt.want != "") || string(got) != tt.want {
			t.Errorf("AppendedElements(%s, %s) = %q, %v; want %q", tt.prev, tt.next, got, ok, tt.want)
		}
	}
}
