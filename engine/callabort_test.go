package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// abortPair is an entrypoint that calls two tasks together: while aFails,
// "a" fails once "b" has started, and "b" works until its context ends or
// the entrypoint has seen the failure (release), so that the old engine,
// which let b finish, ends too; otherwise both return at once. bOpts
// configure b's call.
type abortPair struct {
	aCalls, bCalls atomic.Int32
	aFails         atomic.Bool
	bCauses        chan error // the cause b saw its context end with, each attempt that did
}

func (p *abortPair) graph(t *testing.T, bOpts ...engine.TaskOption) *engine.Graph {
	t.Helper()
	p.aFails.Store(true)
	p.bCauses = make(chan error, 8)
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, _ any) (any, error) {
		started, release := make(chan struct{}), make(chan struct{})
		defer close(release)
		fb := engine.Task(ctx, "b", func(ctx context.Context, _ string) (string, error) {
			n := p.bCalls.Add(1)
			switch {
			case !p.aFails.Load():
				return "b", nil
			case n > 1: // a retry after the cancellation
				<-ctx.Done()
				p.bCauses <- context.Cause(ctx)
				return "", ctx.Err()
			}
			close(started)
			select {
			case <-ctx.Done():
				p.bCauses <- context.Cause(ctx)
				return "", ctx.Err()
			case <-release:
				return "b", nil
			}
		}, "", bOpts...)
		fa := engine.Task(ctx, "a", func(context.Context, string) (string, error) {
			p.aCalls.Add(1)
			if p.aFails.Load() {
				<-started
				return "", errors.New("boom")
			}
			return "a", nil
		}, "")
		a, err := fa.Result()
		if err != nil {
			return nil, err
		}
		b, err := fb.Result()
		if err != nil {
			return nil, err
		}
		return a + b, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// stepErrorsOf checks that err is the failure of task failed followed by
// the error of call cancelled, which that failure cancelled.
func stepErrorsOf(t *testing.T, err error, failed, cancelled string) {
	t.Helper()
	var se *engine.StepErrors
	if !errors.As(err, &se) || len(se.Errs) != 2 {
		t.Fatalf("want %s's failure and %s's cancellation, got %v", failed, cancelled, err)
	}
	var first, second *engine.NodeError
	var ce *engine.CancelledError
	if !errors.As(se.Errs[0], &first) || first.Node != failed || !errors.As(se.Errs[1], &second) || second.Node != cancelled || !errors.As(second, &ce) || ce.By != failed {
		t.Fatalf("want %s's NodeError, then %s's cancelled by it: %v", failed, cancelled, se)
	}
	var ne *engine.NodeError
	if !errors.As(err, &ne) || ne.Node != failed {
		t.Fatalf("errors.As finds the first failure's NodeError first, got %v", ne)
	}
}

// A failing call cancels its sibling calls even when the caller is its
// superstep's only task, and the run fails with both errors: LangGraph.js
// aborts the superstep's signal on any task's error (runner.ts:175), the
// calls inherit it, and a call's AbortError counts beside the failure
// (runner.ts:160, 582-584: no signalAborted for a call), an
// AggregateError (runner.ts:184-191). The entrypoint runs on a child of
// the caller's context that the failure cancels (runLone), so the calls
// still running see their contexts end with the failure as the cause,
// whether or not the caller's context can end. The cancelled call runs
// again when the thread continues.
func TestTask_CallFailureCancelsSiblingCalls(t *testing.T) {
	for _, cancellable := range []bool{false, true} {
		t.Run(map[bool]string{false: "caller cannot cancel", true: "caller can cancel"}[cancellable], func(t *testing.T) {
			var p abortPair
			g := p.graph(t)
			cctx := ctx
			if cancellable {
				var cancel context.CancelFunc
				cctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			_, err := g.Invoke(cctx, "go", engine.OnThread("x"))
			stepErrorsOf(t, err, "a", "b")
			var ce *engine.CancelledError
			select {
			case cause := <-p.bCauses:
				if !errors.As(cause, &ce) || ce.By != "a" {
					t.Fatalf("b's context ended with %v, want a's failure as the cause", cause)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("b's context did not end") // b is abandoned: the run does not wait for it
			}
			if cctx.Err() != nil {
				t.Fatal("the caller's context ended")
			}
			p.aFails.Store(false)
			res, err := g.Invoke(cctx, nil, engine.OnThread("x"))
			if err != nil || res.Output != "ab" {
				t.Fatalf("continue: %+v, %v", res, err)
			}
			if p.aCalls.Load() != 2 || p.bCalls.Load() != 2 {
				t.Fatalf("a ran %d times, b %d; both want 2 (b was cancelled)", p.aCalls.Load(), p.bCalls.Load())
			}
		})
	}
}

// A cancelled call whose retry policy retries the cancellation is entered
// again for each attempt left, on an ended context, before the superstep
// fails: a call's retry loop watches no abort signal (LangGraph.js
// retry.ts:102-107; runner.ts:582-584 passes none), and each attempt
// calls the function before @langchain/core's race rejects it. The
// default policy does not retry a cancellation (retry.ts
// DEFAULT_RETRY_ON_HANDLER refuses an AbortError).
func TestTask_CancelledCallRetriedByItsPolicy(t *testing.T) {
	retryAll := engine.RetryPolicy{MaxAttempts: 3, RetryOn: func(error) bool { return true }}
	for _, tc := range []struct {
		name   string
		policy engine.RetryPolicy
		calls  int32
	}{
		{"retries the cancellation", retryAll, 3},
		{"default retry on", engine.RetryPolicy{MaxAttempts: 3}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p abortPair
			g := p.graph(t, engine.TaskRetry(tc.policy))
			_, err := g.Invoke(ctx, "go", engine.OnThread("x"))
			stepErrorsOf(t, err, "a", "b")
			if got := p.bCalls.Load(); got != tc.calls {
				t.Fatalf("b entered %d times, want %d", got, tc.calls)
			}
			for range tc.calls - 1 {
				var ce *engine.CancelledError
				if cause := <-p.bCauses; !errors.As(cause, &ce) || ce.By != "a" {
					t.Fatalf("a retry after the cancellation runs on a context ended by a's failure, got %v", cause)
				}
			}
		})
	}
}

// A node's failure cancels a call another node of its superstep made, and
// the run fails with both errors; the other node, cancelled too, adds
// nothing (a node's error after the abort does not count: runner.ts:160).
func TestTask_NodeFailureCancelsCallsOfOtherNodes(t *testing.T) {
	started := make(chan struct{})
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("x", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Task(ctx, "slow", func(ctx context.Context, _ string) (string, error) {
				close(started)
				<-ctx.Done()
				return "", ctx.Err()
			}, "").Result()
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{v}}, nil
		}).
		AddNode("y", func(context.Context, any) (any, error) {
			<-started
			return nil, errors.New("boom")
		}).
		AddEdge(engine.Start, "x").AddEdge(engine.Start, "y"),
		engine.WithSaver(engine.NewMemorySaver()))
	_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("n"))
	stepErrorsOf(t, err, "y", "slow")
}

