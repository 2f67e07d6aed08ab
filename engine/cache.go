package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// CachePolicy caches a node's writes by its input: a later task of the node
// whose input has the same key reuses the writes instead of running
// (LangGraph's CachePolicy; LangGraph.js pregel/algo.ts cache_key,
// loop.ts _matchCachedWrites and putWrites). Only a successful task's
// writes are cached; errors and interrupts are not.
type CachePolicy struct {
	// Key makes the cache key of an input (nil: its JSON encoding, as
	// LangGraph's default JSON.stringify key function). A state map it is
	// given is valid until it returns (see NodeFunc).
	Key func(input any) (string, error)
	// TTL bounds how long an entry is used (0: forever).
	TTL time.Duration
}

// WithCachePolicy caches the node's writes (the graph needs a Cache:
// WithCache).
func WithCachePolicy(p CachePolicy) NodeOption { return func(n *nodeSpec) { n.cache = &p } }

// WithCache gives the graph the store that cached node writes live in.
func WithCache(c Cache) CompileOption { return func(g *Graph) { g.cache = c } }

// CacheKey addresses one cached entry: the namespace (the node) and the
// key made from the input.
type CacheKey struct {
	NS, Key string // the node's namespace; the key made from its input
}

// Cache stores node writes by key. Implementations must be safe for
// concurrent use: the tasks of a superstep write at once.
type Cache interface {
	// Get returns the writes stored under k, if any and not expired.
	Get(ctx context.Context, k CacheKey) ([]Write, bool, error)
	// Set stores writes under k for ttl (0: no expiry).
	Set(ctx context.Context, k CacheKey, writes []Write, ttl time.Duration) error
	// Clear drops the entries of the given namespaces (none: all).
	Clear(ctx context.Context, namespaces ...string) error
}

// MemoryCache is an in-memory Cache (LangGraph's InMemoryCache).
type MemoryCache struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[string]map[string]cacheEntry
}

type cacheEntry struct {
	writes []Write
	exp    time.Time // zero: never
}

// NewMemoryCache returns an empty in-memory cache.
func NewMemoryCache() *MemoryCache {
	return &MemoryCache{now: time.Now, entries: map[string]map[string]cacheEntry{}}
}

var _ Cache = (*MemoryCache)(nil)

// Get implements Cache. The writes returned are the caller's.
func (c *MemoryCache) Get(_ context.Context, k CacheKey) ([]Write, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k.NS][k.Key]
	if !ok {
		return nil, false, nil
	}
	if !e.exp.IsZero() && !c.now().Before(e.exp) {
		delete(c.entries[k.NS], k.Key)
		return nil, false, nil
	}
	return append([]Write(nil), e.writes...), true, nil
}

// Set implements Cache.
func (c *MemoryCache) Set(_ context.Context, k CacheKey, writes []Write, ttl time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := cacheEntry{writes: append([]Write(nil), writes...)}
	if ttl > 0 {
		e.exp = c.now().Add(ttl)
	}
	if c.entries[k.NS] == nil {
		c.entries[k.NS] = map[string]cacheEntry{}
	}
	c.entries[k.NS][k.Key] = e
	return nil
}

// Clear implements Cache.
func (c *MemoryCache) Clear(_ context.Context, namespaces ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(namespaces) == 0 {
		c.entries = map[string]map[string]cacheEntry{}
		return nil
	}
	for _, ns := range namespaces {
		delete(c.entries, ns)
	}
	return nil
}

// cacheNamespace is a node's namespace in the cache (LangGraph.js
// [CACHE_NS_WRITES, node, node]).
func cacheNamespace(node string) string { return "__pregel_ns_writes," + node }

// ClearCache drops the cached writes of the given nodes (none: of every
// node), LangGraph's clear_cache.
func (g *Graph) ClearCache(ctx context.Context, nodes ...string) error {
	if g.cache == nil {
		return nil
	}
	if len(nodes) == 0 {
		return g.cache.Clear(ctx)
	}
	ns := make([]string, len(nodes))
	for i, n := range nodes {
		if g.nodes[n] == nil || n == Start {
			return fmt.Errorf("clear cache: %w: %q", ErrUnknownNode, n)
		}
		ns[i] = cacheNamespace(n)
	}
	return g.cache.Clear(ctx, ns...)
}

