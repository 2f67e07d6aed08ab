package cli

import (
	"strings"

	"github.com/superstep/superstep/termtext"
)

// shellWord is s as one word of a command a hint tells the user to paste:
// bare when it holds only characters no POSIX shell treats specially, else
// single-quoted so the shell reads it back as s. Control characters are
// escaped (termtext.Name): the hint must not drive the terminal.
func shellWord(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(termtext.Name(s), "'", `'\''`) + "'"
}
