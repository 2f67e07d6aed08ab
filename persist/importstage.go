package persist

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/superstep/superstep/engine"
)

// Importing in bounded transactions.
//
// An import is all or nothing: a thread is in the store whole or not at
// all. Writing it in one transaction promised that, but a bbolt write
// transaction keeps every value it was given and every page it dirtied
// in memory until it commits, and copies them again each time the file
// grows and is mapped anew: importing a 101 MB export held about 1 GB
// that way. So an import writes the thread where no reader looks — the
// "importing" bucket, one bucket per import keyed by a sequence number,
// holding the thread's bucket under the thread's id — and commits every
// importChunkBytes of encoded records. Its records are sealed for the
// thread's id (sealed.go), so that one small transaction at the end moves
// the thread's bucket into "threads" as it is (bbolt's MoveBucket),
// after the checks of ImportOptions.Overwrite. A failed or cancelled
// import drops its bucket; one a process left behind when it died (the
// only way a bucket stays there) is dropped by the next import, and until
// then Check counts its records in the file's digest and checks them as
// a thread's.

// bucketImporting holds the threads being imported (see above). It exists
// only while an import runs, or after a process died during one.
var bucketImporting = []byte("importing")

// importChunkBytes is how many bytes of encoded checkpoints and writes an
// import commits at a time: enough that a commit's fsync is paid per
// megabytes, small against the memory an import may take.
var importChunkBytes = 8 << 20

// importStage is Import's sink: it encodes each checkpoint as Put does and
// commits them into the import's bucket a chunk at a time.
type importStage struct {
	s       *Store
	ctx     context.Context
	thread  string // the id the thread is imported under ("" until begin)
	as      string // ImportOptions.Thread
	seq     uint64 // the import's bucket, 0 before the first commit
	puts    []importPut
	orphans []*importOrphan
	held    int // bytes of puts and orphans
	content *threadContent
}

// importPut is one checkpoint ready for putRecordIn.
type importPut struct {
	ns, parent string
	cp         *engine.Checkpoint // without its values: pv holds them
	pv         *putValues
	md         mdRecord
	writes     []importWrite
}

func (st *importStage) begin(thread string) error {
	st.thread = thread
	if st.as != "" {
		st.thread = st.as
	}
	return nil
}

func (st *importStage) checkpoint(it *importItem, cp *engine.Checkpoint) error {
	if err := st.ctx.Err(); err != nil {
		return err
	}
	pv, err := encodePut(cp, it.versions)
	if err != nil {
		// A value the document holds that no store can keep (as
		// rebuilt: a Send's argument one level down): the document's
		// fault, named where it is.
		return badImportf("checkpoint %q: %v", truncate(it.id, 40), err)
	}
	lite := &engine.Checkpoint{V: cp.V, ID: cp.ID, TS: cp.TS, ChannelVersions: cp.ChannelVersions,
		VersionsSeen: cp.VersionsSeen, UpdatedChannels: cp.UpdatedChannels, Appends: cp.Appends}
	st.puts = append(st.puts, importPut{ns: it.ns, parent: it.parent, cp: lite, pv: pv, md: it.md, writes: it.writes})
	st.content.addCheckpoint(it.ns, it.id, it.md.Step, it.writes)
	st.held += pv.size + mdRecord(it.md).size() + writesSize(it.writes)
	if st.held >= importChunkBytes {
		return st.commit()
	}
	return nil
}

func (st *importStage) orphan(o *importOrphan) error {
	st.orphans = append(st.orphans, o)
	st.content.addWrites(o.ns, o.id, o.writes)
	st.held += writesSize(o.writes)
	if st.held >= importChunkBytes {
		return st.commit()
	}
	return nil
}

func writesSize(ws []importWrite) int {
	n := 0
	for _, w := range ws {
		n += len(w.rec) + len(w.task) + recordOverhead
	}
	return n
}

