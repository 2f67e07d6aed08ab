package persist

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// writer serialises every write of a Store and commits them in groups.
//
// All writes go through one queue and are committed in queue order, one
// bbolt transaction per round. Whoever finds no commit in progress leads:
// it commits everything queued; if more queued up meanwhile, it hands the
// lead to one of the goroutines waiting for those writes, which commits
// them all in the next round and hands on in turn, until the queue is
// empty (so no caller leads longer than it takes to commit its own
// write). A lone write commits at once (no batching delay, unlike bbolt's
// DB.Batch), while writes that arrive during a commit (a wide superstep's
// tasks finishing together, other threads' supersteps) share the next
// one: a 1000-task step pays a handful of fsyncs, not 1000.
//
// With DurabilitySync callers wait for their round: a write is on disk when
// its call returns, and writes that queue while a round commits share the
// next one. With DurabilityAsync a
// background goroutine leads as soon as something is queued and callers do
// not wait. With DurabilityExit nothing is committed until flush.
type writer struct {
	db   *bolt.DB
	mode Durability

	mu sync.Mutex
	// progress is broadcast after each round and when a leader stops.
	progress sync.Cond
	queue    []*op
	// queued counts the ops ever queued, settled those committed or failed
	// so far (rounds settle in queue order). flush waits for settled to
	// reach the queued count it saw, not for the writer to fall idle,
	// which it may never do while other threads keep writing.
	queued, settled uint64
	busy            bool   // a goroutine is leading
	err             error  // first failure of an op nobody waited for
	lost            [3]int // ops nobody waited for that failed, by kind
	closed          bool

	commits atomic.Int64 // transactions committed, for benchmarks
	// txTime is how long write transactions ran, commit and fsync (or
	// fakeSync) included, for benchmarks: bbolt runs one at a time, so its
	// share of the wall time says whether the single writer is what
	// bounds the throughput of many threads.
	txTime atomic.Int64
	// fnTime is the part of txTime spent in the ops and the round's
	// flush, before bbolt's commit (spill, page writes, fsync); threadCPU,
	// when set (benchmarks), reads the calling OS thread's CPU time, and
	// txCPU sums it over the transactions.
	fnTime, txCPU atomic.Int64
	threadCPU     func() time.Duration

	// maxBytes bounds held, the bytes of the writes queued or being
	// committed (their encoded values, see op.size): past it a write waits
	// for a commit as under sync durability, so a producer faster than the
	// disk cannot grow the memory buffered writes take without limit.
	// peak is the highest held seen, for tests.
	maxBytes, held, peak int

	// onCommit receives a committed round's cache overlay.
	onCommit func(rc *cache)
	// now is the clock of the threads' "updated" times (see round).
	now func() time.Time
	// fakeSync, for benchmarks on a store opened with NoSync, is how long
	// a commit waits after it is written, as if for an fsync of a disk
	// faster or steadier than the one under the test; fakeSyncPage is
	// added for each page the commit wrote (a disk's flush takes longer
	// the more pages it carries). The writer's thread blocks in the
	// kernel meanwhile, as in fdatasync.
	fakeSync, fakeSyncPage time.Duration

	wake chan struct{} // async: something was queued
	stop chan struct{} // async: the background leader must exit
	done chan struct{} // async: the background leader exited
}

// op is one logical write. fn runs inside a write transaction and may run
// more than once (when another op of its round fails, the round is rolled
// back and retried without it), so it must have no effect outside tx.
type op struct {
	fn   txFunc
	kind opKind
	size int        // bytes fn keeps alive until it is committed
	done chan error // nil when nobody waits for the result
	// waiting: a goroutine is blocked in wait for done, and can take the
	// lead (leadRounds).
	waiting bool
}

// opKind says what an op saves, so that a failure can say what was lost.
type opKind uint8

const (
	opOther      opKind = iota
	opCheckpoint        // Put
	opWrites            // PutWrites
)

// txFunc is a write. rc is its round's cache overlay: what it learns for
// later writes (Put's rebuilt versions and encodings) goes there, and
// reaches the store's cache only if the round commits.
type txFunc func(tx *bolt.Tx, rc *cache) error

