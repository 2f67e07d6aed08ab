package postgres_test

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// A run on the store records its graph for a new thread, as a service's
// runs do (engine.GraphRecorder); a thread that has a record keeps it.
func TestRecordGraph(t *testing.T) {
	ctx := context.Background()
	s := open(t, schemaURL(t), postgres.Options{})
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).Named("counter").
		AddNode("inc", func(context.Context, any) (any, error) { return engine.Pairs("x", 1.0), nil }).
		AddEdge(engine.Start, "inc").Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetFingerprint(ctx, "kept", "an older record"); err != nil {
		t.Fatal(err)
	}
	for _, thread := range []string{"new", "kept"} {
		if _, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread(thread)); err != nil {
			t.Fatal(err)
		}
	}
	fp, err := s.Fingerprint(ctx, "new")
	if rec, ok := engine.DecodeGraphRecord(fp); err != nil || !ok || rec.Graph != "counter" || rec.Fingerprint != g.Fingerprint() {
		t.Errorf("new thread's record %q (%v), want the graph's", fp, err)
	}
	if fp, err := s.Fingerprint(ctx, "kept"); err != nil || fp != "an older record" {
		t.Errorf("a thread's record was replaced: %q (%v)", fp, err)
	}
}
