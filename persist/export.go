package persist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"
)

// DefaultMaxImportBytes is the largest export Import reads unless
// ImportOptions.MaxBytes says otherwise. Import reads a document as a
// stream and commits it in chunks, so its memory does not grow with the
// document (it was read whole, which is what a limit of 256 MiB guarded);
// the limit is what stops an endless or hostile input before it fills the
// disk, set well above the largest thread a run makes.
const DefaultMaxImportBytes int64 = 4 << 30

// maxImportCheckpoints bounds the checkpoints of one import.
const maxImportCheckpoints = 1 << 20

// ImportOptions configures Import.
type ImportOptions struct {
	// Overwrite replaces a thread of the same id; without it Import fails
	// with ErrThreadExists. It replaces only a thread whose every
	// checkpoint and pending write the import has too, recorded with the
	// same graph: otherwise Import fails with a *ReplaceError
	// (ErrWouldDiscard), unless Discard is set.
	Overwrite bool
	// Discard, with Overwrite, replaces the thread even when that drops
	// checkpoints, pending writes or a recorded graph only it has.
	Discard bool
	// SameGraph reports whether two recorded graph fingerprints
	// (SetFingerprint) name the same graph; nil compares them as strings.
	// The store keeps fingerprints as they are given: what they mean is
	// the caller's.
	SameGraph func(held, incoming string) bool
	// MaxBytes caps the input (default DefaultMaxImportBytes).
	MaxBytes int64
	// Thread, when set, is the id the thread is imported under instead of
	// the exported one (a copy of a thread is an export imported anew).
	Thread string
}

// Export writes every checkpoint of a thread, in all namespaces, with its
// metadata, parent, state and pending writes, as one JSON document (format
// ExportFormat, version ExportVersion; docs/export-format.md). Each
// checkpoint's state is written as a delta from its parent's, so the
// document grows with what changed, and it is written checkpoint by
// checkpoint as it is read. fingerprint is recorded in it; "" records the
// thread's stored fingerprint.
//
// It carries the thread as stored, also what engine.Saver takes and a run
// does not make: a checkpoint whose parent is not stored (marked
// parent_missing, its state whole) and the writes saved against
// checkpoint ids that are not stored (orphan_writes), so that Import
// gives back the same thread and its export the same document.
//
// It reads one consistent snapshot. Errors: ErrThreadNotFound,
// ErrInvalidID (ids that are not UTF-8 cannot be exported as JSON),
// ErrClosed, ErrCorrupt, the context's error, or w's error.
func (s *Store) Export(ctx context.Context, threadID string, w io.Writer, fingerprint string) error {
	return s.view(ctx, func(tx *bolt.Tx) error {
		tb := tx.Bucket(bucketThreads).Bucket([]byte(threadID))
		if threadID == "" || tb == nil {
			return fmt.Errorf("%w: %q", ErrThreadNotFound, threadID)
		}
		if fingerprint == "" {
			fp, err := threadKeys(tb, threadID).Get(keyFingerprint)
			if err != nil {
				return err
			}
			fingerprint = string(fp)
		}
		ew, err := newExportWriter(w, threadID, fingerprint)
		if err != nil {
			return err
		}
		err = eachNamespace(tb, func(ns string) error {
			b, err := nsIn(tb, threadID, ns, false)
			if b == nil || err != nil {
				return err
			}
			return b.exportRecords(ctx, ns, ew.write)
		})
		if err != nil {
			return err
		}
		// The document lists the orphan writes after every checkpoint:
		// a second walk over the namespaces.
		err = eachNamespace(tb, func(ns string) error {
			b, err := nsIn(tb, threadID, ns, false)
			if b == nil || err != nil {
				return err
			}
			return b.exportOrphans(ctx, ns, ew.writeOrphan)
		})
		if err != nil {
			return err
		}
		return ew.close(threadID)
	})
}

