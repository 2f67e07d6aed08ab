package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// These tests order tasks with signals, never with sleeps: a node that must
// fail after a sibling finished waits for that sibling's result event
// (emitted after its writes are saved); a sibling that must still be
// working when the failure comes waits for its context's cancellation.

// finishedSignal closes the channel of each named node when its task
// result is emitted.
type finishedSignal struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

func newFinishedSignal(names ...string) *finishedSignal {
	f := &finishedSignal{ch: map[string]chan struct{}{}}
	for _, n := range names {
		f.ch[n] = make(chan struct{})
	}
	return f
}

func (f *finishedSignal) onEvent(e engine.Event) {
	if e.Kind != engine.EventTaskResult {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.ch[e.Node]; ok {
		close(c)
		delete(f.ch, e.Node)
	}
}

func (f *finishedSignal) wait(ctx context.Context, name string) error {
	f.mu.Lock()
	c, ok := f.ch[name]
	f.mu.Unlock()
	if !ok {
		return nil // already finished
	}
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// blockUntilCancelled is a node that works until its superstep is
// cancelled.
func blockUntilCancelled(ctx context.Context, _ any) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// blocksFirst is a node that, the first time it runs, closes started and
// works until its superstep is cancelled, and later appends its name to
// the log. A sibling that fails waits for started: a task not yet started
// when its superstep fails is not started at all, so without the wait
// the first run would end before it ran, and the resume would block.
func blocksFirst(name string, started chan struct{}) engine.NodeFunc {
	var calls atomic.Int32
	return func(ctx context.Context, in any) (any, error) {
		if calls.Add(1) == 1 {
			close(started)
			return blockUntilCancelled(ctx, in)
		}
		return map[string]any{"log": []any{name}}, nil
	}
}

// waitFor waits for c to close or ctx to end.
func waitFor(ctx context.Context, c chan struct{}) error {
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errBoom = errors.New("boom")

// failOnce fails (after waiting for wait, if set) the first time, then
// appends its name.
func failOnce(name string, before func(ctx context.Context) error) engine.NodeFunc {
	var calls atomic.Int32
	return func(ctx context.Context, _ any) (any, error) {
		if calls.Add(1) == 1 {
			if before != nil {
				if err := before(ctx); err != nil {
					return nil, err
				}
			}
			return nil, errBoom
		}
		return map[string]any{"log": []any{name}}, nil
	}
}

func savedTasks(t *testing.T, g *engine.Graph, thread string) map[string]engine.SnapshotTask {
	t.Helper()
	snap, err := g.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]engine.SnapshotTask{}
	for _, st := range snap.Tasks {
		out[st.Name] = st
	}
	if snap.Status() != engine.CheckpointFailed {
		t.Errorf("status = %v, want error", snap.Status())
	}
	return out
}

func finalLog(t *testing.T, g *engine.Graph, thread string) []any {
	t.Helper()
	res, err := g.Invoke(ctx, nil, engine.OnThread(thread))
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	return res.Values["log"].([]any)
}

// The case: b finished long before a failed; b keeps its writes and
// its edge, so after the resume c runs: [a b c].
func TestExecute_FailureAfterSiblingFinished_KeepsItsEdges(t *testing.T) {
	sig := newFinishedSignal("b")
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", failOnce("a", func(ctx context.Context) error { return sig.wait(ctx, "b") })).
		AddNode("b", appendLog("b")).AddNode("c", appendLog("c")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").AddEdge("b", "c"))
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithEvents(sig.onEvent))
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want boom", err)
	}
	tasks := savedTasks(t, g, "t")
	if a := tasks["a"]; a.Error == "" || a.Finished {
		t.Errorf("a = %+v, want a saved error and not finished", a)
	}
	if b := tasks["b"]; b.Error != "" || !b.Finished || !reflect.DeepEqual(b.Result, map[string]any{"log": []any{"b"}}) {
		t.Errorf("b = %+v, want finished with its writes", b)
	}
	if got, want := finalLog(t, g, "t"), []any{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %v, want %v", got, want)
	}
}

// b is still working when a fails: it is cancelled, saves its error and
// nothing else, and runs again on resume.
func TestExecute_FailureWhileSiblingWorks_CancelsIt(t *testing.T) {
	var bCalls atomic.Int32
	bStarted := make(chan struct{})
	block := blocksFirst("b", bStarted)
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", failOnce("a", func(ctx context.Context) error { return waitFor(ctx, bStarted) })).
		AddNode("b", func(ctx context.Context, in any) (any, error) {
			bCalls.Add(1)
			return block(ctx, in)
		}).
		AddNode("c", appendLog("c")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").AddEdge("b", "c"))
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want boom (not the sibling's cancellation)", err)
	}
	tasks := savedTasks(t, g, "t")
	b := tasks["b"]
	if b.Error == "" || b.Finished || b.Result != nil {
		t.Errorf("b = %+v, want a saved error only", b)
	}
	if got, want := finalLog(t, g, "t"), []any{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %v, want %v", got, want)
	}
	if n := bCalls.Load(); n != 2 {
		t.Errorf("b ran %d times, want 2", n)
	}
}

// The cancelled sibling's saved error is a CancelledError naming the node
// that failed, and the run's error is the failure itself.
func TestExecute_CancelledSibling_SavesCancelledError(t *testing.T) {
	var got error
	var mu sync.Mutex
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", failOnce("a", nil)).
		AddNode("b", blockUntilCancelled).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b"))
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventTaskResult && e.Node == "b" {
			mu.Lock()
			got = e.Err
			mu.Unlock()
		}
	}))
	var ne *engine.NodeError
	if !errors.As(err, &ne) || ne.Node != "a" {
		t.Fatalf("err = %v, want a's NodeError", err)
	}
	var ce *engine.CancelledError
	if !errors.As(got, &ce) || ce.By != "a" || !errors.Is(got, context.Canceled) {
		t.Fatalf("b's error = %v, want a CancelledError by a that is context.Canceled", got)
	}
}

