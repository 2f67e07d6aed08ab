package engine_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// wrappedSaver is a Saver that is not a MemorySaver to the engine: its
// tasks save their own writes (the runner's other path).
type wrappedSaver struct{ engine.Saver }

// deafGraph has two tasks in one superstep: fast, which finishes at once,
// and deaf, which ignores its context and returns only once released. With
// lone, deaf is the superstep's only task.
type deafGraph struct {
	g                  *engine.Graph
	fastRuns, deafRuns atomic.Int32
	deafStarted        chan struct{}
	release            chan struct{}
}

func newDeafGraph(t *testing.T, saver engine.Saver, lone bool) *deafGraph {
	t.Helper()
	d := &deafGraph{deafStarted: make(chan struct{}, 1), release: make(chan struct{})}
	b := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("deaf", func(context.Context, any) (any, error) {
			if d.deafRuns.Add(1) == 1 {
				d.deafStarted <- struct{}{}
				<-d.release // ignores its context
			}
			return map[string]any{"log": []any{"deaf"}}, nil
		}).
		AddEdge(engine.Start, "deaf")
	if !lone {
		b.AddNode("fast", func(context.Context, any) (any, error) {
			d.fastRuns.Add(1)
			return map[string]any{"log": []any{"fast"}}, nil
		}).AddEdge(engine.Start, "fast")
	}
	d.g = mustCompile(t, b, engine.WithSaver(saver))
	return d
}

// waitGoroutines waits until at most n goroutines run.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// A caller's cancellation reaches a superstep whose node ignores its
// context and has no time limit: Invoke, Stream and a Stepper return at
// once with the cancellation; the sibling that finished keeps its writes,
// the abandoned task saves a cancellation; no goroutine is left once the
// node returns; continuing runs only the abandoned task. Under every
// durability, with both of the runner's saving paths, and for a lone
// task as for one beside a sibling.
func TestCancel_AbandonsAnUntimedNodeThatIgnoresItsContext(t *testing.T) {
	ways := map[string]runWay{
		"invoke": func(ctx context.Context, g *engine.Graph, on func(engine.Event), opts ...engine.RunOption) error {
			_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, append(opts, engine.WithEvents(on))...)
			return err
		},
		"stream": func(ctx context.Context, g *engine.Graph, on func(engine.Event), opts ...engine.RunOption) error {
			for e, err := range g.Stream(ctx, map[string]any{"log": []any{}}, opts...) {
				if err != nil {
					return err
				}
				on(e)
			}
			return nil
		},
		"stepper": func(ctx context.Context, g *engine.Graph, on func(engine.Event), opts ...engine.RunOption) error {
			s, err := g.Start(ctx, map[string]any{"log": []any{}}, append(opts, engine.WithEvents(on))...)
			if err != nil {
				return err
			}
			_, err = s.Run(ctx)
			return err
		},
	}
	for way, run := range ways {
		for _, d := range []engine.Durability{engine.DurabilityAsync, engine.DurabilitySync, engine.DurabilityExit} {
			for _, wrapped := range []bool{false, true} {
				for _, lone := range []bool{false, true} {
					name := fmt.Sprintf("%s/%v/wrapped=%v/lone=%v", way, d, wrapped, lone)
					t.Run(name, func(t *testing.T) {
						var saver engine.Saver = engine.NewMemorySaver()
						if wrapped {
							saver = wrappedSaver{saver}
						}
						checkAbandoned(t, newDeafGraph(t, saver, lone), run, d, lone)
					})
				}
			}
		}
	}
}

// runWay runs a graph one way, handing its events to on.
type runWay func(ctx context.Context, g *engine.Graph, on func(engine.Event), opts ...engine.RunOption) error

