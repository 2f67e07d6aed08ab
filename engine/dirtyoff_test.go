package engine

import (
	"context"
	"testing"
)

// versionsRecorder is a Saver that does not keep the engine's snapshots
// (it hides MemorySaver's mark), so it is handed the channels each
// checkpoint changed.
type versionsRecorder struct {
	Saver
	got []map[string]Version
}

func (r *versionsRecorder) Put(ctx context.Context, cfg Config, cp *Checkpoint, md Metadata, nv map[string]Version) (Config, error) {
	r.got = append(r.got, nv)
	return r.Saver.Put(ctx, cfg, cp, md, nv)
}

// A saver that keeps whole snapshots (MemorySaver) has no use for the
// list of changed channels, and the run does not keep one; any other
// saver still gets it with every checkpoint.
func TestDirtyList_OnlyForSaversThatStoreChanges(t *testing.T) {
	ctx := context.Background()
	run := func(s Saver) *Stepper {
		t.Helper()
		g := indexTestGraph(t)
		g.saver = s
		st, err := g.Start(ctx, map[string]any{"n": 0.0}, OnThread("t"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	whole, rec := run(NewMemorySaver()), &versionsRecorder{Saver: NewMemorySaver()}
	listed := run(rec)
	for i := 0; whole.Status() == StatusRunning; i++ {
		if cap(whole.l.cs.dirty) != 0 {
			t.Fatalf("move %d: MemorySaver's run lists changed channels %v", i, whole.l.cs.dirty)
		}
		if err := whole.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for listed.Status() == StatusRunning {
		if err := listed.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if whole.Status() != StatusDone || listed.Status() != StatusDone {
		t.Fatalf("status %v and %v, want done", whole.Status(), listed.Status())
	}
	changed := 0
	for _, nv := range rec.got {
		changed += len(nv)
	}
	if len(rec.got) < 4 || changed < len(rec.got) || rec.got[1]["n"] == 0 {
		t.Fatalf("new versions given to the saver: %v", rec.got)
	}
}
