package persist_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
)

// richThread puts a thread that uses every field: a chain, a fork, a
// subgraph namespace, special and null-task writes, an empty channel,
// nil and empty updated channels, metadata extras and a fingerprint.
func richThread(t testing.TB, s *persist.Store, th string) {
	t.Helper()
	chain(t, s, th, 6)
	fork := &engine.Checkpoint{V: 4, ID: id(20), TS: time.Date(2025, 5, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)),
		ChannelValues:   map[string]any{"messages": []any{"forked"}, "tasks": []any{engine.Send{Node: "w", Arg: map[string]any{"n": 1.0}}}},
		ChannelVersions: map[string]engine.Version{"messages": 7, "tasks": 7, "empty": 7},
		VersionsSeen:    map[string]map[string]engine.Version{"__input__": {}, "w": nil},
		UpdatedChannels: []string{}}
	md := engine.Metadata{Source: engine.SourceFork, Step: 2, Parents: map[string]string{}, Extra: map[string]any{"run": "r9", "n": 3.0, "ok": true}}
	put := func(cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata) {
		t.Helper()
		if _, err := s.Put(ctx, cfg, cp, md, nil); err != nil {
			t.Fatal(err)
		}
	}
	put(engine.Config{ThreadID: th, CheckpointID: id(3)}, fork, md)
	writes := func(cfg engine.Config, task string, ws ...engine.Write) {
		t.Helper()
		if err := s.PutWrites(ctx, cfg, task, ws); err != nil {
			t.Fatal(err)
		}
	}
	cfg := engine.Config{ThreadID: th, CheckpointID: id(20)}
	writes(cfg, "task-b", engine.Write{Channel: engine.InterruptChannel, Value: []engine.Interruption{{ID: "i1", Value: "approve?"}}}, engine.Write{Channel: "x", Value: 1.0})
	writes(cfg, engine.NullTaskID, engine.Write{Channel: "y", Value: "a"})
	writes(cfg, engine.NullTaskID, engine.Write{Channel: engine.ResumeChannel, Value: "yes"}, engine.Write{Channel: "y", Value: "b"})
	writes(cfg, "task-a", engine.Write{Channel: engine.ErrorChannel, Value: "boom"})
	sub := engine.Config{ThreadID: th, CheckpointNS: "inner:abc|deeper:def"}
	c1 := &engine.Checkpoint{V: 4, ID: id(4), ChannelValues: map[string]any{"q": "sub"}, ChannelVersions: map[string]engine.Version{"q": 1}}
	put(sub, c1, engine.Metadata{Source: engine.SourceInput, Step: -1, Parents: map[string]string{"": id(4)}})
	c2 := &engine.Checkpoint{V: 4, ID: id(5), ChannelValues: map[string]any{"q": "sub2"}, ChannelVersions: map[string]engine.Version{"q": 2}}
	sub.CheckpointID = id(4)
	put(sub, c2, engine.Metadata{Source: engine.SourceLoop, Step: 0, Parents: map[string]string{"": id(4)}})
	writes(engine.Config{ThreadID: th, CheckpointNS: sub.CheckpointNS, CheckpointID: id(5)}, "t", engine.Write{Channel: "q", Value: nil})
	if err := s.SetFingerprint(ctx, th, "sha256:0123"); err != nil {
		t.Fatal(err)
	}
}

func export(t testing.TB, s *persist.Store, th string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Export(ctx, th, &buf, ""); err != nil {
		t.Fatalf("Export: %v", err)
	}
	return buf.Bytes()
}

