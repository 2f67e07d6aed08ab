package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pictographic is Unicode's Extended_Pictographic below U+1F000 (from the
// UCD's emoji-data.txt; everything from U+1F000 up counts too): characters
// that may be drawn as emoji, two cells wide, by terminals that give them
// emoji width, while lipgloss (go-runewidth) counts most of them as one.
var pictographic = [][2]rune{
	{0x00A9, 0x00A9}, {0x00AE, 0x00AE}, {0x203C, 0x203C}, {0x2049, 0x2049}, {0x2122, 0x2122},
	{0x2139, 0x2139}, {0x2194, 0x2199}, {0x21A9, 0x21AA}, {0x231A, 0x231B}, {0x2328, 0x2328},
	{0x2388, 0x2388}, {0x23CF, 0x23CF}, {0x23E9, 0x23F3}, {0x23F8, 0x23FA}, {0x24C2, 0x24C2},
	{0x25AA, 0x25AB}, {0x25B6, 0x25B6}, {0x25C0, 0x25C0}, {0x25FB, 0x25FE}, {0x2600, 0x2605},
	{0x2607, 0x2612}, {0x2614, 0x2685}, {0x2690, 0x2705}, {0x2708, 0x2712}, {0x2714, 0x2714},
	{0x2716, 0x2716}, {0x271D, 0x271D}, {0x2721, 0x2721}, {0x2728, 0x2728}, {0x2733, 0x2734},
	{0x2744, 0x2744}, {0x2747, 0x2747}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2763, 0x2767}, {0x2795, 0x2797}, {0x27A1, 0x27A1}, {0x27B0, 0x27B0},
	{0x27BF, 0x27BF}, {0x2934, 0x2935}, {0x2B05, 0x2B07}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50},
	{0x2B55, 0x2B55}, {0x3030, 0x3030}, {0x303D, 0x303D}, {0x3297, 0x3297}, {0x3299, 0x3299},
}

func isPictographic(r rune) bool {
	if r >= 0x1F000 || r == 0xFE0F { // and the emoji variation selector
		return true
	}
	for _, rg := range pictographic {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	return false
}

// TestGlyphs_OneCellEverywhere: no string or character the debugger draws
// holds a character some terminals draw as a two-cell emoji while lipgloss
// counts one cell (⚠ pushed an interrupt row's right border out by a cell
// in tmux). It reads every literal in the package's source, so a glyph
// added anywhere is checked, not only the ones in styles.go.
func TestGlyphs_OneCellEverywhere(t *testing.T) {
	for _, g := range []string{"⚠", "⏸", "◀", "⚙", "↪", "✎"} {
		if r := []rune(g)[0]; !isPictographic(r) {
			t.Fatalf("the table misses %s (U+%04X), an emoji character", g, r)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || (lit.Kind != token.STRING && lit.Kind != token.CHAR) {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			for _, r := range s {
				if r > 0x7F {
					checked++
				}
				if isPictographic(r) {
					t.Errorf("%s: %q holds %c (U+%04X), an emoji character: some terminals draw it two cells wide; pick a glyph in styles.go", fset.Position(lit.Pos()), s, r, r)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no non-ASCII character found: the test reads nothing")
	}
}
