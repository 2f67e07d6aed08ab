package persist

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	bolt "go.etcd.io/bbolt"
)

// Sealed records.
//
// bbolt checksums its meta pages only: a damaged byte in a leaf page
// changes a value, a key or where one ends, and bbolt reads it back as if
// it had been written so. From layout 2 on, every value superstep stores
// ends with a seal: a CRC-32C (Castagnoli) of what the record is and where
// it lives — its kind, its thread, its namespace, its key and the value
// before the seal, each length-prefixed — stored as 4 big-endian bytes.
// Every read opens the record: a seal that does not match is ErrCorrupt
// naming the thread, namespace and record, never a misread value. Because
// the seal covers the key and the bucket's place, a damaged key, a
// damaged thread or namespace name and a key/value boundary moved by a
// damaged size field are caught as surely as a damaged value. A CRC-32
// detects every error burst of up to 32 bits, so any one damaged byte.
//
// Layout 1 files (made before seals) keep layout 1: their records are read
// and written without a seal, so older builds still open them, and Check
// says their content cannot be verified (Store.Sealed). Export and Import
// into a new file give a thread seals.
//
// records is the one place that reads and writes a record bucket; nothing
// else touches the *bolt.Bucket of a sealed kind.

// castagnoli is the CRC-32C table (hardware-accelerated on amd64, arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sealSize is the length of a seal.
const sealSize = 4

// sealedLayout is the first layout whose records are sealed.
const sealedLayout uint32 = 2

// Record kinds, part of every seal so a record cannot pass for one of
// another bucket.
const (
	kindCheckpoint byte = 'c'
	kindBlob       byte = 'b'
	kindWrite      byte = 'w'
	kindChild      byte = 'k'
	kindThread     byte = 't' // a thread's own keys: fingerprint, updated
	kindSetting    byte = 's'
	kindMeta       byte = 'm' // the meta bucket's layout seal
)

// records is a bucket of sealed records of one kind, thread and
// namespace. Its methods are bbolt's, with values opened (checked and
// stripped of their seal) on the way out and sealed on the way in.
type records struct {
	bk     *bolt.Bucket
	kind   byte
	thread string
	ns     string
	sealed bool   // layout 2 or later
	seed   uint32 // the CRC of (kind, thread, ns)
	// ordered: layout 3 or later, where bk holds every kind's records
	// under ordered keys (ordered.go). The methods take and return the
	// kind's own keys, which the seals cover, in every layout.
	ordered bool
	scratch []byte // the ordered key of a lookup; bbolt keeps no lookup key
}

// newRecords wraps bk; sealed says whether the file seals its records
// (sealedTx).
func newRecords(bk *bolt.Bucket, kind byte, thread, ns string, sealed bool) records {
	r := records{bk: bk, kind: kind, thread: thread, ns: ns, sealed: sealed}
	if sealed {
		c := crcByte(0, kind)
		c = crcUint32(c, uint32(len(thread)))
		c = crcString(c, thread)
		c = crcUint32(c, uint32(len(ns)))
		r.seed = crcString(c, ns)
	}
	return r
}

// crcByte, crcUint32 (big-endian) and crcString continue a CRC-32C as
// crc32.Update would, one byte at a time from the table. They exist
// because crc32.Update makes the bytes it is given escape to the heap:
// the few bytes of a length or a name would cost an allocation each.
func crcByte(crc uint32, b byte) uint32 {
	crc = ^crc
	crc = castagnoli[byte(crc)^b] ^ (crc >> 8)
	return ^crc
}

func crcUint32(crc uint32, n uint32) uint32 {
	crc = ^crc
	for _, b := range [4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)} {
		crc = castagnoli[byte(crc)^b] ^ (crc >> 8)
	}
	return ^crc
}

func crcString(crc uint32, s string) uint32 {
	crc = ^crc
	for i := 0; i < len(s); i++ {
		crc = castagnoli[byte(crc)^s[i]] ^ (crc >> 8)
	}
	return ^crc
}

// sealedTx reports whether tx's file seals its records: its layout is 2 or
// later.
func sealedTx(tx *bolt.Tx) bool { return layoutOf(tx) >= sealedLayout }

// seal returns the CRC of key and value in r's place.
func (r *records) seal(k, v []byte) uint32 {
	c := crcUint32(r.seed, uint32(len(k)))
	c = crc32.Update(c, castagnoli, k)
	return crc32.Update(c, castagnoli, v)
}

