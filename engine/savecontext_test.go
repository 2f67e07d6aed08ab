package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// saveWatcher is a Saver (not a MemorySaver: its PutWrites is called by
// the tasks, with the context a task's writes are saved with) that
// records, for each call, whether its context ended and whether the run
// it was detached from (RunContext) did.
type saveWatcher struct {
	engine.Saver
	mu    sync.Mutex
	saves []saveSeen
}

// saveSeen is what one saver call saw of its context.
type saveSeen struct {
	what            string
	ended, detached bool  // ctx.Err() != nil; RunContext(ctx) != nil
	runEnded        error // the run's context's cause, when detached
}

func (w *saveWatcher) see(what string, ctx context.Context) {
	s := saveSeen{what: what, ended: ctx.Err() != nil}
	if run := engine.RunContext(ctx); run != nil {
		s.detached, s.runEnded = true, context.Cause(run)
	}
	w.mu.Lock()
	w.saves = append(w.saves, s)
	w.mu.Unlock()
}

func (w *saveWatcher) PutWrites(ctx context.Context, cfg engine.Config, task string, writes []engine.Write) error {
	w.see("writes", ctx)
	return w.Saver.PutWrites(ctx, cfg, task, writes)
}

func (w *saveWatcher) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, v map[string]engine.Version) (engine.Config, error) {
	w.see("checkpoint", ctx)
	return w.Saver.Put(ctx, cfg, cp, md, v)
}

// A run cancelled while its tasks finish saves their writes with a
// context the cancellation does not end, as LangGraph saves them; the
// saver learns of the cancellation from RunContext, to bound a wait that
// could otherwise last forever. So does the checkpoint a DurabilityExit
// run saves at its end. A context the engine did not detach has no run.
func TestRunContext_CancelledRunSavesWithTheRunReachable(t *testing.T) {
	if engine.RunContext(context.Background()) != nil {
		t.Fatal("RunContext of a context no run detached is not nil")
	}
	for _, d := range []engine.Durability{engine.DurabilitySync, engine.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			w := &saveWatcher{Saver: engine.NewMemorySaver()}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			node := func(context.Context, any) (any, error) {
				cancel() // Ctrl-C while the node finishes
				return engine.Update{{Key: "out", Value: 1.0}}, nil
			}
			g, err := engine.NewStateGraph(engine.LastValueKey("out")).
				AddNode("a", node).AddNode("b", node).
				AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
				AddEdge("a", engine.End).AddEdge("b", engine.End).
				Compile(engine.WithSaver(w))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"), engine.WithDurability(d)); !errors.Is(err, context.Canceled) {
				t.Fatalf("Invoke: %v, want it cancelled", err)
			}
			var afterCancel, checkpoints int
			for _, s := range w.saves {
				switch {
				case s.what == "writes":
					if s.ended || !s.detached {
						t.Errorf("writes saved with a context that ended: %v, detached from the run: %v; want not ended, detached", s.ended, s.detached)
					}
					if errors.Is(s.runEnded, context.Canceled) {
						afterCancel++
					}
				case d == engine.DurabilityExit: // the one checkpoint, at the run's end
					checkpoints++
					if s.ended || !s.detached || !errors.Is(s.runEnded, context.Canceled) {
						t.Errorf("the exit checkpoint saved with a context that ended: %v, detached from the run: %v, the run ended: %v; want not ended, detached from the cancelled run", s.ended, s.detached, s.runEnded)
					}
				}
			}
			if afterCancel != 2 || (d == engine.DurabilityExit && checkpoints != 1) {
				t.Errorf("saves %+v: want both tasks' writes after the cancel, and under exit the run's one checkpoint", w.saves)
			}
		})
	}
}

// errHeldSave is the failure of deferredFailer's writes.
var errHeldSave = errors.New("the writes may or may not be saved")

// deferredFailer is a Saver and WriteDeferrer whose deferred writes after
// the input's are in flight when the run is cancelled (Ctrl-C), and then
// fail to save.
type deferredFailer struct {
	engine.Saver
	cancel context.CancelFunc
	calls  int
}

func (d *deferredFailer) DeferWrites(ctx context.Context, cfg engine.Config, task string, writes []engine.Write) (func() error, error) {
	if d.calls++; d.calls == 1 {
		return func() error { return nil }, d.PutWrites(ctx, cfg, task, writes)
	}
	d.cancel()
	return func() error { return errHeldSave }, nil
}

// A cancelled run whose last task's writes, saved all the same, failed
// to save says so beside its cancellation: the failure is not lost.
func TestInvoke_CancelledRunReportsItsHeldWritesFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	node := func(context.Context, any) (any, error) {
		return engine.Update{{Key: "out", Value: 1.0}}, nil
	}
	g, err := engine.NewStateGraph(engine.LastValueKey("out")).
		AddNode("a", node).AddEdge(engine.Start, "a").AddEdge("a", engine.End).
		Compile(engine.WithSaver(&deferredFailer{Saver: engine.NewMemorySaver(), cancel: cancel}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errHeldSave) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Invoke: %v; want one line, the cancellation and the writes' failure", err)
	}
}

// exitFailer is a Saver whose checkpoints fail to save once the run it
// saves for was cancelled, as a store that gave up on a server that
// stopped answering fails them.
type exitFailer struct{ engine.Saver }

func (f exitFailer) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, v map[string]engine.Version) (engine.Config, error) {
	if run := engine.RunContext(ctx); run != nil && run.Err() != nil {
		return engine.Config{}, errHeldSave
	}
	return f.Saver.Put(ctx, cfg, cp, md, v)
}

// A DurabilityExit run cancelled while its node works saves its one
// checkpoint all the same; when that save fails, the run says so beside
// its cancellation, by Invoke and by a Stepper stepped by hand, instead
// of returning the cancellation alone as if the checkpoint were saved.
func TestInvoke_CancelledExitRunReportsItsSaveFailure(t *testing.T) {
	for _, how := range []string{"invoke", "stepper"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g, err := engine.NewStateGraph(engine.LastValueKey("out")).
				AddNode("a", func(context.Context, any) (any, error) {
					cancel() // Ctrl-C while the node works
					return nil, context.Canceled
				}).
				AddEdge(engine.Start, "a").AddEdge("a", engine.End).
				Compile(engine.WithSaver(exitFailer{engine.NewMemorySaver()}))
			if err != nil {
				t.Fatal(err)
			}
			opts := []engine.RunOption{engine.OnThread("t"), engine.WithDurability(engine.DurabilityExit)}
			if how == "invoke" {
				_, err = g.Invoke(ctx, map[string]any{}, opts...)
			} else {
				s, serr := g.Start(ctx, map[string]any{}, opts...)
				if serr != nil {
					t.Fatal(serr)
				}
				for err == nil && s.Status() == engine.StatusRunning {
					err = s.Next(ctx)
				}
			}
			if !errors.Is(err, context.Canceled) || !errors.Is(err, errHeldSave) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%v; want one line, the cancellation and the checkpoint's failure", err)
			}
		})
	}
}
