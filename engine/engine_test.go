package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

var ctx = context.Background()

func update(kv ...any) engine.NodeFunc {
	return func(context.Context, any) (any, error) { return engine.Pairs(kv...), nil }
}

func appendLog(name string) engine.NodeFunc {
	return func(context.Context, any) (any, error) {
		return map[string]any{"log": []any{name}}, nil
	}
}

func mustCompile(t *testing.T, b *engine.StateGraph, opts ...engine.CompileOption) *engine.Graph {
	t.Helper()
	g, err := b.Compile(append([]engine.CompileOption{engine.WithSaver(engine.NewMemorySaver()), engine.WithIDs(&engine.CounterIDs{})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCompile_ErrorsNameTheProblem(t *testing.T) {
	nop := update()
	tests := []struct {
		name string
		b    *engine.StateGraph
		kind string
	}{
		{"unknown edge target", engine.NewStateGraph().AddNode("a", nop).AddEdge(engine.Start, "a").AddEdge("a", "ghost"), "UnknownNode"},
		{"unknown edge source", engine.NewStateGraph().AddNode("a", nop).AddEdge(engine.Start, "a").AddEdge("ghost", "a"), "UnknownNode"},
		{"no entry", engine.NewStateGraph().AddNode("a", nop).AddEdge("a", engine.End), "MissingEntry"},
		{"unreachable", engine.NewStateGraph().AddNode("a", nop).AddNode("b", nop).AddEdge(engine.Start, "a"), "UnreachableNodeError"},
		{"duplicate node", engine.NewStateGraph().AddNode("a", nop).AddNode("a", nop).AddEdge(engine.Start, "a"), "DuplicateNode"},
		{"name clash with key", engine.NewStateGraph(engine.LastValueKey("a")).AddNode("a", nop).AddEdge(engine.Start, "a"), "NameClash"},
		{"reserved name", engine.NewStateGraph().AddNode("x:y", nop).AddEdge(engine.Start, "x:y"), "InvalidNode"},
		{"unknown interrupt node", engine.NewStateGraph().AddNode("a", nop).AddEdge(engine.Start, "a"), "UnknownNode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []engine.CompileOption
			if tt.name == "unknown interrupt node" {
				opts = append(opts, engine.WithInterruptBefore("nope"))
			}
			_, err := tt.b.Compile(opts...)
			var ce *engine.CompileError
			if !errors.As(err, &ce) || ce.Kind != tt.kind {
				t.Fatalf("want a %s CompileError, got %v", tt.kind, err)
			}
		})
	}
}

func TestInvoke_ParallelJoinAndReducerOrder(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("p", appendLog("p")).
		AddNode("b", func(context.Context, any) (any, error) {
			time.Sleep(5 * time.Millisecond) // finishes after c
			return map[string]any{"log": []any{"b"}}, nil
		}).
		AddNode("c", appendLog("c")).AddNode("j", appendLog("j")).
		AddEdge(engine.Start, "p").AddEdge("p", "b").AddEdge("p", "c").
		AddJoin([]string{"b", "c"}, "j"))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{"p", "b", "c", "j"}; !reflect.DeepEqual(res.Values["log"], want) {
		t.Fatalf("log %v, want %v: writes apply in task order, not finish order", res.Values["log"], want)
	}
}

func TestInterrupt_ResumeByPosition(t *testing.T) {
	var entries atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			entries.Add(1)
			first, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			second, err := engine.Interrupt(ctx, "second?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{first, second}}, nil
		}).
		AddEdge(engine.Start, "ask"))
	res, _ := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if res.Status != engine.StatusInterrupted || res.Interrupts[0].Value != "first?" {
		t.Fatalf("want the first interrupt, got %+v", res)
	}
	res, _ = g.Invoke(ctx, engine.Command{Resume: "A"}, engine.OnThread("t"))
	if res.Status != engine.StatusInterrupted || res.Interrupts[0].Value != "second?" {
		t.Fatalf("want the second interrupt after one answer, got %+v", res)
	}
	res, err := g.Invoke(ctx, engine.Command{Resume: "B"}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %+v", err, res)
	}
	if !reflect.DeepEqual(res.Values["log"], []any{"A", "B"}) {
		t.Fatalf("answers matched by position: got %v", res.Values["log"])
	}
	if entries.Load() != 3 {
		t.Fatalf("the node re-runs from its top on each resume: entered %d times, want 3", entries.Load())
	}
}

