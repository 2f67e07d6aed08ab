package persist

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// ThreadInfo summarises one thread for a thread picker.
type ThreadInfo struct {
	ID string // the thread's id
	// Checkpoints counts the checkpoints of the root namespace.
	Checkpoints int
	// Namespaces counts the namespaces with checkpoints, the root included.
	Namespaces int
	// LastID, LastStep, LastSource and LastTS describe the latest
	// checkpoint of the root namespace ("" and zero values when the thread
	// has only subgraph checkpoints).
	LastID     string
	LastStep   int       // its step
	LastSource string    // its source (input, loop, update, fork)
	LastTS     time.Time // its timestamp
	// PendingWrites counts the writes saved against the latest checkpoint:
	// tasks of an unfinished superstep.
	PendingWrites int
	// Interrupted reports that a task of the latest checkpoint waits for
	// an answer (engine.SavedWrites.Waiting): the thread waits for a
	// resume. SetLatestWrites sets it.
	Interrupted bool
	// Failed reports a saved error against the latest checkpoint while no
	// task waits for an answer: its superstep failed
	// (engine.SavedWrites.Failed). SetLatestWrites sets it.
	Failed bool
	// Failure is the error that failed the latest superstep when Failed:
	// what the first task to save one saved (engine.SavedTask.Error, one
	// line; a panic's names the function and file:line), so that a list
	// of threads tells a tool's error from a bug. SetLatestWrites sets it.
	Failure string
	// Status is the engine's status of the latest root checkpoint, done,
	// pending, interrupted or failed, decided without the graph from the
	// topology of the thread's graph record (engine.RecordedPlan.Status,
	// as GetState would say it), when StatusKnown.
	Status engine.CheckpointStatus
	// StatusKnown reports that Status was decided. It is false where the
	// record cannot decide (no record, a bare fingerprint, a topology
	// this build cannot read: engine.ErrUndecided) or the thread has only
	// subgraph checkpoints; Interrupted and Failed then say what the
	// saved writes alone tell.
	StatusKnown bool
	// Fingerprint is the graph fingerprint recorded with SetFingerprint.
	Fingerprint string
	// Updated is when the store last wrote to the thread (Options.Now).
	Updated time.Time
	// Err is why the thread could not be read (a damaged record, or one
	// of a newer format): ID and what was read before the failure are
	// set, the rest is zero. The other threads are listed as usual.
	Err error
}

// TreeNode is one checkpoint of a thread's root namespace, for drawing the
// fork tree.
type TreeNode struct {
	ID       string    // the checkpoint's id
	ParentID string    // "" for a root
	Step     int       // its metadata's step
	Source   string    // its metadata's source
	TS       time.Time // its timestamp
}

