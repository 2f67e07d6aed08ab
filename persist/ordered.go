package persist

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// Layout 3, "ordered": a namespace's records in one bucket.
//
// In layouts 1 and 2 a namespace has a bucket of four buckets, one per
// record kind (cp, blob, w, kids). Each of them grows at its own end, so
// a superstep dirtied the last leaf of each, a branch of each once it
// passed a page, and the namespace's own leaf: about six pages per
// superstep at 20 steps, eleven at 200 (BenchmarkLayoutPages). bbolt
// writes one transaction at a time, and the pages it rewrites are most
// of what a commit costs, so the pages per superstep bound how many
// threads' supersteps one commit can carry.
//
// From layout 3 on, a namespace keeps all its records in one bucket, the
// thread's own bucket for the root namespace (beside the thread's
// fingerprint and updated time) and a bucket nsBucketName(ns) with no
// buckets inside for the others. Each record's key is its kind's tuple
// key (keys.go, the key its seal covers) rearranged so that what one
// superstep writes sorts together, after what came before:
//
//   - a checkpoint record, a pending write and a child edge are
//     'r' + their first element (the checkpoint id; the parent's for an
//     edge) + the kind byte + the rest of the key. A checkpoint's record,
//     its children and its writes are adjacent, in that order ('c' < 'k'
//     < 'w'), and ids are time-ordered, so a new checkpoint's records
//     sort last;
//   - a channel value is 'b' + version + channel + seq. A superstep gives
//     the channels it writes versions above every existing one (max + 1:
//     engine/algo.go applyWrites; LangGraph.js
//     libs/langgraph-core/src/pregel/algo.ts:327,370,396), so new
//     values sort last too. A fork from an old checkpoint stores its
//     values in the middle: correct, just not clustered.
//
// A superstep then dirties the end of two ranges, the thread's leaf and
// the threads leaf: 3.4 pages at 20 steps and 3.9 at 200.
// Records name values by (channel, version, seq) as before, and the
// seals, the digest and the value encodings are unchanged. The range
// bytes 'b' and 'r' are apart from the thread's own keys ("fingerprint",
// "updated") and its namespace buckets ('n' + ns).
//
// Files keep the layout they were made with (Open never rewrites them):
// layout 1 and 2 files are read and written in their nested buckets by the
// code below's nested branch, so builds that know only layout 2 still
// open them, and a read-only open needs no migration. Export and Import
// into a new file give a thread the new layout.

// orderedLayout is the first layout that keeps a namespace's records in
// one bucket.
const orderedLayout uint32 = 3

// Range bytes of the ordered layout.
const (
	rangeValues  byte = 'b' // channel values
	rangeRecords byte = 'r' // checkpoint records, pending writes, child edges
)

// rangeOf is the range byte of a kind's records.
func rangeOf(kind byte) byte {
	if kind == kindBlob {
		return rangeValues
	}
	return rangeRecords
}

// firstLen is the length of the string element (keys.go) at the start of
// k, terminator included, or -1 if k does not start with a complete,
// well-formed one.
func firstLen(k []byte) int {
	for i := 0; i < len(k); {
		z := bytes.IndexByte(k[i:], 0) // ids and names rarely escape one
		if z < 0 || i+z+1 >= len(k) {
			return -1
		}
		i += z
		switch k[i+1] {
		case 0:
			return i + 2
		case 0xff:
			i += 2
		default:
			return -1
		}
	}
	return -1
}

// appendOrderedKey appends the ordered layout's key of the kind's key k
// to dst. ok is false when k is not a whole key of the kind's shape (a
// value key is (string, int, uint); the others start with a string):
// for a seek, k may be a prefix of the other kinds' keys that ends
// after their first element.
func appendOrderedKey(dst []byte, kind byte, k []byte) (out []byte, ok bool) {
	n := firstLen(k)
	if kind == kindBlob {
		if n < 0 || len(k) != n+16 {
			return dst, false
		}
		dst = append(dst, rangeValues)
		dst = append(dst, k[n:n+8]...) // version
		dst = append(dst, k[:n]...)    // channel
		return append(dst, k[n+8:]...), true
	}
	if n < 0 {
		return dst, false
	}
	dst = append(dst, rangeRecords)
	dst = append(dst, k[:n]...)
	dst = append(dst, kind)
	return append(dst, k[n:]...), true
}

// kindKey reverses appendOrderedKey: it returns the key of kind stored
// under the ordered key p, or false when p is another kind's key or
// malformed. The result is a new slice.
func kindKey(kind byte, p []byte) ([]byte, bool) {
	if !isOrderedKind(kind, p) {
		return nil, false
	}
	rest := p[1:]
	out := make([]byte, 0, len(rest))
	if kind == kindBlob {
		// version (8), channel, seq (8) → channel, version, seq
		out = append(out, rest[8:len(rest)-8]...)
		out = append(out, rest[:8]...)
		return append(out, rest[len(rest)-8:]...), true
	}
	n := firstLen(rest)
	out = append(out, rest[:n]...)
	return append(out, rest[n+1:]...), true
}