func TestInterrupt_ParallelResumeByID_ReusesFinishedSibling(t *testing.T) {
	var workRuns atomic.Int32
	ask := func(q string) engine.NodeFunc {
		return func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, q)
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{q + "=" + fmt.Sprint(a)}}, nil
		}
	}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("p1", ask("p1")).AddNode("p2", ask("p2")).
		AddNode("work", func(context.Context, any) (any, error) {
			workRuns.Add(1)
			return map[string]any{"log": []any{"work"}}, nil
		}).
		AddNode("j", appendLog("j")).
		AddEdge(engine.Start, "p1").AddEdge(engine.Start, "p2").AddEdge(engine.Start, "work").
		AddJoin([]string{"p1", "p2", "work"}, "j"))
	res, _ := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if res.Status != engine.StatusInterrupted || len(res.Interrupts) != 2 {
		t.Fatalf("want two pending interrupts, got %+v", res)
	}
	if !slices.Contains(res.Values["log"].([]any), "work") {
		t.Fatal("the interrupted run's values include the finished sibling's writes")
	}
	byNode := map[string]string{}
	for _, in := range res.Interrupts {
		byNode[in.Node] = in.ID
	}
	// Answer p2 only, by interrupt id: p1 stays pending.
	res, _ = g.Invoke(ctx, engine.Command{Resume: engine.ResumeMap{byNode["p2"]: "yes"}}, engine.OnThread("t"))
	if res.Status != engine.StatusInterrupted || len(res.Interrupts) != 1 || res.Interrupts[0].Node != "p1" {
		t.Fatalf("want p1 still pending, got %+v", res)
	}
	snap, _ := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if !reflect.DeepEqual(snap.Next, []string{"p1"}) {
		t.Fatalf("next %v, want [p1]", snap.Next)
	}
	res, err := g.Invoke(ctx, engine.Command{Resume: engine.ResumeMap{snap.Interrupts()[0].ID: "ok"}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %+v", err, res)
	}
	if want := []any{"p1=ok", "p2=yes", "work", "j"}; !reflect.DeepEqual(res.Values["log"], want) {
		t.Fatalf("log %v, want %v", res.Values["log"], want)
	}
	if workRuns.Load() != 1 {
		t.Fatalf("work ran %d times: its saved writes must be reused on resume", workRuns.Load())
	}
}

func TestInterrupt_NewInputDiscardsPendingTask(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.Interrupt(ctx, "?"); err != nil {
				return nil, err
			}
			return nil, nil
		}).AddEdge(engine.Start, "ask"))
	g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	res, _ := g.Invoke(ctx, map[string]any{"log": []any{"new"}}, engine.OnThread("t"))
	if res.Status != engine.StatusInterrupted {
		t.Fatalf("the new input runs ask again and stops there, got %v", res.Status)
	}
	hist, _ := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if hist[1].Metadata.Source != engine.SourceInput || !reflect.DeepEqual(hist[2].Next, []string{"ask"}) {
		t.Fatal("new input writes an input checkpoint after the interrupted one")
	}
}

func TestBreakpoints_ResumeDoesNotStopTwice(t *testing.T) {
	var bRuns atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("a", update("n", 1.0)).
		AddNode("b", func(context.Context, any) (any, error) { bRuns.Add(1); return engine.Pairs("n", 2.0), nil }).
		AddEdge(engine.Start, "a").AddEdge("a", "b"),
		engine.WithInterruptBefore("b"))
	res, _ := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"))
	if res.Status != engine.StatusInterrupted || len(res.Interrupts) != 0 || bRuns.Load() != 0 {
		t.Fatalf("want a static stop before b, got %+v", res)
	}
	res, _ = g.Invoke(ctx, nil, engine.OnThread("t"))
	if res.Status != engine.StatusDone || bRuns.Load() != 1 {
		t.Fatalf("continuing with nil input passes the breakpoint once, got %v (b ran %d)", res.Status, bRuns.Load())
	}
	snap, _ := g.GetState(ctx, engine.Config{ThreadID: "t"})
	seen := snap.Checkpoint.VersionsSeen[engine.InterruptChannel]
	if len(seen) == 0 {
		t.Fatal("resuming records versions_seen[__interrupt__]")
	}
}

func TestUpdateState_AsNodeFiresItsRoute(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n"), engine.AppendKey("log")).
		AddNode("a", update("n", 1.0)).
		AddNode("big", appendLog("big")).AddNode("small", appendLog("small")).
		AddEdge(engine.Start, "a").
		AddConditionalEdges("a", func(_ context.Context, s map[string]any) (any, error) {
			if s["n"].(float64) > 10 {
				return "big", nil
			}
			return "small", nil
		}, "big", "small"))
	g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"))
	hist, _ := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	var afterA engine.StateSnapshot
	for _, h := range hist {
		if h.Metadata.Step == 1 {
			afterA = *h
		}
	}
	cfg, err := g.UpdateState(ctx, afterA.Config, map[string]any{"n": 50.0}, "a")
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := g.GetState(ctx, cfg)
	if snap.Metadata.Source != engine.SourceUpdate || snap.Metadata.Step != 2 || snap.ParentID != afterA.Config.CheckpointID {
		t.Fatalf("update checkpoint: source %s step %d parent %s", snap.Metadata.Source, snap.Metadata.Step, snap.ParentID)
	}
	if !reflect.DeepEqual(snap.Next, []string{"big"}) {
		t.Fatalf("next %v: the update applied as a must route on the new value to big", snap.Next)
	}
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.FromCheckpoint(cfg.CheckpointID))
	if err != nil || !reflect.DeepEqual(res.Values["log"], []any{"big"}) {
		t.Fatalf("the fork continues to big: %v %v", err, res.Values)
	}
}

