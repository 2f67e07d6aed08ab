package persist

import "sync"

// cache keeps what the next Put of a thread needs from the previous one:
// the parent's rebuilt versions (else up to fullEvery records are decoded)
// and each channel's latest encoding (else an append chain is walked and
// joined to compare the list with its new value).
//
// Each commit round has its own cache (an overlay, see caches) that its
// writes fill; it is merged into the store's cache only once the round
// committed, so a rolled-back round leaves nothing behind, while later
// writes of the same round still find what earlier ones stored. Entries
// that a write makes stale (a replaced checkpoint, a deleted thread) are
// removed from both at once, inside that write's transaction: removing is
// always safe. Cached states and bytes are shared: treat them as
// immutable.
type cache struct {
	mu sync.Mutex
	// states holds the newest checkpoint's state of each namespace that
	// was written (latest says which one): the parent of the next Put,
	// unless the thread forks. Keeping one per namespace, rather than the
	// last so many of all, means that many threads writing at once do not
	// push each other's parents out.
	states     map[stateKey]*cpState
	latest     map[threadNS]string
	values     map[valueKey]cachedValue
	valueBytes int
}

type stateKey struct{ thread, ns, id string }

type threadNS struct{ thread, ns string }

type valueKey struct{ thread, ns, channel string }

// cachedValue is what the next Put needs of a channel's latest value: its
// chain's sizes, and its encoding when it was stored whole (nil when it
// was stored as appended elements: nobody needs it then).
type cachedValue struct {
	ref  chanRef
	enc  []byte
	has  bool
	size chainSize
}

// listLike reports whether the next Put may need v: only a list can be
// extended by appending (prevChain, appendByBytes), so the cache keeps
// lists, values stored as appended elements and channels without a
// value, and skips the scalars and objects most channels hold.
func (v cachedValue) listLike() bool {
	return !v.has || len(v.enc) == 0 || v.enc[0] == '['
}

// Bounds: when one is crossed the map is simply emptied; a miss only costs
// a read from the file.
const (
	maxCachedStates     = 4096 // namespaces, one state each
	maxCachedValueBytes = 32 << 20
)

func newCache() *cache {
	return &cache{states: map[stateKey]*cpState{}, latest: map[threadNS]string{}, values: map[valueKey]cachedValue{}}
}

// putState makes st, checkpoint id's state, its namespace's newest. It is
// called with c.mu held.
func (c *cache) putState(thread, ns, id string, st *cpState) {
	k := threadNS{thread, ns}
	if prev, ok := c.latest[k]; ok && prev != id {
		delete(c.states, stateKey{thread, ns, prev})
	} else if !ok && len(c.latest) >= maxCachedStates {
		clear(c.states)
		clear(c.latest)
	}
	c.latest[k] = id
	c.states[stateKey{thread, ns, id}] = st
}

func (c *cache) state(thread, ns, id string) *cpState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.states[stateKey{thread, ns, id}]
}

func (c *cache) value(thread, ns, channel string, ref chanRef) (cachedValue, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.values[valueKey{thread, ns, channel}]
	return v, ok && v.ref == ref
}

// add records a committed Put.
func (c *cache) add(thread, ns, id string, p *putResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putState(thread, ns, id, p.state)
	for ch, v := range p.values {
		k := valueKey{thread, ns, ch}
		c.valueBytes += len(v.enc) - len(c.values[k].enc)
		c.values[k] = v
	}
	if c.valueBytes > maxCachedValueBytes {
		clear(c.values)
		c.valueBytes = 0
	}
}

// merge adds a committed round's entries.
func (c *cache) merge(o *cache) {
	if o == nil || (len(o.latest) == 0 && len(o.values) == 0) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, id := range o.latest {
		c.putState(k.thread, k.ns, id, o.states[stateKey{k.thread, k.ns, id}])
	}
	for k, v := range o.values {
		c.valueBytes += len(v.enc) - len(c.values[k].enc)
		c.values[k] = v
	}
	if c.valueBytes > maxCachedValueBytes {
		clear(c.values)
		c.valueBytes = 0
	}
}

func (c *cache) dropState(thread, ns, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.states, stateKey{thread, ns, id})
	if c.latest[threadNS{thread, ns}] == id {
		delete(c.latest, threadNS{thread, ns})
	}
}

// dropThread forgets everything about a thread: after it is deleted, the
// same keys can hold different values.
func (c *cache) dropThread(thread string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.states {
		if k.thread == thread {
			delete(c.states, k)
		}
	}
	for k := range c.latest {
		if k.thread == thread {
			delete(c.latest, k)
		}
	}
	for k, v := range c.values {
		if k.thread == thread {
			c.valueBytes -= len(v.enc)
			delete(c.values, k)
		}
	}
}

// caches is a round's overlay over the store's cache.
type caches struct{ round, store *cache }

func (c caches) state(thread, ns, id string) *cpState {
	if st := c.round.state(thread, ns, id); st != nil {
		return st
	}
	return c.store.state(thread, ns, id)
}

func (c caches) value(thread, ns, channel string, ref chanRef) (cachedValue, bool) {
	if v, ok := c.round.value(thread, ns, channel, ref); ok {
		return v, true
	}
	return c.store.value(thread, ns, channel, ref)
}

func (c caches) dropState(thread, ns, id string) {
	c.round.dropState(thread, ns, id)
	c.store.dropState(thread, ns, id)
}

func (c caches) dropThread(thread string) {
	c.round.dropThread(thread)
	c.store.dropThread(thread)
}
