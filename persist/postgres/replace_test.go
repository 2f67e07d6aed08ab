package postgres_test

import (
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// TestStore_Replace_ChildBeforeParent: a child whose id sorts before its
// parent's (its writer's clock was behind) is stored as a delta of the
// parent; replacing the parent must still find it and keep what was put
// for it, on a new schema and on one migrated from version 2, which
// indexed every checkpoint's parent.
func TestStore_Replace_ChildBeforeParent(t *testing.T) {
	for _, migrated := range []bool{false, true} {
		name := map[bool]string{false: "new schema", true: "migrated from version 2"}[migrated]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u := schemaURL(t)
			cp := func(id string, vals map[string]any, vers map[string]engine.Version) *engine.Checkpoint {
				return &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, ChannelValues: vals, ChannelVersions: vers,
					VersionsSeen: map[string]map[string]engine.Version{}}
			}
			parent := cp("05", map[string]any{"a": "kept", "n": 1.0}, map[string]engine.Version{"a": 1, "n": 1})
			early := cp("03", map[string]any{"a": "kept", "n": 2.0}, map[string]engine.Version{"a": 1, "n": 2})
			later := cp("07", map[string]any{"a": "kept", "n": 3.0}, map[string]engine.Version{"a": 1, "n": 3})
			replaced := cp("05", map[string]any{"a": "new", "n": 9.0}, map[string]engine.Version{"a": 7, "n": 7})
			md := engine.Metadata{Source: engine.SourceLoop}
			put := func(s *postgres.Store, parentID string, c *engine.Checkpoint) {
				t.Helper()
				if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: parentID}, c, md, nil); err != nil {
					t.Fatalf("Put %s: %v", c.ID, err)
				}
			}
			a := open(t, u, postgres.Options{})
			put(a, "", parent)
			put(a, "05", early)
			put(a, "03", later)
			schema := pgx.Identifier{a.Schema()}.Sanitize()
			a.Close()
			if migrated {
				// Back to version 2's shape, rows included.
				adminExec(t, "DROP INDEX "+schema+".checkpoints_early_child",
					"CREATE INDEX checkpoints_parent ON "+schema+".checkpoints (thread, ns, parent)",
					"DELETE FROM "+schema+".schema_version WHERE version > 2")
			}
			b := open(t, u, postgres.Options{})
			if migrated {
				checkIndexes(t, schema, []string{"checkpoints_early_child", "checkpoints_pkey"})
			}
			put(b, "", replaced)
			for _, want := range []*engine.Checkpoint{replaced, early, later} {
				tup, err := b.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: want.ID})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(tup.Checkpoint.ChannelValues, engine.Normalize(want.ChannelValues)) {
					t.Errorf("checkpoint %s reads back %v, want %v", want.ID, tup.Checkpoint.ChannelValues, want.ChannelValues)
				}
			}
			if err := b.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkIndexes checks the indexes of schema's checkpoints table, in name
// order.
func checkIndexes(t *testing.T, schema string, want []string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT c.relname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = ($1 || '.checkpoints')::regclass ORDER BY 1`, schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checkpoints indexes: %v, want %v", got, want)
	}
}
