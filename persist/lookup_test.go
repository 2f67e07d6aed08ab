package persist

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestPut_SiblingsShareTwoChannelsVersion: forks of one parent that each
// change two channels give both the same new version in one commit round.
// The first finds the version free with one seek (records.HasVersion) and
// stores both at sequence 0; the later ones find it taken, share an equal
// value and store a different one under a fresh sequence. Each fork reads
// back its own values and Check (digest included) is clean.
func TestPut_SiblingsShareTwoChannelsVersion(t *testing.T) {
	ctx := context.Background()
	s, parent := forkRoot(t, map[string]any{"x": "root", "y": 0.0})
	forks := []map[string]any{
		{"x": "a", "y": 1.0},
		{"x": "a", "y": 2.0}, // x shared with the first, y not
		{"x": "b", "y": 2.0},
	}
	for i, vals := range forks {
		cp := &engine.Checkpoint{ID: prepID(10 + i), ChannelValues: vals, ChannelVersions: map[string]engine.Version{"x": 2, "y": 2}}
		if _, err := s.Put(ctx, parent, cp, engine.Metadata{}, map[string]engine.Version{"x": 2, "y": 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, vals := range forks {
		readBack(t, s, "t", prepID(10+i), vals)
	}
}

// TestPutWrites_TaskLookedUpOnce: a task's writes are looked up with one
// seek for the task (records.HasPrefix). A task with writes stored keeps
// its first regular writes, and a special write replaces its own; in a
// fresh task's batch, a second special write of one channel replaces the
// first instead of being counted as new, so the digest stays right.
func TestPutWrites_TaskLookedUpOnce(t *testing.T) {
	ctx := context.Background()
	s := testDB(t)
	cfg, err := s.Put(ctx, engine.Config{ThreadID: "t"}, &engine.Checkpoint{ID: prepID(1), ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}, engine.Metadata{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	put := func(task string, writes ...engine.Write) {
		t.Helper()
		if err := s.PutWrites(ctx, cfg, task, writes); err != nil {
			t.Fatal(err)
		}
	}
	put("a", engine.Write{Channel: "x", Value: 1.0}, engine.Write{Channel: "y", Value: 2.0})
	put("a", engine.Write{Channel: "x", Value: 10.0}, engine.Write{Channel: "y", Value: 20.0}, engine.Write{Channel: engine.ErrorChannel, Value: "first"})
	put("a", engine.Write{Channel: engine.ErrorChannel, Value: "second"}, engine.Write{Channel: "z", Value: 3.0})
	put("b", engine.Write{Channel: engine.ErrorChannel, Value: "one"}, engine.Write{Channel: engine.ErrorChannel, Value: "two"}, engine.Write{Channel: "x", Value: 5.0})

	tup, err := s.GetTuple(ctx, cfg)
	if err != nil || tup == nil {
		t.Fatalf("GetTuple: %v, %v", tup, err)
	}
	got := map[string]map[string]any{}
	for _, w := range tup.PendingWrites {
		if got[w.TaskID] == nil {
			got[w.TaskID] = map[string]any{}
		}
		got[w.TaskID][w.Channel] = w.Value
	}
	want := map[string]map[string]any{
		// Regular writes: the first stored wins, slot by slot (z went to
		// slot 1, which y holds); the special one is replaced.
		"a": {"x": 1.0, "y": 2.0, engine.ErrorChannel: "second"},
		"b": {engine.ErrorChannel: "two", "x": 5.0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pending writes %v, want %v", got, want)
	}
	if err := s.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
}
