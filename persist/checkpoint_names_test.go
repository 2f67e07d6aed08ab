package persist_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestPut_RefusesWhatImportRefuses: Put refuses, with an error that names
// the name, every checkpoint whose names an export could not carry back
// into a store. A versions_seen entry for node "" was stored, and the
// thread then failed to copy (copy is an export imported anew).
func TestPut_RefusesWhatImportRefuses(t *testing.T) {
	long := strings.Repeat("x", persist.MaxIDLen+1)
	cp := func(edit func(*engine.Checkpoint, *engine.Metadata)) (*engine.Checkpoint, engine.Metadata) {
		c := &engine.Checkpoint{
			ID:              "00000000-0000-0000-0000-000000000001",
			ChannelValues:   map[string]any{"n": 1.0},
			ChannelVersions: map[string]engine.Version{"n": 1},
			VersionsSeen:    map[string]map[string]engine.Version{"a": {"n": 1}},
		}
		md := engine.Metadata{Source: engine.SourceLoop}
		edit(c, &md)
		return c, md
	}
	for _, c := range []struct {
		name string
		edit func(*engine.Checkpoint, *engine.Metadata)
		want error
		says string
	}{
		{"empty node", func(c *engine.Checkpoint, _ *engine.Metadata) { c.VersionsSeen[""] = map[string]engine.Version{"n": 1} }, persist.ErrInvalidID, `node ""`},
		{"long node", func(c *engine.Checkpoint, _ *engine.Metadata) { c.VersionsSeen[long] = nil }, persist.ErrInvalidID, "node"},
		{"empty seen channel", func(c *engine.Checkpoint, _ *engine.Metadata) { c.VersionsSeen["a"][""] = 1 }, persist.ErrInvalidID, `channel ""`},
		{"long updated channel", func(c *engine.Checkpoint, _ *engine.Metadata) { c.UpdatedChannels = []string{long} }, persist.ErrInvalidID, "updated channel"},
		{"node not UTF-8", func(c *engine.Checkpoint, _ *engine.Metadata) { c.VersionsSeen["a\xff"] = nil }, persist.ErrInvalidID, "not UTF-8"},
		{"long source", func(_ *engine.Checkpoint, md *engine.Metadata) { md.Source = strings.Repeat("s", 65) }, persist.ErrInvalidCheckpoint, "metadata source"},
		{"source not UTF-8", func(_ *engine.Checkpoint, md *engine.Metadata) { md.Source = "lo\xffp" }, persist.ErrInvalidID, "metadata source"},
		{"metadata parent not UTF-8", func(_ *engine.Checkpoint, md *engine.Metadata) { md.Parents = map[string]string{"": "p\xff"} }, persist.ErrInvalidID, "metadata parent id"},
		{"metadata key not UTF-8", func(_ *engine.Checkpoint, md *engine.Metadata) { md.Extra = map[string]any{"k\xff": 1.0} }, persist.ErrInvalidID, "metadata key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openTemp(t, persist.Options{NoSync: true})
			cp, md := cp(c.edit)
			_, err := s.Put(ctx, engine.Config{ThreadID: "t"}, cp, md, nil)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Put: %v, want %v naming %q", err, c.want, c.says)
			}
			if tp, _ := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); tp != nil {
				t.Fatal("the refused checkpoint was stored")
			}
		})
	}
}

