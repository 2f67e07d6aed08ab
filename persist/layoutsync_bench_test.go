package persist

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkLayoutSync commits the records of BenchmarkLayoutPages' model
// (one superstep of the counting loop) with real fdatasync, through the
// store's own writer (the group commit of sync durability: a thread's
// superstep returns once its round is on disk, and supersteps that queue
// during a commit share the next one), for 1 and 32 threads of 20
// supersteps at once. It says what a record placement alone can give on
// the disk under the test, before one is built: the 32 ÷ 1 ratio of
// supersteps/s is the goal, and the layouts differ only in where
// the same records go.
//
// The model's CPU a superstep is the bbolt work alone, far below the
// store's and the engine's (BenchmarkThreadsSync's cpu-µs/superstep): the
// engine= variants make each thread spend that much CPU (the difference,
// measured on this machine) outside the transaction before each
// superstep, as the engine and the store's caller-side work do, so the
// two cores are shared as in the real store.
//
// The disk=model variants skip fsync and block the writer as modelDisk
// says instead: the same disk for every run, so that the layouts (and the
// model against BenchmarkThreadsSync's modeldisk variant, the real store
// on the same disk) compare without the noise of a shared disk.
func BenchmarkLayoutSync(b *testing.B) {
	for _, disk := range []string{"fsync", "model"} {
		for _, engineCPU := range []time.Duration{0, 25 * time.Microsecond} {
			for _, threads := range []int{1, 32} {
				for _, l := range []string{"ordered", "clustered", "shared", "log", "segments"} {
					name := fmt.Sprintf("disk=%s/engine=%v/%s/threads=%d", disk, engineCPU, l, threads)
					b.Run(name, func(b *testing.B) { benchLayoutSync(b, l, threads, engineCPU, disk == "model") })
				}
			}
		}
	}
}

// modelDisk returns the model disk's costs: a commit waits commit plus
// page for each page it wrote (its meta page included). By default they
// are this machine's disk when quiet, as bolt22 measured it: two
// fdatasyncs of a 2-page commit take 0.25–0.43 ms, and each page more
// 15–25 µs. SUPERSTEP_MODEL_DISK="<commit>,<page>" (durations, e.g.
// "400us,15us") models another disk.
func modelDisk(tb testing.TB) (commit, page time.Duration) {
	commit, page = 250*time.Microsecond, 20*time.Microsecond
	env := os.Getenv("SUPERSTEP_MODEL_DISK")
	if env == "" {
		return commit, page
	}
	c, p, ok := strings.Cut(env, ",")
	var err1, err2 error
	commit, err1 = time.ParseDuration(c)
	page, err2 = time.ParseDuration(p)
	if !ok || err1 != nil || err2 != nil {
		tb.Fatalf("SUPERSTEP_MODEL_DISK=%q: want two durations, \"<commit>,<page>\"", env)
	}
	return commit, page
}