// open checks a stored value's seal and returns the value without it
// (aliasing stored bytes, as bbolt's do).
func (r *records) open(k, stored []byte) ([]byte, error) {
	if stored == nil {
		return nil, r.damaged(k, "is a bucket, not a record")
	}
	if !r.sealed {
		return stored, nil
	}
	if len(stored) < sealSize {
		return nil, r.damaged(k, "is shorter than its checksum")
	}
	n := len(stored) - sealSize
	if binary.BigEndian.Uint32(stored[n:]) != r.seal(k, stored[:n]) {
		return nil, r.damaged(k, "fails its checksum")
	}
	return stored[:n:n], nil
}

// damaged names a record that cannot be opened.
func (r *records) damaged(k []byte, why string) error {
	e := &DamagedRecordError{Record: describeKey(r.kind, k), Reason: why}
	if r.kind != kindSetting {
		e.Thread, e.Namespace = r.thread, r.ns
	}
	return e
}

// unknownKey is the damage of a stored key that is no record's key, named
// as Check names it.
func (r *records) unknownKey(stored []byte) error {
	return &DamagedRecordError{Thread: r.thread, Namespace: r.ns, Record: fmt.Sprintf("unknown key %q", stored),
		Reason: "(a record's key with a damaged byte: its record cannot be read)"}
}

// describeKey names the record stored under k, for an error.
func describeKey(kind byte, k []byte) string {
	switch kind {
	case kindCheckpoint:
		if id, err := parseCheckpointKey(k); err == nil {
			return fmt.Sprintf("the record of checkpoint %q", id)
		}
	case kindBlob:
		if ch, ver, seq, err := parseBlobKey(k); err == nil {
			return fmt.Sprintf("the value of %q at version %d/%d", ch, ver, seq)
		}
	case kindWrite:
		if cp, task, slot, err := parseWriteKey(k); err == nil {
			return fmt.Sprintf("write %d of task %q to checkpoint %q", slot, task, cp)
		}
	case kindChild:
		if p, c, err := parseChildKey(k); err == nil {
			return fmt.Sprintf("the child index entry %q → %q", p, c)
		}
	case kindThread:
		return fmt.Sprintf("the thread's %q", k)
	case kindSetting:
		return fmt.Sprintf("setting %q", k)
	}
	return fmt.Sprintf("the record under key %x", k)
}

// where returns the key under which the record of key k is stored in
// bk: k itself, or its ordered key (valid until the next call). It is nil
// for a key of another shape than the kind's, which no record can have.
func (r *records) where(k []byte) []byte {
	if !r.ordered {
		return k
	}
	p, ok := appendOrderedKey(r.scratch[:0], r.kind, k)
	r.scratch = p
	if !ok {
		return nil
	}
	return p
}

// get is bbolt's Get of the record of key k, nil if there is none.
func (r *records) get(k []byte) []byte {
	if p := r.where(k); p != nil {
		return r.bk.Get(p)
	}
	return nil
}

// Get returns the value under k without its seal, nil if there is none.
func (r *records) Get(k []byte) ([]byte, error) {
	v := r.get(k) // nil for a nested bucket too: Check reports those
	if v == nil {
		return nil, nil
	}
	return r.open(k, v)
}

// Has reports whether k has a value, without reading it.
func (r *records) Has(k []byte) bool { return r.get(k) != nil }

// HasPrefix reports whether a record's key starts with prefix (whole
// elements, as seekPrefix takes them; not a value's): one seek where
// looking up each key with it would take one per key.
func (r *records) HasPrefix(prefix []byte) (bool, error) {
	c := r.rawCursor()
	k := c.seekPrefix(prefix)
	return k != nil, c.err
}

// HasVersion reports whether a value is stored at version ver, for any
// channel and sequence, with one seek: the ordered layout keeps a
// version's values together ('b' + version + channel + seq), and the
// version a superstep gives the channels it writes is new (ordered.go).
// known is false in the nested layouts, whose values are ordered by
// channel first: the caller looks each key up there.
func (r *records) HasVersion(ver int64) (has, known bool) {
	if !r.ordered || r.kind != kindBlob {
		return false, false
	}
	r.scratch = appendInt(append(r.scratch[:0], rangeValues), ver)
	k, _ := r.bk.Cursor().Seek(r.scratch)
	return bytes.HasPrefix(k, r.scratch), true
}

