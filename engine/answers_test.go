package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestTaskAnswers_Subgraphs: tasks whose interrupts their subgraphs raised
// — one level down and two — answered with different values by one
// resume map, each have their own answers found in their namespaces; a
// task that asked itself has its own saved answers.
func TestTaskAnswers_Subgraphs(t *testing.T) {
	ctx := context.Background()
	asker := func(q string) engine.NodeFunc {
		return func(ctx context.Context, _ any) (any, error) {
			ans, err := engine.Interrupt(ctx, q)
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{q + "=" + fmt.Sprint(ans)}), nil
		}
	}
	compile := func(sg *engine.StateGraph, opts ...engine.CompileOption) *engine.Graph {
		g, err := sg.Compile(opts...)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	one := compile(engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", asker("one")).AddEdge(engine.Start, "ask"))
	deep := compile(engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", asker("deep")).AddEdge(engine.Start, "ask"))
	two := compile(engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("inner", deep).AddEdge(engine.Start, "inner"))
	g := compile(engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("a", one).AddSubgraph("b", two).AddNode("c", asker("own")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").AddEdge(engine.Start, "c"),
		engine.WithSaver(engine.NewMemorySaver()))

	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("x"))
	if err != nil || len(res.Interrupts) != 3 {
		t.Fatalf("first run: %v, interrupts %+v", err, res)
	}
	asked := res.Checkpoint
	rm := engine.ResumeMap{}
	for _, in := range res.Interrupts {
		rm[in.ID] = "ans-" + fmt.Sprint(in.Value)
	}
	if res, err = g.Invoke(ctx, engine.Command{Resume: rm}, engine.OnThread("x")); err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: %v %+v", err, res)
	}
	snap, err := g.GetState(ctx, asked)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "[ans-one]", "b": "[ans-deep]", "c": "[ans-own]"}
	for _, task := range snap.Tasks {
		got, err := g.TaskAnswers(ctx, asked, task)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != want[task.Name] {
			t.Errorf("task %s: answers %v, want %s", task.Name, got, want[task.Name])
		}
	}
	if len(snap.Tasks) != 3 {
		t.Fatalf("tasks %+v", snap.Tasks)
	}
}
