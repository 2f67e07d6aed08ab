package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/superstep/superstep/persist"
)

// threadQueue holds a thread's writes until they are committed. A thread
// is in at most one group at a time, so its commits reach the server one
// after another, in the order they were made.
type threadQueue struct {
	ops []*op // queued, not yet taken by a group
	// first backs a new queue's first ops and its member of the first
	// group it joins: a superstep's two ops (the task's writes and the
	// checkpoint) and its place in a group need no allocation of their
	// own. Only the first use them: a group takes them and may still be
	// sending them when the thread queues more and joins the next group.
	first struct {
		ops    [2]*op
		member member
		joined bool // member is taken
	}
	last *op    // the newest op queued: committed means all are
	in   *group // the group the thread is in, open or being sent
	// again: ops queued while the thread's group was being sent are
	// wanted committed: it joins the next group when that one ends.
	again bool
}

// op is one Put or PutWrites waiting for its commit.
type op struct {
	ns string
	// A checkpoint (put is set) or a task's writes.
	put    *putOp
	cp     string
	task   string
	writes []taskWrite
	// folded: regular writes stored in the pack of the checkpoint queued
	// after them (packWrites), not as rows of their own.
	folded bool
	// Set under Store.mu: the group that took the op, and once that
	// group's commit ended, committed and its outcome.
	g         *group
	committed bool
	err       error
	// unknown: a wait for the commit that holds the op gave up on the
	// server (see watch) before it ended: what every wait for the op
	// returns until then.
	unknown error
	// size is the bytes the op holds, counted in Store.held under async
	// and exit durability until its commit ends.
	size int
}

// taskWrite is one write of a task's: its slot, channel and encoded value.
type taskWrite struct {
	slot    int64
	channel string
	value   []byte
}

type putOp struct {
	id, parent string
	base       string // the full image its delta chain starts from
	depth      int
	source     string
	step       int
	rec        []byte
	blobs      []blob
	// mayExist: the id might already be stored (a replacement), which
	// needs the children stored as deltas of it rewritten first.
	mayExist bool
	// folded: one of blobs, a pack, holds the task writes queued before
	// it (packWrites).
	folded bool
}

// enqueue adds o to thread's queue; afterEnqueue, commit or flushAll
// commit it.
func (s *Store) enqueue(thread string, o *op) {
	s.mu.Lock()
	s.enqueueLocked(thread, o)
	s.mu.Unlock()
}

// enqueueLocked is enqueue with s.mu held. It also notes a task's regular
// writes at the newest checkpoint this store put in their namespace (see
// head.wrote).
func (s *Store) enqueueLocked(thread string, o *op) {
	if o.put == nil && len(o.writes) > 0 && o.writes[0].slot >= 0 {
		if h := s.heads[nsKey{thread, o.ns}]; h != nil && h.id == o.cp {
			if h.wrote == nil {
				h.wrote = h.one[:0]
			}
			h.wrote = append(h.wrote, o.task)
		}
	}
	q := s.queues[thread]
	if q == nil {
		if n := len(s.spare); n > 0 {
			q, s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			q = &threadQueue{}
		}
		q.ops = q.first.ops[:0]
		s.queues[thread] = q
		s.away = max(s.away-1, 0) // back (or new): no longer away
	}
	if q.ops == nil {
		q.ops = make([]*op, 0, 2)
	}
	q.ops = append(q.ops, o)
	q.last = o
	if s.mode != persist.DurabilitySync {
		o.size = o.bytes()
		s.held += o.size
	}
}

// bytes is what o holds in memory, roughly: its encoded values, record
// and channel names.
func (o *op) bytes() int {
	n := 0
	if p := o.put; p != nil {
		n += len(p.rec)
		for _, b := range p.blobs {
			n += len(b.channel) + len(b.data)
		}
		return n
	}
	for _, w := range o.writes {
		n += len(w.channel) + len(w.value)
	}
	return n
}

