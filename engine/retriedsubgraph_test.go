package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

type probeKey struct{}

// A subgraph's superstep that a Task call's failure aborts does not wait
// for the node that made the call: the node caught the failure and works
// on while the root node that ran the subgraph retries it. What that left
// node reads through its context must not be rewritten by the retry (a
// data race under -race: each attempt used to reset the task scope's
// context). The left node synchronizes with nothing after the retry
// starts, so the race detector sees any such write. The root sibling p
// makes the root superstep a fan-out: with the subgraph node alone there,
// the retry came only after the left node had returned. Found by
// differential fuzzing (scenario own/subgraph_calls_retried_whole).
func TestSubgraphRetry_LeftNodeReadsItsContext(t *testing.T) {
	var entered atomic.Int32
	leftDone := make(chan any, 1)
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s0", func(ctx context.Context, _ any) (any, error) {
			if entered.Add(1) > 1 {
				return map[string]any{"log": []any{"s0 again"}}, nil
			}
			_, err := engine.Task(ctx, "t0", func(context.Context, int) (int, error) {
				time.Sleep(40 * time.Millisecond) // s0 waits for its result meanwhile
				return 0, errors.New("t0 failed")
			}, 0).Result()
			if err == nil {
				t.Error("t0's call did not fail")
			}
			// Caught: the node works on, past its superstep's abort and
			// the retry of the node that ran its subgraph.
			time.Sleep(150 * time.Millisecond)
			leftDone <- ctx.Value(probeKey{})
			return map[string]any{"log": []any{"s0 caught"}}, nil
		}).
		AddEdge(engine.Start, "s0"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2, RetryOn: func(error) bool { return true }})).
		AddNode("p", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"p"}}, nil }).
		AddEdge(engine.Start, "sub").AddEdge(engine.Start, "p"),
		engine.WithSaver(engine.NewMemorySaver()))
	res, err := g.Invoke(context.WithValue(ctx, probeKey{}, "probe"), map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if n := entered.Load(); n != 2 {
		t.Errorf("s0 entered %d times, want 2 (the subgraph retried whole)", n)
	}
	select {
	case v := <-leftDone:
		if v != "probe" {
			t.Errorf("the left node's context reads %v, want the run's value", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the left node did not finish")
	}
}
