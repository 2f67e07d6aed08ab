package postgres

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// Put implements engine.Saver. It stores the checkpoint's record (its
// versions and versions_seen as a delta from its parent) and the values of
// the channels whose version changed, a grown list as its added elements.
// cp must not be modified afterwards (the engine never does).
//
// Many writers: every commit claims the thread's row. When another store
// wrote the thread after this one last read or wrote it, the write is
// refused with a *ConflictError (ErrThreadConflict) naming the thread and
// the other writer, so two processes that advance one thread at once do not
// both succeed. A store that never read a thread writes it unchecked.
//
// Errors: persist.ErrInvalidID, persist.ErrInvalidCheckpoint,
// ErrThreadConflict, persist.ErrClosed, persist.ErrAsyncWrite, or the
// server's error.
func (s *Store) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, _ map[string]engine.Version) (engine.Config, error) {
	if err := s.writable(ctx, cfg.ThreadID); err != nil {
		return engine.Config{}, err
	}
	cp, err := checkPut(cfg, cp, md)
	if err != nil {
		return engine.Config{}, err
	}
	// Metadata without Extra, nearly all, is written straight into the
	// record (buildPut); only Extra's values can fail to encode.
	var meta []byte
	if md.Extra != nil {
		var err error
		if meta, err = encodeMeta(md); err != nil {
			return engine.Config{}, fmt.Errorf("%w: %w", persist.ErrInvalidCheckpoint, err)
		}
	}
	key := nsKey{cfg.ThreadID, cfg.CheckpointNS}
	parent, err := s.parentHead(ctx, key, cfg.CheckpointID, cp.ID)
	if err != nil {
		return engine.Config{}, s.lost(err)
	}
	// The task writes queued last, at the parent (the superstep's last
	// task's, deferred to this commit), may go in this checkpoint's pack.
	s.mu.Lock()
	w := s.foldable(key, parent, cp.ID)
	s.mu.Unlock()
	var fold *packWrites
	if w != nil {
		lo, hi := foldRange(parent.state)
		fold = &packWrites{checkpoint: w.cp, task: w.task, writes: w.writes, lo: lo, hi: hi}
	}
	o, h, err := buildPut(cfg.CheckpointNS, cp, meta, md, cfg.CheckpointID, parent, fold)
	if err != nil {
		return engine.Config{}, err
	}
	s.mu.Lock()
	if o.put.folded && w.g != nil {
		// A commit (a Flush) took the writes meanwhile: they are
		// stored as rows, and this checkpoint without them.
		s.mu.Unlock()
		if o, h, err = buildPut(cfg.CheckpointNS, cp, meta, md, cfg.CheckpointID, parent, nil); err != nil {
			return engine.Config{}, err
		}
		s.mu.Lock()
	}
	if o.put.folded {
		w.folded = true
	}
	s.setHeadLocked(key, parent, h, cp.ID, o)
	// In the same hold of s.mu as the check above: the folded writes
	// and the checkpoint go in one commit.
	s.enqueueLocked(cfg.ThreadID, o)
	s.mu.Unlock()
	if err := s.afterEnqueue(ctx, cfg.ThreadID, o); err != nil {
		return engine.Config{}, err
	}
	return engine.Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cp.ID}, nil
}

// checkPut refuses a Put of cp, with metadata md, at cfg that the store
// could not keep as it is (persist.CheckCheckpoint), and returns cp
// materialized.
func checkPut(cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata) (*engine.Checkpoint, error) {
	if cp != nil {
		cp = cp.Materialize()
	}
	if err := persist.CheckCheckpoint(cfg, cp, md); err != nil {
		return nil, err
	}
	return cp, nil
}

// setHeadLocked makes h, the state of checkpoint id put by o as a child
// of parent, the cached head of key's namespace, and says in o whether the
// checkpoint may replace a stored one. s.mu is held.
func (s *Store) setHeadLocked(key nsKey, parent, h *head, id string, o *op) {
	// Ids are time-ordered: one after every id of the namespace is new;
	// otherwise it may replace a stored checkpoint.
	known := ""
	for _, k := range []*head{s.heads[key], parent} {
		if k != nil && k.maxID > known {
			known = k.maxID
		}
	}
	o.put.mayExist = known == "" || id <= known
	h.maxID = max(known, id)
	h.own = !o.put.mayExist
	// Cached heads stay valid when a checkpoint is replaced: a replacement
	// rewrites stored deltas, not the states they describe.
	if _, ok := s.heads[key]; !ok && len(s.heads) >= maxHeads {
		// A head holds its values' encodings: keep a bounded number. A
		// namespace whose head was dropped reads its parent back once.
		for k := range s.heads {
			delete(s.heads, k)
			break
		}
	}
	s.heads[key] = h
}

