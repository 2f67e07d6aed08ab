package persist_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// agentLoopGraph is an agent-like loop: one node appends a message per superstep
// and routes back to itself until n messages exist.
func agentLoopGraph(b *testing.B, saver engine.Saver, n int) *engine.Graph {
	b.Helper()
	g, err := engine.NewStateGraph(engine.MessagesKey("messages")).
		AddNode("agent", func(_ context.Context, s any) (any, error) {
			msgs := s.(map[string]any)["messages"].([]any)
			id := fmt.Sprint(len(msgs))
			return map[string]any{"messages": map[string]any{"id": id, "role": "assistant", "content": "step " + id}}, nil
		}).
		AddEdge(engine.Start, "agent").
		AddConditionalEdges("agent", func(_ context.Context, s map[string]any) (any, error) {
			if len(s["messages"].([]any)) < n {
				return "agent", nil
			}
			return engine.End, nil
		}, "agent", engine.End).
		Compile(engine.WithSaver(saver))
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkSuperstepDurable is the cost of one superstep of an engine run
// on the bbolt store, per durability mode. Compare sync with
// BenchmarkFsyncCommit (one fsync'd bbolt commit): the goal is at most 2x.
func BenchmarkSuperstepDurable(b *testing.B) {
	for _, d := range []persist.Durability{persist.DurabilitySync, persist.DurabilityAsync, persist.DurabilityExit} {
		b.Run(d.String(), func(b *testing.B) {
			const steps = 100
			store, err := persist.Open(filepath.Join(b.TempDir(), "db"), persist.Options{Durability: d})
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			g := agentLoopGraph(b, store, steps)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := g.Invoke(context.Background(), map[string]any{"messages": []any{}}, engine.OnThread(fmt.Sprint("t", i)), engine.WithRecursionLimit(steps+5))
				if err != nil || res.Status != engine.StatusDone {
					b.Fatal(err)
				}
				if err := store.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(steps+1))/1e6, "ms/superstep")
		})
	}
}

// BenchmarkSendSuperstepSync is one superstep of 1000 Send tasks with sync
// durability: their pending writes must share fsyncs.
func BenchmarkSendSuperstepSync(b *testing.B) {
	store, err := persist.Open(filepath.Join(b.TempDir(), "db"), persist.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	g, err := engine.NewStateGraph(engine.AppendKey("results")).
		AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", func(_ context.Context, arg any) (any, error) {
			return map[string]any{"results": []any{arg}}, nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
			sends := make([]any, 1000)
			for i := range sends {
				sends[i] = engine.Send{Node: "work", Arg: float64(i)}
			}
			return sends, nil
		}, "work").
		Compile(engine.WithSaver(store))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Invoke(context.Background(), map[string]any{}, engine.OnThread(fmt.Sprint("t", i))); err != nil {
			b.Fatal(err)
		}
	}
}