// failThenB calls task "a", which fails once started is closed, and
// returns b's result, unless a's failure comes first (it does).
func failThenB(ctx context.Context, started chan struct{}, fb *engine.Future[string]) (any, error) {
	fa := engine.Task(ctx, "a", func(context.Context, string) (string, error) {
		<-started
		return "", errors.New("boom")
	}, "")
	if _, err := fa.Result(); err != nil {
		return nil, err
	}
	return fb.Result()
}

// ctxKey marks the caller's context values in a call's aborted retries.
type ctxKey struct{}

// The retries of a call its superstep abandoned do not hold the run when
// the function ignores its context: the caller's cancellation ends the
// run while a retry still blocks (LangGraph.js does not wait for the
// function either: tick rejects at once on the caller's abort,
// runner.ts:313-319). Each retry keeps the caller's context values.
func TestTask_AbortedCallRetryIgnoringItsContextLeavesWithTheCaller(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	entered := make(chan any, 4) // the value each retry's context carries
	var bCalls atomic.Int32
	retryAll := engine.RetryPolicy{MaxAttempts: 5, RetryOn: func(error) bool { return true }}
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, _ any) (any, error) {
		started := make(chan struct{})
		fb := engine.Task(ctx, "b", func(ctx context.Context, _ string) (string, error) {
			if bCalls.Add(1) == 1 {
				close(started)
				<-ctx.Done()
				return "", ctx.Err()
			}
			entered <- ctx.Value(ctxKey{})
			<-hold // ignores its context
			return "b", nil
		}, "", engine.TaskRetry(retryAll))
		return failThenB(ctx, started, fb)
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	caller, cancel := context.WithCancel(context.WithValue(ctx, ctxKey{}, "mine"))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := g.Invoke(caller, "go", engine.OnThread("x"))
		done <- err
	}()
	if v := <-entered; v != "mine" {
		t.Fatalf("the retry's context carries %v, want the caller's value", v)
	}
	select {
	case err := <-done:
		t.Fatalf("the run ended while the retry still ran and the caller was there: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("want the caller's cancellation, got %v", err)
	}
	if n := bCalls.Load(); n != 2 {
		t.Fatalf("b entered %d times; the caller left during its first retry", n)
	}
}