func listAll(t testing.TB, s *persist.Store, th string) []*engine.CheckpointTuple {
	t.Helper()
	tups, err := s.List(ctx, engine.Config{ThreadID: th}, engine.ListOptions{AllNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range tups {
		tp.Checkpoint.TS = tp.Checkpoint.TS.UTC() // compare instants, not zones
	}
	return tups
}

func TestExportImport_RoundTrip(t *testing.T) {
	src := openTemp(t, persist.Options{NoSync: true})
	richThread(t, src, "orig")
	data := export(t, src, "orig")

	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	if doc["format"] != persist.ExportFormat || doc["version"] != float64(persist.ExportVersion) || doc["thread"] != "orig" || doc["fingerprint"] != "sha256:0123" {
		t.Errorf("export header: format %v version %v thread %v fingerprint %v", doc["format"], doc["version"], doc["thread"], doc["fingerprint"])
	}

	dst := openTemp(t, persist.Options{NoSync: true})
	th, err := dst.Import(ctx, bytes.NewReader(data), persist.ImportOptions{})
	if err != nil || th != "orig" {
		t.Fatalf("Import = %q, %v", th, err)
	}
	want, got := listAll(t, src, "orig"), listAll(t, dst, "orig")
	if len(got) != len(want) || len(want) != 9 {
		t.Fatalf("imported %d checkpoints, want %d (and 9)", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("checkpoint %d differs after import:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if fp, _ := dst.Fingerprint(ctx, "orig"); fp != "sha256:0123" {
		t.Errorf("fingerprint after import %q", fp)
	}
	if again := export(t, dst, "orig"); !bytes.Equal(again, data) {
		t.Errorf("export of the imported thread differs from the original export:\n%s\n---\n%s", again, data)
	}
	if err := dst.Check(); err != nil {
		t.Error(err)
	}
}

func TestImport_ExistingThread(t *testing.T) {
	src := openTemp(t, persist.Options{NoSync: true})
	richThread(t, src, "t")
	data := export(t, src, "t")
	dst := openTemp(t, persist.Options{NoSync: true})
	chain(t, dst, "t", 30)
	if _, err := dst.Import(ctx, bytes.NewReader(data), persist.ImportOptions{}); !errors.Is(err, persist.ErrThreadExists) {
		t.Fatalf("Import over an existing thread: %v, want ErrThreadExists", err)
	}
	if n := len(listAll(t, dst, "t")); n != 30 {
		t.Fatalf("refused import changed the thread: %d checkpoints", n)
	}
	// Another thread of the same id: replacing it drops all it has.
	if _, err := dst.Import(ctx, bytes.NewReader(data), persist.ImportOptions{Overwrite: true}); !errors.Is(err, persist.ErrWouldDiscard) {
		t.Fatalf("Import with Overwrite: %v, want ErrWouldDiscard", err)
	}
	if _, err := dst.Import(ctx, bytes.NewReader(data), persist.ImportOptions{Overwrite: true, Discard: true}); err != nil {
		t.Fatalf("Import with Overwrite and Discard: %v", err)
	}
	if got, want := listAll(t, dst, "t"), listAll(t, src, "t"); !reflect.DeepEqual(got, want) {
		t.Errorf("overwritten thread differs from the source (%d vs %d checkpoints)", len(got), len(want))
	}
	// Writes after the import build on the imported state.
	chain(t, dst, "t2", 3)
	if err := dst.Check(); err != nil {
		t.Error(err)
	}
}

func TestExport_Missing(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	if err := s.Export(ctx, "nope", &bytes.Buffer{}, ""); !errors.Is(err, persist.ErrThreadNotFound) {
		t.Errorf("Export of a missing thread: %v", err)
	}
	// A thread with a fingerprint and no checkpoints has nothing to export.
	s.SetFingerprint(ctx, "fp-only", "x")
	if err := s.Export(ctx, "fp-only", &bytes.Buffer{}, ""); !errors.Is(err, persist.ErrThreadNotFound) {
		t.Errorf("Export of a thread without checkpoints: %v", err)
	}
}

// validExport returns a small valid export for mutation tests.
func validExport(t testing.TB) []byte {
	t.Helper()
	s := openTemp(t, persist.Options{NoSync: true})
	richThread(t, s, "t")
	return export(t, s, "t")
}

// editedExport is export good with fn applied to its JSON document.
func editedExport(t testing.TB, good []byte, fn func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(good, &doc); err != nil {
		t.Fatal(err)
	}
	fn(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkRewrite checks that WriteExport of ReadExport's document of data,
// an Export's, is data again.
func checkRewrite(t testing.TB, data []byte) {
	t.Helper()
	doc, err := persist.ReadExport(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatalf("ReadExport: %v", err)
	}
	var again bytes.Buffer
	if err := persist.WriteExport(&again, doc); err != nil {
		t.Fatalf("WriteExport: %v", err)
	}
	if !bytes.Equal(again.Bytes(), data) {
		t.Errorf("WriteExport of the read document differs from Export (%d and %d bytes)", again.Len(), len(data))
	}
}

func TestImport_Rejects(t *testing.T) {
	good := validExport(t)
	edit := func(fn func(doc map[string]any)) []byte { return editedExport(t, good, fn) }
	cps := func(doc map[string]any) []any { return doc["checkpoints"].([]any) }
	cp0 := func(doc map[string]any) map[string]any { return cps(doc)[0].(map[string]any) }
	cpN := func(doc map[string]any, n int) map[string]any { return cps(doc)[n].(map[string]any) }
	cases := map[string][]byte{
		"empty":            nil,
		"not json":         []byte("hello"),
		"json null":        []byte("null"),
		"empty object":     []byte("{}"),
		"array":            []byte("[1,2]"),
		"wrong format":     edit(func(d map[string]any) { d["format"] = "langgraph" }),
		"newer version":    edit(func(d map[string]any) { d["version"] = persist.ExportVersion + 1; d["newfield"] = 1 }),
		"unknown field":    edit(func(d map[string]any) { d["surprise"] = true }),
		"empty thread":     edit(func(d map[string]any) { d["thread"] = "" }),
		"long thread":      edit(func(d map[string]any) { d["thread"] = strings.Repeat("t", 5000) }),
		"no checkpoints":   edit(func(d map[string]any) { d["checkpoints"] = []any{} }),
		"null checkpoints": edit(func(d map[string]any) { d["checkpoints"] = nil }),
		"empty id":         edit(func(d map[string]any) { cp0(d)["id"] = "" }),
		"own parent":       edit(func(d map[string]any) { cpN(d, 2)["parent"] = cpN(d, 2)["id"] }),
		"missing parent":   edit(func(d map[string]any) { cpN(d, 2)["parent"] = id(999) }),
		"duplicate id":     edit(func(d map[string]any) { cpN(d, 2)["id"] = cpN(d, 1)["id"] }),
		"cycle": edit(func(d map[string]any) {
			cpN(d, 0)["parent"] = cpN(d, 1)["id"] // 1 -> 0 -> 1
		}),
		"bad value":          edit(func(d map[string]any) { cpN(d, 1)["values"].(map[string]any)["x"] = "ignored" }),
		"fractional version": edit(func(d map[string]any) { cpN(d, 1)["versions"].(map[string]any)["step"] = 1.5 }),
		"empty channel":      edit(func(d map[string]any) { cpN(d, 1)["versions"].(map[string]any)[""] = 1 }),
		"bad ts":             edit(func(d map[string]any) { cpN(d, 1)["ts"] = "yesterday" }),
		"bad step":           edit(func(d map[string]any) { cpN(d, 1)["metadata"].(map[string]any)["step"] = "one" }),
		"special slot":       edit(func(d map[string]any) { lastWrite(cpN(d, 0))["channel"] = engine.InterruptChannel }),
		"negative slot":      edit(func(d map[string]any) { lastWrite(cpN(d, 0))["slot"] = -7 }),
		"duplicate write": edit(func(d map[string]any) {
			c := cpN(d, 0)
			c["writes"] = append(c["writes"].([]any), lastWrite(c))
		}),
		"write no channel": edit(func(d map[string]any) { lastWrite(cpN(d, 0))["channel"] = "" }),
		"future cp format": edit(func(d map[string]any) { cpN(d, 1)["v"] = 999 }),
		"negative format":  edit(func(d map[string]any) { cpN(d, 1)["v"] = -1 }),
		"trailing data":    append(bytes.Clone(good), []byte(`{"more":1}`)...),
	}
	// A field every export writes and a hand edit dropped: decoding it as
	// its zero value would change what is imported (a delta made a root,
	// step 0, the null task), so each is refused, naming the field.
	missing := map[string]func(d map[string]any){
		"fingerprint": func(d map[string]any) { delete(d, "fingerprint") },
	}
	for _, f := range []string{"ns", "id", "parent", "v", "ts", "metadata", "versions", "versions_seen", "updated_channels", "writes"} {
		missing[f] = func(d map[string]any) { delete(cpN(d, 2), f) }
	}
	for _, f := range []string{"source", "step", "parents", "extra"} {
		missing["metadata."+f] = func(d map[string]any) { delete(cpN(d, 2)["metadata"].(map[string]any), f) }
	}
	for _, f := range []string{"task", "slot", "channel", "value"} {
		missing[f] = func(d map[string]any) { delete(lastWrite(cp0(d)), f) }
	}
	missing["metadata"] = func(d map[string]any) { cpN(d, 2)["metadata"] = nil } // null: never written
	for f, fn := range missing {
		cases["without "+f] = edit(fn)
	}
	// "bad value" needs a value that is not JSON, which json.Marshal cannot
	// produce: splice it in.
	cases["bad value"] = bytes.Replace(cases["bad value"], []byte(`"x":"ignored"`), []byte(`"x":nope`), 1)
	s := openTemp(t, persist.Options{NoSync: true})
	for name, data := range cases {
		_, err := s.Import(ctx, bytes.NewReader(data), persist.ImportOptions{})
		if !errors.Is(err, persist.ErrBadImport) {
			t.Errorf("%s: Import: %v, want ErrBadImport", name, err)
		}
	}
	for f := range missing {
		_, err := s.Import(ctx, bytes.NewReader(cases["without "+f]), persist.ImportOptions{})
		short := f[strings.LastIndex(f, ".")+1:]
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("missing field %q", short)) && !strings.Contains(err.Error(), fmt.Sprintf("missing field %q", f)) {
			t.Errorf("without %s: Import: %v, want it named", f, err)
		}
	}
	// A newer checkpoint layout is named as such, not as bad data.
	if _, err := s.Import(ctx, bytes.NewReader(cases["future cp format"]), persist.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "format version 999 is newer") {
		t.Errorf("Import of a checkpoint of format 999: %v, want it named as newer", err)
	}
	// Every truncation of a valid export is rejected.
	for n := 0; n < len(good)-2; n += 1 + n/50 {
		if _, err := s.Import(ctx, bytes.NewReader(good[:n]), persist.ImportOptions{}); !errors.Is(err, persist.ErrBadImport) {
			t.Fatalf("Import of the first %d of %d bytes: %v, want ErrBadImport", n, len(good), err)
		}
	}
	if _, err := s.Import(ctx, bytes.NewReader(good), persist.ImportOptions{MaxBytes: int64(len(good) - 1)}); !errors.Is(err, persist.ErrImportTooLarge) {
		t.Errorf("Import over MaxBytes: %v, want ErrImportTooLarge", err)
	}
	if th, err := s.Threads(ctx); err != nil || len(th) != 0 {
		t.Errorf("rejected imports left threads: %v, %v", th, err)
	}
	if _, err := s.Import(ctx, bytes.NewReader(good), persist.ImportOptions{MaxBytes: int64(len(good))}); err != nil {
		t.Errorf("Import of exactly MaxBytes: %v", err)
	}
}

func lastWrite(cp map[string]any) map[string]any {
	ws := cp["writes"].([]any)
	return ws[len(ws)-1].(map[string]any)
}

// FuzzImport feeds arbitrary bytes to Import: it must fail cleanly or
// store a thread that passes Check and exports again.
func FuzzImport(f *testing.F) {
	good := validExport(f)
	f.Add(good)
	orphans := openTemp(f, persist.Options{NoSync: true})
	enginetest.OrphanThread(f, orphans, "t")
	f.Add(export(f, orphans, "t"))
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"format":"superstep-thread","version":1,"thread":"t","fingerprint":"","checkpoints":[{"ns":"","id":"a","parent":"","v":4,"ts":"2025-01-01T00:00:00Z","metadata":{"source":"loop","step":0,"parents":{},"extra":null},"values":{"m":[1,2]},"versions":{"m":1},"versions_seen":{},"updated_channels":null,"writes":[]}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	s, err := persist.Open(f.TempDir()+"/fuzz.db", persist.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		th, err := s.Import(ctx, bytes.NewReader(data), persist.ImportOptions{Overwrite: true, MaxBytes: 1 << 20})
		if err != nil {
			if !errors.Is(err, persist.ErrBadImport) && !errors.Is(err, persist.ErrImportTooLarge) {
				t.Fatalf("Import failed with an unexpected error: %v", err)
			}
			return
		}
		defer s.DeleteThread(ctx, th)
		if err := s.Check(); err != nil {
			t.Fatalf("Import accepted input that fails Check: %v", err)
		}
		if err := s.Export(ctx, th, &bytes.Buffer{}, ""); err != nil {
			t.Fatalf("Import accepted input that does not export: %v", err)
		}
	})
}
