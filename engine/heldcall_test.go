package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A node in interrupt_after that makes a Task call gets nothing from it:
// the call does not run, the superstep stops before its writes are applied
// and says which call was held (StepView.HeldCalls); continuing applies
// them and stops after the node, and the next run goes on (LangGraph.js
// acceptPush, 1.7.3 dist pregel/loop.js:730-734). A call to a task named in
// interrupt_before is held the same way.
func TestHeldCalls_BreakpointKeepsACallFromRunning(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opt  engine.CompileOption
		want engine.HeldCall
	}{
		{"after the caller", engine.WithInterruptAfter("b"), engine.HeldCall{Caller: "b", Task: "m", After: true}},
		{"before the callee", engine.WithInterruptBefore("m"), engine.HeldCall{Caller: "b", Task: "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			m := func(_ context.Context, x string) (string, error) { runs++; return "m:" + x, nil }
			b := engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("b", func(ctx context.Context, _ any) (any, error) {
					v, err := engine.Task(ctx, "m", m, "b").Result()
					if err != nil {
						return nil, err
					}
					return map[string]any{"log": []any{"b", v}}, nil
				}).
				AddNode("m", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"node m"}}, nil }).
				AddEdge(engine.Start, "b").AddEdge("b", "m")
			g := mustCompile(t, b, engine.WithSaver(engine.NewMemorySaver()), tc.opt)
			s, err := g.Start(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
			if err != nil {
				t.Fatal(err)
			}
			var v *engine.StepView
			for {
				if err := s.Next(ctx); err != nil {
					t.Fatal(err)
				}
				if v = s.View(); v.Status != engine.StatusRunning {
					break
				}
			}
			if v.Status != engine.StatusInterrupted || v.CheckpointStep != 0 || !slices.Equal(v.HeldCalls, []engine.HeldCall{tc.want}) {
				t.Fatalf("stopped %s at checkpoint step %d, held %+v; want interrupted before the step's checkpoint, held %+v",
					v.Status, v.CheckpointStep, v.HeldCalls, tc.want)
			}
			if runs != 0 {
				t.Fatalf("the held call ran %d times", runs)
			}
			if got := v.Values["log"]; !slices.Equal(got.([]any), []any{"b", ""}) {
				t.Fatalf("values %v, want the node's writes with the call's zero result applied in memory", got)
			}
			if res := s.Result(); !slices.Equal(res.HeldCalls, v.HeldCalls) {
				t.Fatalf("Result.HeldCalls %+v, the view's %+v", res.HeldCalls, v.HeldCalls)
			}
			res, err := g.Invoke(ctx, nil, engine.OnThread("t"))
			if err != nil || res.Status != engine.StatusInterrupted || runs != 0 || len(res.HeldCalls) != 0 {
				t.Fatalf("continuing: %v, %v, call runs %d; want stopped again (at the breakpoint: no call held), the call not run", res, err, runs)
			}
			snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if snap.Metadata.Step != 1 {
				t.Fatalf("after continuing the checkpoint is step %d, want 1 (the step's writes applied)", snap.Metadata.Step)
			}
		})
	}
}

// A call held by a subgraph's own breakpoint stops the subgraph, and so
// the root through its task; the root's result names the call and the
// subgraph run whose breakpoint held it.
func TestHeldCalls_InASubgraphReachTheRoot(t *testing.T) {
	ctx := context.Background()
	m := func(_ context.Context, x string) (string, error) { return "m:" + x, nil }
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s0", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Task(ctx, "m", m, "s0").Result()
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{"s0", v}}, nil
		}).
		AddEdge(engine.Start, "s0"),
		engine.WithInterruptAfter("s0"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("s", sub).AddEdge(engine.Start, "s"),
		engine.WithSaver(engine.NewMemorySaver()))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("%v %v", res, err)
	}
	if len(res.HeldCalls) != 1 || !strings.HasPrefix(res.HeldCalls[0].Namespace, "s:") {
		t.Fatalf("held %+v, want s0's call in the subgraph's namespace", res.HeldCalls)
	}
	if got, want := res.HeldCalls[0].String(), "s0's call to m in s (interrupt_after s0)"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