// Threads returns a summary of every thread, sorted by id. The slice is the
// caller's. A thread that cannot be read is listed with ThreadInfo.Err
// (ErrCorrupt or ErrUnknownValueFormat), so one damaged thread does not
// hide the others. Errors: ErrClosed, ErrCorrupt (the list of threads
// itself), or the context's error.
//
// Each thread is read whole in one transaction, threadsPerRead threads to
// a transaction: a file of many threads (a service's, listed through
// ExportHandler) is never held by one long read, which would keep the
// writer from growing the file until it ended. A thread written meanwhile
// is listed as it was before or after that write.
//
// A thread's Status is planned from its graph record (StatusKnown), in
// the same transaction: a listing plans each distinct record once.
func (s *Store) Threads(ctx context.Context) ([]ThreadInfo, error) {
	var out []ThreadInfo
	var after []byte // the last thread listed, a copy: tx's bytes end with it
	plans := NewThreadPlans()
	names := map[string]string{} // shared by the records read
	for more := true; more; {
		more = false
		err := s.view(ctx, func(tx *bolt.Tx) error {
			threads := tx.Bucket(bucketThreads)
			c := threads.Cursor()
			k, v := c.First()
			if after != nil {
				if k, v = c.Seek(after); k != nil && bytes.Equal(k, after) {
					k, v = c.Next()
				}
			}
			for n := 0; k != nil; k, v = c.Next() {
				if v != nil {
					continue // a value, not a thread's bucket
				}
				if n == threadsPerRead {
					more = true
					return nil
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				info, err := threadInfo(threads.Bucket(k), string(k), plans, s.cache, names)
				if err != nil {
					info.Err = err
				}
				out = append(out, info)
				after = append(after[:0], k...)
				n++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// threadsPerRead is how many threads Threads reads in one transaction:
// a few milliseconds of reading each.
const threadsPerRead = 256

func threadInfo(tb *bolt.Bucket, id string, plans *ThreadPlans, rc *cache, names map[string]string) (ThreadInfo, error) {
	info := ThreadInfo{ID: id}
	keys := threadKeys(tb, id)
	fp, err := keys.Get(keyFingerprint)
	if err != nil {
		return info, err
	}
	info.Fingerprint = string(fp)
	u, err := keys.Get(keyUpdated)
	if err != nil {
		return info, err
	}
	if len(u) == 8 {
		info.Updated = time.Unix(0, int64(binary.BigEndian.Uint64(u)))
	}
	err = eachNamespace(tb, func(string) error {
		info.Namespaces++
		return nil
	})
	if err != nil {
		return info, err
	}
	b, err := nsIn(tb, id, "", false)
	if b == nil || err != nil {
		return info, err
	}
	if info.Checkpoints, err = b.cps.Len(); err != nil {
		return info, err
	}
	lastID, data, err := b.find("")
	if data == nil || err != nil {
		return info, err
	}
	rec, err := decodeRecord(data)
	if err != nil {
		return info, err
	}
	info.LastID, info.LastStep, info.LastSource, info.LastTS = lastID, rec.Meta.Step, rec.Meta.Source, rec.TS
	if reads := plans.Reads(&info); reads != nil {
		// The latest checkpoint's versions, the values planning reads
		// and the saved writes (their control values): what GetState
		// plans from, and what SetLatestWrites reads.
		st, err := listedState(rc, b.cps, id, lastID, rec, names)
		if err != nil {
			return info, err
		}
		tup, err := b.tupleOf(id, "", lastID, rec, st, reads)
		if err != nil {
			return info, err
		}
		info.SetLatestWrites(tup.PendingWrites)
		plans.SetStatus(&info, tup)
		return info, nil
	}
	c := b.writes.Cursor()
	var saved []engine.PendingWrite
	for k, v := c.SeekPrefix(writePrefix(lastID)); k != nil; k, v = c.Next() {
		_, task, _, err := parseWriteKey(k)
		if err != nil {
			return info, corruptf("write key: %v", err)
		}
		ch, val, err := decodeWrite(v)
		if err != nil {
			return info, err
		}
		saved = append(saved, engine.PendingWrite{TaskID: task, Channel: ch, Value: val})
	}
	if err := c.Err(); err != nil {
		return info, err
	}
	info.SetLatestWrites(saved)
	return info, nil
}

// statusChannels are the channels of the saved writes whose values say
// whether a thread waits for an answer: a task's questions and the
// answers it took (engine.SavedWrites.Waiting counts them).
var statusChannels = [...]string{engine.InterruptChannel, engine.ResumeChannel, engine.ErrorChannel}

// StatusChannels returns the channels of the saved writes whose values
// SetLatestWrites reads; a store need fetch no other write's value to
// list its threads. The slice is the caller's.
func StatusChannels() []string { return statusChannels[:] }

// SetLatestWrites sets PendingWrites, Interrupted, Failed and Failure from ws, the
// writes saved against the thread's latest root checkpoint in saved
// order. Every store's Threads calls it, so that the stores say the same
// of a thread: engine.SavedWrites.Status decides, as for the state a
// graph reads, with tasks assumed to remain since whether they do needs
// the graph. A thread neither Interrupted nor Failed may then be done or
// pending; one whose task waits and whose superstep saved an error is
// Interrupted (a resume is what it needs next).
//
// Only the values of writes to StatusChannels are read: the other
// values are dropped before the writes are read, so that a store that
// fetches every value and one that fetches only those (the PostgreSQL
// store) cannot come to different answers. ws is not modified.
func (t *ThreadInfo) SetLatestWrites(ws []engine.PendingWrite) {
	t.PendingWrites, t.Interrupted, t.Failed, t.Failure = len(ws), false, false, ""
	if len(ws) == 0 {
		return
	}
	kept := make([]engine.PendingWrite, len(ws))
	for i, w := range ws {
		kept[i] = engine.PendingWrite{TaskID: w.TaskID, Channel: w.Channel}
		if slices.Contains(statusChannels[:], w.Channel) {
			kept[i].Value = w.Value
		}
	}
	saved := engine.ReadSavedWrites(kept)
	switch saved.Status(true) {
	case engine.CheckpointInterrupted:
		t.Interrupted = true
	case engine.CheckpointFailed:
		t.Failed = true
		for _, task := range saved.Tasks {
			if task.Failed {
				t.Failure = task.Error
				break
			}
		}
	}
}

// Children returns the ids of the checkpoints whose parent is
// cfg.CheckpointID, in cfg's thread and namespace, sorted. The slice is the
// caller's. Errors: ErrClosed, ErrCorrupt, or the context's error.
func (s *Store) Children(ctx context.Context, cfg engine.Config) ([]string, error) {
	var out []string
	err := s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, cfg.ThreadID, cfg.CheckpointNS, false)
		if b == nil || err != nil || cfg.ThreadID == "" {
			return err
		}
		c := b.kids.Cursor()
		for k, _ := c.SeekPrefix(writePrefix(cfg.CheckpointID)); k != nil; k, _ = c.Next() {
			_, child, err := parseChildKey(k)
			if err != nil {
				return corruptf("child index: %v", err)
			}
			out = append(out, child)
		}
		return c.Err()
	})
	return out, err
}

// Tree returns every checkpoint of the thread's root namespace in id order
// (oldest first), with its parent, step and source. The slice is the
// caller's. A thread that does not exist gives an empty slice. Errors:
// ErrClosed, ErrCorrupt, ErrUnknownValueFormat, or the context's error.
func (s *Store) Tree(ctx context.Context, threadID string) ([]TreeNode, error) {
	var out []TreeNode
	err := s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, threadID, "", false)
		if b == nil || err != nil || threadID == "" {
			return err
		}
		return b.cps.ForEach(func(k, v []byte) error {
			id, err := parseCheckpointKey(k)
			if err != nil {
				return corruptf("checkpoint key %x: %v", k, err)
			}
			rec, err := decodeRecord(v)
			if err != nil {
				return err
			}
			out = append(out, TreeNode{ID: id, ParentID: rec.Parent, Step: rec.Meta.Step, Source: rec.Meta.Source, TS: rec.TS})
			return nil
		})
	})
	return out, err
}