func TestReplay_WritesForkParentedToOldCheckpoint(t *testing.T) {
	var runs atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { runs.Add(1); return map[string]any{"log": []any{"a"}}, nil }).
		AddEdge(engine.Start, "a"))
	g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	hist, _ := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	step0 := hist[1] // newest first: loop@1, loop@0, input@-1
	if step0.Metadata.Step != 0 {
		t.Fatalf("want the step-0 checkpoint, got step %d", step0.Metadata.Step)
	}
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.FromCheckpoint(step0.Config.CheckpointID))
	if err != nil || runs.Load() != 2 {
		t.Fatalf("replay re-runs a: %v, runs %d", err, runs.Load())
	}
	hist, _ = g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	fork := hist[1]
	if fork.Metadata.Source != engine.SourceFork || fork.ParentID != step0.Config.CheckpointID || fork.Metadata.Step != 1 {
		t.Fatalf("replay writes a fork checkpoint first: %+v", fork.Metadata)
	}
	if hist[0].ParentID != fork.Config.CheckpointID || !reflect.DeepEqual(res.Values["log"], []any{"a"}) {
		t.Fatal("the replayed superstep continues from the fork")
	}
}

func TestRecursionLimit_Arithmetic(t *testing.T) {
	build := func() *engine.Graph {
		return mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
			AddNode("a", update("n", 1.0)).AddNode("b", update("n", 2.0)).
			AddEdge(engine.Start, "a").AddEdge("a", "b"))
	}
	// a→b needs 3 supersteps counting __start__: limit 3 succeeds, 2 fails.
	if _, err := build().Invoke(ctx, map[string]any{}, engine.OnThread("t"), engine.WithRecursionLimit(3)); err != nil {
		t.Fatalf("limit 3: %v", err)
	}
	_, err := build().Invoke(ctx, map[string]any{}, engine.OnThread("t"), engine.WithRecursionLimit(2))
	var gr *engine.GraphRecursionError
	if !errors.As(err, &gr) || gr.Limit != 2 {
		t.Fatalf("limit 2: want GraphRecursionError, got %v", err)
	}
}

func TestRetryAndPanics(t *testing.T) {
	var attempts atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("flaky", func(context.Context, any) (any, error) {
			if attempts.Add(1) < 3 {
				return nil, errors.New("transient")
			}
			return engine.Pairs("n", 1.0), nil
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3})).
		AddEdge(engine.Start, "flaky"))
	if res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil || res.Values["n"] != 1.0 {
		t.Fatalf("retry: %v", err)
	}
	g = mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("boom", func(context.Context, any) (any, error) { panic("kaboom") }).
		AddEdge(engine.Start, "boom"))
	_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	var ne *engine.NodeError
	if !errors.As(err, &ne) || !ne.Panic || ne.Node != "boom" || ne.Step != 1 {
		t.Fatalf("a panic becomes a NodeError naming node and step, got %v", err)
	}
}

func TestCancellation_StopsCleanly(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("slow", func(ctx context.Context, _ any) (any, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Second):
				return nil, nil
			}
		}).AddEdge(engine.Start, "slow"))
	c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := g.Invoke(c, map[string]any{}, engine.OnThread("t"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's error, got %v", err)
	}
}

