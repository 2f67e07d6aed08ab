package engine

import (
	"sync/atomic"
	"unsafe"
)

// A node nearly always writes the same channels in the same order: a chain
// step its state keys and its edge, a Send's worker its reducer key. Finding
// each written channel by name (a map lookup per write, once when the task
// normalizes its update and once when the superstep applies it) was a large
// part of a wide superstep. So each node remembers the last list of names
// it resolved, with their channel ids, and the next task of the node only
// compares its names with that list: equal strings, usually the very same
// ones, cost far less than hashing them.
//
// What a name resolves to is fixed when the graph is compiled, so a
// remembered list is never stale; it only has to match. The list is
// immutable once published, and nodes are shared by every run of the graph,
// so it is published through an atomic pointer: tasks of one superstep read
// it concurrently.

// idList is a list of channel names and what each resolved to (-1: a name
// the caller skips).
type idList struct {
	names []string
	ids   []chanID
}

// idCache remembers a node's last idList.
type idCache struct {
	last atomic.Pointer[idList]
	// misses counts the lists published since the last hit: a node whose
	// names keep changing stops publishing new ones (each costs an
	// allocation) after maxIDMisses, and resolves by name as before.
	misses atomic.Uint32
}

// maxIDMisses is how many lists in a row a node publishes without a hit.
const maxIDMisses = 16

// hit notes that the remembered list matched.
func (c *idCache) hit() {
	if c.misses.Load() != 0 {
		c.misses.Store(0)
	}
}

// publish makes l the remembered list, unless the node has missed too
// often.
func (c *idCache) publish(l *idList) {
	if c.misses.Add(1) <= maxIDMisses {
		c.last.Store(l)
	}
}

// wantsList reports whether a miss should build a list to publish.
func (c *idCache) wantsList() bool { return c.misses.Load() < maxIDMisses }

// sameString is a == b, without a call when they are the same string (a
// node's keys usually are: constants, or strings it made once).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// writeChannel is the id of the channel a task's write goes to, or -1 when
// applyWrites skips it: a reserved name (not a channel), or a channel the
// graph does not have (LangGraph ignores writes to unknown channels).
func (g *Graph) writeChannel(name string) chanID {
	if reservedWrite(name) {
		return -1
	}
	if id, ok := g.chanIDs[name]; ok {
		return id
	}
	return -1
}

// writeIDs and stateKeys compare names in a loop of their own each: one
// generic matcher over both element types (tried) is not inlined, costs a
// call per name, and deepens nodeWrites' calls enough that every Send task
// of a fan-out grew its stack.

// writeIDs returns the channel ids of t's writes, in order (-1: skipped;
// see writeChannel). The slice is shared: read it before the next call.
func (cs *channelState) writeIDs(t *task) []chanID {
	ws := t.writes
	var c *idCache
	if n := t.node; n != nil && !n.call { // a Task call's node is made per call
		c = &n.writeIDs
		if ids := n.knownWriteIDs(ws); ids != nil {
			c.hit()
			return ids
		}
	}
	if c != nil && c.wantsList() {
		l := &idList{names: make([]string, len(ws)), ids: make([]chanID, len(ws))}
		for i, w := range ws {
			l.names[i], l.ids[i] = w.Channel, cs.g.writeChannel(w.Channel)
		}
		c.publish(l)
		return l.ids
	}
	sc := cs.sc()
	ids := sc.ids[:0]
	for _, w := range ws {
		ids = append(ids, cs.g.writeChannel(w.Channel))
	}
	sc.ids = ids
	return ids
}

// rememberedFor returns node n's remembered id list if it has one for
// len(ws) names (nil if not, or n is nil or a Task call's).
func (n *node) rememberedFor(ws []Write) *idList {
	if n == nil || n.call {
		return nil
	}
	l := n.writeIDs.last.Load()
	if l == nil || len(l.names) != len(ws) {
		return nil
	}
	return l
}

// knownWriteIDs returns the channel ids of writes, a task of node n's,
// if they are the node's remembered list's (nil if not). The slice is
// shared and immutable.
func (n *node) knownWriteIDs(ws []Write) []chanID {
	l := n.rememberedFor(ws)
	if l == nil {
		return nil
	}
	for i := range ws {
		if !sameString(l.names[i], ws[i].Channel) {
			return nil
		}
	}
	return l.ids
}

// sameWriteIDs is knownWriteIDs for names that are the very strings of
// the remembered list (a node's usually are), and nil for names equal
// only in content: it compares no bytes, for a caller that has another
// way (MemorySaver keeps those writes' channels by name).
func (n *node) sameWriteIDs(ws []Write) []chanID {
	l := n.rememberedFor(ws)
	if l == nil {
		return nil
	}
	for i := range ws {
		if len(l.names[i]) != len(ws[i].Channel) || unsafe.StringData(l.names[i]) != unsafe.StringData(ws[i].Channel) {
			return nil
		}
	}
	return l.ids
}

// stateKeys returns, for the keys of a node's update, a list whose ids
// are their channels if they are state keys and -1 if not; nil when node
// n has no list for these keys and publishes none (the caller then asks
// IsStateKey). Safe for concurrent use by the tasks of a superstep.
func (g *Graph) stateKeys(n *node, pairs Update) *idList {
	if n == nil || n.call {
		return nil
	}
	c := &n.updateKeys
	if l := c.last.Load(); l != nil && len(l.names) == len(pairs) {
		match := true
		for i := range pairs {
			if !sameString(l.names[i], pairs[i].Key) {
				match = false
				break
			}
		}
		if match {
			c.hit()
			return l
		}
	}
	if !c.wantsList() {
		return nil
	}
	l := &idList{names: make([]string, len(pairs)), ids: make([]chanID, len(pairs))}
	for i, kv := range pairs {
		l.names[i], l.ids[i] = kv.Key, -1
		if _, ok := g.keyIndex[kv.Key]; ok {
			l.ids[i] = g.chanIDs[kv.Key]
		}
	}
	c.publish(l)
	return l
}
