package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestResume_TooDeepIsRefusedBeforeItIsSaved: an answer that fits the
// depth bound only as it is, not inside the list the task that takes it
// keeps, is refused before anything is saved, and the question stays
// open. It was saved, and every later run of the thread then failed.
func TestResume_TooDeepIsRefusedBeforeItIsSaved(t *testing.T) {
	ctx := context.Background()
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"x": v}, nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	deep := func(levels int) any {
		var v any = "leaf"
		for range levels {
			v = []any{v}
		}
		return v
	}
	on := engine.OnThread("t")
	if _, err := g.Invoke(ctx, map[string]any{"x": 0.0}, on); err != nil {
		t.Fatal(err)
	}
	for _, resume := range []any{deep(engine.MaxValueDepth), engine.ResumeMap{"nope": deep(engine.MaxValueDepth)}} {
		_, err = g.Invoke(ctx, engine.Command{Resume: resume}, on)
		var le *engine.ValueLimitError
		if !errors.As(err, &le) || !errors.Is(err, engine.ErrValueTooDeep) || le.Key != engine.ResumeChannel {
			t.Fatalf("resume %T %d levels deep: %v, want a ValueLimitError of %s", resume, engine.MaxValueDepth, err, engine.ResumeChannel)
		}
	}
	st, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil || len(st.Interrupts()) != 1 {
		t.Fatalf("after the refusals the question is not open: %v, %+v", err, st)
	}
	res, err := g.Invoke(ctx, engine.Command{Resume: deep(engine.MaxValueDepth - 1)}, on)
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("an answer one level less: %v %v", err, res)
	}
}

// TestRecursionLimit_BelowOneIsRefused: WithRecursionLimit(0) or a
// negative limit fails the run before it starts, as LangGraph refuses
// one, where it silently meant the default of 25.
func TestRecursionLimit_BelowOneIsRefused(t *testing.T) {
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(engine.Start, "a").Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, -1} {
		_, err := g.Invoke(context.Background(), map[string]any{"x": 1.0}, engine.WithRecursionLimit(n))
		if !errors.Is(err, engine.ErrBadRecursionLimit) || !strings.Contains(err.Error(), fmt.Sprintf("WithRecursionLimit(%d)", n)) {
			t.Errorf("WithRecursionLimit(%d): %v, want ErrBadRecursionLimit naming the limit given", n, err)
		}
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"x": 1.0}, engine.WithRecursionLimit(5)); err != nil {
		t.Errorf("WithRecursionLimit(5): %v", err)
	}
}

// TestRecursionLimit_Largest: the largest limit is no limit, also for a
// thread continued past its first steps; it wrapped past the int's
// largest there, and the run stopped at once with the limit "reached".
func TestRecursionLimit_Largest(t *testing.T) {
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(engine.Start, "a").Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := g.Invoke(context.Background(), map[string]any{"x": 1.0}, engine.OnThread("t"), engine.WithRecursionLimit(math.MaxInt)); err != nil {
			t.Fatalf("run %d with the largest limit: %v", i+1, err)
		}
	}
}