// exportRecords calls emit with the export record of each checkpoint of
// the namespace, in id order. It reads each changed value once, where it is
// stored: a list stored as elements appended to the parent's value is
// exported as those elements.
func (b *nsBuckets) exportRecords(ctx context.Context, ns string, emit func(*exportRecord) error) error {
	memo := map[string]*cpState{}
	return b.cps.ForEach(func(k, v []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		id, err := parseCheckpointKey(k)
		if err != nil {
			return corruptf("checkpoint key %x: %v", k, err)
		}
		rec, err := decodeRecord(v)
		if err != nil {
			return err
		}
		// Parents sort before children (time-ordered ids), so the memo
		// only needs the states still to be used as bases.
		if len(memo) > 4*fullEvery {
			clear(memo)
		}
		st, err := loadState(b.cps, id, rec, memo)
		if err != nil {
			return err
		}
		var base *cpState
		if rec.Parent != "" {
			if base, err = b.stateOf(rec.Parent, memo); err != nil {
				return err
			}
		}
		er, err := newExportRecord(ns, id, rec.Parent, rec.V, rec.TS, rec.Meta, rec.Updated)
		if err != nil {
			return err
		}
		// A parent the thread does not hold (engine.Saver takes any
		// parent id): the state goes whole, and the mark tells Import so.
		er.ParentMissing = rec.Parent != "" && base == nil
		if err := b.exportDelta(er, st, base); err != nil {
			return err
		}
		writes, err := b.storedWrites(id)
		if err != nil {
			return err
		}
		for _, w := range writes {
			if err := er.addWrite(w.task, w.channel, w.slot, w.enc); err != nil {
				return err
			}
		}
		return emit(er)
	})
}

// exportOrphans calls emit with the writes of the namespace saved against
// each checkpoint id it does not hold, in key order (by id, then task,
// special slots first). The writes of a stored checkpoint, exported with
// it, are skipped with one seek.
func (b *nsBuckets) exportOrphans(ctx context.Context, ns string, emit func(*exportOrphan) error) error {
	c := b.writes.Cursor()
	var cur *exportOrphan
	for k, v := c.First(); k != nil; {
		if err := ctx.Err(); err != nil {
			return err
		}
		cpID, task, slot, err := parseWriteKey(k)
		if err != nil {
			return corruptf("write key %x: %v", k, err)
		}
		if cur == nil || cpID != cur.Checkpoint {
			if cur != nil {
				if err := emit(cur); err != nil {
					return err
				}
				cur = nil
			}
			if b.cps.Has(checkpointKey(cpID)) {
				k, v = c.Seek(afterPrefix(writePrefix(cpID)))
				continue
			}
			cur = &exportOrphan{NS: ns, Checkpoint: cpID}
		}
		ch, enc, err := splitWrite(v)
		if err != nil {
			return err
		}
		if !json.Valid(enc) {
			return corruptf("write record for %q: value is not JSON", ch)
		}
		cur.Writes = append(cur.Writes, exportWrite{Task: task, Slot: slot, Channel: ch, Value: bytes.Clone(enc)})
		k, v = c.Next()
	}
	if err := c.Err(); err != nil {
		return err
	}
	if cur != nil {
		return emit(cur)
	}
	return nil
}

// afterPrefix returns the least key above every key that starts with
// prefix, a tuple prefix ending in a string's terminator (0, 0): 0, 1
// sorts above the terminator and below an escaped byte (0, 0xff).
func afterPrefix(prefix []byte) []byte {
	out := bytes.Clone(prefix)
	out[len(out)-1] = 1
	return out
}

// stateOf is the state of checkpoint id, or nil when there is no such
// checkpoint (an export then carries its child whole).
func (b *nsBuckets) stateOf(id string, memo map[string]*cpState) (*cpState, error) {
	if st := memo[id]; st != nil {
		return st, nil
	}
	data, err := b.cps.Get(checkpointKey(id))
	if data == nil || err != nil {
		return nil, err
	}
	rec, err := decodeRecord(data)
	if err != nil {
		return nil, err
	}
	return loadState(b.cps, id, rec, memo)
}

