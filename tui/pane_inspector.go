package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// lineCap bounds the bytes of one line that get highlighted: a line can be
// a megabyte-long string, and only its first screenful is ever visible.
const lineCap = 1024

// inspector is a scrollable, highlighted view of one value. The value is
// laid out once when it opens; lines are highlighted only when they first
// scroll into view and are kept, so a keypress costs one screenful at most.
type inspector struct {
	title   string
	lines   []string
	isJSON  bool
	colored map[int]string
	off     int
}

func newInspector(title string, v any) inspector {
	lines, isJSON := prettyLines(v)
	return inspector{title: title, lines: lines, isJSON: isJSON, colored: map[int]string{}}
}

func (p *inspector) scroll(d, h int) {
	p.off = clamp(p.off+d, 0, max(0, len(p.lines)-h))
}

// prepare highlights the lines of an h-line window that are not yet.
func (p *inspector) prepare(h int) {
	p.off = clamp(p.off, 0, max(0, len(p.lines)-h))
	if !p.isJSON {
		return
	}
	for i := p.off; i < min(len(p.lines), p.off+h); i++ {
		if _, ok := p.colored[i]; !ok {
			p.colored[i] = highlightJSONLine(capLine(p.lines[i]))
		}
	}
}

func capLine(s string) string {
	if len(s) <= lineCap {
		return s
	}
	s = s[:lineCap]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func (p inspector) View(st Styles, w, h int) string {
	out := make([]string, 0, max(h, 0))
	body := h - 1
	for i := p.off; i < min(len(p.lines), p.off+body); i++ {
		l, ok := p.colored[i]
		if !ok {
			l = capLine(p.lines[i])
		}
		if ansi.StringWidth(l) > w {
			l = ansi.Truncate(l, w, "…")
		}
		out = append(out, l)
	}
	for len(out) < body {
		out = append(out, "")
	}
	pos := fmt.Sprintf("lines %d–%d of %d", min(p.off+1, len(p.lines)), min(len(p.lines), p.off+body), len(p.lines))
	out = append(out, st.Dim.Render(pos+" · ↑↓ pgup pgdn scroll · esc close"))
	return strings.Join(out, "\n")
}
