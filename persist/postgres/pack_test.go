package postgres_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// packRows is the number of pack rows (the empty channel) in schema.
func packRows(t *testing.T, schema string) int {
	return countRows(t, schema, "blobs WHERE channel = ''")
}

// packedThread puts n supersteps of a chat thread on th after parent:
// from the step'th on, each appends a message and sets "step" at one
// version, as the engine does (their values share a pack); before, a
// superstep appends the message alone (one value: no pack, the rows
// schema 3 stored). It returns the checkpoints put.
func packedThread(t *testing.T, s *postgres.Store, th string, parent *engine.Checkpoint, from, n int) []*engine.Checkpoint {
	t.Helper()
	var msgs []any
	vers := map[string]engine.Version{}
	vals := map[string]any{}
	start := 1
	if parent != nil {
		msgs = parent.ChannelValues["messages"].([]any)
		vers = parent.ChannelVersions
		vals = parent.ChannelValues
		start = int(vers["messages"]) + 1
	}
	var out []*engine.Checkpoint
	for i := start; i < start+n; i++ {
		v := engine.Version(i)
		msgs = append(msgs[:len(msgs):len(msgs)], map[string]any{"role": "ai", "content": fmt.Sprintf("message %d", i)})
		nv := map[string]engine.Version{"messages": v}
		nvals := map[string]any{"messages": msgs}
		if st, ok := vers["step"]; ok {
			nv["step"], nvals["step"] = st, vals["step"]
		}
		if i >= from {
			nv["step"], nvals["step"] = v, float64(i)
		}
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: fmt.Sprintf("%08d", i), TS: time.Unix(int64(i), 0).UTC(),
			ChannelValues: nvals, ChannelVersions: nv, VersionsSeen: map[string]map[string]engine.Version{}}
		if parent != nil {
			cp.Appends = map[string]engine.ListAppend{"messages": {From: parent.ChannelVersions["messages"], Len: len(msgs) - 1}}
		}
		cfg := engine.Config{ThreadID: th}
		if parent != nil {
			cfg.CheckpointID = parent.ID
		}
		if _, err := s.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceLoop, Step: i}, nil); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
		out = append(out, cp)
		parent, vers, vals = cp, nv, nvals
	}
	return out
}

// wantThread checks that every checkpoint of cps reads back through s.
func wantThread(t *testing.T, s *postgres.Store, th string, cps []*engine.Checkpoint) {
	t.Helper()
	hist, err := s.List(ctx, engine.Config{ThreadID: th}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != len(cps) {
		t.Fatalf("%s: %d checkpoints, want %d", th, len(hist), len(cps))
	}
	for i, tup := range hist {
		want := cps[len(cps)-1-i]
		if tup.Checkpoint.ID != want.ID || !reflect.DeepEqual(tup.Checkpoint.ChannelValues, engine.Normalize(want.ChannelValues)) ||
			!reflect.DeepEqual(tup.Checkpoint.ChannelVersions, want.ChannelVersions) {
			t.Fatalf("%s: checkpoint %s reads back %v at %v, want %v at %v", th, want.ID,
				tup.Checkpoint.ChannelValues, tup.Checkpoint.ChannelVersions, want.ChannelValues, want.ChannelVersions)
		}
	}
}

// version3Thread makes a database of schema version 3 holding thread "t"
// of n supersteps stored as schema 3 stored them (one value each: no
// packs), and returns its URL, its schema and the checkpoints.
func version3Thread(t *testing.T, n int) (u, schema string, cps []*engine.Checkpoint) {
	t.Helper()
	u = schemaURL(t)
	a := open(t, u, postgres.Options{})
	schema = a.Schema()
	q := pgx.Identifier{schema}.Sanitize()
	cps = packedThread(t, a, "t", nil, 1<<30, n)
	a.Close()
	if n := packRows(t, schema); n != 0 {
		t.Fatalf("%d pack rows before the migration, want none (the rows schema 3 stored)", n)
	}
	adminExec(t, "COMMENT ON TABLE "+q+".blobs IS NULL", "DELETE FROM "+q+".schema_version WHERE version > 3")
	return u, schema, cps
}

// TestStore_PacksMigratedFromVersion3: a database of schema version 3,
// with rows, is migrated to 4 on the next Open; its checkpoints read back
// as before, and a list stored in single rows goes on growing in packs
// (a chain of both kinds).
func TestStore_PacksMigratedFromVersion3(t *testing.T) {
	t.Parallel()
	u, schema, old := version3Thread(t, 40)
	q := pgx.Identifier{schema}.Sanitize()

	b := open(t, u, postgres.Options{})
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var version int
	var comment *string
	if err := conn.QueryRow(ctx, "SELECT (SELECT max(version) FROM "+q+".schema_version), obj_description(($1 || '.blobs')::regclass, 'pg_class')", q).Scan(&version, &comment); err != nil {
		t.Fatal(err)
	}
	if version != postgres.SchemaVersion || comment == nil {
		t.Fatalf("after Open: version %d, comment %v; want %d and the comment", version, comment, postgres.SchemaVersion)
	}
	wantThread(t, b, "t", old)
	more := packedThread(t, b, "t", old[len(old)-1], 0, 40)
	fresh := packedThread(t, b, "n", nil, 0, 40)
	// One per superstep but those that copy the whole list again: a copy
	// over packMax bytes is a row of its own, and "step" then too.
	if n := packRows(t, schema); n < 70 {
		t.Fatalf("%d pack rows after the migration for 80 supersteps, want nearly one each", n)
	}
	c := open(t, u, postgres.Options{}) // nothing cached
	wantThread(t, c, "t", append(old, more...))
	wantThread(t, c, "n", fresh)
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_DamagedPack: a pack that does not decode is reported as
// damage, by a read and by Check, not misread.
func TestStore_DamagedPack(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	cps := packedThread(t, s, "t", nil, 0, 3)
	q := pgx.Identifier{s.Schema()}.Sanitize()
	s.Close()
	adminExec(t, "UPDATE "+q+".blobs SET data = substr(data, 1, length(data) - 3) WHERE channel = '' AND version = 2")
	r := open(t, u, postgres.Options{})
	if _, err := r.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: cps[1].ID}); !errors.Is(err, persist.ErrCorrupt) {
		t.Errorf("GetTuple of a damaged pack: %v, want ErrCorrupt", err)
	}
	if err := r.Check(); !errors.Is(err, persist.ErrCorrupt) {
		t.Errorf("Check: %v, want ErrCorrupt", err)
	}
}