// Send siblings: the Send that finished keeps everything (its edge
// included), the one still working is cancelled and runs again.
func TestExecute_FailureBesideSends(t *testing.T) {
	sig := newFinishedSignal("fast")
	slowStarted := make(chan struct{})
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", appendLog("fan")).
		AddNode("fast", func(_ context.Context, in any) (any, error) {
			return map[string]any{"log": []any{"fast"}}, nil
		}).
		AddNode("slow", blocksFirst("slow", slowStarted)).
		AddNode("bad", failOnce("bad", func(ctx context.Context) error {
			if err := sig.wait(ctx, "fast"); err != nil {
				return err
			}
			return waitFor(ctx, slowStarted)
		})).
		AddNode("after", appendLog("after")).
		AddEdge(engine.Start, "fan").AddEdge("fan", "bad").AddEdge("fast", "after").
		AddConditionalEdges("fan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "fast", Arg: map[string]any{}}, engine.Send{Node: "slow", Arg: map[string]any{}}}, nil
		}, "fast", "slow"))
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithEvents(sig.onEvent))
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want boom", err)
	}
	tasks := savedTasks(t, g, "t")
	if f := tasks["fast"]; !f.Finished || f.Error != "" {
		t.Errorf("fast = %+v, want finished", f)
	}
	if s := tasks["slow"]; s.Finished || s.Error == "" {
		t.Errorf("slow = %+v, want cancelled", s)
	}
	if got, want := finalLog(t, g, "t"), []any{"fan", "bad", "fast", "slow", "after"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %v, want %v", got, want)
	}
}

