package scenario_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
)

// TestFile_Where_SavedError: a task's error an expression raised, read
// back from the store the run saved it in (as show and history read it,
// in another process), is placed at that expression as the run's own
// error was, in a node or a subgraph's node; the same file edited so
// that the field now belongs to another node, no longer exists, or holds
// another expression, places it nowhere rather than at the wrong one.
func TestFile_Where_SavedError(t *testing.T) {
	tests := []struct {
		name, src string
		thread    string
		at, field string
	}{
		{"node's update key", `{"state": {"n": "sum"}, "nodes": [{"name": "a", "update": {"n": "1"}}, {"name": "b", "update": {"n": "state.xs[3].v"}}], "edges": [["__start__", "a"], ["a", "b"], ["b", "__end__"]]}`,
			"t", `"state.xs[3].v"`, `nodes[1] "b": update.n`},
		{"subgraph's node", `{"state": {"n": "sum"}, "nodes": [{"name": "s", "subgraph": "inner"}], "edges": [["__start__", "s"], ["s", "__end__"]],
		  "subgraphs": {"inner": {"state": {"n": "sum"}, "nodes": [{"name": "x", "update": {"n": "state.n.m.k"}}], "edges": [["__start__", "x"], ["x", "__end__"]]}}}`,
			"t", `"state.n.m.k"`, `subgraphs.inner.nodes[0] "x": update.n`},
		{"route", `{"state": {"n": "sum"}, "nodes": [{"name": "a", "update": {"n": "1"}}], "edges": [["__start__", "a"]],
		  "branches": [{"from": "a", "route": "state.n > 'x' ? 'a' : '__end__'", "ends": ["a", "__end__"]}]}`,
			"t", `"state.n > 'x'`, `branches[0].route`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w.json")
			saved := savedFailure(t, path, tt.src)
			f, err := scenario.Parse(path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			at, ok := f.Where(saved, "MSG")
			if !ok {
				t.Fatalf("Where found no place for the saved %q", saved)
			}
			if want := path + ":" + posIn(t, tt.src, tt.at) + ": " + tt.field + ": MSG"; at.Error() != want {
				t.Errorf("placed as\n%s\nwant\n%s", at.Error(), want)
			}
			if !errors.As(at, new(*engine.NodeError)) {
				t.Error("the placed error hides the saved NodeError")
			}
		})
	}

	// The file edited since the run: the field is another node's now,
	// or gone.
	src := tests[0].src
	path := filepath.Join(t.TempDir(), "w.json")
	saved := savedFailure(t, path, src)
	for _, edited := range []string{
		strings.ReplaceAll(src, `"b"`, `"c"`),
		strings.Replace(src, `"update": {"n": "state.xs[3].v"}`, `"update": {"m": "state.xs[3].v"}`, 1),
		strings.Replace(src, `"update": {"n": "state.xs[3].v"}`, `"update": {"n": "state.xs[2].v"}`, 1),
	} {
		f, err := scenario.Parse(path, []byte(edited))
		if err != nil {
			t.Fatal(err)
		}
		if at, ok := f.Where(saved, "MSG"); ok {
			t.Errorf("placed in an edited file at %v", at)
		}
	}
}

// savedFailure runs src, written at path, on a bbolt store until it
// fails, and returns the failed task's error as the store gives it back
// once reopened.
func savedFailure(t *testing.T, path, src string) error {
	t.Helper()
	f, err := scenario.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(filepath.Dir(path), "db")
	store, err := persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := scenario.Build(f, engine.WithSaver(store))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"n": 0.0}, engine.OnThread("t")); err == nil {
		t.Fatal("the run did not fail")
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store, err = persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	g, _, err = scenario.Build(f, engine.WithSaver(store))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range snap.Tasks {
		if task.Err != nil {
			return task.Err
		}
	}
	t.Fatalf("no task of the latest checkpoint saved an error: %+v", snap.Tasks)
	return nil
}

// posIn is "line:column" of the first occurrence of s in src.
func posIn(t *testing.T, src, s string) string {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q is not in the source", s)
	}
	line := 1 + strings.Count(src[:i], "\n")
	col := i - strings.LastIndex(src[:i], "\n")
	return strconv.Itoa(line) + ":" + strconv.Itoa(col)
}
