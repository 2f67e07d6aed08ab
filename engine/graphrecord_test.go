package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// recordingSaver is a MemorySaver with engine.GraphRecorder: it keeps the
// first record of each thread and notes every call.
type recordingSaver struct {
	*engine.MemorySaver
	mu      sync.Mutex
	records map[string]string
	calls   []string // thread ids, in the order RecordGraph was called
}

func (s *recordingSaver) RecordGraph(_ context.Context, thread, record string) (func() error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, thread)
	if _, ok := s.records[thread]; !ok {
		s.records[thread] = record
	}
	return func() error { return nil }, nil
}

// A run or an update that writes a thread's first checkpoint records the
// graph, found by its own name, before it; nothing else records (later
// checkpoints, a subgraph's namespace).
func TestGraphRecorder_RecordsANewThreadsGraph(t *testing.T) {
	ctx := context.Background()
	saver := &recordingSaver{MemorySaver: engine.NewMemorySaver(), records: map[string]string{}}
	inner := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("in", func(context.Context, any) (any, error) { return engine.Pairs("x", 2.0), nil }).
		AddEdge(engine.Start, "in"))
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).Named("outer").
		AddSubgraph("sub", inner).AddEdge(engine.Start, "sub"), engine.WithSaver(saver))
	if _, err := g.Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.UpdateState(ctx, engine.Config{ThreadID: "b"}, map[string]any{"x": 3.0}, ""); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(saver.calls, want) {
		t.Fatalf("RecordGraph called for %q, want %q (once per new thread)", saver.calls, want)
	}
	rec, ok := engine.DecodeGraphRecord(saver.records["a"])
	if !ok || rec.Graph != "outer" || rec.Name != "outer" || rec.Fingerprint != g.Fingerprint() || !slices.Equal(rec.Topology, g.Topology()) {
		t.Errorf("recorded %+v, want the graph found by its name", rec)
	}
	if again, _ := engine.DecodeGraphRecord(rec.Encode()); !slices.Equal(again.Topology, rec.Topology) || again.Graph != rec.Graph {
		t.Errorf("the record does not round-trip: %+v", again)
	}
	if bare, ok := engine.DecodeGraphRecord("abc123"); !ok || bare.Fingerprint != "abc123" || bare.Topology != nil {
		t.Errorf("a bare hash decodes as %+v", bare)
	}
}
