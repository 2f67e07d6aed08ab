package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// TestShow_PanicPrintsItsFrames: a task that panicked shows its one-line
// error, and under it the frames it panicked in, from the panicking
// function down to the node, as a program's own graph saved them (a
// thread pulled from a service included).
func TestShow_PanicPrintsItsFrames(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	store, err := persist.Open(db, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.NewStateGraph(engine.LastValueKey("q")).
		AddNode("tool", func(context.Context, any) (any, error) { return nil, nilMapTool() }).
		AddEdge(engine.Start, "tool").
		Compile(engine.WithSaver(store))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"q": "why?"}, engine.OnThread("t1")); err == nil {
		t.Fatal("the panicking tool did not fail the run")
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	r := superstep(t, "", "show", "t1", "--db", db)
	r.want(t, 0, `panicked at step 1: assignment to entry in nil map (cli_test.nilMapTool, showpanic_test.go:`, "    panicked at:\n")
	frames := r.stdout[strings.Index(r.stdout, "panicked at:\n"):]
	if !strings.Contains(frames, "\n      github.com/superstep/superstep/cli_test.nilMapTool\n          ") || !strings.Contains(frames, "showpanic_test.go:") {
		t.Errorf("the frames lack the panicking function and its line:\n%s", frames)
	}
	if strings.Contains(frames, "gopanic") || strings.Contains(frames, "(*loop).attempt") {
		t.Errorf("the frames hold the engine's recovery:\n%s", frames)
	}
}

//go:noinline
func nilMapTool() error {
	var m map[string]int
	m["x"] = 1
	return nil
}
