package enginetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// OrphanID is the id of checkpoint n of OrphanThread.
func OrphanID(n int) string { return fmt.Sprintf("%032x", n) }

// OrphanMissingParent is the parent of OrphanThread's checkpoint 2, which
// is never stored.
var OrphanMissingParent = OrphanID(999)

// OrphanThread puts in thread th of s what engine.Saver takes and a run
// does not make, for the tests of a store's export and import: a root
// (1); a checkpoint (2) whose parent was never stored, with a list value;
// its child (3), which appends to the list; in a subgraph namespace, a
// checkpoint (4) whose parent was never stored; and writes against ids
// never stored (0 and 7 at the root, one of them special, and null-task
// writes; 8 in a namespace that has no checkpoint) beside writes at
// stored checkpoints (1 and 3).
func OrphanThread(t testing.TB, s engine.Saver, th string) {
	t.Helper()
	ctx := context.Background()
	id := OrphanID
	put := func(ns, parent string, cp *engine.Checkpoint, step int) {
		t.Helper()
		cp.V, cp.TS = engine.CheckpointFormat, time.Date(2025, 5, 1, 12, 0, step, 0, time.UTC)
		md := engine.Metadata{Source: engine.SourceLoop, Step: step, Parents: map[string]string{}}
		if _, err := s.Put(ctx, engine.Config{ThreadID: th, CheckpointNS: ns, CheckpointID: parent}, cp, md, nil); err != nil {
			t.Fatal(err)
		}
	}
	put("", "", &engine.Checkpoint{ID: id(1), ChannelValues: map[string]any{"messages": []any{"a"}}, ChannelVersions: map[string]engine.Version{"messages": 1}}, 0)
	put("", OrphanMissingParent, &engine.Checkpoint{ID: id(2), ChannelValues: map[string]any{"messages": []any{"a", "b"}, "x": 1.0},
		ChannelVersions: map[string]engine.Version{"messages": 2, "x": 2}, VersionsSeen: map[string]map[string]engine.Version{"n": {"x": 1}}}, 1)
	put("", id(2), &engine.Checkpoint{ID: id(3), ChannelValues: map[string]any{"messages": []any{"a", "b", "c"}, "x": 1.0},
		ChannelVersions: map[string]engine.Version{"messages": 3, "x": 2}, VersionsSeen: map[string]map[string]engine.Version{"n": {"x": 2}}}, 2)
	put("sub:t1", id(998), &engine.Checkpoint{ID: id(4), ChannelValues: map[string]any{"q": "sub"}, ChannelVersions: map[string]engine.Version{"q": 1}}, 0)
	writes := func(ns, cpID, task string, ws ...engine.Write) {
		t.Helper()
		if err := s.PutWrites(ctx, engine.Config{ThreadID: th, CheckpointNS: ns, CheckpointID: cpID}, task, ws); err != nil {
			t.Fatal(err)
		}
	}
	writes("", id(1), "task-s", engine.Write{Channel: "x", Value: 1.0}, engine.Write{Channel: "y", Value: 2.0})
	writes("", id(3), "task-s", engine.Write{Channel: engine.InterruptChannel, Value: []engine.Interruption{{ID: "i", Value: "ok?"}}})
	writes("", id(3), "task-t", engine.Write{Channel: "x", Value: 3.0})
	writes("", id(0), "task-a", engine.Write{Channel: "x", Value: 0.0})
	writes("", id(7), "task-b", engine.Write{Channel: "x", Value: 5.0}, engine.Write{Channel: "messages", Value: "d"})
	writes("", id(7), "task-a", engine.Write{Channel: engine.ErrorChannel, Value: "boom"})
	writes("", id(7), engine.NullTaskID, engine.Write{Channel: engine.ResumeChannel, Value: "yes"})
	writes("other:t2", id(8), "task-c", engine.Write{Channel: "q", Value: []any{1.0, 2.0}})
}
