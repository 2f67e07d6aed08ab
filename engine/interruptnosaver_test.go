package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A node that calls Interrupt in a graph compiled without a saver fails
// with ErrNoCheckpointer, and the message says what to do about it, not
// only what is missing: the first interrupt a newcomer writes meets it.
func TestInterrupt_WithoutSaver_SaysHowToFixIt(t *testing.T) {
	g, err := engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.Interrupt(ctx, "ok?"); err != nil {
				return nil, err
			}
			return nil, nil
		}).
		AddEdge(engine.Start, "ask").Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), map[string]any{"x": 1})
	if !errors.Is(err, engine.ErrNoCheckpointer) {
		t.Fatalf("Interrupt without a saver: %v, want ErrNoCheckpointer", err)
	}
	for _, want := range []string{`"ask"`, "engine.WithSaver", "engine.OnThread"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %s", err, want)
		}
	}
}
