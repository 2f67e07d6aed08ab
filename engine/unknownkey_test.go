package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestRun_MisspeltUpdateKeyEvent: an update key that is no state key is
// dropped, as LangGraph drops it; when it is close to a state key (a
// typo) an EventUnknownKey at the Update names the task, the keys and the
// state keys they likely meant, whatever form the update took. Keys close
// to none, such as the keys of a subgraph's own state in the state it
// returns, raise none.
func TestRun_MisspeltUpdateKeyEvent(t *testing.T) {
	inner := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("findings"), engine.LastValueKey("scratchpad")).
		AddNode("work", func(context.Context, any) (any, error) {
			return map[string]any{"findings": "sub", "scratchpad": "notes"}, nil
		}).
		AddEdge(engine.Start, "work"))
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("findings"), engine.LastValueKey("summary")).
		AddNode("search", func(context.Context, any) (any, error) {
			return engine.Update{{Key: "finidngs", Value: "x"}, {Key: "sumary", Value: "y"}, {Key: "zzz", Value: 1.0}}, nil
		}).
		AddNode("route", func(context.Context, any) (any, error) {
			return engine.Command{Update: map[string]any{"summry": "z"}}, nil
		}).
		AddSubgraph("sub", inner).
		AddEdge(engine.Start, "search").AddEdge("search", "route").AddEdge("route", "sub"))
	type warning struct {
		step           int
		node           string
		unknown, meant []string
	}
	var got []warning
	res, err := g.Invoke(ctx, map[string]any{"findings": "", "summary": ""}, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventUnknownKey {
			got = append(got, warning{e.Step, e.Node, e.Unknown, e.Meant})
		}
	}))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("run: %v %v", res.Status, err)
	}
	if res.Values["findings"] != "sub" || res.Values["summary"] != "" {
		t.Fatalf("values %v: a misspelt key was written", res.Values)
	}
	want := []warning{
		{1, "search", []string{"finidngs", "sumary"}, []string{"findings", "summary"}},
		{2, "route", []string{"summry"}, []string{"summary"}},
	}
	if !slices.EqualFunc(got, want, func(a, b warning) bool {
		return a.step == b.step && a.node == b.node && slices.Equal(a.unknown, b.unknown) && slices.Equal(a.meant, b.meant)
	}) {
		t.Fatalf("warnings %+v, want %+v", got, want)
	}
	text := engine.Event{Kind: engine.EventUnknownKey, Node: "search", Unknown: []string{"finidngs"}, Meant: []string{"findings"}}.Warning()
	if text != `"search" wrote "finidngs" (did you mean "findings"?), which is no state key of the graph: the write was dropped, as LangGraph drops it` {
		t.Fatalf("text %q", text)
	}
	if (engine.Event{Kind: engine.EventTask}).Warning() != "" {
		t.Fatal("a task event warns")
	}
}
