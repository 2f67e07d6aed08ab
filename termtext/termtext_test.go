package termtext_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/superstep/superstep/termtext"
)

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"t1", "t1"},
		{"research/run-7", "research/run-7"},
		{`back\slash`, `back\slash`},
		{"café ✓ 日本", "café ✓ 日本"},
		{"srv\x1b]52;c;aGVsbG8=\a", `srv\x1b]52;c;aGVsbG8=\x07`},
		{"a\nforged line", `a\nforged line`},
		{"tab\tcr\r", `tab\tcr\r`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"real \ufffd", "real \ufffd"},
	} {
		if got := termtext.Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzName: whatever goes in, what comes out is valid UTF-8 without a
// control or formatting character, and safe input comes out unchanged.
func FuzzName(f *testing.F) {
	for _, s := range []string{"t1", "srv\x1b]52;c;x\a", "\xff\xfe", "a\u202eb", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := termtext.Name(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Name(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || r == '\u202e' || r == '\u2066' {
				t.Fatalf("Name(%q) = %q keeps %U", s, got, r)
			}
		}
		if termtext.Name(got) != got {
			t.Fatalf("Name(%q) = %q, which Name changes again", s, got)
		}
	})
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := termtext.NewWriter(&b)
	for _, part := range []string{"thread \x1b]0;owned\a\n", "ok\ttab\n", "split \xe2", "\x80\xae end\n", `{"k":"\u009b"}`, "\xc2"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "thread \\x1b]0;owned\\x07\nok\ttab\nsplit \\u202e end\n{\"k\":\"\\u009b\"}\\xc2"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
