package persist_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// A store holds what engine.Saver's contract lets a caller write, as
// LangGraph's checkpointers do: a checkpoint whose parent id is not stored
// (its parent was deleted, or a program wrote it so), and writes against a
// checkpoint id that is not stored (MemorySaver keeps them as orphans, and
// a later Put of that id adopts them). Export, Import and so copy must
// carry both as they are.

// adopt puts the checkpoints enginetest.OrphanThread wrote writes against
// (7, a child of 3, and 8) and returns their tuples, with the writes they
// adopted.
func adopt(t testing.TB, s engine.Saver, th string) []*engine.CheckpointTuple {
	t.Helper()
	var out []*engine.CheckpointTuple
	for _, c := range []struct {
		ns, parent, id string
	}{{"", id(3), id(7)}, {"other:t2", "", id(8)}} {
		cfg := engine.Config{ThreadID: th, CheckpointNS: c.ns, CheckpointID: c.parent}
		cp := &engine.Checkpoint{V: 4, ID: c.id, ChannelValues: map[string]any{"x": 9.0}, ChannelVersions: map[string]engine.Version{"x": 9}}
		if _, err := s.Put(ctx, cfg, cp, engine.Metadata{Source: engine.SourceLoop, Step: 9, Parents: map[string]string{}}, nil); err != nil {
			t.Fatal(err)
		}
		cfg.CheckpointID = c.id
		tup, err := s.GetTuple(ctx, cfg)
		if err != nil || tup == nil {
			t.Fatalf("GetTuple(%s) after Put: %v, %v", c.id, tup, err)
		}
		tup.Config.ThreadID, tup.Checkpoint.TS = "", tup.Checkpoint.TS.UTC()
		out = append(out, tup)
	}
	return out
}

// withoutThread is tups with the thread id cleared, to compare a thread
// with its copy under another id.
func withoutThread(tups []*engine.CheckpointTuple) []*engine.CheckpointTuple {
	for _, tp := range tups {
		tp.Config.ThreadID = ""
	}
	return tups
}

// TestExportImport_MissingParentAndOrphanWrites: a thread with a
// checkpoint whose parent is not stored and writes against ids that are
// not stored exports, imports into another file and under another id
// (copy), as it is: the same checkpoints with the same parents, the same
// writes, which a later Put of their id adopts as in the original, and
// export → import → export is the same document.
func TestExportImport_MissingParentAndOrphanWrites(t *testing.T) {
	src := openTemp(t, persist.Options{NoSync: true})
	enginetest.OrphanThread(t, src, "orphan")
	if err := src.Check(); err != nil {
		t.Fatalf("Check of a thread with a missing parent: %v", err)
	}
	data := export(t, src, "orphan")

	dst := openTemp(t, persist.Options{NoSync: true})
	if th, err := dst.Import(ctx, bytes.NewReader(data), persist.ImportOptions{}); err != nil || th != "orphan" {
		t.Fatalf("Import = %q, %v", th, err)
	}
	if th, err := src.Import(ctx, bytes.NewReader(data), persist.ImportOptions{Thread: "o2"}); err != nil || th != "o2" {
		t.Fatalf("Import under a new id (copy) = %q, %v", th, err)
	}
	want := withoutThread(listAll(t, src, "orphan"))
	if len(want) != 4 {
		t.Fatalf("source has %d checkpoints, want 4", len(want))
	}
	for name, got := range map[string][]*engine.CheckpointTuple{
		"import": withoutThread(listAll(t, dst, "orphan")),
		"copy":   withoutThread(listAll(t, src, "o2")),
	} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s differs from the source:\n got %+v\nwant %+v", name, got, want)
		}
	}
	for _, tp := range want {
		if tp.Checkpoint.ID == id(2) && tp.ParentID != enginetest.OrphanMissingParent {
			t.Errorf("checkpoint 2's parent is %q, want %q as stored", tp.ParentID, enginetest.OrphanMissingParent)
		}
	}
	if again := export(t, dst, "orphan"); !bytes.Equal(again, data) {
		t.Errorf("export of the imported thread differs from the original export:\n%s\n---\n%s", again, data)
	}
	checkRewrite(t, data)
	for _, s := range []*persist.Store{src, dst} {
		if err := s.Check(); err != nil {
			t.Errorf("Check after import: %v", err)
		}
	}

	// The writes came along: a Put of their checkpoint adopts them in the
	// copies as in the original.
	wantAdopted := adopt(t, src, "orphan")
	if n := len(wantAdopted[0].PendingWrites); n != 4 {
		t.Fatalf("checkpoint 7 adopted %d writes in the source, want 4: %+v", n, wantAdopted[0].PendingWrites)
	}
	for name, got := range map[string][]*engine.CheckpointTuple{"import": adopt(t, dst, "orphan"), "copy": adopt(t, src, "o2")} {
		if !reflect.DeepEqual(got, wantAdopted) {
			t.Errorf("%s: adopted writes differ:\n got %+v\nwant %+v", name, got, wantAdopted)
		}
	}
}

