package cli

import "testing"

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"research":          "research",
		"graphs/x.json":     "graphs/x.json",
		"my dbs/s.db":       "'my dbs/s.db'",
		"it's":              `'it'\''s'`,
		"":                  "''",
		"a$b":               "'a$b'",
		"t\x1b]52;c;x\a":    `'t\x1b]52;c;x\x07'`,
		"postgres://u@h/db": "postgres://u@h/db",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