// foldable returns the task writes that checkpoint child, whose parent is
// the head parent of key's namespace, may hold in its pack (packWrites),
// or nil. They must be a task's regular writes at the parent queued last
// on the thread and not yet taken by a commit, so that they go in the
// checkpoint's commit; and they must be the first writes of that task at
// the parent ever stored, so that the copy in the pack is the first
// stored, which is what a read finding a slot stored twice relies on
// (see mergeWrites): the parent is this store's newest head, which it
// stored new (head.own), and the store queued no other writes of the task
// at it. Another store's writes at the parent would have advanced the
// thread since this one last wrote it, and the commit is refused
// (ErrThreadConflict). child must sort after the parent (ids are
// time-ordered; one that does not goes without), so a namespace's newest
// checkpoint never has writes in a pack (Threads counts the rows). Like a
// value, writes of more than packMax bytes in all are not packed. s.mu is
// held.
func (s *Store) foldable(key nsKey, parent *head, child string) *op {
	if parent == nil || s.heads[key] != parent || !parent.own || child <= parent.id {
		return nil
	}
	q := s.queues[key.thread]
	if q == nil || len(q.ops) == 0 {
		return nil
	}
	w := q.ops[len(q.ops)-1]
	if w.put != nil || w.folded || w.g != nil || w.ns != key.ns || w.cp != parent.id ||
		len(w.writes) == 0 || w.writes[0].slot < 0 {
		return nil
	}
	size := 0
	for _, x := range w.writes {
		size += len(x.channel) + len(x.value)
	}
	if size > packMax {
		return nil // see packMax
	}
	n := 0
	for _, t := range parent.wrote {
		if t == w.task {
			n++
		}
	}
	if n != 1 {
		return nil
	}
	return w
}

// maxHeads bounds the namespaces whose newest checkpoint the store keeps
// in memory.
const maxHeads = 1024

// parentHead returns what is known of checkpoint id of a namespace, the
// parent of checkpoint child: from the cache when it is the newest this
// store put, else read back. It returns nil for no parent or a parent that
// is not stored.
//
// It waits for the thread's commits in flight as Put waits for its own,
// and reads as whileAnswered says: an engine.DurabilityExit run saves its one
// checkpoint once it ended, cancelled too, with a context that does not
// end (engine.RunContext), and on a server that stopped answering with
// its connections open that read waited for ever after the run was
// cancelled.
func (s *Store) parentHead(ctx context.Context, key nsKey, id, child string) (*head, error) {
	if id == "" {
		return nil, nil
	}
	s.mu.Lock()
	h := s.heads[key]
	s.mu.Unlock()
	if h != nil && h.id == id {
		return h, nil
	}
	if err := s.commit(ctx, key.thread, true); err != nil {
		return nil, err
	}
	what := func() string {
		return fmt.Sprintf("reading checkpoint %s of thread %q%s, the parent of checkpoint %s, which was not saved", id, key.thread, nsNote(key.ns), child)
	}
	loaded, err := whileAnswered(ctx, s, what, func(ctx context.Context) (*head, error) {
		return reconnecting(ctx, s, func() (*head, error) { return s.loadHead(ctx, key.thread, key.ns, id) })
	})
	if err != nil || loaded == nil {
		return nil, err
	}
	if h != nil && h.maxID > loaded.maxID {
		loaded.maxID = h.maxID
	}
	return loaded, nil
}

