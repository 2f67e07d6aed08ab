package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// An entrypoint with tasks: a resumed run reuses the results of the calls
// that finished before the interrupt and does not call them again
// (LangGraph.js src/tests/func.test.ts "task and entrypoint" / Python
// tests/test_pregel_async.py test_imp_task with an interrupt).
func TestEntrypoint_TaskResultsReusedOnResume(t *testing.T) {
	var addCalls, askCalls atomic.Int32
	addOne := func(_ context.Context, x float64) (float64, error) {
		addCalls.Add(1)
		return x + 1, nil
	}
	ask := func(ctx context.Context, q string) (string, error) {
		askCalls.Add(1)
		v, err := engine.Interrupt(ctx, q)
		if err != nil {
			return "", err
		}
		return v.(string), nil
	}
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
		x := in.(map[string]any)["x"].(float64)
		a, err := engine.Task(ctx, "add_one", addOne, x).Result()
		if err != nil {
			return nil, err
		}
		// two calls at once
		f1, f2 := engine.Task(ctx, "add_one", addOne, a), engine.Task(ctx, "add_one", addOne, 10.0)
		b, err1 := f1.Result()
		c, err2 := f2.Result()
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		answer, err := engine.Task(ctx, "ask", ask, "ok?").Result()
		if err != nil {
			return nil, err
		}
		return engine.Final{Value: map[string]any{"sum": a + b + c, "answer": answer, "previous": engine.Previous(ctx)}, Save: a + b + c}, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(ctx, map[string]any{"x": 1.0}, engine.OnThread("f"))
	if err != nil || res.Status != engine.StatusInterrupted || len(res.Interrupts) != 1 || res.Interrupts[0].Value != "ok?" || res.Interrupts[0].Node != "main" {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	if addCalls.Load() != 3 || askCalls.Load() != 1 {
		t.Fatalf("first run: add_one ran %d times, ask %d", addCalls.Load(), askCalls.Load())
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("f"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	if got := fmt.Sprint(res.Output); got != "map[answer:yes previous:<nil> sum:16]" {
		t.Fatalf("output %s", got)
	}
	if addCalls.Load() != 3 || askCalls.Load() != 2 {
		t.Fatalf("resume re-ran finished tasks: add_one %d times, ask %d", addCalls.Load(), askCalls.Load())
	}
	// The next run sees what the last one saved.
	res, err = g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("f"))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("second input: %+v, %v", res, err)
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: "no"}, engine.OnThread("f"))
	if err != nil || fmt.Sprint(res.Output.(map[string]any)["previous"]) != "16" {
		t.Fatalf("previous: %+v, %v", res, err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "f"})
	if err != nil || fmt.Sprint(snap.Output) != fmt.Sprint(res.Output) || len(snap.Values) != 0 {
		t.Fatalf("snapshot output %v values %v, %v", snap.Output, snap.Values, err)
	}
}

// A task that failed keeps its error; a retried caller gets the saved
// results of the calls that finished (Python tests/test_pregel.py
// test_imp_task_cancel-like: finished tasks are not re-run after a failure
// elsewhere).
func TestTask_FinishedCallsSurviveFailure(t *testing.T) {
	var slowCalls, failCalls atomic.Int32
	fail := true
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
		a, err := engine.Task(ctx, "slow", func(_ context.Context, s string) (string, error) {
			slowCalls.Add(1)
			return s + "!", nil
		}, "a").Result()
		if err != nil {
			return nil, err
		}
		b, err := engine.Task(ctx, "flaky", func(_ context.Context, s string) (string, error) {
			failCalls.Add(1)
			if fail {
				return "", errors.New("boom")
			}
			return s + "?", nil
		}, "b").Result()
		if err != nil {
			return nil, err
		}
		return a + b, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, "go", engine.OnThread("x")); err == nil {
		t.Fatal("expected the failure")
	}
	fail = false
	res, err := g.Invoke(ctx, nil, engine.OnThread("x"))
	if err != nil || res.Output != "a!b?" {
		t.Fatalf("retry: %+v, %v", res, err)
	}
	if slowCalls.Load() != 1 || failCalls.Load() != 2 {
		t.Fatalf("slow ran %d times (want 1), flaky %d (want 2)", slowCalls.Load(), failCalls.Load())
	}
	// Outside a node, Task says so.
	if _, err := engine.Task(ctx, "x", func(context.Context, int) (int, error) { return 0, nil }, 1).Result(); !errors.Is(err, engine.ErrOutsideNode) {
		t.Fatalf("outside a node: %v", err)
	}
}

