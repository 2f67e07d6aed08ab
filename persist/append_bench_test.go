package persist_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// BenchmarkAppendSuperstep is the cost of one superstep that appends a
// number to a list of 1,000 or 100,000 elements, checkpointed to bbolt
// (sync durability without fsync, so the disk does not hide the CPU cost).
// The goal is a cost independent of the list's length (issue 17 item 8).
func BenchmarkAppendSuperstep(b *testing.B) {
	for _, size := range []int{1000, 100000} {
		b.Run(fmt.Sprint("items=", size), func(b *testing.B) {
			s, err := persist.Open(filepath.Join(b.TempDir(), "db"), persist.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			steps := b.N
			g, err := engine.NewStateGraph(engine.AppendKey("items"), engine.LastValueKey("n")).
				AddNode("add", func(_ context.Context, in any) (any, error) {
					n := in.(map[string]any)["n"].(float64)
					if n == 0 {
						b.ResetTimer() // the input checkpoint stored the list whole
					}
					return engine.Update{{Key: "items", Value: []any{n}}, {Key: "n", Value: n + 1}}, nil
				}).
				AddEdge(engine.Start, "add").
				AddConditionalEdges("add", func(_ context.Context, st map[string]any) (any, error) {
					if st["n"].(float64) < float64(steps) {
						return "add", nil
					}
					return engine.End, nil
				}, "add", engine.End).
				Compile(engine.WithSaver(s))
			if err != nil {
				b.Fatal(err)
			}
			items := make([]any, size)
			for i := range items {
				items[i] = float64(i)
			}
			b.ReportAllocs()
			if _, err := g.Invoke(context.Background(), map[string]any{"items": items, "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(steps+10)); err != nil {
				b.Fatal(err)
			}
		})
	}
}
