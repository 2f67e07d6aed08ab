package persist

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// round is what one write transaction of the writer (a commit round)
// gathers across its ops and writes once, just before it commits:
//
//   - the file's digest: each sealed Put or Delete adds its change to
//     delta instead of reading and rewriting the meta bucket's digest
//     itself (a round of 32 supersteps makes some 200 record changes);
//   - the threads written: their "updated" time is written once per
//     thread, not once per op;
//   - the namespaces opened: a thread's Put and the PutWrites it defers
//     share one nsBuckets instead of looking the buckets up and sealing
//     their seeds again.
//
// Nothing of it outlives the transaction. A round whose transaction is
// rolled back (an op failed) is dropped with it, and the retry starts a
// fresh one. The digest changes commute (a count and an XOR), so writing
// them last gives the digest a write-by-write update would.
type round struct {
	tx      *bolt.Tx
	now     func() time.Time
	delta   digest // added to the stored digest; n wraps for removals
	touched map[string]struct{}
	ns      map[roundNSKey]*nsBuckets
	// layout caches layoutOf, 0 until read. (The layout is written
	// only by Open, before any round.)
	layout uint32
}

type roundNSKey struct{ thread, ns string }

// rounds maps each write transaction the writer has open to its round.
// bbolt runs one write transaction at a time per file, so this holds one
// entry per Store that is committing.
var rounds sync.Map // *bolt.Tx → *round

// lastRound is the round begun last, found without the map's hashing:
// the ops of a round ask for it at every record they store.
var lastRound atomic.Pointer[round]

// beginRound registers a round for tx; end must be called when the
// transaction's function returns, flush before it returns nil. now is the
// clock of the threads' "updated" times.
func beginRound(tx *bolt.Tx, now func() time.Time) *round {
	r := &round{tx: tx, now: now}
	rounds.Store(tx, r)
	lastRound.Store(r)
	return r
}

// roundOf returns tx's round, nil for a transaction the writer does not
// run (Open's layout check) or a read.
func roundOf(tx *bolt.Tx) *round {
	if r := lastRound.Load(); r != nil && r.tx == tx {
		return r
	}
	if v, ok := rounds.Load(tx); ok {
		return v.(*round)
	}
	return nil
}

func (r *round) end(tx *bolt.Tx) {
	lastRound.CompareAndSwap(r, nil)
	rounds.Delete(tx)
}

// touch notes that thread was written.
func (r *round) touch(thread string) {
	if r.touched == nil {
		r.touched = map[string]struct{}{}
	}
	r.touched[thread] = struct{}{}
}

// openNS is openNS(tx, thread, ns, true), once per round.
func (r *round) openNS(tx *bolt.Tx, thread, ns string) (*nsBuckets, error) {
	k := roundNSKey{thread, ns}
	if b := r.ns[k]; b != nil {
		return b, nil
	}
	b, err := openNS(tx, thread, ns, true)
	if err != nil {
		return nil, err
	}
	if r.ns == nil {
		r.ns = map[roundNSKey]*nsBuckets{}
	}
	r.ns[k] = b
	return b, nil
}

// dropThread forgets the buckets of a thread that is being deleted.
func (r *round) dropThread(thread string) {
	delete(r.touched, thread)
	for k := range r.ns {
		if k.thread == thread {
			delete(r.ns, k)
		}
	}
}

// flush writes the touched threads' times and then the digest.
func (r *round) flush(tx *bolt.Tx) error {
	if len(r.touched) > 0 {
		now := binary.BigEndian.AppendUint64(nil, uint64(r.now().UnixNano()))
		threads := tx.Bucket(bucketThreads)
		for thread := range r.touched {
			if tb := threads.Bucket([]byte(thread)); tb != nil {
				if err := threadKeys(tb, thread).Put(keyUpdated, now); err != nil {
					return err
				}
			}
		}
	}
	if r.delta == (digest{}) {
		return nil
	}
	meta := tx.Bucket(bucketMeta)
	d, err := decodeDigest(meta.Get(keyDigest))
	if err != nil {
		return err
	}
	d.n += r.delta.n
	d.x ^= r.delta.x
	return meta.Put(keyDigest, d.encode())
}
