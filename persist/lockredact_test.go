package persist

import (
	"slices"
	"testing"
)

// TestRedactArgs: the command line a lock file records, which a refused
// process prints, keeps what the command was and leaves out its secrets:
// a header's value, a token or password flag's (as the next argument or
// after =), a URL's password and its secret query values.
func TestRedactArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{
			[]string{"superstep", "pull", "t1", "--from", "https://svc/debug", "--header", "Authorization: Bearer s3cret", "--db", "bug.db"},
			[]string{"superstep", "pull", "t1", "--from", "https://svc/debug", "--header", "Authorization: xxxxx", "--db", "bug.db"},
		},
		{
			[]string{"opsagent", "--token", "s3cret", "--api-key=k3y", "--listen", ":8080"},
			[]string{"opsagent", "--token", "xxxxx", "--api-key=xxxxx", "--listen", ":8080"},
		},
		{
			[]string{"superstep", "push", "t1", "--to", "postgres://me:hunter2@db.internal/agents?sslmode=require"},
			[]string{"superstep", "push", "t1", "--to", "postgres://me:xxxxx@db.internal/agents?sslmode=require"},
		},
		{
			[]string{"superstep", "threads", "--from", "https://svc/x?token=abc&limit=3"},
			[]string{"superstep", "threads", "--from", "https://svc/x?limit=3&token=xxxxx"},
		},
		{
			[]string{"superstep", "run", "research", "--thread", "t-1", "--input", `{"q":"why?"}`},
			[]string{"superstep", "run", "research", "--thread", "t-1", "--input", `{"q":"why?"}`},
		},
	} {
		if got := redactArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("redactArgs(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