// refusesCancellations is a Saver that refuses to save a task's error
// when it is a cancellation by a sibling's failure.
type refusesCancellations struct{ engine.Saver }

var errRefused = errors.New("store refused the write")

func (s refusesCancellations) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	for _, w := range writes {
		if m, ok := w.Value.(map[string]any); ok && w.Channel == engine.ErrorChannel {
			if c, ok := m["cause"].(map[string]any); ok && c["name"] == "CancelledError" {
				return errRefused
			}
		}
	}
	return s.Saver.PutWrites(ctx, cfg, taskID, writes)
}

// When a lone task's call fails and the store refuses to save the error
// of a sibling call it aborted, the run reports that too, after the
// failure and the aborted call's error, as a superstep of several tasks
// does.
func TestTask_LoneCallFailureReportsAnAbortedCallsSaveError(t *testing.T) {
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, _ any) (any, error) {
		started := make(chan struct{})
		fb := engine.Task(ctx, "b", func(ctx context.Context, _ string) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		}, "")
		return failThenB(ctx, started, fb)
	}, engine.WithSaver(refusesCancellations{engine.NewMemorySaver()}))
	if err != nil {
		t.Fatal(err)
	}
	caller, cancel := context.WithCancel(ctx)
	defer cancel() // b, abandoned, waits for it
	_, err = g.Invoke(caller, "go", engine.OnThread("x"))
	var se *engine.StepErrors
	var ne *engine.NodeError
	var ce *engine.CancelledError
	if !errors.As(err, &se) || len(se.Errs) != 3 || !errors.As(se.Errs[0], &ne) || ne.Node != "a" ||
		!errors.As(se.Errs[1], &ce) || ce.By != "a" || !errors.Is(se.Errs[2], errRefused) {
		t.Fatalf("want a's failure, b's cancellation, then the refused save of it; got %v", err)
	}
}