// PendingWrites returns the writes saved against the checkpoint cfg names
// (the latest when cfg.CheckpointID is empty), in the order GetTuple
// returns them, without rebuilding the checkpoint. It returns nil for a
// missing checkpoint. Errors: ErrClosed, ErrCorrupt,
// ErrUnknownValueFormat, or the context's error.
func (s *Store) PendingWrites(ctx context.Context, cfg engine.Config) ([]engine.PendingWrite, error) {
	var out []engine.PendingWrite
	err := s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, cfg.ThreadID, cfg.CheckpointNS, false)
		if b == nil || err != nil || cfg.ThreadID == "" {
			return err
		}
		id, data, err := b.find(cfg.CheckpointID)
		if data == nil || err != nil {
			return err
		}
		out, err = b.pendingWrites(id, nil)
		return err
	})
	return out, err
}

// SetFingerprint records the fingerprint of the graph that runs a thread,
// so a later run can tell that the graph changed. The thread need not have
// checkpoints yet. Errors: ErrInvalidID, ErrReadOnly, ErrClosed,
// ErrAsyncWrite, or the commit's error.
func (s *Store) SetFingerprint(ctx context.Context, threadID, fp string) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	if err := CheckName("thread id", threadID, MaxIDLen, false); err != nil {
		return err
	}
	return s.w.submit(opOther, 0, func(tx *bolt.Tx, _ *cache) error {
		tb, err := tx.Bucket(bucketThreads).CreateBucketIfNotExists([]byte(threadID))
		if err != nil {
			return err
		}
		return threadKeys(tb, threadID).Put(keyFingerprint, []byte(fp))
	})
}

// RecordGraph implements engine.GraphRecorder: it queues record as the
// fingerprint of a thread that has none (a thread with one keeps it), for
// the commit of the checkpoint the engine puts next (wait, as
// DeferWrites'). Errors: SetFingerprint's.
func (s *Store) RecordGraph(ctx context.Context, threadID, record string) (wait func() error, err error) {
	if err := s.writable(ctx); err != nil {
		return nil, err
	}
	if err := CheckName("thread id", threadID, MaxIDLen, false); err != nil {
		return nil, err
	}
	return s.w.submitDeferred(opOther, len(record), func(tx *bolt.Tx, _ *cache) error {
		tb, err := tx.Bucket(bucketThreads).CreateBucketIfNotExists([]byte(threadID))
		if err != nil {
			return err
		}
		keys := threadKeys(tb, threadID)
		if held, err := keys.Get(keyFingerprint); err != nil || len(held) > 0 {
			return err
		}
		return keys.Put(keyFingerprint, []byte(record))
	})
}

var _ engine.GraphRecorder = (*Store)(nil)

// Fingerprint returns the fingerprint recorded for a thread, or "" when
// there is none. Errors: ErrClosed, ErrCorrupt or the context's error.
func (s *Store) Fingerprint(ctx context.Context, threadID string) (string, error) {
	var fp string
	err := s.view(ctx, func(tx *bolt.Tx) error {
		if threadID == "" {
			return nil
		}
		tb := tx.Bucket(bucketThreads).Bucket([]byte(threadID))
		if tb == nil {
			return nil
		}
		v, err := threadKeys(tb, threadID).Get(keyFingerprint)
		fp = string(v)
		return err
	})
	return fp, err
}
