package engine_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// sendsTo is a node that fans out n Sends to node.
func sendsTo(node string, n int) engine.NodeFunc {
	return func(context.Context, any) (any, error) {
		sends := make([]any, n)
		for i := range sends {
			sends[i] = engine.Send{Node: node, Arg: float64(i)}
		}
		return engine.Command{Goto: sends}, nil
	}
}

// Without a bound every task of a superstep starts at once, as LangGraph.js
// starts them all (pregel/runner.ts:273-276), although the engine runs
// tasks that end on goroutines that take the next one: each task here
// waits until all have started, which never happens if a started task
// must end before another starts.
func TestUnbounded_EveryTaskStartsWhileTheOthersWait(t *testing.T) {
	const n = 64
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", sendsTo("w", n), engine.WithEnds("w")).
		AddNode("w", func(ctx context.Context, arg any) (any, error) {
			started.Done()
			select {
			case <-all:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return nil, context.DeadlineExceeded // a task did not start
			}
			return map[string]any{"log": []any{arg}}, nil
		}).
		AddEdge(engine.Start, "fan"))
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	log := res.Values["log"].([]any)
	if len(log) != n {
		t.Fatalf("%d tasks wrote, want %d", len(log), n)
	}
	for i, v := range log {
		if v != float64(i) { // writes apply in task order, whichever ran first
			t.Fatalf("log[%d] = %v: writes out of task order: %v", i, v, log)
		}
	}
}

// A task whose node ends its goroutine (runtime.Goexit, as t.FailNow
// does) ends only its own work: the superstep's other tasks still run.
func TestUnbounded_GoexitInOneTaskLeavesTheOthers(t *testing.T) {
	const n = 20
	var ran atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", sendsTo("w", n), engine.WithEnds("w")).
		AddNode("w", func(_ context.Context, arg any) (any, error) {
			ran.Add(1)
			if arg == float64(3) {
				runtime.Goexit()
			}
			return map[string]any{"log": []any{arg}}, nil
		}).
		AddEdge(engine.Start, "fan"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Invoke(ctx, map[string]any{}, engine.OnThread("t")) //nolint:errcheck // how the Goexit ends the run is not what this test is about
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
	if got := ran.Load(); got != n {
		t.Fatalf("%d tasks ran, want %d", got, n)
	}
}
