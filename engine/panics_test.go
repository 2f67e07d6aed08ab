package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestPanic_OneLineWithItsPlace: a node's panic is a *NodeError whose Err
// is a *PanicError: one line, the value and the function and line that
// panicked; its Stack starts at that frame and holds none of the frames
// that recovered it (the runtime's panic, the engine's attempt). A
// runtime fault names the program's frame, not the runtime's; a reducer's
// panic reads the same way; and the saved task error keeps the stack.
func TestPanic_OneLineWithItsPlace(t *testing.T) {
	ctx := context.Background()
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("boom", func(context.Context, any) (any, error) { return nil, explode() }).
		AddEdge(engine.Start, "boom"))
	_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	var ne *engine.NodeError
	var pe *engine.PanicError
	if !errors.As(err, &ne) || !ne.Panic || !errors.As(err, &pe) {
		t.Fatalf("got %v, want a NodeError holding a PanicError", err)
	}
	if want := `node "boom" panicked at step 1: kaboom (engine_test.explode, panics_test.go:`; !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q, want one line starting %q", err, want)
	}
	if !strings.HasPrefix(pe.Stack, "github.com/superstep/superstep/engine_test.explode\n\t") {
		t.Errorf("stack does not start at the panicking frame:\n%s", pe.Stack)
	}
	if !strings.Contains(pe.Stack, "TestPanic_OneLineWithItsPlace.func1") {
		t.Errorf("stack lacks the node's frame:\n%s", pe.Stack)
	}
	for _, engineFrame := range []string{"runtime.gopanic", "(*loop).attempt", "recoveredPanic", "runtime.Callers"} {
		if strings.Contains(pe.Stack, engineFrame) {
			t.Errorf("stack holds the recovery's frame %s:\n%s", engineFrame, pe.Stack)
		}
	}
	if engine.PanicStack(err) != pe.Stack {
		t.Errorf("PanicStack differs from the PanicError's Stack")
	}

	// A runtime fault: the program's frame, past the runtime's.
	g = mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("nilmap", func(context.Context, any) (any, error) { return nil, assignNil() }).
		AddEdge(engine.Start, "nilmap"))
	_, err = g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if !errors.As(err, &pe) || !strings.Contains(pe.At, "engine_test.assignNil, panics_test.go:") {
		t.Errorf("a runtime fault is placed at %q (%v), want the program's assignNil", pe.At, err)
	}
	if !strings.HasPrefix(pe.Stack, "github.com/superstep/superstep/engine_test.assignNil\n\t") {
		t.Errorf("a runtime fault's stack does not start at the program's frame (the runtime's raising of it is noise):\n%s", pe.Stack)
	}

	// A reducer's panic.
	g = mustCompile(t, engine.NewStateGraph(engine.ReducerKey("n", func(any, any) (any, error) { panic("bad reducer") }, nil)).
		AddNode("w", func(context.Context, any) (any, error) { return engine.Pairs("n", 1), nil }).
		AddEdge(engine.Start, "w"))
	_, err = g.Invoke(ctx, map[string]any{}, engine.OnThread("r"))
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "the reducer panicked: bad reducer (engine_test.TestPanic_OneLineWithItsPlace.func") || strings.Contains(err.Error(), "\n") {
		t.Errorf("reducer panic: %q, want one line naming the reducer's closure", err)
	}
	if strings.Contains(pe.Stack, "runtime.gopanic") || !strings.HasPrefix(pe.Stack, "github.com/superstep/superstep/engine_test.TestPanic_OneLineWithItsPlace.func") {
		t.Errorf("reducer panic stack:\n%s", pe.Stack)
	}
}

// TestPanic_SavedWithItsStack: the failed task's saved error reads back
// with the one-line text and the stack, as a pulled thread shows it.
func TestPanic_SavedWithItsStack(t *testing.T) {
	ctx := context.Background()
	saver := engine.NewMemorySaver()
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("boom", func(context.Context, any) (any, error) { return nil, explode() }).
		AddEdge(engine.Start, "boom"), engine.WithSaver(saver))
	_, runErr := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Tasks) != 1 || snap.Tasks[0].Err == nil {
		t.Fatalf("tasks %+v, want boom's saved error", snap.Tasks)
	}
	saved := snap.Tasks[0].Err
	if saved.Error() != runErr.Error() || engine.PanicStack(saved) == "" || engine.PanicStack(saved) != engine.PanicStack(runErr) {
		t.Errorf("saved %q with stack %q, want the run's %q and its stack", saved, engine.PanicStack(saved), runErr)
	}
}

//go:noinline
func explode() error { panic("kaboom") }

//go:noinline
func assignNil() error {
	var m map[string]int
	m["x"] = 1
	return nil
}