// maxRound caps the ops committed in one transaction, so one round's dirty
// pages stay bounded.
const maxRound = 4096

// maxQueued bounds the number of ops buffered by async and exit
// durability, as maxBytes bounds their bytes: past either a writer waits
// for a commit as with sync.
const maxQueued = 4 * maxRound

// DefaultMaxBuffered is the default of Options.MaxBuffered.
const DefaultMaxBuffered = 64 << 20

func newWriter(db *bolt.DB, mode Durability, maxBytes int) *writer {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBuffered
	}
	w := &writer{db: db, mode: mode, maxBytes: maxBytes, now: time.Now}
	w.progress.L = &w.mu
	if mode == DurabilityAsync {
		w.startBackground()
	}
	return w
}

// startBackground starts async's leader. It is called with w.mu held (or
// before w is shared); the leader gets its channels as arguments, so a
// later setMode may replace the fields.
func (w *writer) startBackground() {
	w.wake = make(chan struct{}, 1)
	w.stop = make(chan struct{})
	w.done = make(chan struct{})
	go w.background(w.wake, w.stop, w.done)
}

// setMode changes when later writes are committed (Store.SetDurability).
// What is queued when it is called is committed first, and what was
// queued while the mode changed right after, so no write waits longer than
// the mode it was queued under promised.
func (w *writer) setMode(mode Durability) error {
	err := w.flush()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	old := w.mode
	w.mode = mode
	var stop, done chan struct{}
	if old == DurabilityAsync && mode != DurabilityAsync {
		stop, done = w.stop, w.done
		w.wake, w.stop, w.done = nil, nil, nil
	}
	if mode == DurabilityAsync && old != DurabilityAsync {
		w.startBackground()
	}
	w.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	if ferr := w.flush(); err == nil {
		err = ferr
	}
	return err
}

// durability is the mode writes are committed under now.
func (w *writer) durability() Durability {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode
}

// lockOpen takes w.mu for a new write, or refuses it (and leaves w.mu
// unlocked) when the writer is closed or an unwaited write failed.
func (w *writer) lockOpen() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if w.err != nil {
		err := w.lostError()
		w.mu.Unlock()
		return err
	}
	return nil
}

// lostError describes the unwaited writes that failed. It is called with
// w.mu held and w.err set.
func (w *writer) lostError() error {
	return &LostWritesError{Checkpoints: w.lost[opCheckpoint], Writes: w.lost[opWrites], Other: w.lost[opOther], Err: w.err}
}

// submit queues fn, which keeps size bytes alive until it is committed.
// With DurabilitySync it returns fn's result once its round is committed
// (and synced); otherwise it returns at once, unless the buffered writes
// are at their bound (then it waits as under sync), and a failure
// surfaces later from submit, flush or close as ErrAsyncWrite.
func (w *writer) submit(kind opKind, size int, fn txFunc) error {
	if err := w.lockOpen(); err != nil {
		return err
	}
	switch {
	case w.mode == DurabilitySync || w.full(size):
		return w.wait(fn, size)
	case w.mode == DurabilityAsync:
		w.enqueue(&op{fn: fn, kind: kind, size: size})
		wake := w.wake // setMode may replace it once w.mu is released
		w.mu.Unlock()
		select {
		case wake <- struct{}{}:
		default: // already woken; the leader drains the whole queue
		}
		return nil
	default: // DurabilityExit
		w.enqueue(&op{fn: fn, kind: kind, size: size})
		w.mu.Unlock()
		return nil
	}
}

// submitDeferred queues fn like submit, except that under DurabilitySync
// it does not start a commit: the next op that waits (the checkpoint Put
// that follows at once) commits it in its own round, so the two share one
// fsync. wait returns fn's result; if no commit has taken fn yet, it
// commits the queue itself, so fn is never left behind. Under the other
// durabilities it is submit, and wait returns nil.
func (w *writer) submitDeferred(kind opKind, size int, fn txFunc) (wait func() error, err error) {
	if err := w.lockOpen(); err != nil {
		return nil, err
	}
	if w.mode != DurabilitySync || w.full(size) {
		w.mu.Unlock()
		return func() error { return nil }, w.submit(kind, size, fn)
	}
	o := &op{fn: fn, kind: kind, size: size, done: make(chan error, 1)}
	w.enqueue(o)
	w.mu.Unlock()
	return func() error {
		select {
		case err := <-o.done:
			return err
		default:
		}
		w.mu.Lock()
		w.lead() // commits o unless a leader already holds it
		return <-o.done
	}, nil
}

