package persist

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Hooks for the external tests that write files as another build would.

// LayoutSealForTest is the meta bucket's seal of app and layout.
func LayoutSealForTest(app, layout []byte) []byte { return layoutSeal(app, layout) }

// SealCheckpointForTest returns v sealed as the record of the checkpoint
// under key k in (thread, ns), as Put stores it.
func SealCheckpointForTest(thread, ns string, k, v []byte) []byte {
	r := newRecords(nil, kindCheckpoint, thread, ns, true)
	return binary.BigEndian.AppendUint32(append([]byte(nil), v...), r.seal(k, v))
}

// RawRecords reads and writes the stored (sealed) records of one kind of
// a namespace by the kind's keys, whatever the file's layout: for tests
// that damage a file as a failing disk would, or look at what is stored.
type RawRecords struct{ r *records }

// RawRecordsForTest returns the records of kind ("cp", "blob", "w",
// "kids") of (thread, ns) in tx, which must exist.
func RawRecordsForTest(tx *bolt.Tx, thread, ns, kind string) *RawRecords {
	b, err := openNS(tx, thread, ns, false)
	if b == nil || err != nil {
		panic(fmt.Sprintf("thread %q namespace %q: %v", thread, ns, err))
	}
	r := map[string]*records{"cp": b.cps, "blob": b.blobs, "w": b.writes, "kids": b.kids}[kind]
	if r == nil {
		panic("unknown record kind " + kind)
	}
	return &RawRecords{r}
}

// First and Last return the first and last record's key and stored
// value (copies), nil if there is none.
func (r *RawRecords) First() (k, stored []byte) {
	c := r.r.rawCursor()
	k = c.first()
	return bytes.Clone(k), bytes.Clone(c.at)
}

func (r *RawRecords) Last() (k, stored []byte) {
	c := r.r.rawCursor()
	k = c.last()
	return bytes.Clone(k), bytes.Clone(c.at)
}

// Keys returns every record's key, in order.
func (r *RawRecords) Keys() [][]byte {
	var out [][]byte
	c := r.r.rawCursor()
	for k := c.first(); k != nil; k = c.next() {
		out = append(out, bytes.Clone(k))
	}
	return out
}

// Put stores stored, as it is, under key k; Delete removes k. Neither
// changes the file's digest.
func (r *RawRecords) Put(k, stored []byte) error { return r.r.bk.Put(r.stored(k), stored) }
func (r *RawRecords) Delete(k []byte) error      { return r.r.bk.Delete(r.stored(k)) }

func (r *RawRecords) stored(k []byte) []byte {
	if p := r.r.where(k); p != nil {
		return p
	}
	panic(fmt.Sprintf("%q is not a key of kind %c", k, r.r.kind))
}

// Layout returns the layout version of tx's file.
func Layout(tx *bolt.Tx) uint32 { return layoutOf(tx) }
