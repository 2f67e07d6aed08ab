package engine

// idSnap keeps O(changes) snapshots of a slice indexed by a small integer
// id (a channel id): the run writes its versions and values by channel id,
// and a checkpoint freezes what changed since the previous one, turning
// ids into names only when someone reads the checkpoint (Materialize).

// idEntry is one change: the value at id became val.
type idEntry[V any] struct {
	id  int32
	val V
}

// idFrozen is an immutable snapshot: a base (a full copy, by id) or a delta
// (the changes made since parent, in order).
type idFrozen[V any] struct {
	base   []V
	delta  []idEntry[V]
	parent *idFrozen[V]
}

// idLog records a slice's changes between snapshots.
type idLog[V any] struct {
	last *idFrozen[V] // the latest snapshot (nil: the next one is a base)
	log  []idEntry[V]
	// since counts the entries in the deltas since the last base, depth
	// those deltas: a base is taken again once replaying them would cost
	// more than copying the slice, so a base's copy is paid for by as
	// many changes as it holds.
	since, depth int
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

// snapshotTo freezes into dst (which must stay where it is: the next
// snapshot may refer to it) the changes since the last snapshot, in room
// when they fit, or a base that full returns (a new slice, by id), of
// length n.
func (l *idLog[V]) snapshotTo(dst *idFrozen[V], room []idEntry[V], n int, full func() []V) {
	switch {
	case l.last != nil && len(l.log) == 0:
		*dst = *l.last // nothing changed: the same contents
	case l.last != nil && l.depth < idDeltaDepth && l.since+len(l.log) <= max(n, 64):
		*dst = idFrozen[V]{delta: append(room[:0], l.log...), parent: l.last}
		l.depth++
		l.since += len(l.log)
	default:
		*dst = idFrozen[V]{base: full()}
		l.depth, l.since = 0, 0
	}
	clear(l.log) // the log's memory is reused; drop its references
	l.log, l.last = l.log[:0], dst
}

// flat returns the snapshot's contents by id, in a new slice.
func (f *idFrozen[V]) flat() []V {
	var chain []*idFrozen[V]
	for ; f.parent != nil; f = f.parent {
		chain = append(chain, f)
	}
	out := append([]V(nil), f.base...)
	for i := len(chain) - 1; i >= 0; i-- {
		for _, d := range chain[i].delta {
			out[d.id] = d.val
		}
	}
	return out
}
