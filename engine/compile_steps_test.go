package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestCompile_ReportsEveryProblemInOrder: a builder with one of each
// problem Compile finds gets all of them, in the order Compile checks:
// static edges, joins, conditional edges, the entry, interrupt nodes,
// declared ends, reachability.
func TestCompile_ReportsEveryProblemInOrder(t *testing.T) {
	nop := update()
	route := func(context.Context, map[string]any) (any, error) { return engine.End, nil }
	b := engine.NewStateGraph().
		AddNode("a", nop).AddNode("b", nop, engine.WithEnds("ghost-end", engine.End)).AddNode("lost", nop).
		AddEdge(engine.End, "a").
		AddEdge("a", engine.Start).
		AddEdge("nowhere", "a").
		AddEdge("a", "nobody").
		AddJoin([]string{"a", engine.Start}, "b").
		AddJoin([]string{"a"}, engine.End).
		AddConditionalEdges("phantom", route, "b").
		AddConditionalEdges("a", route, "b", "spectre")
	_, err := b.Compile(engine.WithInterruptBefore("ghost-int"), engine.WithInterruptAfter("*"))
	ces, ok := err.(engine.CompileErrors)
	if !ok {
		t.Fatalf("err %v (%T), want CompileErrors", err, err)
	}
	var got []string
	for _, ce := range ces {
		got = append(got, ce.Kind+": "+ce.Msg)
	}
	want := []string{
		`InvalidEdge: edge __end__ -> a starts at __end__`,
		`InvalidEdge: edge a -> __start__ ends at __start__`,
		`UnknownNode: edge nowhere -> a starts at unknown node "nowhere"`,
		`UnknownNode: edge a -> nobody ends at unknown node "nobody"`,
		`UnknownNode: join [a __start__] -> b starts at unknown node "__start__"`,
		`UnknownNode: join [a] -> __end__ ends at unknown node "__end__"`,
		`UnknownNode: conditional edge starts at unknown node "phantom"`,
		`UnknownNode: conditional edge from "a" may go to unknown node "spectre"`,
		`MissingEntry: graph must have an entrypoint: add at least one edge from __start__ to another node`,
		`UnknownNode: interrupt node "ghost-int" not found`,
		`UnknownNode: node "b" declares unknown end "ghost-end"`,
		`UnreachableNodeError: node "a" is not reachable: no edge, route or Command end leads to it`,
		`UnreachableNodeError: node "lost" is not reachable: no edge, route or Command end leads to it`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestCompile_SameJoinTwiceIsOneBarrier: a join added twice makes one
// barrier channel and one edge, so its target runs once.
func TestCompile_SameJoinTwiceIsOneBarrier(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendLog("a")).AddNode("b", appendLog("b")).AddNode("j", appendLog("j")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
		AddJoin([]string{"a", "b"}, "j").AddJoin([]string{"a", "b"}, "j"))
	info := g.Describe()
	joins := 0
	for _, e := range info.Edges {
		if e.Join {
			joins++
		}
	}
	barriers := 0
	for _, c := range info.Channels {
		if strings.HasPrefix(c.Name, engine.JoinPrefix) {
			barriers++
		}
	}
	if joins != 1 || barriers != 1 {
		t.Fatalf("%d join edges and %d barrier channels, want one of each", joins, barriers)
	}
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["log"].([]any); !slices.Equal(got, []any{"a", "b", "j"}) {
		t.Fatalf("log %v, want j once after a and b", got)
	}
}

// TestCompile_JoinSourceNamedTwice: a join that names a source twice waits
// for that source once (LangGraph.js makes the barrier from a Set of its
// sources); it used to wait for a second name that never came.
func TestCompile_JoinSourceNamedTwice(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendLog("a")).AddNode("j", appendLog("j")).
		AddEdge(engine.Start, "a").
		AddJoin([]string{"a", "a"}, "j"))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["log"].([]any); !slices.Equal(got, []any{"a", "j"}) {
		t.Fatalf("log %v, want j after a", got)
	}
}
