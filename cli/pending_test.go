package cli_test

import "testing"

// These need the bbolt store (persist/), which is not merged yet; the
// command line runs on its interim JSON file store until then.
func TestPending_Bbolt(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"bench --saver bbolt --durability sync|async|exit times a run on a temporary bbolt file",
		"a database locked by another superstep process is refused after --timeout with exit 2",
		"check names damaged bbolt pages (exit 1) and a bbolt file of another program is refused as foreign",
		"a run SIGKILLed mid-superstep resumes from its last checkpoint after reopening",
		"export from a bbolt database imports into another and replays clean",
	} {
		t.Run(name, func(t *testing.T) {
			t.Skip("needs the bbolt store (persist/), not merged yet: openStore still opens the interim JSON file store")
		})
	}
}
