package engine_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestLoop_LiveHeapFlat runs a 5000-superstep loop without a saver and
// checks that the live heap at the end is no larger than after the first
// few hundred supersteps: a superstep keeps nothing of the ones before.
func TestLoop_LiveHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("long loop")
	}
	const steps = 5000
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("tick", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)+1), nil
		}).
		AddEdge(engine.Start, "tick").
		AddConditionalEdges("tick", func(_ context.Context, s map[string]any) (any, error) {
			if s["n"].(float64) < steps {
				return "tick", nil
			}
			return engine.End, nil
		}, "tick", engine.End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	heapAt := map[int]uint64{}
	hook := func(_ context.Context, v *engine.StepView) error {
		if v.Phase == engine.PhaseCheckpoint && (v.Step == 500 || v.Step == steps) {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heapAt[v.Step] = ms.HeapAlloc
		}
		return nil
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"n": 0.0}, engine.WithRecursionLimit(steps+10), engine.WithHook(hook)); err != nil {
		t.Fatal(err)
	}
	early, late := heapAt[500], heapAt[steps]
	t.Logf("live heap after 500 supersteps: %d B, after %d: %d B", early, steps, late)
	if late > early+512<<10 {
		t.Fatalf("live heap grew from %d to %d bytes over %d supersteps", early, late, steps-500)
	}
}