// TestPut_OddNamesRoundTrip: names at the edges of what Put takes — a
// checkpoint id that is no UUID, the longest names, metadata parents and
// keys that are empty — export, and import back as they were.
func TestPut_OddNamesRoundTrip(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	long := strings.Repeat("n", persist.MaxIDLen)
	c := &engine.Checkpoint{
		ID:              "a",
		ChannelValues:   map[string]any{long: "v", "ch\x1b[31m\n": 2.0},
		ChannelVersions: map[string]engine.Version{long: 1, "ch\x1b[31m\n": 1},
		VersionsSeen:    map[string]map[string]engine.Version{long: {long: 1}, "__input__": {}},
		UpdatedChannels: []string{long},
	}
	md := engine.Metadata{Source: strings.Repeat("s", 64), Step: -5, Parents: map[string]string{"": ""}, Extra: map[string]any{"": nil}}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, c, md, nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Export(ctx, "t", &buf, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, &buf, persist.ImportOptions{Thread: "u"}); err != nil {
		t.Fatalf("Import of what Put took: %v", err)
	}
	a, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.GetTuple(ctx, engine.Config{ThreadID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	x, y := a.Checkpoint, b.Checkpoint
	if x.ID != y.ID || !reflect.DeepEqual(x.ChannelValues, y.ChannelValues) || !reflect.DeepEqual(x.ChannelVersions, y.ChannelVersions) ||
		!reflect.DeepEqual(x.VersionsSeen, y.VersionsSeen) || !reflect.DeepEqual(x.UpdatedChannels, y.UpdatedChannels) {
		t.Fatalf("imported checkpoint differs:\n%+v\n%+v", x, y)
	}
	if !reflect.DeepEqual(a.Metadata, b.Metadata) {
		t.Fatalf("imported metadata differs:\n%+v\n%+v", a.Metadata, b.Metadata)
	}
}

// TestPutWrites_RefusesChannelsARecordCannotName: a write's channel is
// named as a checkpoint record names its channels, UTF-8; a write to
// "c\xff" was stored, and its thread then failed to export or copy.
// Task ids are keys and keep any bytes.
func TestPutWrites_RefusesChannelsARecordCannotName(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	cps := chain(t, s, "t", 1)
	cfg := engine.Config{ThreadID: "t", CheckpointID: cps[0].ID}
	err := s.PutWrites(ctx, cfg, "task1", []engine.Write{{Channel: "ok", Value: 1.0}, {Channel: "c\xff", Value: 2.0}})
	if !errors.Is(err, persist.ErrInvalidID) || !strings.Contains(err.Error(), "not UTF-8") {
		t.Fatalf("PutWrites: %v, want ErrInvalidID: not UTF-8", err)
	}
	if err := s.PutWrites(ctx, cfg, "task\xff", []engine.Write{{Channel: "ok", Value: 1.0}}); err != nil {
		t.Fatalf("PutWrites with a task id of any bytes: %v", err)
	}
	pw, err := s.PendingWrites(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range pw {
		if strings.HasPrefix(w.TaskID, "task") {
			got = append(got, w.TaskID+" "+w.Channel)
		}
	}
	if len(got) != 1 || got[0] != "task\xff ok" {
		t.Fatalf("pending writes of the tasks here %q, want task\\xff's one (the refused call stores nothing)", got)
	}
}

// TestImport_ValueNoStoreKeeps: a value the document holds that decodes
// but that no store can keep as the checkpoint is rebuilt (a Send's
// argument at the depth bound, one level deeper inside its Send) is a bad
// import naming the checkpoint, as every other fault of a document is; it
// came back as the store's error, naming nothing.
func TestImport_ValueNoStoreKeeps(t *testing.T) {
	s := openTemp(t, persist.Options{NoSync: true})
	c := &engine.Checkpoint{
		ID:              "00000000-0000-0000-0000-000000000001",
		ChannelValues:   map[string]any{engine.TasksChannel: []any{engine.Send{Node: "a", Arg: "ARG"}}},
		ChannelVersions: map[string]engine.Version{engine.TasksChannel: 1},
	}
	if _, err := s.Put(ctx, engine.Config{ThreadID: "t"}, c, engine.Metadata{Source: engine.SourceLoop}, nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Export(ctx, "t", &buf, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"ARG"`) {
		t.Fatalf("no Send argument to deepen in the export:\n%s", buf.String())
	}
	refused := 0
	for levels := engine.MaxValueDepth - 8; levels <= engine.MaxValueDepth+2; levels++ {
		doc := strings.Replace(buf.String(), `"ARG"`, strings.Repeat("[", levels)+strings.Repeat("]", levels), 1)
		_, err := s.Import(ctx, strings.NewReader(doc), persist.ImportOptions{Thread: "u", Overwrite: true})
		if err == nil {
			continue
		}
		refused++
		if !errors.Is(err, persist.ErrBadImport) || !strings.Contains(err.Error(), "checkpoint") {
			t.Errorf("a Send argument %d levels deep: %v, want ErrBadImport naming the checkpoint", levels, err)
		}
	}
	if refused == 0 {
		t.Fatal("no depth was refused: the test no longer reaches the bound")
	}
}
