package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestFile_Where_RunErrors: an error a run raises names the node, and
// File.Where puts it at the expression in the file that made it — one
// that failed, or one that returned a destination the engine refused —
// from the positions Parse recorded, with the engine's errors still
// found through it.
func TestFile_Where_RunErrors(t *testing.T) {
	tests := []struct {
		name, src string
		input     any
		// at is the text the expression starts with in src (its
		// position), field how the error names it.
		at, field string
		is        any // an error type errors.As must still find, or nil
	}{
		{"update key index out of range",
			`{"state": {"n": "sum"}, "nodes": [{"name": "a", "update": {"n": "state.xs[3].v"}}], "edges": [["__start__", "a"], ["a", "__end__"]]}`,
			map[string]any{"n": 0.0}, `"state.xs[3].v"`, `nodes[0] "a": update.n`, nil},
		{"update expression type error",
			`{"state": {"n": "sum"}, "nodes": [{"name": "a", "sleep_ms": 1, "update": "{'n': state.q[2]}"}], "edges": [["__start__", "a"], ["a", "__end__"]]}`,
			map[string]any{"n": 0.0}, `"{'n': state.q[2]}"`, `nodes[0] "a": update`, nil},
		{"update expression yields no map",
			`{"state": {"n": "sum"}, "nodes": [{"name": "a", "update": "state.n + 1"}], "edges": [["__start__", "a"], ["a", "__end__"]]}`,
			map[string]any{"n": 0.0}, `"state.n + 1"`, `nodes[0] "a": update`, new(*engine.InvalidUpdateError)},
		{"route type error",
			`{"state": {"n": "sum"}, "nodes": [{"name": "a", "update": {"n": "1"}}], "edges": [["__start__", "a"]],
			  "branches": [{"from": "a", "route": "state.n > 'x' ? 'a' : '__end__'", "ends": ["a", "__end__"]}]}`,
			map[string]any{"n": 0.0}, `"state.n > 'x'`, `branches[0].route`, nil},
		{"route label outside its path_map",
			`{"state": {"n": "sum", "next": null}, "nodes": [{"name": "a", "update": {"next": "'stop'"}}, {"name": "b"}], "edges": [["__start__", "a"], ["b", "__end__"]],
			  "branches": [{"from": "a", "route": "state.next", "path_map": {"go": "b", "end": "__end__"}}]}`,
			map[string]any{"n": 0.0}, `"state.next"`, `branches[0].route`, nil},
		{"route Send to no node, computed",
			`{"state": {"who": null}, "nodes": [{"name": "a", "update": {"who": "'wrker'"}}, {"name": "worker"}], "edges": [["__start__", "a"], ["worker", "__end__"]],
			  "branches": [{"from": "a", "route": "[send(state.who, {})]", "ends": ["worker"]}]}`,
			map[string]any{"who": "x"}, `"[send(state.who`, `branches[0].route`, new(*engine.InvalidUpdateError)},
		{"goto Send to no node, computed",
			`{"state": {"who": null}, "nodes": [{"name": "a", "update": {"who": "'x'"}, "goto": "send(state.who, 1)"}, {"name": "x"}], "edges": [["__start__", "a"], ["x", "__end__"]]}`,
			map[string]any{"who": "wrker"}, `"send(state.who`, `nodes[0] "a": goto`, new(*engine.InvalidUpdateError)},
		{"subgraph node's update",
			`{"state": {"n": "sum"}, "nodes": [{"name": "s", "subgraph": "inner"}], "edges": [["__start__", "s"], ["s", "__end__"]],
			  "subgraphs": {"inner": {"state": {"n": "sum"}, "nodes": [{"name": "x", "update": {"n": "state.n.m.k"}}], "edges": [["__start__", "x"], ["x", "__end__"]]}}}`,
			map[string]any{"n": 0.0}, `"state.n.m.k"`, `subgraphs.inner.nodes[0] "x": update.n`, nil},
		{"task result",
			`{"tasks": {"double": {"result": "state * 2"}}, "entrypoint": {"calls": [{"task": "double", "arg": "state.x"}], "return": "{'y': results[0]}"}}`,
			map[string]any{"x": "s"}, `"state * 2"`, `tasks.double.result`, nil},
		{"call argument",
			`{"tasks": {"double": {"result": "state * 2"}}, "entrypoint": {"calls": [{"task": "double", "arg": "state.x[9].y"}], "return": "{'y': results[0]}"}}`,
			map[string]any{"x": []any{}}, `"state.x[9].y"`, `entrypoint.calls[0].arg`, nil},
		{"entrypoint return",
			`{"entrypoint": {"return": "{'y': state.a.b}"}}`,
			map[string]any{}, `"{'y': state.a.b}"`, `entrypoint.return`, nil},
		{"scripted failure keeps its kind",
			`{"state": {"n": "sum"}, "nodes": [{"name": "a", "update": {"n": "state.q.r"}}], "edges": [["__start__", "a"], ["a", "__end__"]]}`,
			map[string]any{"n": 0.0}, `"state.q.r"`, `nodes[0] "a": update.n`, new(*engine.NodeError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("w.json", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			g, _, err := Build(f, engine.WithSaver(engine.NewMemorySaver()))
			if err != nil {
				t.Fatal(err)
			}
			_, runErr := g.Invoke(context.Background(), tt.input, engine.OnThread("t"))
			if runErr == nil {
				t.Fatal("the run did not fail")
			}
			at, ok := f.Where(runErr, "MSG")
			if !ok {
				t.Fatalf("Where found no place for %v", runErr)
			}
			want := "w.json:" + posOf(t, tt.src, tt.at) + ": " + tt.field + ": MSG"
			if at.Error() != want {
				t.Errorf("placed as\n%s\nwant\n%s", at.Error(), want)
			}
			if tt.is != nil && !errors.As(at, tt.is) {
				t.Errorf("errors.As(%T) through the placed error failed", tt.is)
			}
			if !errors.As(at, new(*engine.NodeError)) {
				t.Error("the placed error hides the engine's NodeError")
			}
		})
	}
}

// TestFile_Where_KeepsTheRunsText: the place is added by Where, not to
// the error the run saves and reports, whose text stays the engine's
// (a task's saved error, a trace's message); an error no expression made
// (a scripted fail) has no place.
func TestFile_Where_KeepsTheRunsText(t *testing.T) {
	src := `{"state": {"n": "sum", "xs": null}, "nodes": [{"name": "a", "update": {"n": "state.xs[3]"}}, {"name": "b", "fail": {"times": 5, "message": "boom"}}],
	  "edges": [["__start__", "a"], ["a", "b"], ["b", "__end__"]]}`
	f, err := Parse("w.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := Build(f, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	_, runErr := g.Invoke(context.Background(), map[string]any{"n": 0.0}, engine.OnThread("t"))
	if want := `node "a" failed at step 1: update.n: cannot read 3 of null (column 9)`; runErr == nil || runErr.Error() != want {
		t.Errorf("run error %v, want %s", runErr, want)
	}
	_, runErr = g.Invoke(context.Background(), map[string]any{"n": 0.0, "xs": []any{1.0, 2.0, 3.0, 4.0}}, engine.OnThread("t2"))
	if _, ok := f.Where(runErr, "x"); runErr == nil || ok {
		t.Errorf("a scripted failure (%v) was placed at an expression", runErr)
	}
}

// TestFile_WhereTask_DroppedRoute: a route to no node, which the engine
// drops with a warning event, is found by the event's task at the route
// expression; a task whose route went where it may is not.
func TestFile_WhereTask_DroppedRoute(t *testing.T) {
	src := `{"state": {"next": null}, "nodes": [{"name": "a", "update": {"next": "state.next"}}, {"name": "b"}], "edges": [["__start__", "a"], ["b", "__end__"]],
	  "branches": [{"from": "a", "route": "state.next"}]}`
	f, err := Parse("w.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := Build(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		next  string
		found bool
	}{{"bb", true}, {"b", false}} {
		var ids []string
		_, err := g.Invoke(context.Background(), map[string]any{"next": tt.next}, engine.WithEvents(func(e engine.Event) {
			if e.Kind == engine.EventTaskResult && e.Node == "a" {
				ids = append(ids, e.TaskID)
			}
		}))
		if err != nil || len(ids) != 1 {
			t.Fatalf("run: %v, tasks of a %v", err, ids)
		}
		at, ok := f.WhereTask(ids[0], "dropped")
		if ok != tt.found {
			t.Fatalf("route to %q: found %v, want %v", tt.next, ok, tt.found)
		}
		if want := "w.json:" + posOf(t, src, `"state.next"}]`) + ": branches[0].route: dropped"; ok && at.Error() != want {
			t.Errorf("placed as\n%s\nwant\n%s", at.Error(), want)
		}
	}
}

// posOf is "line:column" of the first occurrence of s in src.
func posOf(t *testing.T, src, s string) string {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q is not in the source", s)
	}
	line := 1 + strings.Count(src[:i], "\n")
	col := i - strings.LastIndex(src[:i], "\n")
	return fmt.Sprintf("%d:%d", line, col)
}
