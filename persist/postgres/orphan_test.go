package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// exporter is what both stores export and import with.
type exporter interface {
	engine.Saver
	Export(ctx context.Context, thread string, w io.Writer, fingerprint string) error
	Import(ctx context.Context, r io.Reader, o persist.ImportOptions) (string, error)
}

// adoptSeven puts checkpoint 7, a child of 3, and returns its tuple with
// the writes saved against it before it was stored.
func adoptSeven(t testing.TB, s engine.Saver, th string) *engine.CheckpointTuple {
	t.Helper()
	seven, three := fmt.Sprintf("%032x", 7), fmt.Sprintf("%032x", 3)
	cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: seven, TS: time.Date(2025, 5, 2, 0, 0, 0, 0, time.UTC), ChannelValues: map[string]any{"x": 9.0}, ChannelVersions: map[string]engine.Version{"x": 9}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointID: three}, cp, engine.Metadata{Source: engine.SourceLoop, Step: 9, Parents: map[string]string{}}, nil); err != nil {
		t.Fatal(err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: th, CheckpointID: seven})
	if err != nil || tup == nil {
		t.Fatalf("GetTuple after Put: %v, %v", tup, err)
	}
	tup.Config.ThreadID, tup.Checkpoint.TS = "", tup.Checkpoint.TS.UTC()
	return tup
}

func exportOf(t testing.TB, s exporter, th string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Export(ctx, th, &buf, ""); err != nil {
		t.Fatalf("Export %q: %v", th, err)
	}
	return buf.Bytes()
}

// TestExportImport_MissingParentAndOrphanWrites: PostgreSQL exports a
// thread with a checkpoint whose parent is not stored and writes against
// ids that are not stored as the bbolt store does, byte for byte; each
// store imports the other's export, also under another id (copy), and
// exports it again unchanged; and the writes came along: a later Put of
// their id adopts them.
func TestExportImport_MissingParentAndOrphanWrites(t *testing.T) {
	t.Parallel()
	pg := open(t, schemaURL(t), postgres.Options{})
	bb, err := persist.Open(filepath.Join(t.TempDir(), "b.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bb.Close() })
	enginetest.OrphanThread(t, pg, "orphan")
	enginetest.OrphanThread(t, bb, "orphan")
	want := exportOf(t, bb, "orphan")
	if !bytes.Contains(want, []byte(`"orphan_writes"`)) || !bytes.Contains(want, []byte(`"parent_missing":true`)) {
		t.Fatalf("bbolt export carries no orphan writes or parent_missing mark:\n%s", want)
	}
	if got := exportOf(t, pg, "orphan"); !bytes.Equal(got, want) {
		t.Fatalf("PostgreSQL export differs from bbolt's:\n%s\n---\n%s", got, want)
	}
	// The stores' exports are the same document under a thread id: import
	// each into the other, and into itself under another id.
	for _, c := range []struct {
		name     string
		to       exporter
		asThread string
	}{{"bbolt into postgres", pg, "from-bbolt"}, {"postgres copy", pg, "o2"}, {"postgres into bbolt", bb, "from-pg"}} {
		if _, err := c.to.Import(ctx, bytes.NewReader(want), persist.ImportOptions{Thread: c.asThread}); err != nil {
			t.Fatalf("%s: Import: %v", c.name, err)
		}
		got := exportOf(t, c.to, c.asThread)
		if !bytes.Equal(bytes.Replace(got, []byte(`"thread":"`+c.asThread+`"`), []byte(`"thread":"orphan"`), 1), want) {
			t.Errorf("%s: export after import differs:\n%s\n---\n%s", c.name, got, want)
		}
	}
	wantTup := adoptSeven(t, bb, "orphan")
	if n := len(wantTup.PendingWrites); n != 4 {
		t.Fatalf("bbolt: checkpoint 7 adopted %d writes, want 4", n)
	}
	for _, th := range []string{"orphan", "from-bbolt", "o2"} {
		if got := adoptSeven(t, pg, th); !reflect.DeepEqual(got, wantTup) {
			t.Errorf("postgres %s: adopted\n%+v\nwant\n%+v", th, got, wantTup)
		}
	}
}