// A copy with updates writes each update as the result of the fork's
// planned task of its node, and applies them as one update superstep
// (LangGraph.js src/tests/pregel.test.ts "fork and update task results";
// index.ts:1390-1463).
func TestUpdateState_CopyWithUpdates(t *testing.T) {
	var twoRuns atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("one", func(context.Context, any) (any, error) {
			return engine.Command{Update: map[string]any{"log": []any{"one"}}, Goto: []any{engine.Send{Node: "two", Arg: map[string]any{}}}}, nil
		}, engine.WithEnds("two")).
		AddNode("two", func(context.Context, any) (any, error) {
			twoRuns.Add(1)
			return map[string]any{"log": []any{"two"}}, nil
		}).
		AddNode("three", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"three"}}, nil }).
		AddEdge(engine.Start, "one").AddEdge("one", "two").AddEdge("two", "three"),
		engine.WithSaver(engine.NewMemorySaver()))
	thread := engine.Config{ThreadID: "copy"}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread("copy")); err != nil {
		t.Fatal(err)
	}
	// The checkpoint that plans two's two tasks.
	var at *engine.StateSnapshot
	hist, err := g.History(ctx, thread, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range hist {
		if len(s.Next) == 2 {
			at = s
		}
	}
	if at == nil {
		t.Fatal("no checkpoint plans two tasks")
	}
	cfg, err := g.UpdateState(ctx, at.Config, []engine.StateUpdate{
		{Values: map[string]any{"log": []any{"a"}}, AsNode: "two"},
		{Values: map[string]any{"log": []any{"b"}}, AsNode: "two"},
	}, engine.AsCopy)
	if err != nil {
		t.Fatal(err)
	}
	upd, err := g.GetState(ctx, cfg)
	if err != nil || fmt.Sprint(upd.Values["log"]) != "[in one a b]" || upd.Metadata.Source != engine.SourceUpdate {
		t.Fatalf("update checkpoint: %v %s, %v", upd.Values, upd.Metadata.Source, err)
	}
	fork, err := g.GetState(ctx, engine.Config{ThreadID: "copy", CheckpointID: upd.ParentID})
	if err != nil || fork.Metadata.Source != engine.SourceFork || fork.ParentID != at.ParentID {
		t.Fatalf("fork: %+v, %v", fork.Metadata, err)
	}
	var results []string
	for _, tk := range fork.Tasks {
		results = append(results, fmt.Sprint(tk.Result["log"]))
	}
	if fmt.Sprint(results) != "[[a] [b]]" {
		t.Fatalf("the fork's planned tasks carry the updates as results: %v", results)
	}
	runs := twoRuns.Load()
	res, err := g.Invoke(ctx, nil, engine.OnThread("copy"), engine.FromCheckpoint(cfg.CheckpointID))
	if err != nil || fmt.Sprint(res.Values["log"]) != "[in one a b three]" || twoRuns.Load() != runs {
		t.Fatalf("continued: %v, %v (two ran %d more times)", res.Values, err, twoRuns.Load()-runs)
	}
}

// Task works from any node, not only an entrypoint: in a StateGraph node
// beside Send tasks, a resumed superstep reuses the node's finished calls
// (LangGraph.js sets CONFIG_KEY_CALL for every task, runner.ts:337).
func TestTask_FromStateGraphNode(t *testing.T) {
	var lookups atomic.Int32
	lookup := func(_ context.Context, q string) (string, error) {
		lookups.Add(1)
		return "found " + q, nil
	}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", func(context.Context, any) (any, error) {
			return engine.Command{Goto: []any{engine.Send{Node: "worker", Arg: "a"}, engine.Send{Node: "worker", Arg: "b"}}}, nil
		}, engine.WithEnds("worker")).
		AddNode("worker", func(ctx context.Context, in any) (any, error) {
			found, err := engine.Task(ctx, "lookup", lookup, in.(string)).Result()
			if err != nil {
				return nil, err
			}
			ok, err := engine.Interrupt(ctx, "keep "+found+"?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{found + ":" + fmt.Sprint(ok)}}, nil
		}).
		AddEdge(engine.Start, "fan"),
		engine.WithSaver(engine.NewMemorySaver()))
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("sg"))
	if err != nil || res.Status != engine.StatusInterrupted || len(res.Interrupts) != 2 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	for _, in := range res.Interrupts {
		if in.Node != "worker" {
			t.Fatalf("the interrupt belongs to the calling node, got %q", in.Node)
		}
	}
	if lookups.Load() != 2 {
		t.Fatalf("lookup ran %d times", lookups.Load())
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: true}, engine.OnThread("sg"))
	if err != nil || res.Status != engine.StatusDone || fmt.Sprint(res.Values["log"]) != "[found a:true found b:true]" {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	if lookups.Load() != 2 {
		t.Fatalf("the resumed workers called lookup again: %d calls", lookups.Load())
	}
}