// exportDelta fills er's state: st as a delta from base (nil: whole).
func (b *nsBuckets) exportDelta(er *exportRecord, st, base *cpState) error {
	var baseRefs map[string]chanRef
	var baseSeen map[string]map[string]int64
	if base != nil {
		baseRefs, baseSeen = base.refs, base.seen
	}
	for ch, ref := range st.refs {
		old, had := baseRefs[ch]
		if had && old.Version == ref.Version {
			continue // the same version has the same value (Store.Put)
		}
		er.Versions[ch] = ref.Version
		data, err := b.blobs.Get(blobKey(ch, ref.Version, ref.Seq))
		if err != nil {
			return err
		}
		if data == nil {
			return corruptf("checkpoint %q: value of %q at version %d is missing", er.ID, ch, ref.Version)
		}
		h, err := parseBlob(data)
		if err != nil {
			return err
		}
		if h.kind == blobAppend && had && h.prev == old {
			if !json.Valid(appendedJSON(h.payload)) {
				return corruptf("checkpoint %q: appended elements of %q are not JSON", er.ID, ch)
			}
			er.setAppended(ch, h.payload)
			continue
		}
		blob, err := readBlob(b.blobs, ch, ref)
		if err != nil {
			return err
		}
		if !blob.has {
			continue
		}
		if !json.Valid(blob.enc) {
			return corruptf("checkpoint %q: value of %q is not JSON", er.ID, ch)
		}
		// The store keeps a whole copy of a growing list now and then
		// (fullValueEvery); the export need not.
		var prev []byte
		if had && len(blob.enc) > 0 && blob.enc[0] == '[' {
			pv, err := readBlob(b.blobs, ch, old)
			if err != nil {
				return err
			}
			prev = pv.enc
		}
		er.setValue(ch, blob.enc, prev)
	}
	er.VersionsRemoved = removedKeys(baseRefs, st.refs)
	er.setSeen(st.seen, baseSeen)
	return nil
}

// storedWrite is a pending write with its slot and undecoded value.
type storedWrite struct {
	task, channel string
	slot          int64
	enc           []byte // a copy
}

func (b *nsBuckets) storedWrites(id string) ([]storedWrite, error) {
	var out []storedWrite
	err := b.eachWrite(id, func(task string, slot int64, v []byte) error {
		ch, enc, err := splitWrite(v)
		if err != nil {
			return err
		}
		if !json.Valid(enc) {
			return corruptf("write record for %q: value is not JSON", ch)
		}
		out = append(out, storedWrite{task: task, channel: ch, slot: slot, enc: bytes.Clone(enc)})
		return nil
	})
	return out, err
}

// Import reads a thread written by Export (any export version this build
// reads: 1 and 2) and stores it under the thread id it names, which it
// returns. A checkpoint marked parent_missing keeps its parent id, and
// orphan writes are stored against their ids, which a later Put adopts.
//
// The document is read as a stream (exportread.go): each checkpoint is
// validated, rebuilt from its parent's state and encoded as it is read,
// and committed a few megabytes at a time where no reader sees it; once
// the whole document has been read and found valid, one small
// transaction makes it the thread (importstage.go). So memory stays
// bounded however large the thread, and the import is still all or
// nothing: on error, cancellation or a crash the store's threads are as
// they were.
//
// Errors: ErrImportTooLarge, ErrBadImport (wrapped with the reason),
// ErrThreadExists, ErrReadOnly, ErrClosed, ErrAsyncWrite, the context's
// error, the reader's or the commit's error.
func (s *Store) Import(ctx context.Context, r io.Reader, opts ImportOptions) (thread string, err error) {
	if err := s.writable(ctx); err != nil {
		return "", err
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxImportBytes
	}
	if opts.Thread != "" {
		if err := checkThreadID(opts.Thread); err != nil {
			return "", err
		}
	}
	st := &importStage{s: s, ctx: ctx, as: opts.Thread, content: newThreadContent("")}
	defer func() {
		if err != nil {
			st.abort()
		}
	}()
	_, fp, err := readExport(r, limit, st)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr // what cut the input off, most likely
		}
		return "", err
	}
	if err := st.finish(opts, fp); err != nil {
		return "", err
	}
	return st.thread, nil
}