// submitWait queues fn and waits for its result whatever the durability,
// for operations whose caller must know the outcome (Import). Buffered
// writes queued before it are committed with it.
func (w *writer) submitWait(fn txFunc) error {
	if err := w.lockOpen(); err != nil {
		return err
	}
	return w.wait(fn, 0)
}

// full reports whether a write of size bytes must wait for a commit rather
// than be buffered: the queue is at its bound in ops or in bytes. A write
// larger than the bound alone is buffered only when nothing else is. It
// is called with w.mu held.
func (w *writer) full(size int) bool {
	return len(w.queue) >= maxQueued || (w.held > 0 && w.held+size > w.maxBytes)
}

// wait queues fn, leads if nobody does, and returns fn's result. It is
// called with w.mu held.
//
// A leader hands the lead on after each round (see leadRounds): then
// this goroutine, blocked here with its op still queued, leads the next
// round, which commits its op too, and hands on in turn.
func (w *writer) wait(fn txFunc, size int) error {
	o := &op{fn: fn, size: size, done: make(chan error, 1), waiting: true}
	w.enqueue(o)
	w.lead()
	for {
		err := <-o.done
		if err != errLeadNext {
			return err
		}
		w.mu.Lock()
		w.leadRounds()
	}
}

// enqueue appends o to the queue. It is called with w.mu held.
func (w *writer) enqueue(o *op) {
	w.queue = append(w.queue, o)
	w.queued++
	w.held += o.size
	w.peak = max(w.peak, w.held)
}

// lead commits rounds until the queue is empty, unless another goroutine
// already leads. It is called with w.mu held and returns with it released.
func (w *writer) lead() {
	if w.busy {
		w.mu.Unlock()
		return
	}
	w.busy = true
	// Let writers that are already running (a superstep's other tasks,
	// finishing together) queue up before the first round: without this
	// the first one commits alone and a wide step pays an extra fsync.
	// A lone writer loses well under a microsecond.
	w.mu.Unlock()
	runtime.Gosched()
	w.mu.Lock()
	w.leadRounds()
}

// leadRounds commits rounds while something is queued. It is called by
// the leader (w.busy set) with w.mu held and returns with it released.
//
// After a round it hands the lead to a goroutine whose op is queued and
// that is blocked waiting for it (wait), rather than leading on: the
// leader's own write is committed, and a goroutine that led for as long
// as others kept writing (a busy store under sync durability) would
// keep its own thread from its next superstep all that time. With 32
// threads that left one thread behind, to finish alone at the end, one
// fsync per superstep. The hand-off keeps w.busy set, so nobody else
// starts leading meanwhile.
func (w *writer) leadRounds() {
	for len(w.queue) > 0 {
		n := min(len(w.queue), maxRound)
		round := slices.Clone(w.queue[:n])
		w.queue = slices.Delete(w.queue, 0, n)
		size := 0
		for _, o := range round {
			size += o.size
		}
		w.mu.Unlock()
		w.commit(round)
		w.mu.Lock()
		w.held -= size
		w.settled += uint64(n) // commit drops failed ops from round
		w.progress.Broadcast()
		if next := w.nextLeader(); next != nil {
			next.done <- errLeadNext
			w.mu.Unlock()
			return
		}
	}
	w.busy = false
	w.progress.Broadcast()
	w.mu.Unlock()
}

// nextLeader returns the first queued op whose goroutine is blocked in
// wait, or nil. It is called with w.mu held.
func (w *writer) nextLeader() *op {
	for _, o := range w.queue {
		if o.waiting {
			return o
		}
	}
	return nil
}

