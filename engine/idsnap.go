package engine

import "unsafe"

// idSnap keeps O(changes) snapshots of a slice indexed by a small integer
// id (a channel id): the run writes its versions and values by channel id,
// and a checkpoint freezes what changed since the previous one, turning
// ids into names only when someone reads the checkpoint (Materialize).

// idEntry is one change: the value at id became val.
type idEntry[V any] struct {
	id  int32
	val V
}

// idFrozen is an immutable snapshot: a base (a full copy, by id; parent
// is nil) or a delta (the changes made since parent, in order). Every
// checkpoint holds two, and a MemorySaver keeps every checkpoint of a
// run, so a snapshot is one pointer to its contents and a count (24
// bytes), where a base pointer and a delta's slice header beside the
// parent made it 40: which of the two p points to follows from parent.
type idFrozen[V any] struct {
	// p is the first of the base's values (*V) when parent is nil, else
	// the first of the delta's entries (*idEntry[V]); nil when empty.
	p      unsafe.Pointer
	parent *idFrozen[V]
	n      int32 // the base's length or the delta's
}

// base is a base snapshot's values (nil for a delta).
func (f *idFrozen[V]) base() []V {
	if f.parent != nil {
		return nil
	}
	return unsafe.Slice((*V)(f.p), f.n)
}

// delta is a delta snapshot's changes since its parent (nil for a base).
func (f *idFrozen[V]) delta() []idEntry[V] {
	if f.parent == nil {
		return nil
	}
	return unsafe.Slice((*idEntry[V])(f.p), f.n)
}

// deltaOver is the snapshot of the changes delta (kept) since parent.
func deltaOver[V any](delta []idEntry[V], parent *idFrozen[V]) idFrozen[V] {
	return idFrozen[V]{p: unsafe.Pointer(unsafe.SliceData(delta)), parent: parent, n: int32(len(delta))}
}

// idLog records a slice's changes between snapshots.
type idLog[V any] struct {
	last *idFrozen[V] // the latest snapshot (nil: the next one is a base)
	log  []idEntry[V]
	// since counts the entries in the deltas since the last base, depth
	// those deltas: a base is taken again once replaying them would cost
	// more than copying the slice (sinceMax), so a base's copy is paid
	// for by the changes it spares readers.
	since, depth int
	// carve: the snapshots are kept (channelState.kept), so a delta
	// larger than its checkpoint's room is carved from chunk, shared by
	// many, not allocated alone (see roomFor).
	carve bool
	chunk []idEntry[V]
}

// idLogMax bounds the changes logged for a snapshot that is not taken (a
// run snapshotted once, then changed on without checkpoints): past it
// logging stops and the next snapshot is a base.
const idLogMax = 4096

// idDeltaDepth bounds a snapshot's chain of deltas (its readers walk it).
const idDeltaDepth = 1024

// note records that id now holds v, if a snapshot was taken to log against.
func (l *idLog[V]) note(id int32, v V) {
	if l.last == nil {
		return
	}
	if len(l.log) >= idLogMax {
		l.restart()
		return
	}
	l.log = append(l.log, idEntry[V]{id, v})
}

// restart forgets the log: the next snapshot is a base.
func (l *idLog[V]) restart() {
	clear(l.log)
	l.log, l.last = l.log[:0], nil
}

