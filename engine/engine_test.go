package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
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
		{"key not UTF-8", engine.NewStateGraph(engine.LastValueKey("k\xff")).AddNode("a", nop).AddEdge(engine.Start, "a"), "InvalidKey"},
		{"node not UTF-8", engine.NewStateGraph().AddNode("a\xff", nop).AddEdge(engine.Start, "a\xff"), "InvalidNode"},
		{"key named like a trigger", engine.NewStateGraph(engine.LastValueKey("branch:to:a")).AddNode("a", nop).AddEdge(engine.Start, "a"), "InvalidKey"},
		{"key named like a join", engine.NewStateGraph(engine.LastValueKey("join:a+b:c")).AddNode("a", nop).AddEdge(engine.Start, "a"), "InvalidKey"},
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

// A node AddNode refused is its one error: the edges to and from it, the
// entry it would have been and the nodes only it reaches are not reported
// as errors of their own (they buried a name clash under four more).
func TestCompile_RefusedNodeIsItsOneError(t *testing.T) {
	nop := func(context.Context, any) (any, error) { return nil, nil }
	for _, tt := range []struct{ name, node, kind string }{
		{"name clash", "plan", "NameClash"},
		{"reserved name", "x:y", "InvalidNode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := engine.NewStateGraph(engine.LastValueKey("plan")).
				AddNode(tt.node, nop).AddNode("act", nop).
				AddEdge(engine.Start, tt.node).AddEdge(tt.node, "act").AddEdge("act", engine.End).
				AddConditionalEdges("act", func(context.Context, map[string]any) (any, error) { return tt.node, nil }, tt.node, engine.End).
				Compile(engine.WithInterruptBefore(tt.node))
			var ces engine.CompileErrors
			if !errors.As(err, &ces) || len(ces) != 1 || ces[0].Kind != tt.kind {
				t.Fatalf("want one %s error, got %v", tt.kind, err)
			}
		})
	}
	// A node that is not there because it was never added is still
	// reported, with the errors that do not follow from it: the graph
	// has no entry whatever ghost is, and act is reached (the edge
	// names it).
	_, err := engine.NewStateGraph().AddNode("act", nop).AddEdge("ghost", "act").Compile()
	var ces engine.CompileErrors
	if !errors.As(err, &ces) || len(ces) != 2 || ces[0].Kind != "UnknownNode" || ces[1].Kind != "MissingEntry" {
		t.Fatalf("an edge from a node never added: %v", err)
	}
}

// A node named like a state key is refused, as LangGraph.js refuses it,
// with what to do about it; the error keeps its kind and names the node.
func TestCompile_NameClashSaysWhatToDo(t *testing.T) {
	_, err := engine.NewStateGraph(engine.LastValueKey("answer")).
		AddNode("answer", update()).AddEdge(engine.Start, "answer").Compile()
	var ces engine.CompileErrors
	if !errors.As(err, &ces) || len(ces) != 1 || ces[0].Kind != "NameClash" || ces[0].Node != "answer" {
		t.Fatalf("want one NameClash error about node answer, got %v", err)
	}
	if want := `node name "answer" is already used as a state key: rename the node or the key`; !strings.HasPrefix(ces[0].Msg, want) {
		t.Fatalf("message %q, want it to start with %q", ces[0].Msg, want)
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
	// Each retry is an EventRetry for a listener (the attempt that
	// failed and its error), in no stream mode.
	var retries []string
	events := engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventRetry {
			retries = append(retries, fmt.Sprintf("%s %d %v", e.Node, e.Attempt, e.Err))
		}
	})
	if res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"), events); err != nil || res.Values["n"] != 1.0 {
		t.Fatalf("retry: %v", err)
	}
	if want := []string{"flaky 1 transient", "flaky 2 transient"}; !slices.Equal(retries, want) {
		t.Errorf("retry events %q, want %q", retries, want)
	}
	attempts.Store(0)
	for part, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamValues, engine.StreamUpdates, engine.StreamCustom, engine.StreamMessages, engine.StreamTasks, engine.StreamCheckpoints, engine.StreamDebug}, engine.OnThread("s")) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(fmt.Sprint(part.Data), "transient") {
			t.Errorf("a retry streamed in mode %s: %v", part.Mode, part.Data)
		}
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
	// No values after __start__: the empty input wrote no state key
	// (LangGraph.js io.ts mapOutputValues).
	want := []engine.EventKind{engine.EventCheckpoint, engine.EventCheckpoint, engine.EventTask, engine.EventCustom, engine.EventTaskResult, engine.EventCheckpoint, engine.EventValues}
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

