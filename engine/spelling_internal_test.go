package engine

import (
	"slices"
	"testing"
)

func TestCloseNames(t *testing.T) {
	ids := []string{"t-42", "t-17", "prod-thread-42", "prod-thread-43", "Prod-Thread-24", "research", "7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b90"}
	cases := []struct {
		typed string
		want  []string
	}{
		{"t-24", []string{"t-42"}}, // two letters swapped
		{"t-4", []string{"t-42"}},  // cut short
		{"t-99", nil},              // another id, not a typo
		{"prod-thread-24", []string{"Prod-Thread-24", "prod-thread-42"}}, // case, then a swap
		{"prod-thread-4", []string{"Prod-Thread-24", "prod-thread-42", "prod-thread-43"}},
		{"prod-thread-99", nil},
		{"reserch", []string{"research"}},
		{"research", nil}, // itself
		{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b9", []string{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b90"}},
		{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8c91", []string{"7d3f0a52-1c9e-4b8a-9f21-0e5c6d7a8b90"}},
	}
	for _, c := range cases {
		if got := CloseNames(ids, c.typed, 5); !slices.Equal(got, c.want) && (len(got) > 0 || len(c.want) > 0) {
			t.Errorf("CloseNames(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
	if got := CloseNames(ids, "prod-thread-4", 2); len(got) != 2 {
		t.Errorf("max 2: got %q", got)
	}
}

func TestMeantName(t *testing.T) {
	nodes := []string{"research", "write", "tool_a", "tool_b", "a", "b"}
	cases := map[string]string{
		"reserch":  "research",
		"wirte":    "write",
		"Write":    "write",
		"writer":   "write",
		"tool_c":   "", // tool_a or tool_b: no guess
		"c":        "", // a one-letter name is replaced whole, not mistyped
		"summary":  "",
		"research": "",
	}
	for typed, want := range cases {
		if got := MeantName(nodes, typed); got != want {
			t.Errorf("MeantName(%q) = %q, want %q", typed, got, want)
		}
	}
	if got, want := DidYouMean(nodes, "wirte"), ` (did you mean "write"?)`; got != want {
		t.Errorf("DidYouMean = %q, want %q", got, want)
	}
	if got := DidYouMean(nodes, "summary"); got != "" {
		t.Errorf("DidYouMean of a name close to none = %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"ab", "ba", 1},
		{"kitten", "sitting", 3}, {"naïve", "naive", 1}, {"t-24", "t-42", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := editDistance(c.b, c.a); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}