func checkAbandoned(t *testing.T, dg *deafGraph, run runWay, d engine.Durability, lone bool) {
	before := runtime.NumGoroutine()
	released := false
	defer func() {
		if !released {
			close(dg.release)
		}
	}()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fastDone := make(chan struct{})
	if lone {
		close(fastDone)
	}
	onEvent := func(e engine.Event) {
		if e.Kind == engine.EventTaskResult && e.Node == "fast" {
			close(fastDone)
		}
	}
	errc := make(chan error, 1)
	go func() {
		errc <- run(cctx, dg.g, onEvent, engine.OnThread("t"), engine.WithDurability(d))
	}()
	<-dg.deafStarted
	<-fastDone
	cancel()
	if err := returnsPromptly(t, errc, "a node that ignores its context after the caller cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	snap, err := dg.g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]engine.SnapshotTask{}
	for _, st := range snap.Tasks {
		tasks[st.Name] = st
	}
	if !lone {
		if f := tasks["fast"]; !f.Finished || f.Error != "" {
			t.Errorf("fast = %+v, want its writes saved", f)
		}
	}
	var ne *engine.NodeError
	if dt := tasks["deaf"]; dt.Finished || !errors.Is(dt.Err, context.Canceled) || !errors.As(dt.Err, &ne) || ne.Node != "deaf" || ne.Err != context.Canceled {
		t.Errorf("deaf = %+v, want its cancellation saved", dt)
	}
	close(dg.release)
	released = true
	waitGoroutines(t, before)
	if n := dg.deafRuns.Load(); n != 1 {
		t.Fatalf("deaf ran %d times before the thread continued", n)
	}
	// What the abandoned node returned was dropped: the thread is as the
	// cancellation left it.
	if again, err := dg.g.GetState(ctx, engine.Config{ThreadID: "t"}); err != nil || again.Checkpoint.ID != snap.Checkpoint.ID || len(again.Tasks) != len(snap.Tasks) {
		t.Fatalf("the abandoned node changed the thread: %v", err)
	}
	res, err := dg.g.Invoke(ctx, nil, engine.OnThread("t"), engine.WithDurability(d))
	if err != nil {
		t.Fatalf("continue: %v", err)
	}
	want := 2
	if !lone {
		want = 2
		if n := dg.fastRuns.Load(); n != 1 {
			t.Errorf("fast ran %d times, want once: its saved writes count", n)
		}
	}
	if n := dg.deafRuns.Load(); int(n) != want {
		t.Errorf("deaf ran %d times, want %d", n, want)
	}
	if got := len(res.Values["log"].([]any)); got != 2-btoi(lone) {
		t.Errorf("log = %v", res.Values["log"])
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A sibling's failure abandons a node that ignores its context, as the
// caller's cancellation does (LangGraph.js aborts the composed signal the
// node's invoke races against): the run fails with the failure at once.
func TestCancel_SiblingFailureAbandonsAnUntimedNode(t *testing.T) {
	hold := make(chan struct{})
	started := make(chan struct{})
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("deaf", func(context.Context, any) (any, error) {
			close(started)
			<-hold // ignores its context
			return map[string]any{"log": []any{"deaf"}}, nil
		}).
		AddNode("fails", func(ctx context.Context, _ any) (any, error) {
			<-started
			return nil, errBoom
		}).
		AddEdge(engine.Start, "deaf").AddEdge(engine.Start, "fails"), engine.WithSaver(engine.NewMemorySaver()))
	before := runtime.NumGoroutine()
	errc := make(chan error, 1)
	go func() {
		_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
		errc <- err
	}()
	err := returnsPromptly(t, errc, "a node that ignores its context after a sibling failed")
	if ne := (*engine.NodeError)(nil); !errors.As(err, &ne) || ne.Node != "fails" || !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want fails's failure", err)
	}
	tasks := savedTasks(t, g, "t")
	var ce *engine.CancelledError
	if dt := tasks["deaf"]; dt.Finished || !errors.As(dt.Err, &ce) || ce.By != "fails" {
		t.Errorf("deaf = %+v, want its cancellation by fails saved", dt)
	}
	close(hold)
	waitGoroutines(t, before)
}

// returnsPromptly waits for a run's error. A run still going after a
// guard far longer than any run here waited for what it should have
// abandoned (what).
func returnsPromptly(t *testing.T, errc <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("the run waited for %s", what)
		return nil
	}
}
