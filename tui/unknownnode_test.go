package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A route to a node the graph does not have (a typo in a route without
// declared ends) is dropped, as LangGraph drops it, and the run ends
// early without a word: the step's note says which task routed where.
func TestModel_RouteToUnknownNodeIsNoted(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"plan"}), nil }).
		AddNode("write", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"write"}), nil }).
		AddEdge(engine.Start, "plan").
		AddConditionalEdges("plan", func(context.Context, map[string]any) (any, error) { return "wirte", nil }).
		AddEdge("write", engine.End).
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 160, 40)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v, want done (the route is dropped)", m.view.Status)
	}
	if want := `"plan" routed to "wirte" (did you mean "write"?), which is no node of the graph`; !strings.Contains(m.note, want) {
		t.Fatalf("note %q, want it to say %s", m.note, want)
	}
	if v := m.View(); !strings.Contains(v, "warning:") || !strings.Contains(v, "wirte") {
		t.Errorf("the screen does not show the warning:\n%s", v)
	}
}

// A misspelt update key is dropped, as LangGraph drops it; the step's note
// says which node wrote it and which state key it likely meant.
func TestModel_MisspeltUpdateKeyIsNoted(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.LastValueKey("findings")).
		AddNode("search", func(context.Context, any) (any, error) { return engine.Pairs("finidngs", "x"), nil }).
		AddEdge(engine.Start, "search").AddEdge("search", engine.End).
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Input: map[string]any{"findings": ""}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 160, 40)
	m = press(t, m, "c")
	if want := `"search" wrote "finidngs" (did you mean "findings"?), which is no state key of the graph`; !strings.Contains(m.note, want) {
		t.Fatalf("note %q, want it to say %s", m.note, want)
	}
}
