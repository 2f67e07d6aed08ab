package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A Task call's task is marked as a call in the tasks pane beside its
// state, and the entrypoint's own task is not.
func TestModel_CallTaskMarked_RealEngine(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewEntrypoint("program", func(ctx context.Context, in any) (any, error) {
		who, _ := in.(map[string]any)["who"].(string)
		return engine.Task(ctx, "greet", func(_ context.Context, who string) (string, error) { return "hello " + who, nil }, who).Result()
	}, engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "c1", Input: map[string]any{"who": "James"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 36)
	m = press(t, m, "n", "n") // step 0 executed
	v := m.View()
	if !containsLine(v, "greet", "done", "ƒ call") {
		t.Fatalf("call task not marked:\n%s", v)
	}
	if containsLine(v, "program", "ƒ call") {
		t.Fatalf("the entrypoint's task is marked as a call:\n%s", v)
	}
	if !strings.Contains(v, "hello James") {
		t.Fatalf("call result not shown:\n%s", v)
	}
}

// An entrypoint has no __start__ node, so versions_seen shows no row for
// one (LangGraph's entrypoint checkpoints have versions_seen for the
// entrypoint's node and its calls only).
func TestModel_EntrypointSeenHasNoStartRow(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewEntrypoint("program", func(_ context.Context, in any) (any, error) { return in, nil },
		engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "c2", Input: map[string]any{"who": "Will"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 36)
	m = press(t, m, "s")
	v := m.View()
	if containsLine(v, "│__start__ __start__") {
		t.Fatalf("versions_seen shows a __start__ node:\n%s", v)
	}
	if !containsLine(v, "│program", "__start__", "1") {
		t.Fatalf("versions_seen lacks the entrypoint's row:\n%s", v)
	}
}