// A resume on a thread with no checkpoint (a mistyped thread id) is no
// error, as in LangGraph.js (own/error_ops pins the trace): nothing runs,
// the run writes an empty input checkpoint at step -1 and returns done,
// and the thread's state then has nothing next and no interrupt.
func TestInvoke_ResumeOnThreadWithNoCheckpointRunsNothing(t *testing.T) {
	ran := false
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			ran = true
			v, err := engine.Interrupt(ctx, "q?")
			return engine.Pairs("n", v), err
		}).AddEdge(engine.Start, "ask"))
	res, err := g.Invoke(ctx, engine.Command{Resume: "x"}, engine.OnThread("mistyped"))
	if err != nil || res.Status != engine.StatusDone || len(res.Values) != 0 || ran {
		t.Fatalf("resume on a thread with no checkpoint: %v %+v (node ran: %v); want done, no values, nothing run", err, res, ran)
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: "mistyped"}, engine.ListOptions{})
	if err != nil || len(hist) != 1 || hist[0].Metadata.Source != engine.SourceInput || hist[0].Metadata.Step != -1 {
		t.Fatalf("history %v %+v; want one input checkpoint at step -1", err, hist)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "mistyped"})
	if err != nil || len(snap.Next) != 0 || len(snap.Interrupts()) != 0 {
		t.Fatalf("state %v %+v; want nothing next and no interrupt", err, snap)
	}
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

// Translated from LangGraph Python tests/test_pregel.py
// test_overwrite_sequential, test_overwrite_parallel and
// test_overwrite_parallel_error.
func TestOverwrite_BypassesReducer(t *testing.T) {
	write := func(v any) engine.NodeFunc {
		return func(context.Context, any) (any, error) { return map[string]any{"messages": v}, nil }
	}
	t.Run("sequential", func(t *testing.T) {
		g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("messages")).
			AddNode("a", write([]any{"a"})).AddNode("b", write(engine.Overwrite{Value: []any{"b"}})).
			AddEdge(engine.Start, "a").AddEdge("a", "b"))
		res, err := g.Invoke(ctx, map[string]any{"messages": []any{"START"}}, engine.OnThread("t"))
		if err != nil || !reflect.DeepEqual(res.Values["messages"], []any{"b"}) {
			t.Fatalf("got %v, %v", res.Values, err)
		}
	})
	t.Run("parallel", func(t *testing.T) {
		g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("messages")).
			AddNode("a", write([]any{"a"})).AddNode("b", write(map[string]any{engine.OverwriteKey: []any{"b"}})).
			AddNode("c", write([]any{"c"})).AddNode("d", write([]any{"d"})).
			AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("a", "c").AddEdge("b", "d").AddEdge("c", "d"))
		res, err := g.Invoke(ctx, map[string]any{"messages": []any{"START"}}, engine.OnThread("t"))
		if err != nil || !reflect.DeepEqual(res.Values["messages"], []any{"b", "d"}) {
			t.Fatalf("got %v, %v", res.Values, err)
		}
	})
	t.Run("two in parallel", func(t *testing.T) {
		g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("messages")).
			AddNode("a", write([]any{"a"})).AddNode("b", write(engine.Overwrite{Value: []any{"b"}})).
			AddNode("c", write(engine.Overwrite{Value: []any{"c"}})).
			AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("a", "c"))
		_, err := g.Invoke(ctx, map[string]any{"messages": []any{"START"}}, engine.OnThread("t"))
		var iu *engine.InvalidUpdateError
		if !errors.As(err, &iu) || iu.Channel != "messages" {
			t.Fatalf("want an InvalidUpdateError on messages, got %v", err)
		}
	})
}