// TestImport_MissingParentRules: the export says which checkpoints have a
// parent the thread does not hold, so that a checkpoint whose parent line
// was lost or mistyped is still refused rather than imported with a part
// of its state; and writes apart from a checkpoint are only for ids the
// export does not hold.
func TestImport_MissingParentRules(t *testing.T) {
	src := openTemp(t, persist.Options{NoSync: true})
	enginetest.OrphanThread(t, src, "t")
	good := export(t, src, "t")
	edit := func(fn func(doc map[string]any)) []byte { return editedExport(t, good, fn) }
	cp := func(doc map[string]any, n int) map[string]any { return doc["checkpoints"].([]any)[n].(map[string]any) }
	orphans := func(doc map[string]any) []any { return doc["orphan_writes"].([]any) }
	orphan := func(doc map[string]any, n int) map[string]any { return orphans(doc)[n].(map[string]any) }
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"parent line lost": {edit(func(d map[string]any) {
			cs := d["checkpoints"].([]any)
			d["checkpoints"] = append(cs[:1:1], cs[2:]...) // checkpoint 2
		}), `parent "` + id(2) + `" is not in the export`},
		"unmarked missing parent": {edit(func(d map[string]any) { delete(cp(d, 1), "parent_missing") }), "is not in the export"},
		"marked parent present":   {edit(func(d map[string]any) { cp(d, 1)["parent"] = id(1) }), "is in the export"},
		"marked without parent":   {edit(func(d map[string]any) { cp(d, 1)["parent"] = "" }), "has no parent"},
		"marked appends": {edit(func(d map[string]any) {
			cp(d, 1)["appended"] = map[string]any{"messages": []any{"b"}}
			delete(cp(d, 1)["values"].(map[string]any), "messages")
		}), "not in the export"},
		"orphan at a checkpoint": {edit(func(d map[string]any) { orphan(d, 0)["checkpoint"] = id(3) }), "holds that checkpoint"},
		"orphan twice":           {edit(func(d map[string]any) { d["orphan_writes"] = append(orphans(d), orphan(d, 0)) }), "twice"},
		"orphan no writes":       {edit(func(d map[string]any) { orphan(d, 0)["writes"] = []any{} }), "no writes"},
		"orphan no id":           {edit(func(d map[string]any) { orphan(d, 0)["checkpoint"] = "" }), "checkpoint id"},
		"orphan bad slot":        {edit(func(d map[string]any) { lastWrite(orphan(d, 0))["slot"] = -7 }), "slot"},
	} {
		_, err := src.Import(ctx, bytes.NewReader(c.data), persist.ImportOptions{Thread: "x"})
		if !errors.Is(err, persist.ErrBadImport) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Import: %v, want ErrBadImport saying %q", name, err, c.want)
		}
	}
	if got := listAll(t, src, "x"); len(got) != 0 {
		t.Errorf("refused imports stored %d checkpoints", len(got))
	}
}

// TestExport_OrphansOnLayout2: a layout 2 file (a bucket per kind of
// record) exports the same thread as the same document.
func TestExport_OrphansOnLayout2(t *testing.T) {
	s3 := openTemp(t, persist.Options{NoSync: true})
	enginetest.OrphanThread(t, s3, "orphan")
	want := export(t, s3, "orphan")
	if !bytes.Contains(want, []byte(`"orphan_writes"`)) || !bytes.Contains(want, []byte(`"parent_missing":true`)) {
		t.Fatalf("export carries no orphan writes or no parent_missing mark:\n%s", want)
	}
	s2 := openAt(t, copyLayout2(t), persist.Options{NoSync: true})
	enginetest.OrphanThread(t, s2, "orphan")
	if got := export(t, s2, "orphan"); !bytes.Equal(got, want) {
		t.Errorf("layout 2 export differs from layout 3's:\n%s\n---\n%s", got, want)
	}
}

// TestImport_V1MissingParent: a version 1 checkpoint carries its whole
// state, so one whose parent is not in the document loses nothing: it is
// imported with that parent id.
func TestImport_V1MissingParent(t *testing.T) {
	doc := `{"format":"superstep-thread","version":1,"thread":"t","fingerprint":"","checkpoints":[` +
		`{"ns":"","id":"b","parent":"a","v":4,"ts":"2025-01-01T00:00:00Z","metadata":{"source":"loop","step":1,"parents":{},"extra":null},` +
		`"values":{"m":[1,2]},"versions":{"m":2},"versions_seen":{},"updated_channels":null,"writes":[]}]}`
	s := openTemp(t, persist.Options{NoSync: true})
	if _, err := s.Import(ctx, strings.NewReader(doc), persist.ImportOptions{}); err != nil {
		t.Fatalf("Import: %v", err)
	}
	tup, err := s.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: "b"})
	if err != nil || tup == nil || tup.ParentID != "a" || !reflect.DeepEqual(tup.Checkpoint.ChannelValues["m"], []any{1.0, 2.0}) {
		t.Fatalf("GetTuple = %+v, %v; want b with parent a and m [1 2]", tup, err)
	}
	if got := export(t, s, "t"); !bytes.Contains(got, []byte(`"parent":"a","parent_missing":true`)) {
		t.Errorf("export does not mark the missing parent:\n%s", got)
	}
}
