package engine_test

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A plain resume value a task took is not saved by a DurabilityExit run,
// which saves its pending writes at exit, so the next run on new input
// asks again; a DurabilitySync run saved it as it began, and the next run
// on new input takes the stale value (LangGraph.js pregel/algo.ts:1505-1515
// consumeNullResume splices it from the loop's pending writes; loop.ts
// _first keeps the loaded writes for the input checkpoint's superstep).
func TestResume_TakenPlainValueSavedOnlyBeforeItWasTaken(t *testing.T) {
	for _, tc := range []struct {
		durability engine.Durability
		want       string // what the run on new input asks
	}{
		{engine.DurabilityExit, "first?"},
		{engine.DurabilitySync, "second?"},
	} {
		g, err := engine.NewEntrypoint("main", func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			b, err := engine.Interrupt(ctx, "second?")
			if err != nil {
				return nil, err
			}
			return []any{a, b}, nil
		}, engine.WithSaver(engine.NewMemorySaver()))
		if err != nil {
			t.Fatal(err)
		}
		th := engine.OnThread("x")
		if _, err := g.Invoke(ctx, map[string]any{"n": 1.0}, th); err != nil {
			t.Fatal(err)
		}
		res, err := g.Invoke(ctx, engine.Command{Resume: "r1"}, th, engine.WithDurability(tc.durability))
		if err != nil || len(res.Interrupts) != 1 || res.Interrupts[0].Value != "second?" {
			t.Fatalf("%v: resume: %+v, %v", tc.durability, res, err)
		}
		res, err = g.Invoke(ctx, map[string]any{"n": 2.0}, th)
		if err != nil || len(res.Interrupts) != 1 || res.Interrupts[0].Value != tc.want {
			t.Fatalf("%v: new input: %+v, %v; want it to ask %q", tc.durability, res, err, tc.want)
		}
	}
}