// isOrderedKind reports whether the ordered key p is a well-formed key of
// kind, without building the kind's key.
func isOrderedKind(kind byte, p []byte) bool {
	if len(p) == 0 || p[0] != rangeOf(kind) {
		return false
	}
	rest := p[1:]
	if kind == kindBlob {
		if len(rest) < 8 {
			return false
		}
		n := firstLen(rest[8:])
		return n >= 0 && len(rest) == 8+n+8
	}
	n := firstLen(rest)
	return n >= 0 && len(rest) > n && rest[n] == kind
}

// orderedKind returns the kind of the record stored under the ordered
// key p, or false for a key that is none of the four kinds' (Check
// reports it).
func orderedKind(p []byte) (byte, bool) {
	if len(p) == 0 {
		return 0, false
	}
	switch p[0] {
	case rangeValues:
		return kindBlob, isOrderedKind(kindBlob, p)
	case rangeRecords:
		n := firstLen(p[1:])
		if n < 0 || len(p) <= 1+n {
			return 0, false
		}
		kind := p[1+n]
		switch kind {
		case kindCheckpoint, kindWrite, kindChild:
			return kind, true
		}
	}
	return 0, false
}

// layoutOf returns tx's layout version. checkLayout has already refused
// a file whose layout this build cannot read; a file being created gets
// the current one. A commit round reads it once.
func layoutOf(tx *bolt.Tx) uint32 {
	if r := roundOf(tx); r != nil {
		if r.layout == 0 {
			r.layout = layoutOfMeta(tx)
		}
		return r.layout
	}
	return layoutOfMeta(tx)
}

// layoutOfMeta is layoutOf read from the meta bucket.
func layoutOfMeta(tx *bolt.Tx) uint32 {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return layoutVersion // being created: checkLayout writes it
	}
	v := meta.Get(keyLayout)
	if len(v) != 4 {
		return 1 // checkLayout refuses such a file; nothing reads it
	}
	return binary.BigEndian.Uint32(v)
}

// orderedNS returns the records of namespace ns of an ordered-layout
// thread bucket tb, creating its bucket when create is set; otherwise nil
// when the namespace has no records.
func orderedNS(tb *bolt.Bucket, thread, ns string, create bool) (*nsBuckets, error) {
	bk := tb
	if ns == "" {
		if !create && !hasOrderedRecords(tb) {
			return nil, nil
		}
	} else if bk = tb.Bucket(nsBucketName(ns)); bk == nil {
		if !create {
			return nil, nil
		}
		var err error
		if bk, err = tb.CreateBucket(nsBucketName(ns)); err != nil {
			return nil, err
		}
	}
	// Keys mostly arrive in ascending order (see above).
	bk.FillPercent = fillPercent
	return newNSBuckets([4]*bolt.Bucket{bk, bk, bk, bk}, thread, ns, sealedTx(tb.Tx()), true), nil
}

// hasOrderedRecords reports whether bucket b holds a record of either
// range.
func hasOrderedRecords(b *bolt.Bucket) bool {
	c := b.Cursor()
	for _, r := range []byte{rangeValues, rangeRecords} {
		if k, _ := c.Seek([]byte{r}); len(k) > 0 && k[0] == r {
			return true
		}
	}
	return false
}

// eachNamespace calls fn with every namespace of thread bucket tb in name
// order, the root namespace first.
func eachNamespace(tb *bolt.Bucket, fn func(ns string) error) error {
	ordered := layoutOf(tb.Tx()) >= orderedLayout
	if ordered && hasOrderedRecords(tb) {
		if err := fn(""); err != nil {
			return err
		}
	}
	return tb.ForEachBucket(func(name []byte) error {
		if len(name) == 0 || name[0] != 'n' || (ordered && len(name) == 1) {
			return nil // not a namespace; Check reports what it is
		}
		return fn(string(name[1:]))
	})
}

// checkOrderedKeys reports every entry of namespace ns's bucket b (not
// the root's: checkThread checks the thread's bucket) that is not a
// record of a known kind.
func checkOrderedKeys(b *bolt.Bucket, thread, ns string, rep *checkReport) {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if _, ok := orderedKind(k); ok && v != nil {
			continue
		}
		what := "key"
		if v == nil {
			what = "bucket"
		}
		rep.bad(corruptf("%s: unknown %s %q", ThreadPlace(thread, ns), what, k))
	}
}
