package persist

import "sync"

// cache keeps what the next Put of a thread needs from the previous one:
// the parent's rebuilt versions (else up to fullEvery records are decoded)
// and each channel's latest encoding (else an append chain is walked and
// joined to compare the list with its new value).
//
// Entries are added only after the transaction that wrote them committed,
// so a rolled-back round can leave nothing behind; entries that a write
// makes stale (a replaced checkpoint, a deleted thread) are removed inside
// that write's transaction, before later writes of the same round could
// read them. Removing is always safe. Cached states and bytes are shared:
// treat them as immutable.
type cache struct {
	mu         sync.Mutex
	states     map[stateKey]*cpState
	values     map[valueKey]cachedValue
	valueBytes int
}

type stateKey struct{ thread, ns, id string }

type valueKey struct{ thread, ns, channel string }

type cachedValue struct {
	ref   chanRef
	enc   []byte
	has   bool
	depth int
}

// Bounds: when one is crossed the map is simply emptied; a miss only costs
// a read from the file.
const (
	maxCachedStates     = 256
	maxCachedValueBytes = 32 << 20
)

func newCache() *cache {
	return &cache{states: map[stateKey]*cpState{}, values: map[valueKey]cachedValue{}}
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
	if len(c.states) >= maxCachedStates {
		clear(c.states)
	}
	c.states[stateKey{thread, ns, id}] = p.state
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

func (c *cache) dropState(thread, ns, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.states, stateKey{thread, ns, id})
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
	for k, v := range c.values {
		if k.thread == thread {
			c.valueBytes -= len(v.enc)
			delete(c.values, k)
		}
	}
}