// commit commits every op queued for thread so far, and waits for those
// already being committed. It returns the outcome of the newest one, or
// nil when there was nothing to commit. bound is await's: a write's
// caller (Put) waits for them as for its own commit.
func (s *Store) commit(ctx context.Context, thread string, bound bool) error {
	s.mu.Lock()
	var last *op
	if q := s.queues[thread]; q != nil && q.last != nil && !q.last.committed {
		last = q.last
	}
	s.mu.Unlock()
	if last == nil {
		return nil
	}
	return s.await(ctx, thread, last, bound, nil)
}

// sendThread writes a thread's ops in one transaction, after claiming the
// thread with the claim function, and returns the thread's new sequence.
// It is the way of a thread that cannot go in a group's statement (see
// sendGroup): its ops write a task's slot twice, or replace a stored
// checkpoint (the group's statement found it stored), its
// claim was refused or found no row it could create, or the group's
// statement failed.
func (s *Store) sendThread(ctx context.Context, thread string, observed int64, ops []*op) (int64, error) {
	needTx := false
	for _, o := range ops {
		if o.put != nil && o.put.mayExist {
			needTx = true
		}
	}
	var seq int64
	if !needTx {
		// One round trip, run by the server as one implicit transaction.
		b := &pgx.Batch{}
		b.Queue(s.sql.claim, bs(thread), observed, s.writer).QueryRow(func(r pgx.Row) error { return r.Scan(&seq) })
		s.queueOps(b, thread, ops)
		err := reconnectingErr(ctx, s, func() error { return s.pool.SendBatch(ctx, b).Close() })
		return seq, s.writeError(thread, err)
	}
	err := reconnectingErr(ctx, s, func() error { return s.sendThreadTx(ctx, thread, observed, ops, &seq) })
	return seq, s.writeError(thread, err)
}

// sendThreadTx is sendThread's transaction, for a thread whose ops may
// replace a stored checkpoint.
func (s *Store) sendThreadTx(ctx context.Context, thread string, observed int64, ops []*op, seq *int64) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, s.sql.claim, bs(thread), observed, s.writer).Scan(seq); err != nil {
			return err
		}
		for _, o := range ops {
			if o.put != nil && o.put.mayExist {
				if err := s.unfold(ctx, tx, thread, o.ns, o.put.id); err != nil {
					return err
				}
				if err := s.detach(ctx, tx, thread, o.ns, o.put.id); err != nil {
					return err
				}
			}
			b := &pgx.Batch{}
			s.queueOp(b, thread, o)
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
		}
		return nil
	})
}

// queueOp queues o's statement.
func (s *Store) queueOp(b *pgx.Batch, thread string, o *op) {
	if o.folded {
		return // stored by the checkpoint after it
	}
	if o.put != nil {
		s.queuePut(b, thread, nil, o)
		return
	}
	slots, chans, values := writeColumns(o.writes)
	b.Queue(s.sql.insWrites, bs(thread), bs(o.ns), bs(o.cp), bs(o.task), slots, chans, values)
}

// queueOps queues the statements of ops in order. A task's writes followed
// by the checkpoint of the same namespace (a superstep under sync
// durability) go in one statement with it.
func (s *Store) queueOps(b *pgx.Batch, thread string, ops []*op) {
	for i := 0; i < len(ops); i++ {
		o := ops[i]
		if o.folded {
			continue // stored by the checkpoint after it
		}
		if i+1 < len(ops) && o.put == nil && ops[i+1].put != nil && ops[i+1].ns == o.ns {
			s.queuePut(b, thread, o, ops[i+1])
			i++
			continue
		}
		s.queueOp(b, thread, o)
	}
}

