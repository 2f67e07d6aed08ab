package engine

import (
	"hash/maphash"
	"slices"
)

// cowMaxShards is the number of shards of a large cowMap: enough that a
// superstep's few changed keys copy few, small shards.
const cowMaxShards = 64

// cowSplitAt is the size from which a cowMap spreads its keys over shards;
// a smaller map is one shard, copied whole when written after a snapshot.
const cowSplitAt = 32

// cowInlineEntries is how many entries a one-shard copy holds in its own
// allocation: a run's versions_seen has one per node, its versions and
// values one per channel, a handful in most graphs.
const cowInlineEntries = 8

// cowMap is a map that snapshots in O(1): a snapshot shares every shard,
// and the first write to a shared shard copies that shard only. The run's
// channel values, versions and versions_seen live in cowMaps, so writing a
// checkpoint costs what the superstep changed, not the size of the graph.
// A shard is a small slice sorted by key: copying one is a single
// allocation, and looking a key up in a few dozen is as fast as hashing.
type cowMap[V any] struct {
	shards []*cowShard[V] // 1 or cowMaxShards
	gen    uint64         // shards of an older generation belong to a snapshot
	n      int
	shared bool // the shards slice itself is shared with a snapshot
	// last is the latest snapshot, once one was taken. From then on log
	// records every change, so the next snapshot can be those changes on
	// top of last (a delta) instead of freezing the shards: a superstep
	// changes a few keys, and copying their shards after each snapshot
	// cost far more than listing them. depth counts the deltas since the
	// last frozen shards (the base).
	last    *frozenMap[V]
	log     []cowEntry[V]
	logGone uint32 // bit i: log[i] removes its key
	depth   int
}

// cowDeltaDepth bounds a snapshot's chain of deltas: every so many
// snapshots one freezes the shards again (a base), so reading a snapshot
// walks at most this many deltas, and the shards copied after a base are
// paid for once per this many snapshots.
const cowDeltaDepth = 128

// cowLogMax bounds the changes logged for a snapshot that is not taken (a
// map snapshotted once, then written on): past it logging stops and the
// next snapshot is a base.
const cowLogMax = 4096

// cowGoneMax is how many of a delta's first changes can be removals (a
// bit each in frozenMap.gone); a removal past them makes the next snapshot
// a base. A superstep removes a few keys (ephemeral channels it consumed).
const cowGoneMax = 32

type cowShard[V any] struct {
	entries []cowEntry[V] // sorted by key
	gen     uint64
}

type cowEntry[V any] struct {
	key string
	val V
}

// find returns where k is or would go in the shard. A binary search
// written out: sort.Search's closure call per probe was most of its cost.
func (s *cowShard[V]) find(k string) (int, bool) {
	es := s.entries
	lo, hi := 0, len(es)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if es[m].key < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(es) && es[lo].key == k
}

// frozenMap is an immutable snapshot of a cowMap: a base (frozen shards,
// parent nil) or a delta (the changes made since parent, in order; bit i
// of gone says delta[i] removes its key).
type frozenMap[V any] struct {
	shards []*cowShard[V] // a base's
	delta  []cowEntry[V]
	parent *frozenMap[V]
	n      int32
	gone   uint32
}

var cowSeed = maphash.MakeSeed()

func shardIndex(k string, shards int) int {
	if shards == 1 {
		return 0
	}
	return int(maphash.String(cowSeed, k) % cowMaxShards)
}

func newCowMap[V any]() *cowMap[V] {
	return &cowMap[V]{shards: make([]*cowShard[V], 1), gen: 1}
}

func lookup[V any](shards []*cowShard[V], k string) (V, bool) {
	s := shards[shardIndex(k, len(shards))]
	if s != nil {
		if i, ok := s.find(k); ok {
			return s.entries[i].val, true
		}
	}
	var zero V
	return zero, false
}

func (c *cowMap[V]) get(k string) (V, bool) { return lookup(c.shards, k) }

