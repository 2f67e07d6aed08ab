package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
)

// BenchmarkWriterRound measures one commit round of group supersteps, one
// per thread, as BenchmarkThreadsSync's counting loop makes them (a
// task's two writes, then a checkpoint changing two channels), queued
// under DurabilityExit and committed by one Flush on the benchmark's own
// goroutine. With no goroutine switching and no disk, it is the exact,
// repeatable cost of the single writer's transaction (run it under
// callgrind with GOGC=off and --toggle-collect on (*writer).commit), and
// of the caller's side (Put and PutWrites, outside the transaction). It
// reports pages written, bbolt cursors made and nodes materialised per
// superstep, exact on any machine.
func BenchmarkWriterRound(b *testing.B) {
	for _, group := range []int{8, 32} {
		b.Run(fmt.Sprint("group=", group), func(b *testing.B) { benchWriterRound(b, group) })
	}
}

func benchWriterRound(b *testing.B, group int) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "db"), Options{NoSync: true, Durability: DurabilityExit})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ids := engine.NewTimeIDs(nil)
	type thread struct {
		cfg  engine.Config
		step int
	}
	threads := make([]*thread, group)
	put := func(t *thread) {
		v := engine.Version(t.step + 1)
		if t.cfg.CheckpointID != "" {
			writes := []engine.Write{{Channel: "n", Value: float64(t.step)}, {Channel: "branch:to:count", Value: nil}}
			if err := s.PutWrites(ctx, t.cfg, fmt.Sprint("task-", t.step), writes); err != nil {
				b.Fatal(err)
			}
		}
		cp := &engine.Checkpoint{
			V: 1, ID: ids.NewID(),
			ChannelValues:   map[string]any{"n": float64(t.step), "branch:to:count": nil},
			ChannelVersions: map[string]engine.Version{"n": v, "branch:to:count": v},
			VersionsSeen:    map[string]map[string]engine.Version{"count": {"branch:to:count": v - 1}},
			UpdatedChannels: []string{"n", "branch:to:count"},
		}
		md := engine.Metadata{Source: "loop", Step: t.step, Parents: map[string]string{}}
		next, err := s.Put(ctx, t.cfg, cp, md, map[string]engine.Version{"n": v, "branch:to:count": v})
		if err != nil {
			b.Fatal(err)
		}
		t.cfg = next
		t.step++
	}
	for i := range threads {
		threads[i] = &thread{cfg: engine.Config{ThreadID: fmt.Sprint("t", i)}}
		put(threads[i])
	}
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	pagesBefore, before := pagesWritten(s.db), s.db.Stats().TxStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range threads {
			put(t)
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	supersteps := float64(b.N * group)
	b.ReportMetric(float64(pagesWritten(s.db)-pagesBefore)/supersteps, "pages/superstep")
	// Exact counts of bbolt's work, whatever the machine's load: cursors
	// (each Get, Put, Delete and walk makes one) and nodes (pages
	// materialised to be changed).
	after := s.db.Stats().TxStats
	b.ReportMetric(float64(after.GetCursorCount()-before.GetCursorCount())/supersteps, "cursors/superstep")
	b.ReportMetric(float64(after.GetNodeCount()-before.GetNodeCount())/supersteps, "nodes/superstep")
}