// queuePut queues the statement that stores put's checkpoint and blobs,
// and the task writes w (a regular writes op of the same namespace) if
// not nil.
func (s *Store) queuePut(b *pgx.Batch, thread string, w, put *op) {
	p := put.put
	args := make([]any, 0, 2+writesParams+blobParams+checkpointParams)
	args = append(args, bs(thread), bs(put.ns))
	withWrites, withBlobs := 0, 0
	if w != nil {
		withWrites = 1
		slots, chans, values := writeColumns(w.writes)
		args = append(args, bs(w.cp), bs(w.task), slots, chans, values)
	}
	if n := len(p.blobs); n > 0 {
		withBlobs = 1
		chans, vers, hashes, roots := make([][]byte, n), make([]int64, n), make([]int64, n), make([]int64, n)
		baseV, baseH, depths := make([]*int64, n), make([]*int64, n), make([]int32, n)
		has, data := make([]bool, n), make([][]byte, n)
		for i, bl := range p.blobs {
			chans[i], vers[i], hashes[i], roots[i] = bs(bl.channel), bl.ref.Version, bl.ref.Hash, bl.ref.Root
			if bl.depth > 0 { // appends to base
				baseV[i], baseH[i] = &p.blobs[i].base.Version, &p.blobs[i].base.Hash
			}
			depths[i], has[i], data[i] = int32(bl.depth), bl.has, bl.data
		}
		args = append(args, chans, vers, hashes, roots, baseV, baseH, depths, has, data)
	}
	args = append(args, bs(p.id), nullable(p.parent), bs(p.base), p.depth, p.source, p.step, p.rec)
	b.Queue(s.sql.put[withWrites][withBlobs], args...)
}

// writeColumns returns writes as the array parameters of a writes
// statement.
func writeColumns(writes []taskWrite) (slots []int64, chans, values [][]byte) {
	slots, chans, values = make([]int64, len(writes)), make([][]byte, len(writes)), make([][]byte, len(writes))
	for i, w := range writes {
		slots[i], chans[i], values[i] = w.slot, bs(w.channel), w.value
	}
	return slots, chans, values
}

// unfold prepares checkpoint id, if stored, for being replaced: the writes
// its children's packs hold for it (packWrites) are stored as rows, since
// a read looks for them in the packs of versions above the checkpoint's
// highest, which the replacement may change. A slot stored both ways
// takes the pack's value, which reads chose. It reads the checkpoint's
// record (its versions), not its values.
func (s *Store) unfold(ctx context.Context, tx pgx.Tx, thread, ns, id string) error {
	recs, err := s.loadChain(ctx, tx, thread, ns, []string{id})
	if err != nil {
		return err
	}
	if _, ok := recs[id]; !ok {
		return nil // not stored
	}
	st, err := stateOf(id, recs, map[string]*cpState{})
	if err != nil {
		return err
	}
	lo, hi := foldRange(st)
	_, packed, err := s.loadValues(ctx, tx, thread, ns, nil, map[string]span{id: {lo, hi}})
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	var task string
	var ws []taskWrite
	queue := func() {
		if len(ws) > 0 {
			slots, chans, values := writeColumns(ws)
			b.Queue(s.sql.upsertWrites, bs(thread), bs(ns), bs(id), bs(task), slots, chans, values)
		}
		ws = nil
	}
	for _, w := range mergeWrites(nil, packed[id]) { // by task
		if w.task != task {
			queue()
			task = w.task
		}
		ws = append(ws, taskWrite{w.slot, w.channel, w.enc})
	}
	queue()
	if b.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, b).Close()
}

// detach prepares checkpoint id for being replaced: its children stored as
// deltas of it become full images, so they keep what was put for them.
func (s *Store) detach(ctx context.Context, tx pgx.Tx, thread, ns, id string) error {
	rows, err := tx.Query(ctx, s.sql.deltaChildren, bs(thread), bs(ns), bs(id))
	if err != nil {
		return err
	}
	kids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var b []byte
		err := r.Scan(&b)
		return string(b), err
	})
	if err != nil || len(kids) == 0 {
		return err
	}
	recs, err := s.loadChain(ctx, tx, thread, ns, kids)
	if err != nil {
		return err
	}
	memo := map[string]*cpState{}
	for _, kid := range kids {
		st, err := stateOf(kid, recs, memo)
		if err != nil {
			return err
		}
		rec := recs[kid].rec
		enc, _ := encodeNewRecord(rec.V, rec.TS, rec.Updated, rec.Meta, nil, st, nil)
		if _, err := tx.Exec(ctx, s.sql.updateRecord, bs(thread), bs(ns), bs(kid), enc); err != nil {
			return err
		}
	}
	return nil
}

// writeError names the thread and the winner when claim refused a write.
func (s *Store) writeError(thread string, err error) error {
	var pe *pgconn.PgError
	if err == nil || !errors.As(err, &pe) || (pe.Code != conflictCode && pe.Code != deletedCode) {
		return s.lostWrite(err)
	}
	if pe.Code == deletedCode {
		return &ConflictError{Thread: thread, Deleted: true}
	}
	at, _ := time.Parse(time.RFC3339, pe.Hint)
	return &ConflictError{Thread: thread, Holder: pe.Detail, At: at}
}

