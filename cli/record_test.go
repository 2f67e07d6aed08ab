package cli

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

func TestGraphRecorder_RecordsBeforeFirstCheckpointOnly(t *testing.T) {
	ctx := context.Background()
	st, err := persist.Open(filepath.Join(t.TempDir(), "rec.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := &graphRecorder{Store: st}
	calls := 0
	record := func(ctx context.Context) error {
		calls++
		// The record is written before the checkpoint: none exists yet.
		if tp, _ := st.GetTuple(ctx, engine.Config{ThreadID: "t1"}); tp != nil && calls == 1 {
			t.Errorf("the graph was recorded after the first checkpoint")
		}
		return st.SetFingerprint(ctx, "t1", "rec")
	}
	if err := rec.recordFor(ctx, "t1", false, record); err != nil {
		t.Fatal(err)
	}
	if fp, _ := st.Fingerprint(ctx, "t1"); fp != "" || calls != 0 {
		t.Fatalf("a thread that wrote nothing has a record (%q, %d calls)", fp, calls)
	}
	put := func(thread, ns, id string) {
		cp := &engine.Checkpoint{ID: id, ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}}
		if _, err := rec.Put(ctx, engine.Config{ThreadID: thread, CheckpointNS: ns}, cp, engine.Metadata{Source: engine.SourceInput, Step: -1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	put("other", "", "00000000-0000-0000-0000-000000000001")
	put("t1", "sub:1", "00000000-0000-0000-0000-000000000002")
	if calls != 0 {
		t.Fatalf("recorded on another thread's or a subgraph's checkpoint")
	}
	put("t1", "", "00000000-0000-0000-0000-000000000003")
	put("t1", "", "00000000-0000-0000-0000-000000000004")
	if fp, _ := st.Fingerprint(ctx, "t1"); fp != "rec" || calls != 1 {
		t.Fatalf("record %q after %d calls, want one call before the first checkpoint", fp, calls)
	}
	if err := rec.recordFor(ctx, "t1", true, record); err != nil || calls != 2 {
		t.Fatalf("an existing thread is recorded at once: %v, %d calls", err, calls)
	}
}

// deferCounter is a store that counts the task writes the engine hands it
// deferred and those it puts at once.
type deferCounter struct {
	*persist.Store
	deferred, put atomic.Int32
}

func (d *deferCounter) DeferWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) (func() error, error) {
	d.deferred.Add(1)
	return d.Store.DeferWrites(ctx, cfg, taskID, writes)
}

func (d *deferCounter) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	d.put.Add(1)
	return d.Store.PutWrites(ctx, cfg, taskID, writes)
}

// plainStore hides the store's DeferWrites: a Store that has none.
type plainStore struct{ Store }

// A run through the recorder defers a superstep's last task writes to the
// checkpoint's commit as a run on the store does (the embedded Store
// interface used to hide DeferWrites, so every write took its own commit),
// and a store without DeferWrites gets them at once; both keep the same
// pending writes.
func TestGraphRecorder_DefersWritesToTheStore(t *testing.T) {
	ctx := context.Background()
	history := func(t *testing.T, st Store, thread string) []*engine.CheckpointTuple {
		t.Helper()
		res, err := resolveGraph(ctx, "linear", noLint, engine.WithSaver(&graphRecorder{Store: st}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := res.g.Invoke(ctx, res.example, engine.OnThread(thread)); err != nil {
			t.Fatal(err)
		}
		h, err := st.List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	open := func(t *testing.T) *persist.Store {
		st, err := persist.Open(filepath.Join(t.TempDir(), "defer.db"), persist.Options{Durability: persist.DurabilitySync})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	counted := &deferCounter{Store: open(t)}
	deferred := history(t, counted, "t1")
	if counted.deferred.Load() == 0 {
		t.Fatalf("no task writes were deferred through the recorder (%d put at once)", counted.put.Load())
	}
	plain := history(t, plainStore{open(t)}, "t1")
	if len(plain) != len(deferred) || len(plain) < 3 {
		t.Fatalf("%d checkpoints without DeferWrites, %d with", len(plain), len(deferred))
	}
	writes := 0
	for i := range plain {
		a, b := plain[i], deferred[i]
		writes += len(b.PendingWrites)
		if len(a.PendingWrites) != len(b.PendingWrites) {
			t.Fatalf("checkpoint %d (step %d): %d pending writes without DeferWrites, %d with", i, a.Metadata.Step, len(a.PendingWrites), len(b.PendingWrites))
		}
		for j := range a.PendingWrites {
			wa, wb := a.PendingWrites[j], b.PendingWrites[j]
			if wa.Channel != wb.Channel || string(engine.MustEncode(wa.Value)) != string(engine.MustEncode(wb.Value)) {
				t.Fatalf("checkpoint %d write %d: %s=%s without DeferWrites, %s=%s with", i, j, wa.Channel, engine.MustEncode(wa.Value), wb.Channel, engine.MustEncode(wb.Value))
			}
		}
	}
	if writes == 0 {
		t.Fatal("no pending writes to compare")
	}
}

// listCounter counts the List calls a store serves.
type listCounter struct {
	*persist.Store
	lists atomic.Int32
}

func (c *listCounter) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	c.lists.Add(1)
	return c.Store.List(ctx, cfg, opt)
}

// The debugger the command line opens draws a thread's tree from the
// store's heads through the recorder, reading no checkpoint whole (the
// embedded Store interface hid Heads, and the tree listed the thread
// with List); a store without heads is listed, with the same heads.
func TestGraphRecorder_PassesHeadsOn(t *testing.T) {
	ctx := context.Background()
	st, err := persist.Open(filepath.Join(t.TempDir(), "heads.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	counted := &listCounter{Store: st}
	heads := func(s Store) []engine.CheckpointHead {
		t.Helper()
		res, err := resolveGraph(ctx, "linear", noLint, engine.WithSaver(&graphRecorder{Store: s}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := res.g.Invoke(ctx, res.example, engine.OnThread("h")); err != nil {
			t.Fatal(err)
		}
		hs, err := res.g.HistoryHeads(ctx, engine.Config{ThreadID: "h"})
		if err != nil {
			t.Fatal(err)
		}
		return hs
	}
	got := heads(counted)
	if n := counted.lists.Load(); n != 0 {
		t.Fatalf("the tree's heads were read with List %d times", n)
	}
	if len(got) < 3 || got[0].ParentID != got[1].ID {
		t.Fatalf("heads %+v", got)
	}
	other, err := persist.Open(filepath.Join(t.TempDir(), "plain.db"), persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	plain := heads(plainStore{other})
	if len(plain) != len(got) {
		t.Fatalf("a store without heads lists %d, the store with them %d", len(plain), len(got))
	}
	for i := range plain {
		if plain[i].Step != got[i].Step || plain[i].Source != got[i].Source || (plain[i].ParentID == "") != (got[i].ParentID == "") {
			t.Fatalf("head %d: %+v listed, %+v from heads", i, plain[i], got[i])
		}
	}
}
