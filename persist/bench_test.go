package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// Benchmarks write to the default temporary directory with real fsyncs:
// run them on the disk you care about (TMPDIR=...).

func benchStore(b *testing.B, opts Options) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkFsyncCommit is the floor for a durable write: one bbolt
// transaction putting one small key, committed with fsync.
func BenchmarkFsyncCommit(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bolt.Options{NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err })
	val := make([]byte, 100)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		err := db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("b")).Put(fmt.Appendf(nil, "%016x", i), val)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFsyncCommitPages is what the disk under the test charges a
// bbolt commit by its size: each commit rewrites one small value in each
// of pages leaves of a bucket of about 200 leaves (plus the branch pages
// above them and the meta page: writes/commit), with fsync and, for the
// difference, without. ms/commit and cpu-µs/commit (the committing
// thread's CPU time, system time included: on a virtual disk fdatasync
// costs CPU too) bound what group commit can give: with n threads at
// most about n/2 supersteps share a commit (a thread whose superstep is
// being committed cannot queue its next one), so supersteps/s at n threads
// stays below about (n/2) ÷ the time of a commit of their pages (see
// BenchmarkThreadsSync's writes/commit), however little CPU the store
// spends.
func BenchmarkFsyncCommitPages(b *testing.B) {
	for _, sync := range []bool{true, false} {
		for _, pages := range []int{1, 8, 16, 32, 64} {
			name := fmt.Sprintf("pages=%d", pages)
			if !sync {
				name = "nosync/" + name
			}
			b.Run(name, func(b *testing.B) { benchFsyncPages(b, pages, sync) })
		}
	}
}

func benchFsyncPages(b *testing.B, pages int, sync bool) {
	const keys, perLeaf = 7200, 36 // 100-byte values: about 36 to a 4 KiB leaf
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bolt.Options{NoSync: !sync, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	val := make([]byte, 100)
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		bk.FillPercent = 1 // appended in order: full leaves
		for i := range keys {
			if err := bk.Put(fmt.Appendf(nil, "%08d", i), val); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	writes0, cpu0 := pagesWritten(db), threadCPUTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		err := db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket([]byte("b"))
			for p := range pages {
				// One key in each of pages leaves, evenly apart.
				k := (p*(keys/pages) + i%perLeaf) % keys
				if err := bk.Put(fmt.Appendf(nil, "%08d", k), val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/commit")
	b.ReportMetric(float64(pagesWritten(db)-writes0)/float64(b.N), "writes/commit")
	if cpu := threadCPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/commit")
	}
}

// stepper makes the checkpoints of a plausible agent thread: ten state
// channels, one message appended per step, two channels changed per step.
type stepper struct {
	cp   *engine.Checkpoint
	msgs []any
}

func newStepper() *stepper {
	cp := &engine.Checkpoint{V: 4, ChannelValues: map[string]any{}, ChannelVersions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}}
	for i := range 10 {
		ch := fmt.Sprintf("state_%d", i)
		cp.ChannelValues[ch] = fmt.Sprintf("value %d", i)
		cp.ChannelVersions[ch] = 1
	}
	return &stepper{cp: cp}
}

func (st *stepper) next(i int) (*engine.Checkpoint, map[string]engine.Version) {
	cp := st.cp.Clone()
	cp.ID = fmt.Sprintf("%032x", i+1)
	cp.TS = time.Unix(0, int64(i))
	v := engine.Version(i + 2)
	st.msgs = append(st.msgs, map[string]any{"role": "ai", "content": fmt.Sprintf("message %d", i)})
	cp.ChannelValues["messages"], cp.ChannelVersions["messages"] = st.msgs, v
	ch := fmt.Sprintf("state_%d", i%10)
	cp.ChannelValues[ch], cp.ChannelVersions[ch] = float64(i), v
	cp.VersionsSeen["agent"] = map[string]engine.Version{"messages": v - 1}
	cp.UpdatedChannels = []string{"messages", ch}
	st.cp = cp
	return cp, map[string]engine.Version{"messages": v, ch: v}
}

func benchPut(b *testing.B, opts Options) {
	s := benchStore(b, opts)
	ctx := context.Background()
	st := newStepper()
	parent := ""
	// Put cost grows with the message list; measure a thread of bounded
	// length (new thread every 200 steps) so ns/op does not depend on b.N.
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%200 == 0 {
			st, parent = newStepper(), ""
		}
		cp, nv := st.next(i)
		thread := fmt.Sprintf("t%d", i/200)
		if _, err := s.Put(ctx, engine.Config{ThreadID: thread, CheckpointID: parent}, cp, engine.Metadata{Source: "loop", Step: i}, nv); err != nil {
			b.Fatal(err)
		}
		parent = cp.ID
	}
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(s.w.commits.Load())/float64(b.N), "commits/op")
}