// A retried node whose later attempt fails cancels its siblings then: one
// that finished during the first attempts keeps everything, one still
// working is cancelled.
func TestExecute_RetriedNodeFailsOnLaterAttempt(t *testing.T) {
	sig := newFinishedSignal("b")
	var aCalls atomic.Int32
	dStarted := make(chan struct{})
	fixed := atomic.Bool{}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(ctx context.Context, _ any) (any, error) {
			if fixed.Load() {
				return map[string]any{"log": []any{"a"}}, nil
			}
			if aCalls.Add(1) == 2 {
				if err := sig.wait(ctx, "b"); err != nil {
					return nil, err
				}
				if err := waitFor(ctx, dStarted); err != nil {
					return nil, err
				}
			}
			return nil, errBoom
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2})).
		AddNode("b", appendLog("b")).AddNode("c", appendLog("c")).
		AddNode("d", blocksFirst("d", dStarted)).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").AddEdge(engine.Start, "d").AddEdge("b", "c"))
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithEvents(sig.onEvent))
	var ne *engine.NodeError
	if !errors.As(err, &ne) || ne.Node != "a" || ne.Attempts != 2 {
		t.Fatalf("err = %v, want a's NodeError after 2 attempts", err)
	}
	tasks := savedTasks(t, g, "t")
	if b := tasks["b"]; !b.Finished || b.Error != "" {
		t.Errorf("b = %+v, want finished", b)
	}
	if d := tasks["d"]; d.Finished || d.Error == "" {
		t.Errorf("d = %+v, want cancelled", d)
	}
	fixed.Store(true)
	if got, want := finalLog(t, g, "t"), []any{"a", "b", "d", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %v, want %v", got, want)
	}
}

// A task cancelled between its writers keeps what the writers before the
// cancellation wrote (here its state update) and, having output, is not
// run again — LangGraph reapplies every non-control write on resume.
func TestExecute_CancelledBetweenWriters_KeepsEarlierWrites(t *testing.T) {
	routeEntered := make(chan struct{})
	var bCalls atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", failOnce("a", func(ctx context.Context) error {
			<-routeEntered
			return nil
		})).
		AddNode("b", func(context.Context, any) (any, error) {
			bCalls.Add(1)
			return map[string]any{"log": []any{"b"}}, nil
		}).
		AddNode("c", appendLog("c")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
		AddConditionalEdges("b", func(ctx context.Context, _ map[string]any) (any, error) {
			if bCalls.Load() == 1 {
				close(routeEntered)
				<-ctx.Done() // the route works until a's failure cancels the step
				return nil, ctx.Err()
			}
			return "c", nil
		}, "c"))
	_, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want boom", err)
	}
	tasks := savedTasks(t, g, "t")
	if b := tasks["b"]; !reflect.DeepEqual(b.Result, map[string]any{"log": []any{"b"}}) || b.Error == "" {
		t.Errorf("b = %+v, want its state update and an error", b)
	}
	if got, want := finalLog(t, g, "t"), []any{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %v, want %v", got, want)
	}
	if n := bCalls.Load(); n != 1 {
		t.Errorf("b ran %d times, want 1 (its saved update counts as output)", n)
	}
}

// A task retried to success keeps its earlier attempts' failures in its
// view, in order (the last attempt's outcome alone hides them).
func TestExecute_RetriedKeepsEarlierFailures(t *testing.T) {
	calls := 0
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("flaky", func(context.Context, any) (any, error) {
			calls++
			if calls < 3 {
				return nil, fmt.Errorf("attempt %d: tool timed out", calls)
			}
			return map[string]any{"log": []any{"ok"}}, nil
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3})).
		AddEdge(engine.Start, "flaky"))
	st, err := g.Start(ctx, map[string]any{"log": []any{}}, engine.OnThread("r"))
	if err != nil {
		t.Fatal(err)
	}
	for st.Phase() != engine.PhaseExecuted || len(st.View().Tasks) == 0 || st.View().Tasks[0].Name != "flaky" {
		if err := st.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tv := st.View().Tasks[0]
	if tv.Attempts != 3 || tv.Err != nil || len(tv.Retried) != 2 ||
		tv.Retried[0].Error() != "attempt 1: tool timed out" || tv.Retried[1].Error() != "attempt 2: tool timed out" {
		t.Fatalf("task view: attempts %d err %v retried %v", tv.Attempts, tv.Err, tv.Retried)
	}
}
