package postgres_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// countRows runs a count(*) query; "S." stands for the quoted schema.
func countRows(t *testing.T, schema, query string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	q := pgx.Identifier{schema}.Sanitize() + "."
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+q+query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// writeRows is the number of rows in schema's writes table.
func writeRows(t *testing.T, schema string) int { return countRows(t, schema, "writes") }

// packsWithWrites is the number of packs in schema that hold a task's
// writes (schema 5).
func packsWithWrites(t *testing.T, schema string) int {
	return countRows(t, schema, "blobs WHERE channel = '' AND get_byte(data, 0) = 4")
}

// deferWrites queues a task's writes deferred to the next Put, as the
// engine does for a superstep's last task, and returns their wait.
func deferWrites(t *testing.T, s *postgres.Store, cfg engine.Config, task string, ws []engine.Write) func() error {
	t.Helper()
	var d engine.WriteDeferrer = s
	wait, err := d.DeferWrites(ctx, cfg, task, ws)
	if err != nil {
		t.Fatal(err)
	}
	return wait
}

// deferredStep defers a task's writes at the thread's checkpoint parent
// and puts the next superstep's checkpoint, which commits both, as the
// engine does for a superstep's last task; it returns the checkpoint.
func deferredStep(t *testing.T, s *postgres.Store, th string, parent *engine.Checkpoint, task string, ws []engine.Write) *engine.Checkpoint {
	t.Helper()
	wait := deferWrites(t, s, engine.Config{ThreadID: th, CheckpointID: parent.ID}, task, ws)
	cp := packedThread(t, s, th, parent, 0, 1)[0]
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	return cp
}

// wantWrites checks the pending writes of checkpoint cfg as read by s.
func wantWrites(t *testing.T, s *postgres.Store, cfg engine.Config, want []engine.PendingWrite) {
	t.Helper()
	tup, err := s.GetTuple(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tup == nil {
		t.Fatalf("GetTuple %s: not found", cfg.CheckpointID)
	}
	if !reflect.DeepEqual(tup.PendingWrites, want) {
		t.Fatalf("pending writes of %s: %+v, want %+v", cfg.CheckpointID, tup.PendingWrites, want)
	}
	hist, err := s.List(ctx, engine.Config{ThreadID: cfg.ThreadID}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		if h.Config.CheckpointID == cfg.CheckpointID && !reflect.DeepEqual(h.PendingWrites, want) {
			t.Fatalf("List: pending writes of %s: %+v, want %+v", cfg.CheckpointID, h.PendingWrites, want)
		}
	}
}

// TestStore_TaskWritesInChildPack: the writes a superstep's last task
// defers to the checkpoint's commit are stored in that checkpoint's pack,
// not as rows, and read back as the parent's pending writes by every
// reader (GetTuple, List, a store with nothing cached, Check, Export and
// Import). A slot written again later as a row reads as first stored
// (the pack's); other tasks' writes and special writes are rows beside
// them. A store that did not put the parent itself stores them as rows.
func TestStore_TaskWritesInChildPack(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	schema := s.Schema()
	cps := packedThread(t, s, "t", nil, 0, 2)
	at := engine.Config{ThreadID: "t", CheckpointID: cps[1].ID}
	cps = append(cps, deferredStep(t, s, "t", cps[1], "task-a", []engine.Write{{Channel: "messages", Value: "m"}, {Channel: "step", Value: float64(3)}}))
	if n := writeRows(t, schema); n != 0 {
		t.Fatalf("%d write rows, want none: the writes belong in the child's pack", n)
	}
	if n := packsWithWrites(t, schema); n != 1 {
		t.Fatalf("%d packs with writes, want 1", n)
	}
	a := []engine.PendingWrite{{TaskID: "task-a", Channel: "messages", Value: "m"}, {TaskID: "task-a", Channel: "step", Value: float64(3)}}
	wantWrites(t, s, at, a)

	// Slot 0 again, as a row: the first stored (the pack's) stands. A
	// special write and another task's are rows beside them.
	if err := s.PutWrites(ctx, at, "task-a", []engine.Write{{Channel: "messages", Value: "later"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, at, "task-a", []engine.Write{{Channel: engine.InterruptChannel, Value: "q"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, at, "task-b", []engine.Write{{Channel: "messages", Value: "b"}}); err != nil {
		t.Fatal(err)
	}
	if n := writeRows(t, schema); n != 3 {
		t.Fatalf("%d write rows, want 3", n)
	}
	all := []engine.PendingWrite{{TaskID: "task-a", Channel: engine.InterruptChannel, Value: "q"}, a[0], a[1], {TaskID: "task-b", Channel: "messages", Value: "b"}}
	wantWrites(t, s, at, all)
	r := open(t, u, postgres.Options{}) // nothing cached
	wantWrites(t, r, at, all)
	wantThread(t, r, "t", cps)
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	infos, err := r.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Checkpoints != 3 || infos[0].PendingWrites != 0 || infos[0].LastID != cps[2].ID {
		t.Fatalf("Threads: %+v", infos)
	}

	// Export and Import carry them (as rows in the copy).
	var doc bytes.Buffer
	if err := r.Export(ctx, "t", &doc, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(ctx, &doc, persist.ImportOptions{Thread: "copy"}); err != nil {
		t.Fatal(err)
	}
	wantWrites(t, r, engine.Config{ThreadID: "copy", CheckpointID: cps[1].ID}, all)
	if n := countRows(t, schema, "writes WHERE thread = 'copy'::bytea"); n != 4 {
		t.Fatalf("%d write rows of the imported copy, want 4", n)
	}

	// A store that read the thread rather than put it stores a deferred
	// task's writes as rows: writes of the task may be stored already.
	latest := engine.Config{ThreadID: "t", CheckpointID: cps[2].ID}
	if _, err := r.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil {
		t.Fatal(err)
	}
	cps = append(cps, deferredStep(t, r, "t", cps[2], "task-c", []engine.Write{{Channel: "messages", Value: "c"}}))
	if n := countRows(t, schema, "writes WHERE thread = 't'::bytea AND checkpoint = $1", []byte(cps[2].ID)); n != 1 {
		t.Fatalf("%d write rows at %s, want 1: the store did not put the parent", n, cps[2].ID)
	}
	wantWrites(t, open(t, u, postgres.Options{}), latest, []engine.PendingWrite{{TaskID: "task-c", Channel: "messages", Value: "c"}})
}

// TestStore_TaskWritesNotInPackTwice: a task whose writes at a checkpoint
// the store already stored as rows defers more there: they are rows too
// (the pack's copy must be the first stored of its slots), and the first
// stored stands.
func TestStore_TaskWritesNotInPackTwice(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	cps := packedThread(t, s, "t", nil, 0, 2)
	at := engine.Config{ThreadID: "t", CheckpointID: cps[1].ID}
	if err := s.PutWrites(ctx, at, "task-a", []engine.Write{{Channel: "messages", Value: "first"}}); err != nil {
		t.Fatal(err)
	}
	deferredStep(t, s, "t", cps[1], "task-a", []engine.Write{{Channel: "messages", Value: "second"}})
	if n := packsWithWrites(t, s.Schema()); n != 0 {
		t.Fatalf("%d packs with writes, want none", n)
	}
	wantWrites(t, open(t, u, postgres.Options{}), at, []engine.PendingWrite{{TaskID: "task-a", Channel: "messages", Value: "first"}})
}

// TestStore_ReplacedCheckpointKeepsPackedWrites: a checkpoint whose
// writes a child's pack holds is replaced by one with other versions
// (where a read no longer looks for them in packs): the writes become
// rows in the replacement's transaction and still read back.
func TestStore_ReplacedCheckpointKeepsPackedWrites(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	cps := packedThread(t, s, "t", nil, 0, 2)
	at := engine.Config{ThreadID: "t", CheckpointID: cps[1].ID}
	deferredStep(t, s, "t", cps[1], "task-a", []engine.Write{{Channel: "messages", Value: "m"}})
	if n := packsWithWrites(t, s.Schema()); n != 1 {
		t.Fatalf("%d packs with writes, want 1", n)
	}
	w := open(t, u, postgres.Options{}) // knows nothing: its Put may replace
	putValues(t, w, "t", cps[0].ID, cps[1].ID, map[string]engine.Version{"messages": 20, "step": 20}, map[string]any{"messages": []any{"x"}, "step": float64(20)})
	want := []engine.PendingWrite{{TaskID: "task-a", Channel: "messages", Value: "m"}}
	wantWrites(t, open(t, u, postgres.Options{}), at, want)
	if n := writeRows(t, s.Schema()); n != 1 {
		t.Fatalf("%d write rows after the replacement, want 1", n)
	}
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_Version4Migrated: a database of schema version 4 with rows
// (packs without writes, task writes as rows) is migrated to 5 on the
// next Open; every checkpoint reads back exactly as before it, pending
// writes included, and the thread goes on with writes in packs.
func TestStore_Version4Migrated(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	a := open(t, u, postgres.Options{})
	schema := a.Schema()
	q := pgx.Identifier{schema}.Sanitize()
	old := packedThread(t, a, "t", nil, 0, 3)
	// Schema 4 stored every task write as a row: PutWrites, not
	// deferred, writes rows in this version too.
	for i, cp := range old {
		cfg := engine.Config{ThreadID: "t", CheckpointID: cp.ID}
		if err := a.PutWrites(ctx, cfg, "task", []engine.Write{{Channel: "messages", Value: float64(i)}, {Channel: engine.InterruptChannel, Value: "q"}}); err != nil {
			t.Fatal(err)
		}
	}
	old = append(old, packedThread(t, a, "t", old[len(old)-1], 0, 3)...)
	before, err := a.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if n := packsWithWrites(t, schema); n != 0 {
		t.Fatalf("%d packs with writes before the migration, want none (schema 4's rows)", n)
	}
	if n := writeRows(t, schema); n != 6 {
		t.Fatalf("%d write rows before the migration, want 6", n)
	}
	adminExec(t, "COMMENT ON TABLE "+q+".blobs IS 'channel values by (thread, ns, channel, version, hash); the rows of channel '''' are packs: the small values of one version (superstep schema 4)'",
		"DELETE FROM "+q+".schema_version WHERE version > 4")

	ro := open(t, u, postgres.Options{ReadOnly: true}) // reads version 4 as it is
	wantList(t, ro, "t", before)
	b := open(t, u, postgres.Options{})
	var version int
	var comment string
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT (SELECT max(version) FROM "+q+".schema_version), obj_description(($1 || '.blobs')::regclass, 'pg_class')", q).Scan(&version, &comment); err != nil {
		t.Fatal(err)
	}
	if version != postgres.SchemaVersion || !bytes.Contains([]byte(comment), []byte("schema 5")) {
		t.Fatalf("after Open: version %d, comment %q; want %d and schema 5's comment", version, comment, postgres.SchemaVersion)
	}
	wantList(t, b, "t", before)
	last := old[len(old)-1]
	at := engine.Config{ThreadID: "t", CheckpointID: last.ID}
	more := []*engine.Checkpoint{deferredStep(t, b, "t", last, "task-d", []engine.Write{{Channel: "messages", Value: "d"}})} // b read last back: rows
	at2 := engine.Config{ThreadID: "t", CheckpointID: more[0].ID}
	more = append(more, deferredStep(t, b, "t", more[0], "task-e", []engine.Write{{Channel: "messages", Value: "e"}})) // b put more[0]: a pack
	if n := packsWithWrites(t, schema); n != 1 {
		t.Fatalf("%d packs with writes after the migration, want 1", n)
	}
	c := open(t, u, postgres.Options{}) // nothing cached
	wantList(t, c, "t", before[1:])     // before[0], last, has task-d's now
	wantThread(t, c, "t", append(old, more...))
	wantWrites(t, c, at, []engine.PendingWrite{{TaskID: "task-d", Channel: "messages", Value: "d"}})
	wantWrites(t, c, at2, []engine.PendingWrite{{TaskID: "task-e", Channel: "messages", Value: "e"}})
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

// wantList checks that the checkpoints of before read back through s as
// they did (List: records, values and pending writes).
func wantList(t *testing.T, s *postgres.Store, th string, before []*engine.CheckpointTuple) {
	t.Helper()
	byID := map[string]*engine.CheckpointTuple{}
	hist, err := s.List(ctx, engine.Config{ThreadID: th}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		byID[h.Config.CheckpointID] = h
	}
	for _, want := range before {
		got := byID[want.Config.CheckpointID]
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s reads back as\n%+v\nwant\n%+v", want.Config.CheckpointID, got, want)
		}
	}
}

// TestStore_EngineRunWritesInPacks: a graph run by the engine under sync
// durability stores its supersteps' task writes in the packs of the
// checkpoints that follow (all but the first superstep's: the thread's
// first checkpoint may replace a stored one), and its history reads
// back with every checkpoint's pending writes as MemorySaver keeps them.
func TestStore_EngineRunWritesInPacks(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	g, err := loopGraph(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	m := engine.NewMemorySaver()
	mg, err := loopGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mg.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if n := packsWithWrites(t, s.Schema()); n < loopSteps-2 {
		t.Fatalf("%d packs with writes for %d supersteps, want nearly one each", n, loopSteps)
	}
	want, err := m.List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := open(t, u, postgres.Options{}).List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d checkpoints, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := writesOf(got[i]), writesOf(want[i]); !reflect.DeepEqual(g, w) {
			t.Errorf("checkpoint %d (step %d): pending writes %v, want %v", i, want[i].Metadata.Step, g, w)
		}
	}
}

// writesOf is a tuple's pending writes without task ids (they hash the
// checkpoint id, which differs between two runs).
func writesOf(t *engine.CheckpointTuple) []string {
	var out []string
	for _, w := range t.PendingWrites {
		out = append(out, fmt.Sprintf("%s=%v", w.Channel, w.Value))
	}
	return out
}

// TestStore_LargeTaskWritesAreRows: a deferred task's writes larger than a
// pack holds are stored as rows, and read back.
func TestStore_LargeTaskWritesAreRows(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{})
	cps := packedThread(t, s, "t", nil, 0, 2)
	at := engine.Config{ThreadID: "t", CheckpointID: cps[1].ID}
	big := string(bytes.Repeat([]byte("x"), 2000))
	deferredStep(t, s, "t", cps[1], "task-a", []engine.Write{{Channel: "messages", Value: big}})
	if n := packsWithWrites(t, s.Schema()); n != 0 {
		t.Fatalf("%d packs with writes, want none", n)
	}
	wantWrites(t, open(t, u, postgres.Options{}), at, []engine.PendingWrite{{TaskID: "task-a", Channel: "messages", Value: big}})
}
