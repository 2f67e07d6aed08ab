package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name returns s with everything a terminal would act on, rather than
// show, replaced by a visible escape: control characters (C0 including
// newline and tab, DEL, C1) as \n, \t, \r or \xNN / \u0085, Unicode
// formatting characters that reorder or hide text (bidirectional
// overrides and isolates, zero-width characters, line and paragraph
// separators) as \uNNNN, and bytes that are not UTF-8 as \xNN. Other text,
// backslashes included, is returned as it is, so an ordinary name prints
// unchanged. The result is one line.
func Name(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Names applies Name to each of names, in a new slice.
func Names(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Name(n)
	}
	return out
}

// safe reports whether s needs no escape: the common case, checked
// without allocating.
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || unsafeRune(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// unsafeRune reports whether r is a control or formatting character a
// terminal acts on or that changes how the text around it reads. (A real
// U+FFFD is safe; Name tells it from an invalid byte by its size.)
func unsafeRune(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // bidi marks
		r >= 0x202a && r <= 0x202e,                           // bidi embeddings and overrides
		r >= 0x2066 && r <= 0x2069,                           // bidi isolates
		r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff, // zero-width
		r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}