// Translated from LangGraph.js src/tests/pregel.test.ts
// in_one_fan_out_state_graph_defer_node (both edge kinds): the deferred qa
// runs once, after the longer branch, and a stepper shows it waiting.
func TestDefer_RunsWhenNothingElseIsLeft(t *testing.T) {
	for _, waitingEdge := range []bool{true, false} {
		var mu sync.Mutex
		var order []string
		node := func(name string, kv ...any) engine.NodeFunc {
			return func(context.Context, any) (any, error) {
				mu.Lock()
				defer mu.Unlock()
				order = append(order, name)
				return engine.Pairs(kv...), nil
			}
		}
		b := engine.NewStateGraph(engine.AppendKey("docs"), engine.LastValueKey("answer")).
			AddNode("rewrite", node("rewrite")).
			AddNode("r1", node("r1", "docs", []any{"d1"})).
			AddNode("after_r1", node("after_r1")).
			AddNode("r2", node("r2", "docs", []any{"d2"})).
			AddNode("qa", func(_ context.Context, in any) (any, error) {
				order = append(order, "qa")
				return map[string]any{"answer": len(in.(map[string]any)["docs"].([]any))}, nil
			}, engine.WithDefer()).
			AddEdge(engine.Start, "rewrite").AddEdge("rewrite", "r1").AddEdge("r1", "after_r1").AddEdge("rewrite", "r2")
		if waitingEdge {
			b.AddJoin([]string{"r1", "r2"}, "qa")
		} else {
			b.AddEdge("r1", "qa").AddEdge("r2", "qa")
		}
		g := mustCompile(t, b)
		s, err := g.Start(ctx, map[string]any{}, engine.OnThread("t"))
		if err != nil {
			t.Fatal(err)
		}
		sawWaiting := false
		for s.Status() == engine.StatusRunning {
			if err := s.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if v := s.View(); slices.Contains(v.Waiting, "qa") {
				sawWaiting = true
			}
		}
		res := s.Result()
		if res.Values["answer"] != 2.0 || order[len(order)-1] != "qa" || slices.Index(order, "qa") != len(order)-1 {
			t.Fatalf("waitingEdge=%v: order %v, values %v", waitingEdge, order, res.Values)
		}
		if !sawWaiting {
			t.Fatalf("waitingEdge=%v: the view never showed qa waiting", waitingEdge)
		}
		if d := g.Describe(); !d.Nodes[4].Deferred {
			t.Fatal("Describe marks the deferred node")
		}
	}
}

// Translated from LangGraph.js src/tests/timeout.test.ts "addNode timeout
// (end-to-end)": a run timeout fails the node with NodeTimeoutError, and
// composes with a retry policy.
func TestTimeout_RunAndRetry(t *testing.T) {
	slow := func(ctx context.Context, _ any) (any, error) {
		select {
		case <-time.After(5 * time.Second):
			return engine.Pairs("x", 1.0), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("slow", slow, engine.WithTimeout(engine.TimeoutPolicy{Run: 30 * time.Millisecond})).
		AddEdge(engine.Start, "slow"))
	_, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("t"))
	var te *engine.NodeTimeoutError
	if !errors.As(err, &te) || te.Node != "slow" || te.Kind != engine.TimeoutRun {
		t.Fatalf("want a run NodeTimeoutError for slow, got %v", err)
	}

	var attempts atomic.Int32
	g = mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("flaky", func(ctx context.Context, in any) (any, error) {
			if attempts.Add(1) < 2 {
				return slow(ctx, in)
			}
			return engine.Pairs("x", 1.0), nil
		}, engine.WithTimeout(engine.TimeoutPolicy{Run: 30 * time.Millisecond}),
			engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Millisecond})).
		AddEdge(engine.Start, "flaky"))
	res, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("t"))
	if err != nil || res.Values["x"] != 1.0 || attempts.Load() != 2 {
		t.Fatalf("retry after a timeout: %v %v after %d attempts", err, res.Values, attempts.Load())
	}
}

