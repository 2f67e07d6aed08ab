//go:build unix

package typed_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// BenchmarkWorkload_TypedOverhead runs the map and the typed graph of each
// workload alternately, one run each per iteration, and reports the CPU time
// this process spent in each (user + system, the GC included) and the
// typed API's overhead in percent. On a shared machine wall time swings
// with the neighbours' load; alternating and counting CPU time keeps the
// comparison fair.
func BenchmarkWorkload_TypedOverhead(b *testing.B) {
	for _, w := range perfWorkloads() {
		for _, saver := range []string{"none", "memory"} {
			b.Run(w.name+"/"+saver, func(b *testing.B) {
				mapRun, err := w.mapG(saverOpts(saver)...)
				if err != nil {
					b.Fatal(err)
				}
				typedRun, err := w.typG(saverOpts(saver)...)
				if err != nil {
					b.Fatal(err)
				}
				var mapCPU, typedCPU time.Duration
				timed := func(r runFunc, thread string) time.Duration {
					before := cpuTime()
					if err := r(context.Background(), engine.OnThread(thread), engine.WithRecursionLimit(w.limit)); err != nil {
						b.Fatal(err)
					}
					return cpuTime() - before
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					thread := fmt.Sprint("t", i)
					if i%2 == 0 {
						mapCPU += timed(mapRun, thread)
						typedCPU += timed(typedRun, thread)
					} else {
						typedCPU += timed(typedRun, thread)
						mapCPU += timed(mapRun, thread)
					}
				}
				b.ReportMetric(float64(mapCPU.Nanoseconds())/float64(b.N), "map-cpu-ns/op")
				b.ReportMetric(float64(typedCPU.Nanoseconds())/float64(b.N), "typed-cpu-ns/op")
				b.ReportMetric(100*(float64(typedCPU)/float64(mapCPU)-1), "overhead-%")
			})
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