// snapshotTo freezes into dst (zero, a new snapshot, which must stay where
// it is: the next snapshot may refer to it) the changes since the last
// snapshot, in room when they fit, or the base that full returns (of a
// slice of length n).
func (l *idLog[V]) snapshotTo(dst *idFrozen[V], room []idEntry[V], n int, full func() idFrozen[V]) {
	// Fields and entries are stored one by one, not as structs or with
	// copy and clear: a kept run's checkpoints are written while the
	// collector marks its history, and a struct copy or clear with
	// pointers is then a bulk barrier that walks the type (hundreds of
	// instructions), where a pointer stored alone is a few.
	copied := false // the log's entries are now the delta's too
	switch {
	case l.last != nil && len(l.log) == 0:
		dst.setTo(*l.last) // nothing changed: the same contents
	case l.last != nil && l.depth < idDeltaDepth && len(l.log) <= max(n, 64) && l.since+len(l.log) <= l.sinceMax(n):
		copied = true
		delta := room[:0]
		if len(l.log) > len(room) {
			delta = l.roomFor(len(l.log))
		}
		delta = delta[:len(l.log)]
		if noRefs[V]() {
			copy(delta, l.log)
		} else {
			for i, e := range l.log {
				delta[i].id, delta[i].val = e.id, e.val
			}
		}
		dst.setTo(deltaOver(delta, l.last))
		l.depth++
		l.since += len(l.log)
	default:
		dst.setTo(full())
		l.depth, l.since = 0, 0
	}
	if !noRefs[V]() && !(copied && l.carve) {
		// The log's memory is reused; drop its references, unless a kept
		// delta holds every one of them anyway (carve: the run's
		// snapshots are kept): clearing would only be more pointer
		// writes, each through the write barrier while the collector
		// marks.
		var zero V
		for i := range l.log {
			l.log[i].val = zero
		}
	}
	l.log, l.last = l.log[:0], dst
}

// sinceMax bounds the changes replayed over a base, for a slice of
// length n: as many as the base holds, so its copy is paid for by as
// many changes; for kept snapshots (carve) idKeptBases times as many.
// There every base is kept as well, a copy of the whole slice that the
// run pays for (wide_state's 300 channels: a base of 17,000 instructions
// every 27 supersteps, a fifth of what its MemorySaver adds), while the
// replay is paid only by a reader of an old checkpoint, once.
func (l *idLog[V]) sinceMax(n int) int {
	if l.carve {
		return idKeptBases * max(n, 64)
	}
	return max(n, 64)
}

// idKeptBases is how many bases' worth of changes a kept snapshot's
// deltas replay at most (sinceMax).
const idKeptBases = 4

// roomFor returns an empty slice with room for n entries of a delta:
// for kept snapshots, carved (capacity n) from a chunk that holds about
// eight such deltas (of up to maxCarved entries), where each was an object of its own that the
// collector allocated, marked again in every cycle and swept. A chunk
// lives while any of its deltas does; a kept run's deltas live as long
// as its history anyway.
func (l *idLog[V]) roomFor(n int) []idEntry[V] {
	if !l.carve || n > maxCarved {
		return make([]idEntry[V], 0, n)
	}
	if len(l.chunk) < n {
		l.chunk = make([]idEntry[V], max(8*n, 64))
	}
	out := l.chunk[:0:n]
	l.chunk = l.chunk[n:]
	return out
}

// maxCarved is the most entries a carved room holds: a larger delta or
// batch of writes (a wide fan-out's) is rare and large enough to be
// allocated alone, where eight of its size would waste a chunk's tail.
const maxCarved = 64

// noRefs reports whether a V holds no pointer (versions): its entries
// are copied whole and need no clearing.
func noRefs[V any]() bool {
	var zero V
	_, ok := any(zero).(Version)
	return ok
}

// setTo sets f, which is zero (a new snapshot), to src field by field
// (see snapshotTo), and only the fields that are not zero: each pointer
// is a write through the write barrier while the collector marks.
func (f *idFrozen[V]) setTo(src idFrozen[V]) {
	if src.p != nil {
		f.p = src.p
	}
	if src.parent != nil {
		f.parent = src.parent
	}
	f.n = src.n
}

// denseBase is a base holding all of s (which it keeps).
func denseBase[V any](s []V) idFrozen[V] {
	return idFrozen[V]{p: unsafe.Pointer(unsafe.SliceData(s)), n: int32(len(s))}
}

// flat returns the snapshot's contents by id, in a new slice.
func (f *idFrozen[V]) flat() []V {
	var chain []*idFrozen[V]
	for ; f.parent != nil; f = f.parent {
		chain = append(chain, f)
	}
	out := append([]V(nil), f.base()...)
	for i := len(chain) - 1; i >= 0; i-- {
		for _, d := range chain[i].delta() {
			out[d.id] = d.val
		}
	}
	return out
}