// cacheKeyOf makes t's cache key, or false when its node is not cached.
func (g *Graph) cacheKeyOf(t *task) (CacheKey, bool, error) {
	p := t.node.cache
	if p == nil || g.cache == nil {
		return CacheKey{}, false, nil
	}
	var key string
	if p.Key != nil {
		k, err := cacheKey(p.Key, t.input)
		if err != nil {
			return CacheKey{}, false, fmt.Errorf("cache key of %q: %w", t.name, err)
		}
		key = k
	} else {
		b, err := EncodeValue([]any{t.input})
		if err != nil {
			return CacheKey{}, false, fmt.Errorf("cache key of %q: %w", t.name, err)
		}
		sum := sha256.Sum256(b)
		key = hex.EncodeToString(sum[:16])
	}
	return CacheKey{NS: cacheNamespace(t.name), Key: key}, true, nil
}

// cacheKey is key(input), with a panic of key as its error.
func cacheKey(key func(any) (string, error), input any) (k string, err error) {
	defer func() {
		if r := recover(); r != nil {
			k, err = "", panicError("the cache policy's Key", r)
		}
	}()
	return key(input)
}

// matchCachedWrites gives the planned tasks that have no writes yet the
// writes cached for their input, saves them as the tasks' writes and marks
// them cached, so the superstep does not run them (LangGraph.js
// pregel/index.ts: _matchCachedWrites after tick, then putWrites).
//
// Tasks whose keys are equal (two Sends to a cached node with one key) are
// matched as LangGraph.js matches them (loop.ts:911-950; 1.7.3 dist
// loop.js:583-608, index.js:1320): the key goes into the lookup once per
// task, but the key-to-task map keeps only the last task with that key, so
// every hit lands on that task — its writes are the cached ones once per
// such task, saved once and streamed once per hit — while the others find none
// and run.
func (l *loop) matchCachedWrites(ctx context.Context) error {
	if l.g.cache == nil {
		return nil
	}
	var keys []CacheKey
	var last map[CacheKey]*task
	for _, t := range l.tasks {
		if t.result.Reused || t.node.cache == nil {
			continue
		}
		k, ok, err := l.g.cacheKeyOf(t)
		if err != nil || !ok {
			return err
		}
		t.cacheKey = &k
		keys = append(keys, k)
		if last == nil {
			last = map[CacheKey]*task{}
		}
		last[k] = t
	}
	var matched []*task
	for _, k := range keys {
		writes, hit, err := l.g.cache.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("reading the cache for %q: %w", last[k].name, err)
		}
		if !hit {
			continue
		}
		t := last[k]
		// LangGraph.js's InMemoryCache keeps writes serialized
		// (checkpoint cache/memory.ts:50 dumpsTyped), and a Send comes
		// back as the plain {node, args} object (serde/jsonplus.ts:213).
		for i, w := range writes {
			if w.Channel == TasksChannel {
				writes[i].Value = storedSend(w.Value)
			}
		}
		t.writes = append(t.writes, writes...)
		matched = append(matched, t)
	}
	for _, t := range matched {
		r := &t.result
		if !r.Cached { // a second putWrites of the same writes replaces them (loop.js:538)
			r.Reused, r.Done, r.Cached, r.Writes = true, true, true, t.writes
			if err := l.putTaskWrites(ctx, t, t.writes); err != nil {
				return err
			}
		}
		if l.emit != nil {
			l.emit(Event{Kind: EventCached, Step: l.step, Node: t.name, TaskID: t.id(), Writes: t.writes, Update: l.g.stateUpdate(t.writes)})
		}
	}
	return nil
}

// cacheWrites stores a finished task's writes under its cache key; a task
// that wrote nothing caches the marker that says so, which a hit then
// reuses (LangGraph.js caches the writes putWrites saves, __no_writes__
// among them: 1.7.3 dist pregel/loop.js:554-563, runner.js:212-215).
func (l *loop) cacheWrites(ctx context.Context, t *task, writes []Write) error {
	if t.cacheKey == nil {
		return nil
	}
	if len(writes) == 0 {
		writes = []Write{{Channel: NoWritesChannel}}
	}
	return l.g.cache.Set(ctx, *t.cacheKey, writes, t.node.cache.TTL)
}
