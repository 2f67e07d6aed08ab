package engine

import "hash/maphash"

// cowShards is the number of shards of a cowMap: enough that a superstep's
// few changed keys copy few, small shards.
const cowShards = 64

// cowMap is a map that snapshots in O(1): its keys are spread over shards,
// a snapshot shares every shard, and the first write to a shared shard
// copies that shard only. The run's channel values and versions live in
// cowMaps, so writing a checkpoint costs what the superstep changed, not the
// size of the graph.
type cowMap[V any] struct {
	shards [cowShards]*cowShard[V]
	gen    uint64 // shards of an older generation belong to a snapshot
	n      int
}

type cowShard[V any] struct {
	m   map[string]V
	gen uint64
}

// frozenMap is an immutable snapshot of a cowMap.
type frozenMap[V any] struct {
	shards [cowShards]*cowShard[V]
	n      int
}

var cowSeed = maphash.MakeSeed()

func shardOf(k string) int { return int(maphash.String(cowSeed, k) % cowShards) }

func newCowMap[V any]() *cowMap[V] { return &cowMap[V]{gen: 1} }

func (c *cowMap[V]) get(k string) (V, bool) {
	s := c.shards[shardOf(k)]
	if s == nil {
		var zero V
		return zero, false
	}
	v, ok := s.m[k]
	return v, ok
}

// writable returns k's shard, copied first if a snapshot shares it.
func (c *cowMap[V]) writable(k string) *cowShard[V] {
	i := shardOf(k)
	s := c.shards[i]
	switch {
	case s == nil:
		s = &cowShard[V]{m: map[string]V{}, gen: c.gen}
		c.shards[i] = s
	case s.gen != c.gen:
		m := make(map[string]V, len(s.m)+1)
		for k, v := range s.m {
			m[k] = v
		}
		s = &cowShard[V]{m: m, gen: c.gen}
		c.shards[i] = s
	}
	return s
}

func (c *cowMap[V]) set(k string, v V) {
	s := c.writable(k)
	if _, had := s.m[k]; !had {
		c.n++
	}
	s.m[k] = v
}

func (c *cowMap[V]) del(k string) {
	if _, ok := c.get(k); !ok {
		return
	}
	delete(c.writable(k).m, k)
	c.n--
}

func (c *cowMap[V]) len() int { return c.n }

// snapshot freezes the current contents; later writes copy what they touch.
func (c *cowMap[V]) snapshot() frozenMap[V] {
	f := frozenMap[V]{shards: c.shards, n: c.n}
	c.gen++
	return f
}

func (f frozenMap[V]) get(k string) (V, bool) {
	s := f.shards[shardOf(k)]
	if s == nil {
		var zero V
		return zero, false
	}
	v, ok := s.m[k]
	return v, ok
}

// toMap copies the contents into a plain map.
func (f frozenMap[V]) toMap() map[string]V {
	out := make(map[string]V, f.n)
	for _, s := range f.shards {
		if s != nil {
			for k, v := range s.m {
				out[k] = v
			}
		}
	}
	return out
}

func (c *cowMap[V]) toMap() map[string]V {
	return frozenMap[V]{shards: c.shards, n: c.n}.toMap()
}

// cowFrom builds a cowMap holding m.
func cowFrom[V any](m map[string]V) *cowMap[V] {
	c := newCowMap[V]()
	for k, v := range m {
		c.set(k, v)
	}
	return c
}

// thaw makes a writable cowMap sharing a snapshot's shards.
func (f frozenMap[V]) thaw() *cowMap[V] {
	c := &cowMap[V]{shards: f.shards, n: f.n}
	// A generation no shard has: every shard is copied before a write.
	c.gen = 1
	for _, s := range f.shards {
		if s != nil && s.gen >= c.gen {
			c.gen = s.gen + 1
		}
	}
	return c
}