// A task's retry policy retries its function inside the call; the caller
// sees only the result (LangGraph.js src/tests/func.test.ts "task with
// retry policy").
func TestTask_Retry(t *testing.T) {
	var attempts atomic.Int32
	g, err := engine.NewEntrypoint("retryGraph", func(ctx context.Context, _ any) (any, error) {
		return engine.Task(ctx, "failingTask", func(context.Context, struct{}) (string, error) {
			if attempts.Add(1) < 3 {
				return "", errors.New("Task failed")
			}
			return "success", nil
		}, struct{}{}, engine.TaskRetry(engine.RetryPolicy{MaxAttempts: 3})).Result()
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(ctx, []any{}, engine.OnThread("r"))
	if err != nil || res.Output != "success" || attempts.Load() != 3 {
		t.Fatalf("%+v, %v after %d attempts", res, err, attempts.Load())
	}
	if _, err := engine.NewEntrypoint("__start__", func(context.Context, any) (any, error) { return nil, nil }); err == nil {
		t.Fatal("a reserved entrypoint name must be refused")
	}
}

// update_state on an entrypoint runs its writers: the values become its
// output and the next run's previous (LangGraph.js func.test.ts "stores
// previous returned value in state, allows updating state").
func TestEntrypoint_UpdateState(t *testing.T) {
	g, err := engine.NewEntrypoint("graph", func(ctx context.Context, in any) (any, error) {
		return map[string]any{"previous": engine.Previous(ctx), "current": in}, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{ThreadID: "u"}
	if _, err := g.UpdateState(ctx, cfg, map[string]any{"a": -1.0}, ""); err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(ctx, map[string]any{"a": "1"}, engine.OnThread("u"))
	if err != nil || fmt.Sprint(res.Output) != "map[current:map[a:1] previous:map[a:-1]]" {
		t.Fatalf("%v, %v", res.Output, err)
	}
}

// A task's timeout fails the call with a NodeTimeoutError the caller sees.
func TestTask_Timeout(t *testing.T) {
	g, err := engine.NewEntrypoint("slow", func(ctx context.Context, _ any) (any, error) {
		return engine.Task(ctx, "sleepy", func(ctx context.Context, _ int) (int, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		}, 1, engine.TaskTimeout(engine.TimeoutPolicy{Run: 20 * time.Millisecond})).Result()
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(ctx, 0)
	var te *engine.NodeTimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("want a NodeTimeoutError, got %v", err)
	}
}

// A cached task returns the result cached for its argument without
// running, across threads, until the cache is cleared (LangGraph.js
// func.test.ts "mutliple interrupts with cache"). The result is cached
// before the call returns it, so a repeat in the same run hits too (in
// LangGraph.js that depends on when its runner commits the first call).
func TestTask_Cache(t *testing.T) {
	var runs atomic.Int32
	double := func(_ context.Context, x float64) (float64, error) {
		runs.Add(1)
		return 2 * x, nil
	}
	g, err := engine.NewEntrypoint("graph", func(ctx context.Context, _ any) (any, error) {
		var out []any
		for _, x := range []float64{1, 1, 2} {
			v, err := engine.Task(ctx, "double", double, x, engine.TaskCache(engine.CachePolicy{})).Result()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}, engine.WithSaver(engine.NewMemorySaver()), engine.WithCache(engine.NewMemoryCache()))
	if err != nil {
		t.Fatal(err)
	}
	for i, thread := range []string{"a", "b"} {
		res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread(thread))
		if err != nil || fmt.Sprint(res.Output) != "[2 2 4]" || runs.Load() != 2 {
			t.Fatalf("run %d: %v, %v, double ran %d times", i, res.Output, err, runs.Load())
		}
	}
	if err := g.ClearCache(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("c")); err != nil || runs.Load() != 4 {
		t.Fatalf("after clearing: %v, double ran %d times", err, runs.Load())
	}
}

// A call task's failure fails the superstep even when its caller did not
// pass it on (it had already stopped at another call's interrupt), and it
// wins over the interrupt (LangGraph.js pregel/runner.ts tick collects every
// settled task's error, calls included, before any GraphInterrupt).
func TestEntrypoint_CallFailureAfterCallerInterruptFailsTheStep(t *testing.T) {
	boom := errors.New("boom")
	failed := make(chan struct{})
	fail := func(context.Context, int) (int, error) {
		time.Sleep(20 * time.Millisecond)
		close(failed)
		return 0, boom
	}
	ask := func(ctx context.Context, q string) (any, error) { return engine.Interrupt(ctx, q) }
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
		engine.Task(ctx, "fail", fail, 1) // not awaited: the caller stops first
		_, err := engine.Task(ctx, "ask", ask, "ok?").Result()
		return nil, err
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("f"))
	<-failed
	if !errors.Is(err, boom) {
		t.Fatalf("run: %+v, %v; want the call's failure", res, err)
	}
}
