package engine_test

import (
	"context"
	"errors"
	"fmt"
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

// A node that took an answer and then fails streams an update ({node: {}})
// before the run fails: LangGraph.js's interrupt() puts the answer first
// among the task's writes (interrupt.ts:89-101), the error is appended
// (runner.ts:448), and _outputWrites leaves out a failure's update only
// when the first write is the error (loop.ts:872-885). A node that fails
// without having taken one streams none.
func TestStream_FailedTaskThatTookAnAnswerStreamsItsUpdate(t *testing.T) {
	for _, asks := range []bool{true, false} {
		g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("ask", func(ctx context.Context, _ any) (any, error) {
				if asks {
					if _, err := engine.Interrupt(ctx, "ok?"); err != nil {
						return nil, err
					}
				}
				return nil, errors.New("boom")
			}).
			AddEdge(engine.Start, "ask"),
			engine.WithSaver(engine.NewMemorySaver()))
		th := engine.OnThread("s")
		var in any = map[string]any{}
		if asks {
			if _, err := g.Invoke(ctx, in, th); err != nil {
				t.Fatal(err)
			}
			in = engine.Command{Resume: "yes"}
		}
		var updates []any
		var runErr error
		for p, err := range g.StreamModes(ctx, in, []engine.StreamMode{engine.StreamUpdates}, th) {
			if err != nil {
				runErr = err
				break
			}
			updates = append(updates, p.Data)
		}
		want := "[]"
		if asks {
			want = "[map[ask:map[]]]"
		}
		if runErr == nil || fmt.Sprint(updates) != want {
			t.Fatalf("asks %v: updates %v (want %s), error %v", asks, updates, want, runErr)
		}
	}
}