func TestStepper_PhasesAndHook(t *testing.T) {
	var phases []string
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("a", update("n", 1.0)).AddEdge(engine.Start, "a"))
	hook := func(_ context.Context, v *engine.StepView) error {
		phases = append(phases, fmt.Sprintf("%d:%s", v.Step, v.Phase))
		return nil
	}
	s, err := g.Start(ctx, map[string]any{"n": 0.0}, engine.OnThread("t"), engine.WithHook(hook))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Next(ctx); err != nil { // plan step 0 (__start__)
		t.Fatal(err)
	}
	if err := s.Superstep(ctx); err != nil { // finish step 0
		t.Fatal(err)
	}
	s.Next(ctx) // plan step 1
	v := s.View()
	if v.Phase != engine.PhasePlanned || len(v.Tasks) != 1 || v.Tasks[0].Name != "a" || v.Tasks[0].State != engine.TaskPlanned {
		t.Fatalf("after Plan: %+v", v)
	}
	s.Next(ctx) // execute
	v = s.View()
	if v.Tasks[0].State != engine.TaskDone || v.Tasks[0].Writes[0].Channel != "n" || v.Values["n"] != 0.0 {
		t.Fatalf("after Execute the writes are pending, not applied: %+v", v)
	}
	if _, err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"0:UPDATE", "0:PLAN", "0:EXECUTE", "1:UPDATE", "1:PLAN", "1:EXECUTE", "2:UPDATE", "2:UPDATE"}
	if !reflect.DeepEqual(phases, want) {
		t.Fatalf("hook saw %v, want %v", phases, want)
	}
	if err := s.Next(ctx); !errors.Is(err, engine.ErrRunFinished) {
		t.Fatalf("a finished run reports ErrRunFinished, got %v", err)
	}
}

func TestStepHook_CanStopTheRun(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("a", update("n", 1.0)).AddEdge(engine.Start, "a"))
	stop := errors.New("stop here")
	_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"), engine.WithHook(func(_ context.Context, v *engine.StepView) error {
		if v.Phase == engine.PhasePlanned {
			return stop
		}
		return nil
	}))
	if !errors.Is(err, stop) {
		t.Fatalf("want the hook's error, got %v", err)
	}
}

func TestStream_EventsInOrder(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("a", func(ctx context.Context, _ any) (any, error) {
			engine.Emit(ctx, "working")
			return engine.Pairs("n", 1.0), nil
		}).AddEdge(engine.Start, "a"))
	var kinds []engine.EventKind
	for e, err := range g.Stream(ctx, map[string]any{}, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Kind)
	}
	want := []engine.EventKind{engine.EventCheckpoint, engine.EventCheckpoint, engine.EventValues, engine.EventTask, engine.EventCustom, engine.EventTaskResult, engine.EventCheckpoint, engine.EventValues}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
}

func TestInvoke_EmptyInputAndNothingToResume(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("a", update("n", 1.0)).AddEdge(engine.Start, "a"))
	if _, err := g.Invoke(ctx, nil, engine.OnThread("empty")); !errors.Is(err, engine.ErrEmptyInput) {
		t.Fatalf("invoke(nil) on a new thread: want ErrEmptyInput, got %v", err)
	}
	g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	res, err := g.Invoke(ctx, engine.Command{Resume: "x"}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resuming a finished thread runs nothing and returns done: %v %v", err, res.Status)
	}
}

func ExampleGraph_Invoke() {
	g, _ := engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("visited")).
		AddNode("double", func(_ context.Context, s any) (any, error) {
			total := s.(map[string]any)["total"].(float64)
			return engine.Pairs("total", total*2, "visited", []any{"double"}), nil
		}).
		AddEdge(engine.Start, "double").
		Compile()
	res, _ := g.Invoke(context.Background(), map[string]any{"total": 21.0})
	fmt.Println(res.Values["total"], res.Values["visited"])
	// Output: 42 [double]
}

// Sibling subgraph tasks taking turns write their checkpoints in turn, and a
// retried sibling or one that fails leaves the rotation without a deadlock.
func TestSubgraphTurns_NoDeadlockOnFailure(t *testing.T) {
	var fails atomic.Int32
	inner, err := engine.NewStateGraph(engine.AppendKey("out"), engine.LastValueKey("i")).
		AddNode("w", func(_ context.Context, s any) (any, error) {
			if s.(map[string]any)["i"] == 1.0 && fails.Add(1) == 1 {
				return nil, errors.New("first try fails")
			}
			return map[string]any{"out": []any{s.(map[string]any)["i"]}}, nil
		}).
		AddEdge(engine.Start, "w").Compile()
	if err != nil {
		t.Fatal(err)
	}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("out")).
		AddNode("split", update()).
		AddSubgraph("sub", inner, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2})).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "sub", Arg: map[string]any{"i": 0.0}}, engine.Send{Node: "sub", Arg: map[string]any{"i": 1.0}}, engine.Send{Node: "sub", Arg: map[string]any{"i": 2.0}}}, nil
		}, "sub"))
	done := make(chan struct{})
	var res *engine.Result
	go func() {
		defer close(done)
		res, err = g.Invoke(ctx, map[string]any{"out": []any{}}, engine.OnThread("t"), engine.WithSubgraphTurns())
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("subgraph turns deadlocked")
	}
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("%v %+v", err, res)
	}
	if got := len(res.Values["out"].([]any)); got != 3 {
		t.Fatalf("out %v: every Send's subgraph must have finished", res.Values["out"])
	}
}