// buildPut encodes a checkpoint of namespace ns against its parent's head:
// its op (the record, and a blob for every channel whose version changed)
// and its head.
//
// meta is md's encoding, or nil when md has no Extra (then md is written
// into the record as it is).
//
// With fold, the pack of one of the checkpoint's versions in fold's
// range holds fold's writes, if any of its small values has such a
// version (putOp.folded says whether).
func buildPut(ns string, cp *engine.Checkpoint, meta []byte, md engine.Metadata, parentID string, parent *head, fold *packWrites) (*op, *head, error) {
	// A superstep's objects that live as long as each other are allocated
	// together: the op with its putOp, the head with its state.
	x := &struct {
		o   op
		p   putOp
		one [1]blob // p.blobs when there is one (a superstep's values packed)
	}{p: putOp{id: cp.ID, parent: parentID, source: md.Source, step: md.Step}}
	y := &struct {
		h  head
		st cpState
	}{}
	n := len(cp.ChannelVersions)
	p, st, h := &x.p, &y.st, &y.h
	*st = cpState{refs: make([]chanRef, 0, n), seen: cp.VersionsSeen}
	*h = head{id: cp.ID, state: st, values: make([]valueEnc, 0, n)}
	var pst *cpState
	if parent != nil {
		pst = parent.state
	}
	var buf [16]string // a graph has a few channels: no allocation
	chans := buf[:0]
	// The blobs are built here and packed (packBlobs), then kept in x
	// when one is left, as a superstep's small values make one pack.
	var blobBuf [4]blob
	blobs := blobBuf[:0]
	for ch := range cp.ChannelVersions {
		chans = append(chans, ch)
	}
	slices.Sort(chans) // the state's order
	for _, ch := range chans {
		ver := cp.ChannelVersions[ch]
		var prevRef *ref
		var prev *valueEnc
		if pst != nil {
			if i, ok := pst.find(ch); ok {
				r, v := pst.refs[i].ref, parent.values[i]
				if r.Version == ver {
					// Unchanged since the parent: share its value.
					st.refs = append(st.refs, chanRef{ch, r})
					h.values = append(h.values, v)
					continue
				}
				prevRef, prev = &r, &v
			}
		}
		val, has := cp.ChannelValues[ch]
		var tail []any
		if prevRef != nil {
			tail, _ = cp.AppendedTail(ch, prevRef.Version)
		}
		b, enc, err := newBlob(ch, ver, val, has, tail, prevRef, prev)
		if err != nil {
			return nil, nil, err
		}
		st.refs = append(st.refs, chanRef{ch, b.ref})
		h.values = append(h.values, enc)
		blobs = append(blobs, b)
	}
	blobs, p.folded = packBlobs(blobs, st, fold)
	switch len(blobs) {
	case 0:
	case 1:
		x.one[0] = blobs[0]
		p.blobs = x.one[:]
	default:
		p.blobs = slices.Clone(blobs)
	}
	if st.seen == nil {
		st.seen = map[string]map[string]int64{}
	}
	var plain *engine.Metadata
	if meta == nil {
		plain = &md
	}
	p.rec, st.depth = encodeNewRecord(cp.V, cp.TS.UnixNano(), cp.UpdatedChannels, meta, plain, st, pst)
	p.depth = st.depth
	st.base = cp.ID
	if st.depth > 0 {
		st.base = pst.base
	}
	p.base = st.base
	x.o = op{ns: ns, put: p}
	return &x.o, h, nil
}

// PutWrites implements engine.Saver. Values are encoded before it returns.
// Under sync durability it returns once the writes are committed, in one
// commit with whatever else was queued meanwhile (the task's siblings
// finishing at once, other threads' supersteps: see group commit in the
// package doc), so a task's result is stored before the engine reports
// it, as with the bbolt store. Errors: persist.ErrInvalidID,
// persist.ErrInvalidCheckpoint, persist.ErrClosed, persist.ErrAsyncWrite
// (an earlier buffered write of the thread failed, such as an
// ErrThreadConflict), ErrThreadConflict.
func (s *Store) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	queued, err := s.queueWrites(ctx, cfg, taskID, writes)
	if err != nil {
		return err
	}
	return s.afterEnqueue(ctx, cfg.ThreadID, queued[:]...)
}

// DeferWrites implements engine.WriteDeferrer: under sync durability the
// writes wait in the thread's queue for the checkpoint Put the engine
// makes next, which sends them in its own transaction (one commit for
// both); wait returns their outcome, committing them itself if no Put
// did. Other durabilities queue them as PutWrites does.
func (s *Store) DeferWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) (wait func() error, err error) {
	queued, err := s.queueWrites(ctx, cfg, taskID, writes)
	if err != nil {
		return nil, err
	}
	if s.mode != persist.DurabilitySync {
		return func() error { return nil }, s.afterEnqueue(ctx, cfg.ThreadID, queued[0], queued[1])
	}
	return func() error { return s.afterEnqueue(ctx, cfg.ThreadID, queued[0], queued[1]) }, nil
}