func benchLayoutSync(b *testing.B, layout string, threads int, engineCPU time.Duration, model bool) {
	const steps = 20
	db := openLayoutDB(b, model)
	w := newWriter(db, DurabilitySync, 0)
	defer w.close()
	w.threadCPU = threadCPUTime
	if model {
		w.fakeSync, w.fakeSyncPage = modelDisk(b)
	}
	var seq atomic.Uint64
	record := make([]byte, 280)
	small := make([]byte, 13)
	commitsBefore, pagesBefore, txBefore, txCPUBefore := w.commits.Load(), pagesWritten(db), w.txTime.Load(), w.txCPU.Load()
	cpuBefore := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		errs := make(chan error, threads)
		for t := range threads {
			wg.Go(func() {
				thread := []byte(fmt.Sprint("t", i, "-", t))
				parent := ""
				for step := range steps + 1 {
					spinCPU(engineCPU)
					id := layoutID(seq.Add(1))
					err := w.submit(opCheckpoint, 0, func(tx *bolt.Tx, _ *cache) error {
						return layoutPut(tx, layout, thread, parent, id, step, record, small)
					})
					if err != nil {
						errs <- err
						return
					}
					parent = id
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpuBefore
	supersteps := float64(b.N * threads * (steps + 1))
	commits := float64(w.commits.Load() - commitsBefore)
	b.ReportMetric(supersteps/b.Elapsed().Seconds(), "supersteps/s")
	b.ReportMetric(commits/supersteps, "commits/superstep")
	b.ReportMetric(float64(pagesWritten(db)-pagesBefore)/commits, "writes/commit")
	b.ReportMetric(float64(time.Duration(w.txTime.Load()-txBefore).Microseconds())/supersteps, "tx-µs/superstep")
	b.ReportMetric(float64(time.Duration(w.txCPU.Load()-txCPUBefore).Microseconds())/supersteps, "tx-cpu-µs/superstep")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/supersteps, "cpu-µs/superstep")
	}
}

// openLayoutDB opens a bbolt file as the store does, with the buckets the
// model layouts write to.
func openLayoutDB(b *testing.B, noSync bool) *bolt.DB {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "layout.db"), 0o600, &bolt.Options{NoSync: noSync, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketThreads, []byte("log"), []byte("heads"), []byte("segs"), []byte("shared")} {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return db
}

// layoutID is the model's n'th checkpoint id: time-ordered, as the
// engine's are.
func layoutID(n uint64) string {
	return fmt.Sprintf("18ece395-%04x-%04x-0000-%012x", n>>16&0xffff, n&0xffff, n)
}

// spinCPU does about d of CPU work on an idle core: a fixed number of
// multiply-adds, calibrated once (the thread CPU clocks getrusage reads
// move in scheduler ticks, too coarse to spin on).
func spinCPU(d time.Duration) {
	if d <= 0 {
		return
	}
	spinCalibrate.Do(func() {
		const n = 1 << 22
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			spin(n)
			best = min(best, time.Since(start))
		}
		spinPerMicro = max(1, int(float64(n)/float64(best.Microseconds())))
	})
	spin(int(d.Microseconds()) * spinPerMicro)
}

func spin(n int) {
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	spinSink.Store(x)
}

var (
	spinCalibrate sync.Once
	spinPerMicro  int
)

var spinSink atomic.Uint64

// BenchmarkLayoutRead measures the read side of the model layouts: a
// thread's history (every checkpoint newest first, with its pending
// writes and values) and its state (the head checkpoint and its values),
// for a thread that ran alone and for one that ran beside 31 others,
// their supersteps committed ten to a round (sync durability's groups),
// threads of 20 and 200 supersteps.
// pages/op counts the distinct leaf (or overflow) pages the reads
// touched, found from where bbolt's mmap holds the keys read: the pages
// a cold read would fetch from the disk.
func BenchmarkLayoutRead(b *testing.B) {
	for _, steps := range []int{20, 200} {
		for _, read := range []string{"history", "state"} {
			for _, threads := range []int{1, 32} {
				for _, l := range []string{"ordered", "clustered", "log", "segments"} {
					b.Run(fmt.Sprintf("steps=%d/%s/%s/threads=%d", steps, read, l, threads), func(b *testing.B) { benchLayoutRead(b, l, threads, steps, read) })
				}
			}
		}
	}
}

func benchLayoutRead(b *testing.B, layout string, threads, steps int, read string) {
	const perCommit = 10
	db := openLayoutDB(b, true)
	record := make([]byte, 280)
	small := make([]byte, 13)
	ids := make([][]string, threads) // each thread's checkpoints, oldest first
	var seq uint64
	for done := 0; done < threads*(steps+1); {
		if err := db.Update(func(tx *bolt.Tx) error {
			for n := 0; n < perCommit && done < threads*(steps+1); n++ {
				t := done % threads
				parent := ""
				if len(ids[t]) > 0 {
					parent = ids[t][len(ids[t])-1]
				}
				seq++
				id := layoutID(seq)
				if err := layoutPut(tx, layout, []byte(fmt.Sprint("t", t)), parent, id, len(ids[t]), record, small); err != nil {
					return err
				}
				ids[t] = append(ids[t], id)
				done++
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	r := &layoutReader{layout: layout, thread: []byte("t0"), ids: ids[0]}
	info := db.Info()
	var pages map[uintptr]struct{}
	r.seen = func(v []byte) {
		if pages != nil && len(v) > 0 {
			pages[(uintptr(unsafe.Pointer(&v[0]))-info.Data)/uintptr(info.PageSize)] = struct{}{}
		}
	}
	pages = map[uintptr]struct{}{}
	if err := db.View(func(tx *bolt.Tx) error { return r.read(tx, read) }); err != nil {
		b.Fatal(err)
	}
	if r.records != steps+1 && read == "history" || r.records != 1 && read == "state" {
		b.Fatalf("read %d checkpoints", r.records)
	}
	touched := len(pages)
	pages = nil
	b.ResetTimer()
	for b.Loop() {
		if err := db.View(func(tx *bolt.Tx) error { return r.read(tx, read) }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(touched), "pages/op")
}

// layoutReader reads one thread of a model layout.
type layoutReader struct {
	layout  string
	thread  []byte
	ids     []string     // the thread's checkpoints, oldest first
	seen    func([]byte) // called with each key and value read
	records int          // checkpoint records the last read found
}

func (r *layoutReader) read(tx *bolt.Tx, what string) error {
	r.records = 0
	n := len(r.ids)
	if what == "state" {
		n = 1
	}
	switch r.layout {
	case "log":
		return r.readLog(tx, n)
	case "clustered":
		return r.readClustered(tx, n)
	case "segments":
		return r.readSegments(tx, n)
	default:
		return r.readOrdered(tx, n)
	}
}

// scan reads every key of bk under prefix.
func (r *layoutReader) scan(bk *bolt.Bucket, prefix []byte) {
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		r.seen(k)
		r.seen(v)
	}
}

// readOrdered: layout 3. Records, writes and child edges share the 'r'
// range, ordered by checkpoint id; a checkpoint's values are looked up by
// (version, channel, seq) in the 'b' range.
func (r *layoutReader) readOrdered(tx *bolt.Tx, n int) error {
	tb := tx.Bucket(bucketThreads).Bucket(r.thread)
	if tb == nil {
		return fmt.Errorf("no thread %s", r.thread)
	}
	c := tb.Cursor()
	r.seen(tb.Get([]byte("\xffupdated")))
	// Newest first: from the end of the 'r' range back.
	k, v := c.Seek([]byte{'s'})
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && k[0] == 'r' && r.records < n; k, v = c.Prev() {
		r.seen(k)
		r.seen(v)
		if len(v) != 280 {
			continue // a pending write or a child edge
		}
		step := len(r.ids) - 1 - r.records
		for ch := range 2 {
			bk := append([]byte{'b'}, appendUint(appendString(appendInt(nil, int64(step+1)), fmt.Sprint("channel", ch)), 0)...)
			val := tb.Get(bk)
			if val == nil {
				return fmt.Errorf("value %q missing", bk)
			}
			r.seen(val)
		}
		r.records++
	}
	return nil
}

// readClustered: a bucket per thread keyed by checkpoint id first, values
// included: the history is the bucket read backwards.
func (r *layoutReader) readClustered(tx *bolt.Tx, n int) error {
	tb := tx.Bucket(bucketThreads).Bucket(r.thread)
	if tb == nil {
		return fmt.Errorf("no thread %s", r.thread)
	}
	c := tb.Cursor()
	k, v := c.Last()
	r.seen(v) // updated
	for k, v = c.Prev(); k != nil && r.records < n; k, v = c.Prev() {
		r.seen(k)
		r.seen(v)
		if len(v) == 280 {
			r.records++
		}
	}
	if n == 1 {
		// The head's values sit just before its record.
		id := r.ids[len(r.ids)-1]
		r.scan(tb, append(appendString(nil, id), 'b'))
	}
	return nil
}

// readLog: one bucket for every thread keyed by checkpoint id, then
// thread: the head comes from the heads bucket, each older checkpoint from
// its child's parent link (here the model's list of ids, as the record
// would name it), each read by a seek of its own.
func (r *layoutReader) readLog(tx *bolt.Tx, n int) error {
	if err := r.readHead(tx); err != nil {
		return err
	}
	lb := tx.Bucket([]byte("log"))
	for i := len(r.ids) - 1; i >= len(r.ids)-n; i-- {
		if !r.readLogged(lb, r.ids[i]) {
			return fmt.Errorf("checkpoint %s missing", r.ids[i])
		}
		r.records++
	}
	return nil
}

// readHead reads the thread's head from the heads bucket (the log
// layouts').
func (r *layoutReader) readHead(tx *bolt.Tx) error {
	head := tx.Bucket([]byte("heads")).Get(r.thread)
	if head == nil {
		return fmt.Errorf("no head for %s", r.thread)
	}
	r.seen(head)
	return nil
}

// readLogged reads checkpoint id's records from bk, keyed as the log
// keys them (checkpoint id, thread, ...), by a seek of their own, and
// reports whether its checkpoint record is there.
func (r *layoutReader) readLogged(bk *bolt.Bucket, id string) (found bool) {
	prefix := appendString(appendString(nil, id), string(r.thread))
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		r.seen(k)
		r.seen(v)
		found = found || len(v) == 280
	}
	return found
}

// readSegments: the newest checkpoints by point lookups in the live
// segment, as readLog reads them, the older ones from the thread's
// bucket, as readClustered reads them.
func (r *layoutReader) readSegments(tx *bolt.Tx, n int) error {
	if err := r.readHead(tx); err != nil {
		return err
	}
	segs := tx.Bucket([]byte("segs"))
	var sb *bolt.Bucket
	if v := segs.Get([]byte("cur")); v != nil {
		sb = segs.Bucket(binary.BigEndian.AppendUint64([]byte("s"), binary.BigEndian.Uint64(v)))
	}
	i := len(r.ids) - 1
	for ; sb != nil && i >= len(r.ids)-n; i-- {
		if !r.readLogged(sb, r.ids[i]) {
			break // compacted: this one and the older ones are in the thread's bucket
		}
		r.records++
	}
	if i < len(r.ids)-n {
		return nil
	}
	tb := tx.Bucket(bucketThreads).Bucket(r.thread)
	if tb == nil {
		return fmt.Errorf("no thread %s", r.thread)
	}
	// Back from just after checkpoint i's records ('\xff' sorts after
	// every kind byte); the values of the oldest one read sort before
	// its record, and are read last.
	c := tb.Cursor()
	k, v := c.Seek(append(appendString(nil, r.ids[i]), 0xff))
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && r.records < n; k, v = c.Prev() {
		if k[0] == 0xff {
			continue
		}
		r.seen(k)
		r.seen(v)
		if len(v) == 280 {
			r.records++
		}
	}
	r.scan(tb, append(appendString(nil, r.ids[len(r.ids)-n]), 'b'))
	return nil
}
