package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestRun_RouteToUnknownNodeEvent: a route to a name the graph has no
// node of is dropped, as LangGraph drops it, and an EventUnknownNode
// names the task, the name and the node it likely meant.
func TestRun_RouteToUnknownNodeEvent(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", appendLog("plan")).AddNode("write", appendLog("write")).
		AddEdge(engine.Start, "plan").
		AddConditionalEdges("plan", func(context.Context, map[string]any) (any, error) {
			return []any{"wirte", "zzz"}, nil
		}))
	var got []engine.Event
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventUnknownNode {
			got = append(got, e)
		}
	}))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("run: %v %v", res.Status, err)
	}
	if len(got) != 1 || got[0].Node != "plan" || !slices.Equal(got[0].Unknown, []string{"wirte", "zzz"}) || !slices.Equal(got[0].Meant, []string{"write", ""}) {
		t.Fatalf("events %+v, want one from plan naming wirte (meant write) and zzz", got)
	}
	want := `"plan" routed to "wirte" (did you mean "write"?), "zzz", which are no nodes of the graph`
	if text := got[0].UnknownNodeText(); !strings.HasPrefix(text, want) {
		t.Fatalf("text %q, want it to begin %q", text, want)
	}
}
