package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// deferringSaver is a MemorySaver that can defer writes (WriteDeferrer)
// and logs, in order, what the engine asked of it and what it reported.
type deferringSaver struct {
	*engine.MemorySaver
	mu  sync.Mutex
	log []string
}

func (s *deferringSaver) note(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, e)
}

func (s *deferringSaver) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	s.note("writes " + writes[0].Channel)
	return s.MemorySaver.PutWrites(ctx, cfg, taskID, writes)
}

func (s *deferringSaver) DeferWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) (func() error, error) {
	s.note("defer " + writes[0].Channel)
	return func() error {
		s.note("wait " + writes[0].Channel)
		return s.MemorySaver.PutWrites(ctx, cfg, taskID, writes)
	}, nil
}

func (s *deferringSaver) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	s.note(fmt.Sprintf("put %s %d", md.Source, md.Step))
	return s.MemorySaver.Put(ctx, cfg, cp, md, nv)
}

// deferGraph runs fast and slow in one superstep, then done alone. slow
// finishes last: it waits until fast's result is reported (fastDone, closed
// by the caller's event listener) or, without a listener, 30 ms.
func deferGraph(t *testing.T, s engine.Saver, slowErr error, fastDone <-chan struct{}) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.LastValueKey("f"), engine.LastValueKey("s"), engine.LastValueKey("d")).
		AddNode("fast", func(context.Context, any) (any, error) { return engine.Pairs("f", 1.0), nil }).
		AddNode("slow", func(context.Context, any) (any, error) {
			if fastDone != nil {
				<-fastDone
			} else {
				time.Sleep(30 * time.Millisecond)
			}
			if slowErr != nil {
				return nil, slowErr
			}
			return engine.Pairs("s", 2.0), nil
		}).
		AddNode("done", func(context.Context, any) (any, error) { return engine.Pairs("d", 3.0), nil }).
		AddEdge(engine.Start, "fast").AddEdge(engine.Start, "slow").
		AddEdge("fast", "done").AddEdge("slow", "done").AddEdge("done", engine.End).
		Compile(engine.WithSaver(s))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDeferWrites_LastTaskSharesTheCheckpointCommit: with a saver that can
// defer writes, the last task of a superstep to finish hands its writes
// over deferred, the checkpoint Put follows, and only then (after waiting
// for the writes) is its result reported — before the checkpoint event, so
// the events keep their order. The other tasks save as before.
func TestDeferWrites_LastTaskSharesTheCheckpointCommit(t *testing.T) {
	s := &deferringSaver{MemorySaver: engine.NewMemorySaver()}
	var events []string
	fastDone := make(chan struct{})
	_, err := deferGraph(t, s, nil, fastDone).Invoke(context.Background(), map[string]any{}, engine.OnThread("d"),
		engine.WithEvents(func(e engine.Event) {
			switch e.Kind {
			case engine.EventTaskResult:
				events = append(events, "result "+e.Node)
				s.note("result " + e.Node)
				if e.Node == "fast" {
					close(fastDone)
				}
			case engine.EventCheckpoint:
				events = append(events, fmt.Sprintf("checkpoint %d", e.Step))
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"put input -1", "defer branch:to:fast", "put loop 0", "wait branch:to:fast",
		"writes f", "defer s", "put loop 1", "wait s", "result slow",
		"defer d", "put loop 2", "wait d", "result done"}
	got := slices.DeleteFunc(slices.Clone(s.log), func(e string) bool { return e == "result __start__" || e == "result fast" })
	if !slices.Equal(got, want) {
		t.Errorf("saver calls:\n got %q\nwant %q", got, want)
	}
	wantEvents := []string{"checkpoint -1", "checkpoint 0", "result fast", "result slow", "checkpoint 1", "result done", "checkpoint 2"}
	if !slices.Equal(events, wantEvents) {
		t.Errorf("events:\n got %q\nwant %q", events, wantEvents)
	}
}

// TestDeferWrites_NotWhenPausedOrFailed: a run driven a phase at a time (a
// debugger may hold it after Execute) saves every task's writes before
// reporting them; so does a superstep whose last task fails.
func TestDeferWrites_NotWhenPausedOrFailed(t *testing.T) {
	s := &deferringSaver{MemorySaver: engine.NewMemorySaver()}
	st, err := deferGraph(t, s, nil, nil).Start(context.Background(), map[string]any{}, engine.OnThread("p"))
	if err != nil {
		t.Fatal(err)
	}
	for st.Status() == engine.StatusRunning {
		if err := st.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range s.log {
		if len(e) > 5 && e[:5] == "defer" {
			t.Fatalf("stepping phase by phase deferred writes: %q", s.log)
		}
	}

	s = &deferringSaver{MemorySaver: engine.NewMemorySaver()}
	_, err = deferGraph(t, s, fmt.Errorf("boom"), nil).Invoke(context.Background(), map[string]any{}, engine.OnThread("f"))
	if err == nil {
		t.Fatal("slow's failure did not fail the run")
	}
	if !slices.Contains(s.log, "writes __error__") {
		t.Errorf("the failed task's error was not saved at once: %q", s.log)
	}
}