// From LangGraph.js src/tests/timeout.test.ts "does not fire an idle timeout
// while heartbeats keep arriving" and "fires an idle timeout".
func TestTimeout_IdleAndHeartbeat(t *testing.T) {
	// The idle limit is long against the gaps between heartbeats (5 ms), so
	// that a loaded machine's late timers cannot pass for silence; the
	// heartbeating node runs longer than the limit, so only its
	// heartbeats keep the timeout from firing. The silent node waits for
	// its context alone: the idle timeout is what ends it.
	const idle = time.Second
	beating := func(ctx context.Context, _ any) (any, error) {
		for end := time.Now().Add(idle + idle/2); time.Now().Before(end); {
			engine.Heartbeat(ctx)
			select {
			case <-time.After(5 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return engine.Pairs("x", 1.0), nil
	}
	silent := func(ctx context.Context, _ any) (any, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(30 * idle):
			return engine.Pairs("x", 1.0), nil
		}
	}
	for _, beat := range []bool{true, false} {
		node := silent
		if beat {
			node = beating
		}
		g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
			AddNode("n", node, engine.WithTimeout(engine.TimeoutPolicy{Idle: idle})).
			AddEdge(engine.Start, "n"))
		_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
		var te *engine.NodeTimeoutError
		if beat && err != nil {
			t.Fatalf("heartbeats keep an idle timeout from firing: %v", err)
		}
		if !beat && (!errors.As(err, &te) || te.Kind != engine.TimeoutIdle) {
			t.Fatalf("no heartbeat: want an idle timeout, got %v", err)
		}
	}
}

// Translated from LangGraph Python tests/test_runtime.py test_context_runtime
// and test_runtime_propogated_to_subgraph: nodes, routes and subgraph nodes
// read the run's context.
func TestRuntimeContext_NodesRoutesAndSubgraphs(t *testing.T) {
	type Ctx struct{ APIKey string }
	read := func(ctx context.Context) string { c, _ := engine.RuntimeContext(ctx).(Ctx); return c.APIKey }
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("inner", func(ctx context.Context, _ any) (any, error) {
			return map[string]any{"log": []any{"inner:" + read(ctx)}}, nil
		}).AddEdge(engine.Start, "inner"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("outer", func(ctx context.Context, _ any) (any, error) {
			return map[string]any{"log": []any{"outer:" + read(ctx)}}, nil
		}).
		AddSubgraph("child", sub).
		AddEdge(engine.Start, "outer").
		AddConditionalEdges("outer", func(ctx context.Context, _ map[string]any) (any, error) {
			if read(ctx) == "sk_123456" {
				return "child", nil
			}
			return engine.End, nil
		}, "child", engine.End))
	res, err := g.Invoke(ctx, map[string]any{}, engine.WithRuntimeContext(Ctx{"sk_123456"}), engine.OnThread("t"))
	if err != nil || !reflect.DeepEqual(res.Values["log"], []any{"outer:sk_123456", "outer:sk_123456", "inner:sk_123456"}) {
		t.Fatalf("got %v, %v", res.Values, err)
	}
	res, _ = g.Invoke(ctx, map[string]any{}, engine.OnThread("other"))
	if !reflect.DeepEqual(res.Values["log"], []any{"outer:"}) {
		t.Fatalf("without a context: %v", res.Values)
	}
	if engine.RuntimeContext(ctx) != nil {
		t.Fatal("outside a node there is no runtime context")
	}
}

// LangGraph Python managed/is_last_step.py: RemainingSteps is stop - step
// and IsLastStep is step == stop - 1, with stop = first step + limit + 1.
func TestManagedValues_RemainingAndLastStep(t *testing.T) {
	type seen struct {
		remaining float64
		last      bool
	}
	var mu sync.Mutex
	var got []seen
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n"), engine.RemainingStepsKey("remaining_steps"), engine.IsLastStepKey("is_last_step")).
		AddNode("loop", func(_ context.Context, in any) (any, error) {
			m := in.(map[string]any)
			mu.Lock()
			got = append(got, seen{m["remaining_steps"].(float64), m["is_last_step"].(bool)})
			mu.Unlock()
			if m["is_last_step"].(bool) {
				return engine.Pairs("n", "stopped at the last step"), nil
			}
			return engine.Command{Goto: []any{"loop"}}, nil
		}, engine.WithEnds("loop", engine.End)).
		AddEdge(engine.Start, "loop"))
	res, err := g.Invoke(ctx, map[string]any{}, engine.WithRecursionLimit(5), engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	// Fresh thread, limit 5: stop = -1 + 5 + 1 = 5; loop runs at steps 1..4.
	want := []seen{{4, false}, {3, false}, {2, false}, {1, true}}
	if !reflect.DeepEqual(got, want) || res.Values["n"] != "stopped at the last step" {
		t.Fatalf("got %v, values %v", got, res.Values)
	}
	if _, ok := res.Values["remaining_steps"]; ok {
		t.Fatal("managed values are not state: not in the output")
	}
	if !reflect.DeepEqual(g.ManagedKeys(), []string{"remaining_steps", "is_last_step"}) || g.IsStateKey("remaining_steps") {
		t.Fatal("managed keys are listed apart from the state keys")
	}
}

// A route reads the managed values with the state, whether or not its node
// wrote a state key (LangGraph Python local_read adds the managed keys a
// branch's reader selects, pregel/_algo.py:188-225).
func TestManagedValues_RoutesReadThem(t *testing.T) {
	for _, writes := range []bool{false, true} {
		var mu sync.Mutex
		var got []float64
		g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n"), engine.RemainingStepsKey("remaining_steps")).
			AddNode("work", func(_ context.Context, in any) (any, error) {
				if writes {
					return engine.Pairs("n", "wrote"), nil
				}
				return nil, nil
			}).
			AddEdge(engine.Start, "work").
			AddConditionalEdges("work", func(_ context.Context, st map[string]any) (any, error) {
				r, ok := st["remaining_steps"].(float64)
				if !ok {
					return nil, fmt.Errorf("route read remaining_steps = %v", st["remaining_steps"])
				}
				mu.Lock()
				got = append(got, r)
				mu.Unlock()
				if r > 2 {
					return "work", nil
				}
				return engine.End, nil
			}, "work", engine.End))
		if _, err := g.Invoke(ctx, map[string]any{}, engine.WithRecursionLimit(5), engine.OnThread("t")); err != nil {
			t.Fatalf("node writes %v: %v", writes, err)
		}
		// Steps 1..3 at limit 5 (stop = 5): the route sees 4, 3, 2.
		if want := []float64{4, 3, 2}; !reflect.DeepEqual(got, want) {
			t.Fatalf("node writes %v: route saw remaining_steps %v, want %v", writes, got, want)
		}
	}
}