// Put seals v and stores it under k.
func (r *records) Put(k, v []byte) error {
	p := r.where(k)
	if p == nil {
		return r.badKey(k)
	}
	var old []byte
	if r.sealed { // for the digest
		old = r.bk.Get(p)
	}
	return r.put(k, p, v, old)
}

// PutNew is Put for a key the caller has just found empty in this
// transaction (Has, or a Get that returned nil): it saves looking the key
// up again for the digest.
func (r *records) PutNew(k, v []byte) error { return r.put(k, r.where(k), v, nil) }

// PutIfAbsent stores v under k unless k has a value already, and reports
// whether it did.
func (r *records) PutIfAbsent(k, v []byte) (bool, error) {
	p := r.where(k)
	if p == nil {
		return false, r.badKey(k)
	}
	if r.bk.Get(p) != nil {
		return false, nil
	}
	return true, r.put(k, p, v, nil)
}

// put seals v and stores it under k, which the layout stores under p,
// and whose stored value is old.
func (r *records) put(k, p, v, old []byte) error {
	if p == nil {
		return r.badKey(k)
	}
	if !r.sealed {
		return r.bk.Put(p, v) // bbolt copies the key
	}
	out := make([]byte, len(v), len(v)+sealSize)
	copy(out, v)
	out = binary.BigEndian.AppendUint32(out, r.seal(k, v))
	if err := account(r.bk.Tx(), old, out); err != nil {
		return err
	}
	return r.bk.Put(p, out)
}

// Delete removes k.
func (r *records) Delete(k []byte) error {
	p := r.where(k)
	if p == nil {
		return nil // no record can be stored under k
	}
	if r.sealed {
		if old := r.bk.Get(p); old != nil {
			if err := account(r.bk.Tx(), old, nil); err != nil {
				return err
			}
		}
	}
	return r.bk.Delete(p)
}

// badKey is the error of a write under a key of another shape than the
// kind's: a bug, which must not store a record Check would call unknown.
func (r *records) badKey(k []byte) error {
	return fmt.Errorf("persist: internal error: %x is not a key of kind %c", k, r.kind)
}

// NextSequence is bbolt's, of the bucket r's records are in.
func (r *records) NextSequence() (uint64, error) { return r.bk.NextSequence() }

// Len counts the records; in the ordered layout, a key among them that is
// no record's is damage (rawCursor.err).
func (r *records) Len() (int, error) {
	if !r.ordered {
		return r.bk.Stats().KeyN, nil
	}
	// The walk jumps over a checkpoint's many writes (rawCursor.walk): a
	// thread list counts every thread's checkpoints.
	n := 0
	c := r.rawCursor()
	for k := c.first(); k != nil; k = c.next() {
		n++
	}
	return n, c.err
}

// ForEach calls fn with every record in key order, opened; a record that
// does not open stops it with its error.
func (r *records) ForEach(fn func(k, v []byte) error) error {
	c := r.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return c.Err()
}

// Cursor returns a cursor over the records.
func (r *records) Cursor() *recordCursor { return &recordCursor{raw: r.rawCursor(), r: r} }

// rawCursor returns a cursor over the records' keys and stored values,
// unopened.
func (r *records) rawCursor() *rawCursor { return &rawCursor{c: r.bk.Cursor(), r: r} }

// rawCursor walks the stored records of one kind in the kind's key
// order. It returns the kind's keys: in the ordered layout it skips the
// other kinds' records and maps the ordered keys back (a new slice per
// key), in the nested layouts the keys are bbolt's. A walk started by
// seekPrefix stops after the last key with that prefix.
type rawCursor struct {
	c  *bolt.Cursor
	r  *records
	at []byte // the stored value of the last key returned
	// bound: the stored keys the walk may return start with it (ordered:
	// the kind's range or a seekPrefix's; nested: a seekPrefix's or nil).
	bound []byte
	moves int // keys of other kinds passed, and seeks past them (tests)
	// err is the damage that ended the walk: a key where the walk looks
	// that is no record's key. A damaged byte in a key (its separator, its
	// kind byte) makes it so, and the record under it is one the walk
	// would have returned: stepping over it would read a thread without
	// one of its writes, checkpoints or edges as if it were whole.
	err error
	// tolerant steps over such keys instead: Check's scan, which reports
	// every unknown key itself (checkOrderedKeys, checkThread) and must go
	// on to count the records after it in the digest.
	tolerant bool
}

