package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestCopy_MissingParentAndOrphanWrites: a thread a program wrote through
// engine.Saver, with a checkpoint whose parent was never stored and writes
// against an id that was never stored, passes check, and export, import
// into another database and copy all move it whole: the export of each
// result is the original's.
func TestCopy_MissingParentAndOrphanWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	st, err := persist.Open(db, persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := func(n string) string { return "18ed5db7-0000-0000-0000-00000000000" + n }
	for _, p := range []struct{ parent, id string }{{"", id("1")}, {"18ed5db7-ffff-ffff-ffff-000000000999", id("2")}, {id("2"), id("3")}} {
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: p.id, ChannelValues: map[string]any{"x": p.id}, ChannelVersions: map[string]engine.Version{"x": engine.Version(len(p.parent))}}
		if _, err := st.Put(ctx, engine.Config{ThreadID: "orphan", CheckpointID: p.parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutWrites(ctx, engine.Config{ThreadID: "orphan", CheckpointID: id("7")}, "task-z", []engine.Write{{Channel: "x", Value: 42.0}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	superstep(t, "", "check", "--db", db).want(t, 0, "ok")
	r := superstep(t, "", "export", "orphan", "--db", db)
	r.want(t, 0, `"parent_missing":true`, `"orphan_writes"`, id("7"))
	doc := r.stdout
	file := filepath.Join(dir, "x.json")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "b.db")
	superstep(t, "", "import", file, "--db", other).want(t, 0, "imported thread orphan")
	superstep(t, "", "copy", "orphan", "o2", "--db", db).want(t, 0, "copied thread orphan to o2")
	if got := superstep(t, "", "export", "orphan", "--db", other).stdout; got != doc {
		t.Errorf("export of the import differs:\n%s\n---\n%s", got, doc)
	}
	if got := superstep(t, "", "export", "o2", "--db", db).stdout; strings.Replace(got, `"thread":"o2"`, `"thread":"orphan"`, 1) != doc {
		t.Errorf("export of the copy differs:\n%s\n---\n%s", got, doc)
	}
	superstep(t, "", "history", "o2", "--db", db).want(t, 0, engine.ShortID(id("2")))
	superstep(t, "", "check", "--db", other).want(t, 0, "ok")
}