// LangGraph's max_concurrency (LangGraph.js pregel/runner.ts): at most n
// tasks of a superstep run at once.
func TestMaxConcurrency_BoundsRunningTasks(t *testing.T) {
	var running, peak atomic.Int32
	work := func(context.Context, any) (any, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return map[string]any{"log": []any{"w"}}, nil
	}
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", func(context.Context, any) (any, error) {
			return engine.Command{Goto: []any{engine.Send{Node: "w", Arg: 1}, engine.Send{Node: "w", Arg: 2}, engine.Send{Node: "w", Arg: 3}, engine.Send{Node: "w", Arg: 4}, engine.Send{Node: "w", Arg: 5}}}, nil
		}, engine.WithEnds("w")).
		AddNode("w", work).
		AddEdge(engine.Start, "fan"))
	res, err := g.Invoke(ctx, map[string]any{}, engine.WithMaxConcurrency(2), engine.OnThread("t"))
	if err != nil || len(res.Values["log"].([]any)) != 5 {
		t.Fatalf("all five tasks run: %v %v", res.Values, err)
	}
	if p := peak.Load(); p > 2 {
		t.Fatalf("at most 2 tasks at once, saw %d", p)
	}
}

// Translated from LangGraph.js src/tests/pregel.test.ts test_parent_command
// and "test_parent_command from grandchild graph": a subgraph node's
// Command(graph=PARENT) updates and routes the graph that runs the subgraph.
func TestParentCommand_UpdatesAndRoutesTheParent(t *testing.T) {
	tool := func(context.Context, any) (any, error) {
		return engine.Command{Update: map[string]any{"user_name": "Meow", "log": []any{"grandkid"}}, Goto: []any{"robert"}, Graph: engine.Parent}, nil
	}
	keys := func() []engine.KeySpec {
		return []engine.KeySpec{engine.AppendKey("log"), engine.LastValueKey("user_name")}
	}
	grandchild := mustCompile(t, engine.NewStateGraph(keys()...).AddNode("tool", tool).AddEdge(engine.Start, "tool"))
	child := mustCompile(t, engine.NewStateGraph(keys()...).
		AddSubgraph("bob", grandchild).
		AddNode("robert", func(_ context.Context, in any) (any, error) {
			if in.(map[string]any)["user_name"] != "Meow" {
				return nil, errors.New("failed to update state from grandchild")
			}
			return map[string]any{"log": []any{"robert"}}, nil
		}).
		AddEdge(engine.Start, "bob").AddEdge("bob", "robert"))
	g := mustCompile(t, engine.NewStateGraph(keys()...).AddSubgraph("alice", child).AddEdge(engine.Start, "alice"))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{"start"}}, engine.OnThread("1"))
	if err != nil {
		t.Fatal(err)
	}
	// alice's update is the child's final state appended to log.
	want := []any{"start", "start", "grandkid", "robert"}
	if !reflect.DeepEqual(res.Values["log"], want) || res.Values["user_name"] != "Meow" {
		t.Fatalf("got %v", res.Values)
	}

	// From the root graph there is no parent: an error, not a silent drop.
	root := mustCompile(t, engine.NewStateGraph(keys()...).AddNode("tool", tool, engine.WithEnds(engine.End)).AddEdge(engine.Start, "tool"))
	var iu *engine.InvalidUpdateError
	if _, err := root.Invoke(ctx, map[string]any{}, engine.OnThread("t")); !errors.As(err, &iu) {
		t.Fatalf("Command.PARENT from the root graph: want InvalidUpdateError, got %v", err)
	}
}