func (c *rawCursor) first() []byte {
	if !c.r.ordered {
		c.bound = nil
		return c.fwd(c.c.First())
	}
	c.bound = []byte{rangeOf(c.r.kind)}
	return c.fwd(c.c.Seek(c.bound))
}

func (c *rawCursor) last() []byte {
	if !c.r.ordered {
		c.bound = nil
		return c.back(c.c.Last())
	}
	rb := rangeOf(c.r.kind)
	c.bound = []byte{rb}
	k, v := c.c.Seek([]byte{rb + 1})
	if k == nil {
		k, v = c.c.Last()
	} else {
		k, v = c.c.Prev()
	}
	return c.back(k, v)
}

func (c *rawCursor) next() []byte { return c.fwd(c.c.Next()) }
func (c *rawCursor) prev() []byte { return c.back(c.c.Prev()) }

// seek moves to the first record whose key is k or after it. In the
// ordered layout a value key must be whole; the other kinds' keys need
// their first element whole.
func (c *rawCursor) seek(k []byte) []byte {
	if !c.r.ordered {
		c.bound = nil
		return c.fwd(c.c.Seek(k))
	}
	rb := rangeOf(c.r.kind)
	c.bound = []byte{rb}
	p, ok := appendOrderedKey(nil, c.r.kind, k)
	if !ok {
		if c.r.kind == kindBlob {
			panic("persist: internal: a seek to part of a value key")
		}
		// k ends inside the first element: the ordered keys from
		// there on start with 'r' + k or a later string.
		p = append([]byte{rb}, k...)
	}
	return c.fwd(c.c.Seek(p))
}

// seekPrefix moves to the first record whose key starts with prefix,
// and bounds the walk (next) to those records. prefix is whole elements,
// at least one in the ordered layout; the keys with it are then
// adjacent, of this kind only: the walk never visits other records.
func (c *rawCursor) seekPrefix(prefix []byte) []byte {
	if !c.r.ordered {
		c.bound = prefix
		return c.fwd(c.c.Seek(prefix))
	}
	p, ok := appendOrderedKey(nil, c.r.kind, prefix)
	if !ok || c.r.kind == kindBlob {
		panic("persist: internal: a prefix walk of values, or by part of an element")
	}
	c.bound = p
	return c.fwd(c.c.Seek(p))
}

// fwd and back return the first key at or after (before) k that is a
// record of the kind within bound, nil if none.
func (c *rawCursor) fwd(k, v []byte) []byte  { return c.walk(k, v, true) }
func (c *rawCursor) back(k, v []byte) []byte { return c.walk(k, v, false) }

func (c *rawCursor) walk(k, v []byte, forward bool) []byte {
	skipped := 0
	for k != nil {
		out, ok := c.accept(k, v)
		if ok {
			return out
		}
		// A malformed key past the bound counts too: a damaged byte that
		// ends a key's first element early or late sorts the key just
		// beside the records a prefix walk returns.
		if !c.tolerant && c.malformed(k, v) {
			c.err = c.r.unknownKey(k)
			break
		}
		if out == nil {
			break // past the bound
		}
		c.moves++
		if skipped++; skipped >= skipRun && c.r.kind == kindCheckpoint {
			// A checkpoint with many writes (a wide fan-out): jump over
			// the rest of them instead of stepping through each.
			if jk, jv, ok := c.jump(k, forward); ok {
				k, v, skipped = jk, jv, 0
				continue
			}
		}
		if forward {
			k, v = c.c.Next()
		} else {
			k, v = c.c.Prev()
		}
	}
	c.at = nil
	return nil
}

// skipRun is how many other records a walk over checkpoint records steps
// over one by one before it seeks past the rest of a checkpoint's.
const skipRun = 16

