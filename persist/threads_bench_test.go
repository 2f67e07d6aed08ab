package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// BenchmarkThreadsSync runs 1, 8 and 32 threads of a counting loop at once
// on one store with sync durability and reports supersteps per second over
// all of them, commits per superstep, pages written per commit and the CPU
// time (user and system, the whole process) per superstep, and how much of
// the time the one write transaction bbolt allows at a time was running
// (writer-busy, tx-µs/superstep). Concurrent
// threads must share fsyncs (group commit): the goal is at least 8x one
// thread's rate with 32, while one thread stays within 2x of
// BenchmarkFsyncCommit per superstep. The nosync variants skip fsync, so
// their CPU time is the store's and the engine's alone, without the disk.
//
// The fastdisk variants skip fsync too but wait 220µs after each commit,
// the fsync'd commit of a quiet local disk (BenchmarkFsyncCommit): they show
// how commits are shared on such a disk when the one under the test is
// slower or busy. The modeldisk variants wait as modelDisk says, longer
// for a commit of more pages, as BenchmarkLayoutSync's do
// (SUPERSTEP_MODEL_DISK sets its costs).
//
// What bounds the ratio: a thread whose superstep is being committed
// cannot queue its next one, so with n threads the threads split into
// two groups that take turns and a commit carries about n/2 supersteps
// (commits/superstep). A commit of k supersteps keeps the single writer
// busy for about F + k·c: F what any commit costs (the meta page, two
// fdatasyncs), c what a superstep adds (its records' ops and the pages
// they dirty, writes/commit ÷ k). One thread's superstep costs F + c,
// so 32 threads reach at most 16(F + c) / (F + 16c) times its rate, and
// 8x needs c ≤ F/14. On the 2-core VM this was written on, F ≈ 270µs
// (BenchmarkFsyncCommitPages/pages=1) and c ≈ 80µs (3.5 scattered pages
// of about 17µs each, with fsync, and 25-30µs of ops): about 4x. A disk
// whose fsync costs more (a larger F) gives a larger ratio for the same c.
func BenchmarkThreadsSync(b *testing.B) {
	for _, disk := range []string{"", "nosync/", "fastdisk/", "modeldisk/"} {
		for _, threads := range []int{1, 8, 32} {
			b.Run(fmt.Sprint(disk, "threads=", threads), func(b *testing.B) { benchThreads(b, threads, disk) })
		}
	}
}

func benchThreads(b *testing.B, threads int, disk string) {
	const steps = 20
	s, err := Open(filepath.Join(b.TempDir(), "db"), Options{NoSync: disk != ""})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	switch disk {
	case "fastdisk/":
		s.w.fakeSync = 220 * time.Microsecond
	case "modeldisk/":
		s.w.fakeSync, s.w.fakeSyncPage = modelDisk(b)
	}
	s.w.threadCPU = threadCPUTime
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
	before, pagesBefore, txBefore := s.w.commits.Load(), pagesWritten(s.db), s.w.txTime.Load()
	fnBefore, txCPUBefore := s.w.fnTime.Load(), s.w.txCPU.Load()
	cpuBefore, gcBefore := cpuTime(), readGCStats()
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
	cpu, gc := cpuTime()-cpuBefore, readGCStats().since(gcBefore)
	supersteps := float64(b.N * threads * (steps + 1))
	gc.report(b, supersteps)
	commits := float64(s.w.commits.Load() - before)
	b.ReportMetric(supersteps/b.Elapsed().Seconds(), "supersteps/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/supersteps/1e6, "ms/superstep")
	b.ReportMetric(commits/supersteps, "commits/superstep")
	b.ReportMetric(float64(pagesWritten(s.db)-pagesBefore)/commits, "writes/commit")
	// The share of the wall time a write transaction ran: near 1, the
	// single writer (bbolt's one write transaction at a time) bounds the
	// rate, not the cores; tx-µs/superstep is that serial time per
	// superstep, fsync included.
	tx := time.Duration(s.w.txTime.Load() - txBefore)
	b.ReportMetric(tx.Seconds()/b.Elapsed().Seconds(), "writer-busy")
	b.ReportMetric(float64(tx.Microseconds())/supersteps, "tx-µs/superstep")
	// tx-ops-µs is the part of it spent running the ops, before bbolt's
	// commit (spill, page writes, fsync); tx-cpu-µs the writer's CPU time
	// in the transactions, where it can be read (the rest of tx-µs is
	// waiting: for the disk, or for a core).
	b.ReportMetric(float64(time.Duration(s.w.fnTime.Load()-fnBefore).Microseconds())/supersteps, "tx-ops-µs/superstep")
	if s.w.threadCPU != nil {
		txCPU := time.Duration(s.w.txCPU.Load() - txCPUBefore)
		b.ReportMetric(float64(txCPU.Microseconds())/supersteps, "tx-cpu-µs/superstep")
		// The most supersteps a second the single writer could commit
		// if it never waited, for the disk or for a core: its CPU time
		// alone (the store's ops, bbolt's page work, fdatasync's system
		// time) at this many supersteps a commit. The goal's rate at 32
		// threads (8x threads=1's supersteps/s) must be below it.
		if txCPU > 0 {
			b.ReportMetric(supersteps/txCPU.Seconds(), "writer-cpu-max-supersteps/s")
		}
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/supersteps, "cpu-µs/superstep")
	}
}

// gcStats is what the Go runtime says the collector did: the CPU time it
// took (its own workers and the assists it charged allocating goroutines,
// the single writer among them), its cycles, and the bytes allocated.
// A small live heap makes cycles frequent, and at 32 threads the writer
// is the bottleneck: the collector's share of the cores and of the
// writer's time shows in the rate, so the benchmark reports it beside it.
type gcStats struct {
	cpuSeconds float64
	cycles     uint64
	allocBytes uint64
}

var gcMetricNames = []string{
	"/cpu/classes/gc/total:cpu-seconds",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:bytes",
}

func readGCStats() gcStats {
	samples := make([]metrics.Sample, len(gcMetricNames))
	for i, name := range gcMetricNames {
		samples[i].Name = name
	}
	metrics.Read(samples)
	var st gcStats
	if v := samples[0].Value; v.Kind() == metrics.KindFloat64 {
		st.cpuSeconds = v.Float64()
	}
	if v := samples[1].Value; v.Kind() == metrics.KindUint64 {
		st.cycles = v.Uint64()
	}
	if v := samples[2].Value; v.Kind() == metrics.KindUint64 {
		st.allocBytes = v.Uint64()
	}
	return st
}

func (st gcStats) since(before gcStats) gcStats {
	return gcStats{
		cpuSeconds: st.cpuSeconds - before.cpuSeconds,
		cycles:     st.cycles - before.cycles,
		allocBytes: st.allocBytes - before.allocBytes,
	}
}

// report adds gc-cpu-µs/superstep, gc-cycles/ksuperstep and
// alloc-B/superstep to b's metrics.
func (st gcStats) report(b *testing.B, supersteps float64) {
	b.ReportMetric(st.cpuSeconds*1e6/supersteps, "gc-cpu-µs/superstep")
	b.ReportMetric(float64(st.cycles)*1000/supersteps, "gc-cycles/ksuperstep")
	b.ReportMetric(float64(st.allocBytes)/supersteps, "alloc-B/superstep")
}