// Translated from LangGraph Python tests/test_pregel.py test_bulk_state_updates:
// the updates of a superstep apply together as one checkpoint, supersteps
// chain, and several updates need their nodes.
func TestBulkUpdateState(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("foo"), engine.LastValueKey("baz")).
		AddNode("node_a", update("foo", "bar")).AddNode("node_b", update("baz", "qux")).
		AddEdge(engine.Start, "node_a").AddEdge("node_a", "node_b"))
	cfg := engine.Config{ThreadID: "2"}
	_, err := g.BulkUpdateState(ctx, cfg, [][]engine.StateUpdate{
		{{Values: map[string]any{"foo": "bar"}, AsNode: "node_a"}},
		{{Values: map[string]any{"foo": "updated"}, AsNode: "node_a"}, {Values: map[string]any{"baz": "new"}, AsNode: "node_b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := g.GetState(ctx, cfg)
	if !reflect.DeepEqual(snap.Values, map[string]any{"foo": "updated", "baz": "new"}) {
		t.Fatalf("values %v", snap.Values)
	}
	hist, _ := g.History(ctx, cfg, engine.ListOptions{})
	if len(hist) != 2 {
		t.Fatalf("one checkpoint per superstep: %d", len(hist))
	}
	var iu *engine.InvalidUpdateError
	if _, err := g.BulkUpdateState(ctx, cfg, [][]engine.StateUpdate{{{Values: map[string]any{"foo": "x"}}, {Values: map[string]any{"baz": "y"}, AsNode: "node_b"}}}); !errors.As(err, &iu) {
		t.Fatalf("several updates without as-node: want InvalidUpdateError, got %v", err)
	}
}

// A failure in a bounded superstep while another task still runs: the
// tasks not started yet are started on the aborted signal, leave before
// their first attempt and are committed with no writes (LangGraph.js
// pregel/runner.ts:322-346, retry.ts:103-107, runner.ts:455-469), so a
// continued run does not run them.
func TestMaxConcurrency_FailureCommitsUnstartedTasksEmpty(t *testing.T) {
	var badRuns, lateRuns atomic.Int32
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", func(context.Context, any) (any, error) {
			return engine.Command{Goto: []any{engine.Send{Node: "bad"}, engine.Send{Node: "slow"}, engine.Send{Node: "late"}}}, nil
		}, engine.WithEnds("bad", "slow", "late")).
		AddNode("bad", func(context.Context, any) (any, error) {
			if badRuns.Add(1) == 1 {
				time.Sleep(50 * time.Millisecond)
				return nil, errors.New("boom")
			}
			return map[string]any{"log": []any{"bad"}}, nil
		}).
		AddNode("slow", func(ctx context.Context, _ any) (any, error) {
			select {
			case <-time.After(2 * time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return map[string]any{"log": []any{"slow"}}, nil
		}).
		AddNode("late", func(context.Context, any) (any, error) {
			lateRuns.Add(1)
			return map[string]any{"log": []any{"late"}}, nil
		}).
		AddEdge(engine.Start, "fan"))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"), engine.WithMaxConcurrency(2)); err == nil {
		t.Fatal("bad's failure fails the run")
	}
	if lateRuns.Load() != 0 {
		t.Fatal("late was not started: the failure came first")
	}
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.WithMaxConcurrency(2))
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{"bad", "slow"}; !reflect.DeepEqual(res.Values["log"], want) || lateRuns.Load() != 0 {
		t.Fatalf("log %v, late ran %d times; want %v and late never run (saved as done with no writes)", res.Values["log"], lateRuns.Load(), want)
	}
}

// A route to __start__ is not refused: LangGraph.js (graph/graph.ts:211)
// rejects only falsy destinations, and the write to branch:to:__start__,
// a channel no node reads, is dropped; the other destination runs.
// An empty name is still an error.
func TestRoute_ToStartIsDroppedEmptyNameFails(t *testing.T) {
	build := func(dest []any) *engine.Graph {
		return mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("r", appendLog("r")).AddNode("x", appendLog("x")).
			AddEdge(engine.Start, "r").
			AddConditionalEdges("r", func(context.Context, map[string]any) (any, error) { return dest, nil }))
	}
	res, err := build([]any{"x", engine.Start}).Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if err != nil || !reflect.DeepEqual(res.Values["log"], []any{"r", "x"}) {
		t.Fatalf("route [x __start__]: %v %v, want log [r x]", res.Values, err)
	}
	if _, err := build([]any{""}).Invoke(ctx, map[string]any{}); err == nil {
		t.Fatal("route to an empty name: want an error")
	}
}