// jump moves a walk over checkpoint records that stands on another
// record of checkpoint X (a write or a child edge, which sort after X's
// record): forward to the first key after all of X's, backward to X's
// record or, if X has none, to the key before X's. ok is false when k is
// not such a record; the walk then steps on.
func (c *rawCursor) jump(k []byte, forward bool) (jk, jv []byte, ok bool) {
	n := firstLen(k[1:])
	if n < 0 || len(k) <= 1+n || k[1+n] <= kindCheckpoint {
		return nil, nil, false
	}
	target := append(bytes.Clone(k[:1+n]), kindCheckpoint) // 'r' + X + 'c'
	if forward {
		target[len(target)-1] = 0xff // above every kind byte
		jk, jv = c.c.Seek(target)
		return jk, jv, true
	}
	c.moves++
	if jk, jv = c.c.Seek(target); bytes.Equal(jk, target) {
		return jk, jv, true
	}
	jk, jv = c.c.Prev() // before X's first record: the checkpoint before
	return jk, jv, true
}

// accept returns the kind's key of stored key k if the walk returns it.
// It is not returned when it is out of bound (out nil), or in the
// ordered layout another kind's (out not nil, the walk goes on).
func (c *rawCursor) accept(k, v []byte) (out []byte, ok bool) {
	if !bytes.HasPrefix(k, c.bound) {
		return nil, false
	}
	if !c.r.ordered {
		if !wellFormed(c.r.kind, k) {
			return k, false
		}
		c.at = v
		return k, true
	}
	kk, ok := kindKey(c.r.kind, k)
	if !ok || !wellFormed(c.r.kind, kk) {
		return k, false
	}
	c.at = v
	return kk, true
}

// malformed reports whether stored key k, which the walk does not return,
// is where a record of some kind would be stored but is no record's key:
// in the nested layouts any key of the kind's bucket that does not parse,
// in the ordered layout a key of a record range that is no kind's
// well-formed key, or a bucket there.
func (c *rawCursor) malformed(k, v []byte) bool {
	if !c.r.ordered {
		return !wellFormed(c.r.kind, k)
	}
	if len(k) == 0 || (k[0] != rangeValues && k[0] != rangeRecords) {
		return false // the thread's own keys and its namespace buckets
	}
	kind, ok := orderedKind(k)
	if !ok || v == nil {
		return true
	}
	if kind == kindBlob {
		return false // orderedKind checked its whole shape
	}
	n := firstLen(k[1:])
	return !wellFormedTail(kind, k[1+n+1:])
}

// wellFormed reports whether k is a whole key of the kind's shape
// (keys.go), without decoding it. The keys of settings and of a thread's
// own records are names, any bytes.
func wellFormed(kind byte, k []byte) bool {
	switch kind {
	case kindCheckpoint, kindBlob, kindWrite, kindChild:
		n := firstLen(k)
		return n >= 0 && wellFormedTail(kind, k[n:])
	}
	return true
}

// wellFormedTail reports whether tail is what follows the first element
// of a key of the kind, one of the four record kinds.
func wellFormedTail(kind byte, tail []byte) bool {
	switch kind {
	case kindCheckpoint:
		return len(tail) == 0
	case kindBlob:
		return len(tail) == 16
	case kindWrite:
		n := firstLen(tail)
		return n >= 0 && len(tail) == n+8
	case kindChild:
		n := firstLen(tail)
		return n >= 0 && len(tail) == n
	}
	return false
}

// recordCursor is a rawCursor that opens every record it moves to. A
// record that does not open ends the walk as the end of the records
// would, and Err says why: check Err after every walk.
type recordCursor struct {
	raw *rawCursor
	r   *records
	err error
}

func (c *recordCursor) First() ([]byte, []byte)        { return c.open(c.raw.first()) }
func (c *recordCursor) Last() ([]byte, []byte)         { return c.open(c.raw.last()) }
func (c *recordCursor) Next() ([]byte, []byte)         { return c.open(c.raw.next()) }
func (c *recordCursor) Prev() ([]byte, []byte)         { return c.open(c.raw.prev()) }
func (c *recordCursor) Seek(k []byte) ([]byte, []byte) { return c.open(c.raw.seek(k)) }

// SeekPrefix moves to the first record whose key starts with prefix
// (whole key elements), and ends the walk by Next after the last one.
func (c *recordCursor) SeekPrefix(prefix []byte) ([]byte, []byte) {
	return c.open(c.raw.seekPrefix(prefix))
}

// Err returns why the last move stopped short, or nil.
func (c *recordCursor) Err() error { return c.err }

