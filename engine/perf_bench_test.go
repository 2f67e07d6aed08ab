package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// TestPerfWorkloads runs each Go-native perf workload once, the variant
// with the scenario file's Send arguments too, and checks its final state:
// the benchmarks and bench/peers time these graphs, so they must compute
// what the workloads say.
func TestPerfWorkloads(t *testing.T) {
	for _, name := range append(enginetest.PerfWorkloadNames, enginetest.FanoutRecordArgs) {
		t.Run(name, func(t *testing.T) {
			w, err := enginetest.PerfGraph(name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := w.Graph.Invoke(context.Background(), w.Input(), engine.OnThread("t"), engine.WithRecursionLimit(w.RecursionLimit))
			if err != nil || res.Status != engine.StatusDone {
				t.Fatalf("run: %v %v", err, res.Status)
			}
			if err := w.Check(res.Values); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := enginetest.PerfGraph("no_such_workload"); err == nil {
		t.Error("PerfGraph(no_such_workload): no error")
	}
}

// BenchmarkPerfWorkload runs the perf workloads with Go node functions,
// without a saver and with MemorySaver, and reports the cost of one
// superstep (ns/superstep, allocs/superstep) and, for the fan-out, of one
// Send task (ns/send). The goals they are held to are in the repository's
// perf notes; this benchmark only measures.
func BenchmarkPerfWorkload(b *testing.B) {
	for _, name := range enginetest.PerfWorkloadNames {
		for _, saver := range []string{"none", "memory"} {
			b.Run(name+"/"+saver, func(b *testing.B) {
				var opts []engine.CompileOption
				var ms *engine.MemorySaver
				if saver == "memory" {
					ms = engine.NewMemorySaver()
					opts = append(opts, engine.WithSaver(ms))
				}
				w, err := enginetest.PerfGraph(name, opts...)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					thread := fmt.Sprint("t", i)
					res, err := w.Graph.Invoke(ctx, w.Input(), engine.OnThread(thread), engine.WithRecursionLimit(w.RecursionLimit))
					if err != nil || res.Status != engine.StatusDone {
						b.Fatalf("run: %v %v", err, res.Status)
					}
					if err := w.Check(res.Values); err != nil {
						b.Fatal(err)
					}
					if ms != nil {
						b.StopTimer()
						_ = ms.DeleteThread(ctx, thread)
						b.StartTimer()
					}
				}
				b.StopTimer()
				runtime.ReadMemStats(&after)
				perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(perRun/float64(w.Supersteps), "ns/superstep")
				allocs := float64(after.Mallocs-before.Mallocs) / float64(b.N)
				b.ReportMetric(allocs/float64(w.Supersteps), "allocs/superstep")
				if name == "fanout_1000" {
					b.ReportMetric(perRun/1000, "ns/send")
				}
			})
		}
	}
}

// BenchmarkPerfWorkloadCancellable runs the perf workloads without a saver
// on a context the caller can cancel, as a service's request context: each
// lone task then runs on a goroutine of its own, which the run can leave
// when the caller goes away (a node that ignores its context). Compare
// with BenchmarkPerfWorkload's "none" to see what that costs.
func BenchmarkPerfWorkloadCancellable(b *testing.B) {
	for _, name := range enginetest.PerfWorkloadNames {
		b.Run(name, func(b *testing.B) {
			w, err := enginetest.PerfGraph(name)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := w.Graph.Invoke(ctx, w.Input(), engine.OnThread(fmt.Sprint("t", i)), engine.WithRecursionLimit(w.RecursionLimit))
				if err != nil || res.Status != engine.StatusDone {
					b.Fatalf("run: %v %v", err, res.Status)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(w.Supersteps), "ns/superstep")
		})
	}
}