// commit writes what the import holds into its bucket, in one
// transaction. The transaction may run again (the writer retries a round
// without an op that failed in it), so it works from st's state as the
// last commit left it and changes st only once it committed.
func (st *importStage) commit() error {
	if err := st.ctx.Err(); err != nil {
		return err
	}
	seq := st.seq
	err := st.s.w.submitWait(func(tx *bolt.Tx, _ *cache) error {
		seq = st.seq
		tb, got, err := st.bucket(tx)
		if err != nil {
			return err
		}
		seq = got
		// The import's own caches: the store's are the threads', and
		// this one is not a thread yet (it may replace one of its id).
		cc := caches{newCache(), newCache()}
		ns := map[string]*nsBuckets{}
		open := func(name string) (*nsBuckets, error) {
			if b := ns[name]; b != nil {
				return b, nil
			}
			b, err := nsIn(tb, st.thread, name, true)
			ns[name] = b
			return b, err
		}
		for i := range st.puts {
			p := &st.puts[i]
			b, err := open(p.ns)
			if err != nil {
				return err
			}
			st.s.encoded.Add(int64(p.pv.size))
			res, err := putRecordIn(b, cc, st.thread, p.ns, p.parent, p.cp, p.pv, p.md)
			st.s.encoded.Add(int64(p.pv.late))
			if err != nil {
				return err
			}
			cc.round.add(st.thread, p.ns, p.cp.ID, res)
			if err := putImportWrites(b, p.cp.ID, p.writes); err != nil {
				return err
			}
		}
		// Writes against ids the thread does not hold are keyed as any
		// write: a later Put of the id adopts them, as in the original.
		for _, o := range st.orphans {
			b, err := open(o.ns)
			if err != nil {
				return err
			}
			if err := putImportWrites(b, o.id, o.writes); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if st.seq == 0 {
			st.s.imports.Delete(seq)
		}
		return err
	}
	st.seq = seq
	st.puts, st.orphans, st.held = nil, nil, 0
	return nil
}

// bucket returns the thread's bucket in the import's bucket, creating
// them, and the import's sequence number. The first commit takes the
// number and drops the buckets of imports that died.
func (st *importStage) bucket(tx *bolt.Tx) (*bolt.Bucket, uint64, error) {
	root, err := tx.CreateBucketIfNotExists(bucketImporting)
	if err != nil {
		return nil, 0, err
	}
	seq := st.seq
	if seq == 0 {
		if err := dropDeadImports(tx, root, &st.s.imports); err != nil {
			return nil, 0, err
		}
		if seq, err = root.NextSequence(); err != nil {
			return nil, 0, err
		}
		st.s.imports.Store(seq, struct{}{})
	}
	ib, err := root.CreateBucketIfNotExists(importKey(seq))
	if err != nil {
		return nil, 0, err
	}
	tb, err := ib.CreateBucketIfNotExists([]byte(st.thread))
	return tb, seq, err
}

func importKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// dropDeadImports drops the buckets in root (bucketImporting) of imports
// not among running (Store.imports): only one Store writes a file at a
// time (its lock), so any other was left by one that stopped mid-import.
func dropDeadImports(tx *bolt.Tx, root *bolt.Bucket, running *sync.Map) error {
	var dead [][]byte
	c := root.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) == 8 {
			if _, ok := running.Load(binary.BigEndian.Uint64(k)); ok {
				continue
			}
		}
		dead = append(dead, k)
	}
	for _, k := range dead {
		if root.Bucket(k) == nil {
			if err := root.Delete(k); err != nil {
				return err
			}
			continue
		}
		if err := dropBucket(tx, root, k); err != nil {
			return err
		}
	}
	return nil
}

// finish commits what is left, then moves the thread into the threads
// bucket, replacing one of its id as opts allow, in one transaction.
func (st *importStage) finish(opts ImportOptions, fingerprint string) error {
	if err := st.commit(); err != nil {
		return err
	}
	thread := st.thread
	s := st.s
	st.content.fingerprint = fingerprint
	err := s.w.submitWait(func(tx *bolt.Tx, rc *cache) error {
		threads := tx.Bucket(bucketThreads)
		caches{rc, s.cache}.dropThread(thread)
		if tb := threads.Bucket([]byte(thread)); tb != nil {
			if !opts.Overwrite {
				return fmt.Errorf("%w: %q", ErrThreadExists, thread)
			}
			// In the transaction that replaces it: nothing can be added
			// to the thread between the check and the replace.
			have, err := storedContent(st.ctx, tb, thread)
			if err != nil {
				return err
			}
			if err := opts.checkReplace(thread, have, st.content); err != nil {
				return err
			}
			if err := dropThread(tx, thread); err != nil {
				return err
			}
		}
		root := tx.Bucket(bucketImporting)
		var ib *bolt.Bucket
		if root != nil {
			ib = root.Bucket(importKey(st.seq))
		}
		if ib == nil {
			return corruptf("import of thread %q: its bucket is gone", thread)
		}
		// Unchanged in this transaction (commit wrote it in its own), as
		// MoveBucket needs: it moves the bucket's stored header.
		if err := ib.MoveBucket([]byte(thread), threads); err != nil {
			return err
		}
		if err := root.DeleteBucket(importKey(st.seq)); err != nil {
			return err
		}
		if k, _ := root.Cursor().First(); k == nil {
			if err := tx.DeleteBucket(bucketImporting); err != nil {
				return err
			}
		}
		if fingerprint != "" {
			if err := threadKeys(threads.Bucket([]byte(thread)), thread).Put(keyFingerprint, []byte(fingerprint)); err != nil {
				return err
			}
		}
		return s.touch(tx, thread)
	})
	if err == nil {
		s.imports.Delete(st.seq)
	}
	return err
}

// abort drops what the import committed. Its error is only reported by
// the caller's error already: a bucket it leaves is dropped by the next
// import.
func (st *importStage) abort() {
	if st.seq == 0 {
		return
	}
	_ = st.s.w.submitWait(func(tx *bolt.Tx, _ *cache) error {
		root := tx.Bucket(bucketImporting)
		if root == nil {
			return nil
		}
		if err := dropBucket(tx, root, importKey(st.seq)); err != nil {
			return err
		}
		if k, _ := root.Cursor().First(); k == nil {
			return tx.DeleteBucket(bucketImporting)
		}
		return nil
	})
	st.s.imports.Delete(st.seq)
}

// putImportWrites stores the saved writes of checkpoint id in b.
func putImportWrites(b *nsBuckets, id string, writes []importWrite) error {
	for _, w := range writes {
		if err := b.writes.Put(writeKey(id, w.task, w.slot), w.rec); err != nil {
			return err
		}
	}
	return nil
}