func (c *recordCursor) open(k []byte) ([]byte, []byte) {
	if c.err == nil {
		c.err = c.raw.err
	}
	if k == nil || c.err != nil {
		return nil, nil
	}
	v, err := c.r.open(k, c.raw.at)
	if err != nil {
		c.err = err
		return nil, nil
	}
	return k, v
}

// The file's digest.
//
// A seal proves a record is as written, not that it is the newest: bbolt
// writes every changed page to a new place and keeps the old copy until
// the space is reused, so a damaged page id that now points at the old
// copy of a page shows an older, intact set of sealed records — a commit
// undone in one part of the file. The meta bucket therefore keeps the
// digest of every sealed record in the file: their count and the XOR of
// their seals, changed by every Put and Delete in the same transaction
// (the writer's commit rounds sum the changes and write the digest once,
// see round). Check recomputes it from what the file holds now; a record
// lost, added back or rolled back changes it. (The meta bucket lives in
// the root page, which the meta page points at and bbolt rewrites on
// every commit.)

// keyDigest is the meta bucket's key of the digest (layout 2 on).
var keyDigest = []byte("digest")

// digest is the count and XOR of the seals of a set of records.
type digest struct {
	n uint64
	x uint32
}

// add counts a stored (sealed) value in, or out: XOR is its own inverse.
func (d *digest) add(stored []byte, in bool) {
	if in {
		d.n++
	} else {
		d.n--
	}
	if len(stored) >= sealSize {
		d.x ^= binary.BigEndian.Uint32(stored[len(stored)-sealSize:])
	}
}

func (d digest) encode() []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, d.n), d.x)
}

func decodeDigest(v []byte) (digest, error) {
	if len(v) != 12 {
		return digest{}, corruptf("meta bucket: the file's digest is missing or damaged")
	}
	return digest{n: binary.BigEndian.Uint64(v), x: binary.BigEndian.Uint32(v[8:])}, nil
}

// account updates tx's digest for a stored value replaced (old, nil if
// none) by new (nil: deleted).
func account(tx *bolt.Tx, old, new []byte) error {
	var change digest
	d := &change
	r := roundOf(tx)
	if r != nil {
		d = &r.delta // written once, when the round ends
	}
	if old != nil {
		d.add(old, false)
	}
	if new != nil {
		d.add(new, true)
	}
	if r != nil {
		return nil
	}
	return addDigest(tx, *d)
}

// addDigest adds delta (a count that may wrap below zero, an XOR) to
// tx's stored digest.
func addDigest(tx *bolt.Tx, delta digest) error {
	meta := tx.Bucket(bucketMeta)
	d, err := decodeDigest(meta.Get(keyDigest))
	if err != nil {
		return err
	}
	d.n += delta.n
	d.x ^= delta.x
	return meta.Put(keyDigest, d.encode())
}

// dropThread deletes a thread's bucket, taking its records out of the
// digest. A missing thread is not an error.
func dropThread(tx *bolt.Tx, thread string) error {
	threads := tx.Bucket(bucketThreads)
	tb := threads.Bucket([]byte(thread))
	if tb == nil {
		return nil
	}
	if r := roundOf(tx); r != nil {
		r.dropThread(thread)
	}
	return dropBucket(tx, threads, []byte(thread))
}

// dropBucket deletes bucket key of parent, taking the records in it and
// its buckets out of the digest. A missing bucket is not an error.
func dropBucket(tx *bolt.Tx, parent *bolt.Bucket, key []byte) error {
	b := parent.Bucket(key)
	if b == nil {
		return nil
	}
	if sealedTx(tx) {
		var gone digest
		eachStored(b, func(stored []byte) { gone.add(stored, false) })
		if r := roundOf(tx); r != nil {
			r.delta.n += gone.n
			r.delta.x ^= gone.x
		} else if err := addDigest(tx, gone); err != nil {
			return err
		}
	}
	return parent.DeleteBucket(key)
}

// eachStored calls fn with every stored value in bucket b and the buckets
// nested in it.
func eachStored(b *bolt.Bucket, fn func(stored []byte)) {
	b.ForEach(func(k, v []byte) error {
		if v != nil {
			fn(v)
		} else if sub := b.Bucket(k); sub != nil {
			eachStored(sub, fn)
		}
		return nil
	})
}
