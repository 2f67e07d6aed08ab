package enginetest

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
)

// WriteBesideInterrupt compiles a graph whose step 1 runs "same" beside
// "ask": same writes x the value "kept" (an input of x = "kept" makes it
// a write of an equal value) and appends "same" to the list log; ask asks
// "first?", then "second?", and writes its answers to y. Stopped at
// either question, the checkpoint holds same's writes as pending: the
// workload of the tests of what pending writes change
// (Graph.PendingChannels) and of the debugger's "pending →".
func WriteBesideInterrupt(t testing.TB, s engine.Saver) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.LastValueKey("x"), engine.AppendKey("log"), engine.LastValueKey("y")).
		AddNode("same", func(context.Context, any) (any, error) {
			return engine.Pairs("x", "kept", "log", []any{"same"}), nil
		}).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			b, err := engine.Interrupt(ctx, "second?")
			return engine.Pairs("y", []any{a, b}), err
		}).
		AddEdge(engine.Start, "same").AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(s), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
