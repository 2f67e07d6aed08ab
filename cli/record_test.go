package cli

import (
	"context"
	"path/filepath"
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