// A route reads the state with its node's own writes applied; a write the
// channel refuses there (two writes to a LastValue key) fails the node's
// task, before its writes reach the superstep (LangGraph.js _localRead
// applies them with _applyWrites, which throws: pregel/algo.ts:190-222).
// The task's error is saved with the writes its writers made.
func TestRoute_LocalReadRefusedWriteFailsTheTask(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("v"), engine.AppendKey("log")).
		AddNode("twice", func(context.Context, any) (any, error) {
			return []any{engine.Command{Update: map[string]any{"v": 1}}, engine.Command{Update: map[string]any{"v": 2}}}, nil
		}).
		AddNode("x", appendLog("x")).
		AddEdge(engine.Start, "twice").
		AddConditionalEdges("twice", func(context.Context, map[string]any) (any, error) { return "x", nil }, "x"))
	_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	var inv *engine.InvalidUpdateError
	if !errors.As(err, &inv) {
		t.Fatalf("err = %v, want the route's InvalidUpdateError", err)
	}
	snap, _ := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if len(snap.Tasks) != 1 || snap.Tasks[0].Name != "twice" || snap.Tasks[0].Error == "" {
		t.Fatalf("tasks %+v: want twice with its error saved", snap.Tasks)
	}
}

// A Task call that a timed node started and did not wait for outlives the
// node's attempt: a sibling's failure after the attempt ended does not
// cancel it, the superstep waits for it, and the step fails with the
// sibling's error alone. LangGraph.js aborts a timed attempt's signal only
// on a timeout and disposes it when the node settles first
// (pregel/timeout.js:191-198). The run's caller can still cancel it.
// A timed node's timeout that aborts a Task call still running makes the
// call's AbortError a failure of its own, and the retry the node's policy
// asks for does not run; with no retry left both failures count
// (timeoutAbort; LangGraph.js's runner adds a call's error whenever it
// settles, and the retry waits on a timer the abort beats). Scenarios
// timeout_retry_aborted_call and timeout_node_with_running_call are the
// same with LangGraph.js's traces.
func TestTimeout_AbortedCallEndsTheRetry(t *testing.T) {
	waits := func(ctx context.Context, _ any) (string, error) {
		<-ctx.Done()
		return "", context.Cause(ctx)
	}
	for _, attempts := range []int{3, 1} {
		var entered atomic.Int32
		g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
			AddNode("timed", func(ctx context.Context, _ any) (any, error) {
				entered.Add(1)
				_, err := engine.Task(ctx, "waits", waits, nil).Result()
				return nil, err
			}, engine.WithTimeout(engine.TimeoutPolicy{Run: 20 * time.Millisecond}), engine.WithRetry(engine.RetryPolicy{MaxAttempts: attempts})).
			AddEdge(engine.Start, "timed"))
		_, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("t"))
		if n := entered.Load(); n != 1 {
			t.Errorf("attempts %d: the timed node ran %d times, want once", attempts, n)
		}
		var failed []string
		for _, e := range stepErrs(err) {
			var ne *engine.NodeError
			var te *engine.NodeTimeoutError
			switch {
			case !errors.As(e, &ne):
				failed = append(failed, e.Error())
			case errors.As(e, &te):
				failed = append(failed, ne.Node+" timed out")
			case errors.Is(e, context.Canceled):
				failed = append(failed, ne.Node+" aborted")
			default:
				failed = append(failed, e.Error())
			}
		}
		want := []string{"waits aborted"}
		if attempts == 1 {
			want = []string{"timed timed out", "waits aborted"}
		}
		if !slices.Equal(failed, want) {
			t.Errorf("attempts %d: the run failed with %q, want %q (%v)", attempts, failed, want, err)
		}
	}
}

// stepErrs is err's failures: a StepErrors' in order, else err alone.
func stepErrs(err error) []error {
	if se, ok := err.(*engine.StepErrors); ok {
		return se.Errs
	}
	return []error{err}
}