// afterEnqueue commits per the durability mode: sync waits until ops are
// committed (in a group with whatever else is queued, of this thread and
// others) and returns their outcome; async wakes the background
// committer; exit leaves them for Flush, Close or a read. Past
// Options.MaxBuffered, async and exit wait as sync does (makeRoom).
func (s *Store) afterEnqueue(ctx context.Context, thread string, ops ...*op) error {
	switch s.mode {
	case persist.DurabilitySync:
		for _, o := range ops {
			if o == nil { // none of a kind (queueWrites)
				continue
			}
			if err := s.await(ctx, thread, o, true, nil); err != nil {
				return err
			}
		}
	default:
		s.mu.Lock()
		full := s.held > s.maxBuffered
		s.mu.Unlock()
		if full {
			return s.makeRoom(ctx, thread)
		}
		if s.mode == persist.DurabilityAsync {
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}
	}
	return nil
}

// makeRoom commits every thread's buffered writes, thread's just queued
// among them, once their bytes passed Options.MaxBuffered, and waits for
// those commits as a write under sync durability waits for its own (await
// with bound): on a server that stopped answering, no longer than the
// connect timeout once ctx ended. It returns the outcome of thread's
// writes, or the *CommitUnknownError of the first wait given up on; the
// failure of another thread's writes is that thread's, reported by its
// next write and Flush as a failed background commit is.
func (s *Store) makeRoom(ctx context.Context, thread string) error {
	all := s.wantAll()
	var own error
	for _, p := range all {
		err := s.await(ctx, p.thread, p.last, true, nil)
		switch {
		case err == nil:
		case p.thread == thread:
			own = err
		case errors.Is(err, ErrCommitUnknown):
			return err // the server does not answer: nor would it for thread's
		default:
			s.failThread(p.thread, err)
		}
	}
	return own
}

// pendingCommit is a thread's newest write not committed yet.
type pendingCommit struct {
	thread string
	last   *op
}

// wantAll asks for every thread's queued writes to be committed (want)
// and returns each thread's newest, to wait for.
func (s *Store) wantAll() []pendingCommit {
	var all []pendingCommit
	s.mu.Lock()
	defer s.mu.Unlock()
	for th, q := range s.queues {
		if q.last != nil && !q.last.committed {
			all = append(all, pendingCommit{th, q.last})
			s.want(th, q)
		}
	}
	return all
}

// failThread records that a buffered write of thread failed: the thread's
// next write and Flush report it, until a read of the thread's latest
// checkpoint starts over from what is stored.
func (s *Store) failThread(thread string, err error) {
	s.mu.Lock()
	if s.failed[thread] == nil {
		s.failed[thread] = err
	}
	s.mu.Unlock()
}

// background commits queued writes under async durability.
func (s *Store) background() {
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
			s.flushAll(context.Background(), false, nil)
		}
	}
}

// flushAll commits every thread's queue, as few groups as the size of a
// group allows. It returns persist.ErrAsyncWrite wrapping the first
// failure, of this flush or an earlier buffered one. With w, a started
// watch (Flush, Close), a commit the server leaves unanswered is given
// up on: the first such is returned as it is, a *CommitUnknownError, and
// the thread is not marked failed (the commit may yet be stored). bound
// is await's.
func (s *Store) flushAll(ctx context.Context, bound bool, w *watch) error {
	all := s.wantAll()
	var unknown error
	for _, p := range all {
		if err := s.await(ctx, p.thread, p.last, bound, w); err != nil {
			if ctx.Err() != nil {
				return err // the caller gave up; the writes stay queued
			}
			if errors.Is(err, ErrCommitUnknown) {
				if unknown == nil {
					unknown = err
				}
				continue
			}
			s.failThread(p.thread, err)
		}
	}
	if unknown != nil {
		return unknown
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, err := range s.failed {
		return fmt.Errorf("%w: %w", persist.ErrAsyncWrite, err)
	}
	return nil
}
