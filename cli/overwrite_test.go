package cli_test

import (
	"path/filepath"
	"testing"
)

// TestPush_OverwriteKeepsNewerHistory: a thread pulled, then advanced
// where it came from, is not replaced by push --overwrite of the older
// copy: exit 2 naming what would be lost and the way out; --force
// replaces it. The same for import --overwrite.
func TestPush_OverwriteKeepsNewerHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	server, laptop := filepath.Join(dir, "server.db"), filepath.Join(dir, "laptop.db")
	graph := testdata("approve.json")
	superstep(t, "", "run", graph, "--db", server, "--thread", "t1").want(t, 0, "interrupted")
	superstep(t, "", "pull", "t1", "--from", server, "--db", laptop).want(t, 0, "pulled")
	superstep(t, "", "run", graph, "--db", server, "--thread", "t1", "--resume", "yes").want(t, 0, "done")
	superstep(t, "", "push", "t1", "--db", laptop, "--to", server, "--overwrite").
		want(t, 2, `not replacing thread "t1" in `+server, "checkpoints the import lacks (the newest", "pull it again", "--force")
	superstep(t, "", "history", "t1", "--db", server).want(t, 0, "done")
	superstep(t, "", "push", "t1", "--db", laptop, "--to", server, "--force").want(t, 2, "--force only goes with --overwrite")
	superstep(t, "", "push", "t1", "--db", laptop, "--to", server, "--overwrite", "--force").want(t, 0, "pushed")
}