func TestTimeout_CallsOutliveTheirTimedCaller(t *testing.T) {
	release := make(chan struct{})
	callCancelled := make(chan error, 1)
	slow := func(ctx context.Context, _ any) (string, error) {
		select {
		case <-release:
			return "slow", nil
		case <-ctx.Done():
			callCancelled <- context.Cause(ctx)
			return "", context.Cause(ctx)
		}
	}
	timedSettled, failed := make(chan struct{}), make(chan struct{})
	events := engine.WithEvents(func(e engine.Event) {
		if e.Kind != engine.EventTaskResult {
			return
		}
		switch e.Node {
		case "timed":
			close(timedSettled)
		case "fails":
			close(failed)
		}
	})
	build := func(sibling bool) *engine.Graph {
		b := engine.NewStateGraph(engine.LastValueKey("x")).
			AddNode("timed", func(ctx context.Context, _ any) (any, error) {
				engine.Task(ctx, "slow", slow, nil) // not waited for
				return engine.Pairs("x", 1.0), nil
			}, engine.WithTimeout(engine.TimeoutPolicy{Run: time.Hour})).
			AddEdge(engine.Start, "timed")
		if sibling {
			b = b.AddNode("fails", func(context.Context, any) (any, error) {
				<-timedSettled
				return nil, errors.New("boom")
			}).AddEdge(engine.Start, "fails")
		}
		return mustCompile(t, b)
	}

	done := make(chan error, 1)
	go func() {
		_, err := build(true).Invoke(ctx, map[string]any{"x": 0.0}, events, engine.OnThread("t"))
		done <- err
	}()
	<-failed
	select {
	case cause := <-callCancelled:
		t.Fatalf("the sibling's failure cancelled the call its timed caller left running: %v", cause)
	case err := <-done:
		t.Fatalf("the run did not wait for the call: %v", err)
	default:
	}
	close(release)
	if err := returnsPromptly(t, done, "the call"); err == nil || err.Error() != `node "fails" failed at step 1: boom` {
		t.Fatalf("want the sibling's failure alone, got %v", err)
	}

	timedSettled, failed = make(chan struct{}), make(chan struct{})
	release = make(chan struct{})
	defer close(release)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		_, err := build(false).Invoke(cctx, map[string]any{"x": 0.0}, events, engine.OnThread("t"))
		done <- err
	}()
	<-timedSettled
	cancel()
	if err := returnsPromptly(t, done, "a call its timed caller left running, after the caller cancelled"); !errors.Is(err, context.Canceled) {
		t.Errorf("want the cancellation, got %v", err)
	}
	select {
	case cause := <-callCancelled:
		if !errors.Is(cause, context.Canceled) {
			t.Errorf("the call's context ended with %v, want the caller's cancellation", cause)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the caller's cancellation did not reach the call its timed caller left running")
	}
}

// A timed node that does not watch its context is abandoned when the run's
// caller cancels, as its limit would abandon it: Invoke returns at once
// with the cancellation and the thread continues from its checkpoint,
// where it waited for the node until the limit (an hour here). A sibling's
// failure does not abandon it: the superstep waits for it, as for an
// untimed node (LangGraph.js pregel/runner.ts races tasks against the
// caller's abort signal and the step timeout only).
func TestTimeout_CallerCancelAbandonsATimedAttempt(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var calls atomic.Int32
	deaf := func(context.Context, any) (any, error) {
		if calls.Add(1) == 1 {
			started <- struct{}{}
			<-release // ignores ctx
		}
		return engine.Pairs("x", 1.0), nil
	}
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("deaf", deaf, engine.WithTimeout(engine.TimeoutPolicy{Run: time.Hour})).
		AddEdge(engine.Start, "deaf"), engine.WithSaver(engine.NewMemorySaver()))
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := g.Invoke(cctx, map[string]any{"x": 0.0}, engine.OnThread("t"))
		done <- err
	}()
	<-started
	cancel()
	if err := returnsPromptly(t, done, "a timed node that ignores its context after the caller cancelled"); !errors.Is(err, context.Canceled) {
		t.Errorf("want the cancellation, got %v", err)
	}
	close(release)
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"))
	if err != nil || res.Values["x"] != 1.0 || calls.Load() != 2 {
		t.Fatalf("continue: %v %v after %d calls", err, res.Values, calls.Load())
	}

	// A sibling's failure abandons it too: LangGraph.js's composed abort
	// signal includes the sibling-failure signal.
	hold := make(chan struct{})
	defer close(hold)
	g = mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x"), engine.LastValueKey("y")).
		AddNode("deaf", func(context.Context, any) (any, error) {
			<-hold // ignores ctx
			return engine.Pairs("x", 1.0), nil
		}, engine.WithTimeout(engine.TimeoutPolicy{Run: time.Hour})).
		AddNode("fails", func(context.Context, any) (any, error) { return nil, errors.New("boom") }).
		AddEdge(engine.Start, "deaf").AddEdge(engine.Start, "fails"))
	if _, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("t")); err == nil || err.Error() != `node "fails" failed at step 1: boom` {
		t.Fatalf("a sibling's failure: want it at once, got %v", err)
	}
}
