package cli

import "testing"

// TestDisplayDB_MasksSecrets: a database or service URL in a message
// keeps where it is and masks what would let someone in: the password,
// and query values such as a token or a signature.
func TestDisplayDB_MasksSecrets(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://me:hunter2@db.internal/agents?sslmode=require": "postgres://me:xxxxx@db.internal/agents?sslmode=require",
		"postgres://db/agents?password=hunter2&sslpassword=x":      "postgres://db/agents?password=xxxxx&sslpassword=xxxxx",
		"https://svc/debug/checkpoints?token=abc&limit=3":          "https://svc/debug/checkpoints?token=xxxxx&limit=3",
		"./bug.db": "./bug.db",
	} {
		if got := displayDB(in); got != want {
			t.Errorf("displayDB(%q) = %q, want %q", in, got, want)
		}
	}
}