// BenchmarkPutSync is one checkpoint put per op with durability sync: a
// commit with fsync each, to compare with BenchmarkFsyncCommit.
func BenchmarkPutSync(b *testing.B) { benchPut(b, Options{}) }

// BenchmarkPutAsync queues the same puts for the background writer, which
// commits them in batches.
func BenchmarkPutAsync(b *testing.B) { benchPut(b, Options{Durability: DurabilityAsync}) }

// BenchmarkPutNoSync is the CPU cost of a put: no fsync.
func BenchmarkPutNoSync(b *testing.B) { benchPut(b, Options{NoSync: true}) }

// BenchmarkPutWrites1000Concurrent is one wide superstep per op: 1000 tasks
// finish at once and each saves its writes (durability sync). commits/op
// shows how many fsyncs the step paid.
func BenchmarkPutWrites1000Concurrent(b *testing.B) { benchWide(b, Options{}) }

// BenchmarkPutWrites1000ConcurrentNoSync is its CPU cost alone.
func BenchmarkPutWrites1000ConcurrentNoSync(b *testing.B) { benchWide(b, Options{NoSync: true}) }

func benchWide(b *testing.B, opts Options) {
	s := benchStore(b, opts)
	ctx := context.Background()
	const tasks = 1000
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		cfg := engine.Config{ThreadID: "wide", CheckpointID: fmt.Sprintf("%032x", i)}
		var wg sync.WaitGroup
		for t := range tasks {
			wg.Go(func() {
				err := s.PutWrites(ctx, cfg, fmt.Sprintf("task-%04d", t), []engine.Write{{Channel: "results", Value: []any{float64(t)}}})
				if err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(s.w.commits.Load())/float64(b.N), "commits/op")
}

// BenchmarkBoltBatch1000Concurrent is the same shape with bbolt's own
// DB.Batch (default 10ms MaxBatchDelay), for comparison with the group
// commit above.
func BenchmarkBoltBatch1000Concurrent(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bolt.Options{NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err })
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var wg sync.WaitGroup
		for t := range 1000 {
			wg.Go(func() {
				db.Batch(func(tx *bolt.Tx) error {
					return tx.Bucket([]byte("b")).Put(fmt.Appendf(nil, "%08x-%04d", i, t), []byte(`["x"]`))
				})
			})
		}
		wg.Wait()
	}
}

// BenchmarkGetTupleLatest reads the latest checkpoint of a 1000-step
// thread whose message list is stored as an append chain.
func BenchmarkGetTupleLatest(b *testing.B) {
	s := benchStore(b, Options{NoSync: true})
	ctx := context.Background()
	st := newStepper()
	parent := ""
	for i := range 1000 {
		cp, nv := st.next(i)
		if _, err := s.Put(ctx, engine.Config{ThreadID: "t", CheckpointID: parent}, cp, engine.Metadata{Source: "loop", Step: i}, nv); err != nil {
			b.Fatal(err)
		}
		parent = cp.ID
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.GetTuple(ctx, engine.Config{ThreadID: "t"}); err != nil {
			b.Fatal(err)
		}
	}
}
