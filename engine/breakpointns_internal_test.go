package engine

import "testing"

// The deepest namespace of a checkpoint map is its longest key, as
// LangGraph.js takes it (deepestCheckpointMapNamespace, 1.7.3 dist
// pregel/loop.js:146-150): not the namespace the map was made for.
func TestDeepestNamespace(t *testing.T) {
	for _, c := range []struct {
		m    map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"": "r"}, ""},
		{map[string]string{"": "r", "s:1": "a"}, "s:1"},
		{map[string]string{"": "r", "s:1": "a", "s:1|t:2": "b"}, "s:1|t:2"},
		// sibling namespaces: the longer key, whichever was updated
		{map[string]string{"": "r", "tt:1": "a", "s:2": "b"}, "tt:1"},
		// a tie (LangGraph.js: the first inserted; unspecified here)
		{map[string]string{"": "r", "b:1": "a", "a:2": "b"}, "a:2"},
	} {
		if got := deepestNamespace(c.m); got != c.want {
			t.Errorf("deepestNamespace(%v) = %q, want %q", c.m, got, c.want)
		}
	}
}