// When a call of the superstep's only task fails first, the task is
// aborted as a fanout's running tasks are, whatever its function goes on
// to do: an entrypoint that catches the failure and returns is saved with
// a cancellation and runs again when the thread continues, calling the
// task again (LangGraph.js saves {name: "AbortError"} for it and re-runs
// it; measured with the oracle's LangGraph.js 1.7.3). Whether or not the
// caller's context can end.
func TestLoneTask_AbortedByItsCallsFailure(t *testing.T) {
	for _, cancellable := range []bool{false, true} {
		t.Run(map[bool]string{false: "caller cannot cancel", true: "caller can cancel"}[cancellable], func(t *testing.T) {
			var entered, flakyCalls atomic.Int32
			g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
				entered.Add(1)
				v, err := engine.Task(ctx, "flaky", func(_ context.Context, x float64) (float64, error) {
					if flakyCalls.Add(1) == 1 {
						return 0, errors.New("flaky failed")
					}
					return 2 * x, nil
				}, in.(float64)).Result()
				if err != nil {
					return map[string]any{"r": "caught: " + err.Error()}, nil
				}
				return map[string]any{"r": v}, nil
			}, engine.WithSaver(engine.NewMemorySaver()))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if cancellable {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			_, err = g.Invoke(ctx, 1.0, engine.OnThread("t"))
			var ne *engine.NodeError
			if !errors.As(engine.FirstFailure(err), &ne) || ne.Node != "flaky" {
				t.Fatalf("first run: want flaky's failure, got %v", err)
			}
			st, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			var cancelled *engine.CancelledError
			if len(st.Tasks) != 1 || st.Tasks[0].Name != "main" || st.Tasks[0].Finished || !errors.As(st.Tasks[0].Err, &cancelled) || cancelled.By != "flaky" {
				t.Fatalf("saved tasks: want main cancelled by flaky, got %+v", st.Tasks)
			}
			res, err := g.Invoke(ctx, nil, engine.OnThread("t"))
			if err != nil || res.Status != engine.StatusDone {
				t.Fatalf("resume: %v %v", err, res.Status)
			}
			if r := res.Output.(map[string]any)["r"]; r != 2.0 {
				t.Errorf("resumed output r = %v, want 2 (the entrypoint and its call ran again)", r)
			}
			if entered.Load() != 2 || flakyCalls.Load() != 2 {
				t.Errorf("entered main %d times and flaky %d, want 2 and 2", entered.Load(), flakyCalls.Load())
			}
		})
	}
}

// A graph node that is its superstep's only task runs on the loop's own
// goroutine when the caller cannot cancel, where nothing can leave it:
// aborted by its call's failure, it is settled as aborted once it
// returns, not retried (its retry loop stops at the abort, LangGraph.js
// retry.ts:103-107) though its policy retries the error it returned, and
// its write is not saved: it runs again when the thread continues.
func TestLoneTask_AbortedOnTheLoopsGoroutine(t *testing.T) {
	var entered, flakyCalls atomic.Int32
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("main", func(ctx context.Context, _ any) (any, error) {
			entered.Add(1)
			_, err := engine.Task(ctx, "flaky", func(context.Context, string) (string, error) {
				if flakyCalls.Add(1) == 1 {
					return "", errors.New("flaky failed")
				}
				return "ok", nil
			}, "").Result()
			if entered.Load() == 1 {
				// Its write must not be saved; an error would be retried.
				return engine.Update{{Key: "n", Value: "caught"}}, err
			}
			return engine.Update{{Key: "n", Value: "ran again"}}, err
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3, RetryOn: func(error) bool { return true }})).
		AddEdge(engine.Start, "main").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(ctx, map[string]any{"n": "start"}, engine.OnThread("t"))
	var ne *engine.NodeError
	if !errors.As(engine.FirstFailure(err), &ne) || ne.Node != "flaky" {
		t.Fatalf("want flaky's failure, got %v", err)
	}
	if n := entered.Load(); n != 1 {
		t.Errorf("main entered %d times, want 1", n)
	}
	st, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Tasks) != 1 || st.Tasks[0].Finished || !engine.IsCancellation(st.Tasks[0].Err) {
		t.Fatalf("saved tasks: want main cancelled, got %+v", st.Tasks)
	}
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"))
	if err != nil || res.Values["n"] != "ran again" {
		t.Fatalf("continue: %v %v", res.Values, err)
	}
}
