package persist_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// A run on the store records its graph for a new thread in the commit of
// the thread's first checkpoint (engine.GraphRecorder), sealed as every
// record (Check passes); a thread that has a record keeps it, under each
// durability.
func TestStore_RecordGraph(t *testing.T) {
	ctx := context.Background()
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync, persist.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.db")
			st, err := persist.Open(path, persist.Options{Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			g, err := engine.NewStateGraph(engine.LastValueKey("x")).Named("counter").
				AddNode("inc", func(context.Context, any) (any, error) { return engine.Pairs("x", 1.0), nil }).
				AddEdge(engine.Start, "inc").Compile(engine.WithSaver(st))
			if err != nil {
				t.Fatal(err)
			}
			if err := st.SetFingerprint(ctx, "kept", "an older record"); err != nil {
				t.Fatal(err)
			}
			for _, thread := range []string{"new", "kept"} {
				if _, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread(thread)); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			st, err = persist.Open(path, persist.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			fp, err := st.Fingerprint(ctx, "new")
			if rec, ok := engine.DecodeGraphRecord(fp); err != nil || !ok || rec.Graph != "counter" || rec.Fingerprint != g.Fingerprint() {
				t.Errorf("new thread's record %q (%v), want the graph's", fp, err)
			}
			if fp, err := st.Fingerprint(ctx, "kept"); err != nil || fp != "an older record" {
				t.Errorf("a thread's record was replaced: %q (%v)", fp, err)
			}
			if err := st.Check(); err != nil {
				t.Errorf("check: %v", err)
			}
		})
	}
}
