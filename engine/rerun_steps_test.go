package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
)

// subgraphRerun records a run of a graph whose one node "sub" runs inner,
// going on past every stop with next (the answer to an interrupt, or nil
// past a breakpoint), and returns the graph, the checkpoint that planned
// sub and sub's task id there.
func subgraphRerun(t *testing.T, inner *engine.Graph, next func(res *engine.Result) any) (*engine.Graph, *engine.CheckpointTuple, string) {
	t.Helper()
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", inner).AddEdge(engine.Start, "sub"))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("r"))
	for stops := 0; err == nil && res.Status == engine.StatusInterrupted; stops++ {
		if stops > 5 {
			t.Fatal("the recording does not finish")
		}
		res, err = g.Invoke(ctx, next(res), engine.OnThread("r"))
	}
	var ne *engine.NodeError
	if err != nil && !errors.As(err, &ne) {
		t.Fatal(err)
	}
	cp, id := plannedTask(t, g, "r", "sub")
	return g, cp, id
}

// plannedTask finds the newest checkpoint of thread that plans a task of
// node, and that task's id.
func plannedTask(t *testing.T, g *engine.Graph, thread, node string) (*engine.CheckpointTuple, string) {
	t.Helper()
	hist, err := g.Saver().List(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		snap, err := g.SnapshotOf(h, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range snap.Tasks {
			if tk.Name == node {
				return h, tk.ID
			}
		}
	}
	t.Fatalf("no checkpoint plans %s", node)
	return nil, ""
}

// TestGraph_RerunTask_SubgraphAnswersOnePerStop: a subgraph that asked
// twice gets its saved answers back one per stop, in order, and writes
// what it wrote then.
func TestGraph_RerunTask_SubgraphAnswersOnePerStop(t *testing.T) {
	inner := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			first, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			second, err := engine.Interrupt(ctx, "second?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{first, second}), nil
		}).AddEdge(engine.Start, "ask"))
	answers := 0
	g, cp, id := subgraphRerun(t, inner, func(*engine.Result) any {
		answers++
		return engine.Command{Resume: fmt.Sprint("answer-", answers)}
	})
	r, err := g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Interrupts) != 0 || r.Diff != nil || fmt.Sprint(r.Writes) != fmt.Sprint(r.Recorded) || len(r.Writes) == 0 {
		t.Fatalf("rerun %+v, want the recorded writes [answer-1 answer-2] again", r)
	}
	if got := fmt.Sprint(r.Writes[0].Value); got != "[answer-1 answer-2]" {
		t.Fatalf("writes %v, want the answers in the order given", got)
	}
}

// TestGraph_RerunTask_GoesOnPastASubgraphBreakpoint: a subgraph that stops
// before one of its nodes, which the recording went on past, runs on past
// it in the rerun too.
func TestGraph_RerunTask_GoesOnPastASubgraphBreakpoint(t *testing.T) {
	inner := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("prep", appendLog("prep")).AddNode("work", appendLog("work")).
		AddEdge(engine.Start, "prep").AddEdge("prep", "work"),
		engine.WithInterruptBefore("work"))
	g, cp, id := subgraphRerun(t, inner, func(*engine.Result) any { return nil })
	r, err := g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Interrupts) != 0 || r.Diff != nil || len(r.Writes) == 0 {
		t.Fatalf("rerun %+v, want the recorded writes again", r)
	}
}

// TestGraph_RerunTask_SubgraphNodeFails: a node of the task's subgraph
// fails: the rerun reports the task's failure, not an error.
func TestGraph_RerunTask_SubgraphNodeFails(t *testing.T) {
	inner := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("boom", func(context.Context, any) (any, error) { return nil, errors.New("kaput") }).
		AddEdge(engine.Start, "boom"))
	g, cp, id := subgraphRerun(t, inner, func(*engine.Result) any { return nil })
	r, err := g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatalf("rerun: %v, want the failure in TaskRerun.Err", err)
	}
	if r.Err == nil || r.Diff != nil || r.Name != "sub" {
		t.Fatalf("rerun %+v, want sub's failure and no diff", r)
	}
}

// TestGraph_RerunTask_TaskCallsFindTheirAnswers: a task call (functional
// API) that asked gets the answer saved under its own id, which no
// checkpoint plans, so the entrypoint writes what it wrote then.
func TestGraph_RerunTask_TaskCallsFindTheirAnswers(t *testing.T) {
	ask := func(ctx context.Context, q string) (any, error) { return engine.Interrupt(ctx, q) }
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, _ any) (any, error) {
		ans, err := engine.Task(ctx, "ask", ask, "ok?").Result()
		if err != nil {
			return nil, err
		}
		return map[string]any{"answer": ans}, nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("f")); err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("f")); err != nil {
		t.Fatal(err)
	}
	cp, id := plannedTask(t, g, "f", "main")
	r, err := g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Interrupts) != 0 || r.Diff != nil || fmt.Sprint(r.Writes) != fmt.Sprint(r.Recorded) {
		t.Fatalf("rerun %+v, want the recorded writes again", r)
	}
}
