package persist

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// BenchmarkThreadList times what a service's list of threads costs:
// Store.Threads, and GET ExportPath on ExportHandler (Threads, the
// statuses and the document), on a file of SUPERSTEP_BENCH_THREADS
// threads (20,000 unless set) of a graph that loops 12 supersteps, ends,
// or waits for an answer, or fails in a third of them each. It reports
// µs/thread, and cpu-µs/thread: the process's CPU time, which a machine
// busy with other work changes less than the wall time.
//
//	go test ./persist -run '^$' -bench BenchmarkThreadList -benchtime 5x
func BenchmarkThreadList(b *testing.B) {
	n := 20000
	if s := os.Getenv("SUPERSTEP_BENCH_THREADS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("SUPERSTEP_BENCH_THREADS=%q: want a positive number", s)
		}
		n = v
	}
	s := listBenchStore(b, n)
	ctx := context.Background()
	b.Run("Threads", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			if l, err := s.Threads(ctx); err != nil || len(l) != n {
				b.Fatalf("%d threads, %v", len(l), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/thread")
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N)/float64(n), "cpu-µs/thread")
	})
	b.Run("ExportHandler", func(b *testing.B) {
		h := ExportHandler(s)
		cpu := cpuTime()
		for b.Loop() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, ExportPath, nil))
			if rec.Code != http.StatusOK {
				b.Fatalf("%d: %s", rec.Code, rec.Body)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/thread")
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N)/float64(n), "cpu-µs/thread")
	})
}

// listBenchStore is a store of n threads for BenchmarkThreadList, run
// by a few goroutines at once so that their commits are shared.
func listBenchStore(b *testing.B, n int) *Store {
	s, err := Open(filepath.Join(b.TempDir(), "list.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	const steps = 12
	g, err := engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("mode")).
		AddNode("count", func(ctx context.Context, in any) (any, error) {
			st := in.(map[string]any)
			n := st["n"].(float64)
			if n == steps-1 {
				switch st["mode"] {
				case "ask":
					if _, err := engine.Interrupt(ctx, "go on?"); err != nil {
						return nil, err
					}
				case "fail":
					return nil, fmt.Errorf("failed at %v", n)
				}
			}
			return engine.Pairs("n", n+1), nil
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
	modes := []string{"done", "ask", "fail"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				in := map[string]any{"n": 0.0, "mode": modes[i%3]}
				if _, err := g.Invoke(context.Background(), in, engine.OnThread(fmt.Sprintf("t%05d", i))); err != nil && modes[i%3] != "fail" {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return s
}