// writable returns k's shard, copied first if a snapshot shares it.
func (c *cowMap[V]) writable(k string) *cowShard[V] {
	return c.writableAt(shardIndex(k, len(c.shards)))
}

// writableAt is writable for the shard at index i.
func (c *cowMap[V]) writableAt(i int) *cowShard[V] {
	if c.shared && len(c.shards) == 1 {
		// A one-shard map copies its shard list and its shard in one
		// allocation.
		old := c.shards[0]
		one := &struct {
			list  [1]*cowShard[V]
			shard cowShard[V]
			room  [cowInlineEntries]cowEntry[V]
		}{}
		one.shard.gen = c.gen
		switch {
		case old == nil:
		case len(old.entries) < cowInlineEntries:
			// A small map's entries, with room for one more, fit in the
			// same allocation.
			one.shard.entries = append(one.room[:0], old.entries...)
		default:
			one.shard.entries = copyEntries(old.entries)
		}
		one.list[0] = &one.shard
		c.shards, c.shared = one.list[:], false
		return &one.shard
	}
	if c.shared {
		c.shards = slices.Clone(c.shards)
		c.shared = false
	}
	s := c.shards[i]
	switch {
	case s == nil:
		s = &cowShard[V]{gen: c.gen}
		c.shards[i] = s
	case s.gen != c.gen:
		s = &cowShard[V]{entries: copyEntries(s.entries), gen: c.gen}
		c.shards[i] = s
	}
	return s
}

// copyEntries copies a shard's entries with room for one more: the usual
// write after a snapshot changes or adds one key.
func copyEntries[V any](es []cowEntry[V]) []cowEntry[V] {
	return append(make([]cowEntry[V], 0, len(es)+1), es...)
}

// note logs a change for the next delta snapshot. Past what a delta can
// hold it stops: the next snapshot is a base.
func (c *cowMap[V]) note(k string, v V, gone bool) {
	if len(c.log) >= cowLogMax || gone && len(c.log) >= cowGoneMax {
		clear(c.log)
		c.log, c.logGone, c.last = c.log[:0], 0, nil
		return
	}
	if gone {
		c.logGone |= 1 << len(c.log)
	}
	c.log = append(c.log, cowEntry[V]{k, v})
}

func (c *cowMap[V]) set(k string, v V) {
	if c.last != nil {
		c.note(k, v, false)
	}
	s := c.writable(k)
	i, found := s.find(k)
	if found {
		s.entries[i].val = v
		return
	}
	s.entries = slices.Insert(s.entries, i, cowEntry[V]{k, v})
	c.n++
	if len(c.shards) == 1 && c.n >= cowSplitAt {
		c.split()
	}
}

// split spreads a one-shard map over cowMaxShards shards.
func (c *cowMap[V]) split() {
	old := c.shards[0]
	c.shards = make([]*cowShard[V], cowMaxShards)
	c.shared = false
	for _, e := range old.entries { // sorted, so every shard stays sorted
		i := shardIndex(e.key, cowMaxShards)
		if c.shards[i] == nil {
			c.shards[i] = &cowShard[V]{gen: c.gen}
		}
		c.shards[i].entries = append(c.shards[i].entries, e)
	}
}

func (c *cowMap[V]) del(k string) {
	at := shardIndex(k, len(c.shards))
	s := c.shards[at]
	if s == nil {
		return
	}
	i, ok := s.find(k)
	if !ok {
		return
	}
	if c.last != nil {
		var zero V
		c.note(k, zero, true)
	}
	s = c.writableAt(at) // a copy keeps the order: k is still at i
	s.entries = slices.Delete(s.entries, i, i+1)
	c.n--
}

func (c *cowMap[V]) len() int { return c.n }

// each calls fn for every entry, in no particular order.
func (c *cowMap[V]) each(fn func(k string, v V)) {
	eachEntry(c.shards, fn)
}