// queueWrites checks and encodes a task's writes and queues them on the
// thread, returning the ops queued in their order (special writes, then
// regular ones), nil for a kind it has none of: an array, not a slice, so
// the caller's wait needs no allocation of its own.
func (s *Store) queueWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) (queued [2]*op, err error) {
	if err := s.writable(ctx, cfg.ThreadID); err != nil {
		return queued, err
	}
	if err := persist.CheckWrites(cfg, taskID, writes); err != nil {
		return queued, err
	}
	switch len(writes) {
	case 0:
		return queued, nil
	case 1:
		return s.queueWrite(cfg, taskID, writes[0])
	}
	// ops[0] holds the special writes, ops[1] the regular ones; only
	// those used are queued (and leave the stack).
	ops := [2]op{
		{ns: cfg.CheckpointNS, cp: cfg.CheckpointID, task: taskID},
		{ns: cfg.CheckpointNS, cp: cfg.CheckpointID, task: taskID},
	}
	special, regular := &ops[0], &ops[1]
	for i, w := range writes {
		enc, err := engine.EncodeValue(w.Value)
		if err != nil {
			return queued, fmt.Errorf("%w: write to %q: %w", persist.ErrInvalidCheckpoint, w.Channel, err)
		}
		o := regular
		slot := int64(engine.WriteSlot(w.Channel, i))
		if slot < 0 {
			o = special
		}
		if o.writes == nil {
			o.writes = make([]taskWrite, 0, len(writes)-i) // one allocation
		}
		o.writes = append(o.writes, taskWrite{slot, w.Channel, enc})
	}
	for i := range ops {
		if len(ops[i].writes) > 0 {
			o := new(op)
			*o = ops[i]
			s.enqueue(cfg.ThreadID, o)
			queued[i] = o
		}
	}
	return queued, nil
}

// queueWrite is queueWrites for a task's one write (a node's usual
// result), checked by it: the op and its write are one allocation.
func (s *Store) queueWrite(cfg engine.Config, taskID string, w engine.Write) (queued [2]*op, err error) {
	enc, err := engine.EncodeValue(w.Value)
	if err != nil {
		return queued, fmt.Errorf("%w: write to %q: %w", persist.ErrInvalidCheckpoint, w.Channel, err)
	}
	x := &struct {
		o op
		w [1]taskWrite
	}{o: op{ns: cfg.CheckpointNS, cp: cfg.CheckpointID, task: taskID}}
	slot, kind := int64(engine.WriteSlot(w.Channel, 0)), 1
	if slot < 0 {
		kind = 0 // special
	}
	x.w[0] = taskWrite{slot, w.Channel, enc}
	x.o.writes = x.w[:]
	s.enqueue(cfg.ThreadID, &x.o)
	queued[kind] = &x.o
	return queued, nil
}

// DeleteThread implements engine.Saver: it removes every checkpoint, value
// and write of the thread, and its fingerprint, in one transaction.
// Deleting a missing thread is not an error.
func (s *Store) DeleteThread(ctx context.Context, threadID string) error {
	if err := s.writable(ctx, threadID); err != nil {
		return err
	}
	if threadID == "" {
		return nil
	}
	if err := s.commit(ctx, threadID, false); err != nil {
		return err
	}
	if err := reconnectingErr(ctx, s, func() error { return s.deleteThread(ctx, s.pool, threadID) }); err != nil {
		return s.lostWrite(err)
	}
	s.forget(threadID)
	return nil
}

// forget drops what the store knows of a thread.
func (s *Store) forget(thread string) {
	s.mu.Lock()
	maps.DeleteFunc(s.heads, func(k nsKey, _ *head) bool { return k.thread == thread })
	delete(s.observed, thread)
	delete(s.failed, thread)
	s.mu.Unlock()
}

// batcher is a pool or a transaction.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// deleteThread removes every row of a thread.
func (s *Store) deleteThread(ctx context.Context, db batcher, thread string) error {
	b := &pgx.Batch{}
	for _, stmt := range s.sql.deleteThread {
		b.Queue(stmt, bs(thread))
	}
	return db.SendBatch(ctx, b).Close()
}