// commit runs a round in one transaction. An op that fails is reported
// alone and the round is retried without it: the transaction was rolled
// back, and the other ops must not share its fate.
func (w *writer) commit(round []*op) {
	for len(round) > 0 {
		failed := -1
		var opErr error
		rc := newCache()
		var cpu0 time.Duration
		if w.threadCPU != nil {
			runtime.LockOSThread()
			cpu0 = w.threadCPU()
		}
		var pages0 int64
		if w.fakeSyncPage > 0 {
			pages0 = pagesWritten(w.db)
		}
		start := time.Now()
		err := w.db.Update(func(tx *bolt.Tx) error {
			r := beginRound(tx, w.now)
			defer r.end(tx)
			defer func() { w.fnTime.Add(int64(time.Since(start))) }()
			for i, o := range round {
				if err := safeCall(o.fn, tx, rc); err != nil {
					failed, opErr = i, err
					return err
				}
			}
			return safeCall(func(tx *bolt.Tx, _ *cache) error { return r.flush(tx) }, tx, rc)
		})
		if failed >= 0 {
			w.finish(round[failed], opErr)
			round = slices.Delete(round, failed, failed+1)
			continue
		}
		if err == nil && (w.fakeSync > 0 || w.fakeSyncPage > 0) {
			d := w.fakeSync
			if w.fakeSyncPage > 0 {
				d += time.Duration(pagesWritten(w.db)-pages0) * w.fakeSyncPage
			}
			blockThread(d)
		}
		w.txTime.Add(int64(time.Since(start)))
		if w.threadCPU != nil {
			w.txCPU.Add(int64(w.threadCPU() - cpu0))
			runtime.UnlockOSThread()
		}
		if err == nil {
			w.commits.Add(1)
			if w.onCommit != nil {
				w.onCommit(rc)
			}
		}
		for _, o := range round {
			w.finish(o, err)
		}
		return
	}
}

func (w *writer) finish(o *op, err error) {
	if o.done != nil {
		o.done <- err
		return
	}
	if err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.lost[o.kind]++
		w.mu.Unlock()
	}
}

// pagesWritten is the number of writes (one a page, plus a meta page per
// commit) db's committed transactions made.
func pagesWritten(db *bolt.DB) int64 {
	st := db.Stats()
	return st.TxStats.GetWrite()
}

// safeCall runs fn, turning a panic into an error so one bad op cannot take
// down the goroutine that happens to lead.
func safeCall(fn txFunc, tx *bolt.Tx, rc *cache) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("persist: write panicked: %v", r)
		}
	}()
	return fn(tx, rc)
}

// flush commits everything queued so far and waits for it, not for writes
// queued after it (a read must not wait for other threads' later writes).
// It returns the first failure of an unwaited write, if any.
func (w *writer) flush() error {
	w.mu.Lock()
	target := w.queued
	for {
		if w.settled >= target {
			var err error
			if w.err != nil {
				err = w.lostError()
			}
			w.mu.Unlock()
			return err
		}
		if !w.busy {
			w.lead()
			w.mu.Lock()
			continue
		}
		w.progress.Wait()
	}
}

// paused runs fn while no round commits: it waits for the leader to stop,
// then leads itself without committing, so writes submitted meanwhile
// queue up (sync writers wait) and are committed after fn returns. fn sees
// the file exactly as the last commit left it.
func (w *writer) paused(fn func() error) error {
	w.mu.Lock()
	for w.busy {
		w.progress.Wait()
	}
	w.busy = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.busy = false
		if len(w.queue) > 0 && !w.closed {
			w.lead() // releases w.mu
			return
		}
		w.progress.Broadcast()
		w.mu.Unlock()
	}()
	return fn()
}

// close flushes, stops the background leader and refuses further writes.
func (w *writer) close() error {
	err := w.flush()
	w.mu.Lock()
	already := w.closed
	w.closed = true
	stop, done := w.stop, w.done
	w.mu.Unlock()
	if stop != nil && !already {
		close(stop)
		<-done
	}
	return err
}

func (w *writer) background(wake, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-wake:
			w.mu.Lock()
			w.lead()
		case <-stop:
			return
		}
	}
}