// TestOpen_ReadOnlyReadsOlderSchema: a read-only store (the debugger,
// pull, check after a binary upgrade) reads a database of schema version
// 3 as it is, and leaves it at 3 for the first writer to migrate.
func TestOpen_ReadOnlyReadsOlderSchema(t *testing.T) {
	t.Parallel()
	u, schema, old := version3Thread(t, 10)
	q := pgx.Identifier{schema}.Sanitize()

	ro := open(t, u, postgres.Options{ReadOnly: true})
	wantThread(t, ro, "t", old)
	ro.Close()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var version int
	if err := conn.QueryRow(ctx, "SELECT max(version) FROM "+q+".schema_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != 3 {
		t.Fatalf("after a read-only open: schema version %d, want 3 (unmigrated)", version)
	}
}

// TestLoad_NewerSchemaSinceOpenIsNotDamage: a store that opened before
// another process migrated the database to a schema it does not know
// reads rows it cannot find as that newer schema (ErrNewerSchema, which
// says to upgrade), not as damage; with the schema unchanged, the same
// missing row is damage.
func TestLoad_NewerSchemaSinceOpenIsNotDamage(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{})
	schema := a.Schema()
	q := pgx.Identifier{schema}.Sanitize()
	packedThread(t, a, "t", nil, 0, 5)
	a.Close()
	b := open(t, u, postgres.Options{}) // nothing cached
	defer b.Close()
	adminExec(t, "DELETE FROM "+q+".blobs")
	if _, err := b.GetTuple(ctx, engine.Config{ThreadID: "t"}); !errors.Is(err, persist.ErrCorrupt) {
		t.Fatalf("GetTuple with its values gone: %v, want ErrCorrupt", err)
	}
	adminExec(t, fmt.Sprintf("INSERT INTO %s.schema_version (version) VALUES (%d)", q, postgres.SchemaVersion+1))
	_, err := b.GetTuple(ctx, engine.Config{ThreadID: "t"})
	var se *postgres.SchemaError
	if !errors.Is(err, postgres.ErrNewerSchema) || !errors.As(err, &se) || se.Found != postgres.SchemaVersion+1 {
		t.Fatalf("GetTuple after a newer schema was applied: %v, want a *SchemaError at version %d", err, postgres.SchemaVersion+1)
	}
}

// TestCheck_ValueChangedInPlace: a value row whose bytes were changed but
// still decode (one character of a string) is found by Check by its hash,
// in a row of its own and in a pack, naming the thread and version.
func TestCheck_ValueChangedInPlace(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	q := pgx.Identifier{s.Schema()}.Sanitize()
	putValues(t, s, "alone", "", "01", map[string]engine.Version{"a": 1}, map[string]any{"a": "a1"})
	putValues(t, s, "packed", "", "01", map[string]engine.Version{"a": 1, "b": 1}, map[string]any{"a": "a1", "b": "b1"})
	if err := s.Check(); err != nil {
		t.Fatalf("Check before the change: %v", err)
	}
	s.Close()
	// "a1" becomes "aZ": the same length, still a string.
	adminExec(t, "UPDATE "+q+".blobs SET data = overlay(data placing 'Z'::bytea from position('a1'::bytea in data) + 1 for 1) WHERE position('a1'::bytea in data) > 0")
	r := open(t, u, postgres.Options{})
	err := r.Check()
	if !errors.Is(err, persist.ErrCorrupt) {
		t.Fatalf("Check after the change: %v, want ErrCorrupt", err)
	}
	for _, want := range []string{`thread "alone": value of "a" at version 1 fails its hash`, `thread "packed": pack at version 1 fails its hash`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v\nwant it to say %s", err, want)
		}
	}
}