func eachEntry[V any](shards []*cowShard[V], fn func(k string, v V)) {
	for _, s := range shards {
		if s != nil {
			for _, e := range s.entries {
				fn(e.key, e.val)
			}
		}
	}
}

// snapshot freezes the current contents; later writes do not change them.
func (c *cowMap[V]) snapshot() frozenMap[V] {
	f := new(frozenMap[V])
	c.snapshotTo(f, nil)
	return *f
}

// snapshotTo freezes the current contents into dst, which must stay where
// it is (the next snapshot may refer to it). A delta's changes go into
// room when they fit, so a caller that allocates dst with room beside it
// makes a snapshot one allocation.
func (c *cowMap[V]) snapshotTo(dst *frozenMap[V], room []cowEntry[V]) {
	switch {
	case c.last != nil && len(c.log) == 0:
		*dst = *c.last // nothing changed: the same contents
	case c.last != nil && c.depth < cowDeltaDepth:
		*dst = frozenMap[V]{n: int32(c.n), delta: append(room[:0], c.log...), gone: c.logGone, parent: c.last}
		c.depth++
	default:
		// A base: the shards are shared from now on, and the next write
		// to each copies it.
		c.shared = true
		c.gen++
		*dst = frozenMap[V]{shards: c.shards, n: int32(c.n)}
		c.depth = 0
	}
	clear(c.log) // the log's memory is reused; drop its references
	c.log, c.logGone, c.last = c.log[:0], 0, dst
}

// removes reports whether delta[i] removes its key.
func (f *frozenMap[V]) removes(i int) bool {
	return i < cowGoneMax && f.gone&(1<<i) != 0
}

// base returns the base f's deltas apply to and the deltas from f back to
// it, newest first.
func (f *frozenMap[V]) base() (*frozenMap[V], []*frozenMap[V]) {
	var chain []*frozenMap[V]
	for ; f.parent != nil; f = f.parent {
		chain = append(chain, f)
	}
	return f, chain
}

func (f *frozenMap[V]) get(k string) (V, bool) {
	for ; f.parent != nil; f = f.parent {
		for i := len(f.delta) - 1; i >= 0; i-- {
			if d := &f.delta[i]; d.key == k {
				return d.val, !f.removes(i)
			}
		}
	}
	if f.shards == nil {
		var zero V
		return zero, false
	}
	return lookup(f.shards, k)
}

// toMap copies the contents into a plain map.
func (f *frozenMap[V]) toMap() map[string]V {
	out := make(map[string]V, f.n)
	b, chain := f.base()
	eachEntry(b.shards, func(k string, v V) { out[k] = v })
	for i := len(chain) - 1; i >= 0; i-- {
		for j, d := range chain[i].delta {
			if chain[i].removes(j) {
				delete(out, d.key)
			} else {
				out[d.key] = d.val
			}
		}
	}
	return out
}

func (c *cowMap[V]) toMap() map[string]V {
	out := make(map[string]V, c.n)
	c.each(func(k string, v V) { out[k] = v })
	return out
}

// thaw makes a writable cowMap sharing a snapshot's shards.
func (f *frozenMap[V]) thaw() *cowMap[V] {
	b, chain := f.base()
	c := newCowMap[V]()
	if b.shards != nil {
		c = &cowMap[V]{shards: b.shards, n: int(b.n), shared: true, gen: 1}
		// A generation no shard has: every shard is copied before a write.
		for _, s := range b.shards {
			if s != nil && s.gen >= c.gen {
				c.gen = s.gen + 1
			}
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		for j, d := range chain[i].delta {
			if chain[i].removes(j) {
				c.del(d.key)
			} else {
				c.set(d.key, d.val)
			}
		}
	}
	return c
}

// flat returns f as a base, for many lookups: a delta's are slower.
func (f *frozenMap[V]) flat() *frozenMap[V] {
	if f.parent == nil {
		return f
	}
	c := f.thaw()
	return &frozenMap[V]{shards: c.shards, n: int32(c.n)}
}
