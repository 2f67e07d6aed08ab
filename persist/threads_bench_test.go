package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
)

// BenchmarkThreadsSync runs 1 and 32 threads of a counting loop at once on
// one store with sync durability and reports supersteps per second over
// all of them and commits per superstep. Concurrent threads must share
// fsyncs (group commit): the goal is at least 8x one thread's rate with 32,
// while one thread stays within 2x of BenchmarkFsyncCommit per superstep.
func BenchmarkThreadsSync(b *testing.B) {
	for _, threads := range []int{1, 32} {
		b.Run(fmt.Sprint("threads=", threads), func(b *testing.B) {
			const steps = 20
			s, err := Open(filepath.Join(b.TempDir(), "db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			g, err := engine.NewStateGraph(engine.LastValueKey("n")).
				AddNode("count", func(_ context.Context, in any) (any, error) {
					return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
				}).
				AddEdge(engine.Start, "count").
				AddConditionalEdges("count", func(_ context.Context, st map[string]any) (any, error) {
					if st["n"].(float64) < steps {
						return "count", nil
					}
					return engine.End, nil
				}, "count", engine.End).
				Compile(engine.WithSaver(s))
			if err != nil {
				b.Fatal(err)
			}
			before := s.w.commits.Load()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				errs := make(chan error, threads)
				for t := 0; t < threads; t++ {
					go func() {
						res, err := g.Invoke(context.Background(), map[string]any{"n": 0}, engine.OnThread(fmt.Sprint("t", i, "-", t)), engine.WithRecursionLimit(steps+5))
						if err == nil && res.Status != engine.StatusDone {
							err = fmt.Errorf("status %v", res.Status)
						}
						errs <- err
					}()
				}
				for t := 0; t < threads; t++ {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			supersteps := float64(b.N * threads * (steps + 1))
			b.ReportMetric(supersteps/b.Elapsed().Seconds(), "supersteps/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/supersteps/1e6, "ms/superstep")
			b.ReportMetric(float64(s.w.commits.Load()-before)/supersteps, "commits/superstep")
		})
	}
}
