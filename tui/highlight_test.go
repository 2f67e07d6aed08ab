package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// The inspector's JSON colors: every token keeps its text, and keys,
// strings, numbers and constants each get their own color, also on a line
// whose string is left open.
func TestHighlightJSONLine_ColorsEachTokenKind(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	for _, line := range []string{
		`  "key": "a \"quoted\" value",`,
		`  "n": -12.5e3,`,
		`    true, false, null`,
		`  "open": "a string left open \`,
		`  ]`,
	} {
		got := highlightJSONLine(line)
		if ansi.Strip(got) != line {
			t.Fatalf("%q: text changed: %q", line, ansi.Strip(got))
		}
		if got == line {
			t.Fatalf("%q: not colored", line)
		}
	}
	colorOf := func(line, token string) string {
		got := highlightJSONLine(line)
		i := strings.Index(got, token)
		if i < 0 {
			t.Fatalf("%q not in %q", token, got)
		}
		j := strings.LastIndex(got[:i], "\x1b[")
		if j < 0 {
			t.Fatalf("%q has no color before it in %q", token, got)
		}
		return got[j:i]
	}
	key := colorOf(`  "key": 1,`, `"key"`)
	str := colorOf(`  "k": "text",`, `"text"`)
	num := colorOf(`  "k": 42,`, `42`)
	con := colorOf(`  "k": true,`, `true`)
	seen := map[string]string{}
	for name, c := range map[string]string{"key": key, "string": str, "number": num, "constant": con} {
		if other, dup := seen[c]; dup {
			t.Fatalf("%s and %s share the color %q", name, other, c)
		}
		seen[c] = name
	}
}

// Without color (tests, dumb terminals) a line is left as it is.
func TestHighlightJSONLine_NoColorProfile(t *testing.T) {
	line := `  "key": "value",`
	if got := highlightJSONLine(line); got != line {
		t.Fatalf("got %q", got)
	}
}

// preview cuts on character boundaries: a string of CJK text cut at any
// budget stays valid UTF-8 and is never quoted as \xe6\x8… bytes.
func TestPreview_CutsOnCharacterBoundaries(t *testing.T) {
	vals := []any{
		"LangGraph 在生产环境的可靠性",
		[]any{"[证据] 针对《LangGraph 在生产环境的可靠性 - 架构设计》的调研结论摘要"},
		map[string]any{"问题": "在生产环境的可靠性", "b": "é"},
	}
	for _, v := range vals {
		for budget := 0; budget < 80; budget++ {
			got := preview(v, budget)
			if !utf8.ValidString(got) || strings.Contains(got, `\x`) {
				t.Fatalf("preview(%v, %d) = %q splits a character", v, budget, got)
			}
		}
	}
}
