package cli_test

import (
	"path/filepath"
	"testing"
)

// TestUnreachableServer_ExitsTwo: a PostgreSQL server that does not answer
// is exit 2 for every command, as a database another process holds is:
// nothing ran, and exit 1 would read as a run that failed, a replay that
// diverged or a check that found damage.
func TestUnreachableServer_ExitsTwo(t *testing.T) {
	t.Parallel()
	down := "postgres://me@127.0.0.1:1/agents?sslmode=disable"
	dir := t.TempDir()
	local := filepath.Join(dir, "local.db")
	superstep(t, "", "run", "linear", "--thread", "p1", "--db", local).want(t, 0)
	for _, args := range [][]string{
		{"threads"},
		{"history", "t-42"},
		{"show", "t-42"},
		{"diff", "t-42", "a", "b"},
		{"export", "t-42"},
		{"check"},
		{"run", "linear", "--thread", "t-42"},
		{"tui", "linear", "--thread", "t-42"},
		{"replay", "t-42"},
		{"exec", "t-42", "a"},
		{"update", "t-42", "--values", "{}"},
		{"copy", "t-42", "t-43"},
		{"delete", "t-42"},
	} {
		superstep(t, "", append(args, "--db", down)...).want(t, 2, "nothing listens at 127.0.0.1:1")
	}
	superstep(t, "", "pull", "t-42", "--from", down, "--db", local).want(t, 2, "nothing listens at 127.0.0.1:1")
	superstep(t, "", "push", "p1", "--to", down, "--db", local).want(t, 2, "nothing listens at 127.0.0.1:1")
}
