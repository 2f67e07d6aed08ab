package engine

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// This file holds the pure superstep algorithm (LangGraph's _algo): planning
// the next tasks, applying a superstep's writes, and deciding breakpoints. It
// works on a channelState and plain task values only — no context, clock,
// goroutine or storage — so it is table-tested directly.

// channelState is the mutable state of a run between supersteps: channel
// contents, versions and versions_seen. The loop owns it; tasks only read it
// during Execute, when nothing writes it.
type channelState struct {
	g *Graph
	// chans are the run's channels by id (Graph.chanIDs); channel finds one
	// by name.
	chans []channel
	// seen holds versions_seen of the names that are not nodes with
	// slots (seenV): the input, __start__, __interrupt__. A checkpoint
	// shares it; inner maps are never modified in place.
	seen namedSeen
	// ver holds the graph's channels' versions by channel id (0: none);
	// extraVer those a restored checkpoint has for channels the graph
	// lacks (never changed: nothing writes them).
	ver      []Version
	extraVer map[string]Version
	// extraSeen holds, by node, what a restored checkpoint's versions_seen
	// has of channels that are not the node's triggers (kept as they are:
	// a node's run changes only its triggers' entries).
	extraSeen map[string]map[string]Version
	// verLog and valLog record the changes of versions (with the nodes'
	// versions_seen: see verIndex) and of the channels' stored values (by
	// channel id) between checkpoints, which snapshot only those.
	verLog idLog[Version]
	valLog idLog[any]
	// valuesOff stops logging values and versions, for a run whose
	// checkpoints nobody reads (no saver, no listener; such a run restored
	// no checkpoint); checkpoint takes them whole if asked after all.
	valuesOff bool
	// state holds the available state keys. It is also the view tasks
	// read (stateView): the loop changes it in place, unless it was lent
	// to someone who may read it later (see stateview.go).
	state map[string]any
	view  viewLending
	// keyed mirrors state by key position, for a graph read that way
	// (statekeys.go); nil otherwise.
	keyed []any
	// log records which state keys each generation of the view changed,
	// for StateChanges (stateview.go).
	log viewLog
	// seenOwned marks the versions_seen maps made since the last snapshot
	// (their entry is seenGen): no checkpoint shares them, so they are
	// updated in place. A snapshot moves seenGen on instead of clearing.
	seenOwned map[string]uint64
	seenGen   uint64
	// seenV holds what each node saw of each of its triggers (its
	// versions_seen), node.seenAt-1 onwards by trigger index (0: nothing),
	// and seenRan which nodes have a versions_seen entry at all. A
	// checkpoint makes maps of them only when read.
	seenV   []Version
	seenRan []bool
	// live lists the ephemeral and topic channels that have a value: the
	// only ones an untouched superstep must clear. Few at a time.
	live []chanID
	// maxV is the greatest version of any channel, kept as versions change
	// so a superstep's version costs nothing.
	maxV Version
	// dirty lists the channels whose version changed since the last
	// checkpoint was stored (a saver stores only those values), possibly
	// more than once. A list, not a set: forgetting it costs nothing, where
	// clearing a map costs its largest size every superstep.
	dirty []string
	// dirtyOff stops listing them, for a saver that keeps the engine's
	// snapshots whole and has no use for the list (newVersionsFor).
	dirtyOff bool
	// kept: a saver keeps every checkpoint of the run (keepsSnapshots),
	// so checkpoints are keptCheckpoints, carved from slabs (see
	// newKept).
	kept bool
	// slab holds checkpoints, those from slabAt on not handed out yet;
	// made counts those handed out (a slab's size follows it). The slab
	// stays put while it is handed out, and only the count moves: moving
	// the slice would be a pointer write a checkpoint, through the write
	// barrier while the collector marks.
	slab   []keptCheckpoint
	slabAt int
	made   int
	// ids holds room for checkpoint ids (idRoom), from idsAt on not
	// handed out yet (it stays put, as slab does).
	ids   []byte
	idsAt int
	// mores holds room for kept checkpoints' lazyMore, from moreAt on
	// not handed out yet (newMore).
	mores  []lazyMore
	moreAt int
	// updatedIDs holds the room not handed out yet for a kept run's
	// updated-channel lists, by id (keepUpdated).
	updatedIDs []int32
	// versionless makes applyWrites change channels without versioning
	// them, as state snapshots apply saved writes (LangGraph.js
	// pregel/index.ts _prepareStateSnapshot and Python main.py
	// _prepare_state_snapshot pass no next-version function): a node a
	// snapshot's null write triggers has no newer version, so it is not
	// listed as next.
	versionless bool
	// appends holds, for list channels whose last update only appended,
	// how their value extends the one at their previous version (see
	// Checkpoint.Appends). Checkpoints share it: appendsShared says the
	// next change must copy it first.
	appends       map[string]ListAppend
	appendsShared bool
	// scratch is applyWrites' working memory, kept between supersteps
	// (and between runs: see takeScratch). Read it through sc.
	scratch *applyScratch
	// spareWrites is the memory of the last lone task's writes, which the
	// next lone task may write into (loop.keepWrites).
	spareWrites []Write
	// candidates and pulls are planning's working memory.
	candidates []*node
	// hintIDs holds the ids of the channels the last hint names (hint).
	hintIDs []chanID
	pulls   []firedNode
}

// applyScratch holds applyWrites' temporary lists; reusing them keeps a
// superstep from allocating them anew.
type applyScratch struct {
	consume, live, touched []chanID
	// groups holds a superstep's writes grouped by channel, in the order of
	// each channel's first write; slot holds, by channel id, 1 + the index
	// of the channel's group (0: none yet). Both are emptied, not freed,
	// between supersteps, and a group's slice is reused.
	groups []channelWrites
	slot   []int32
	// updated is the returned list's memory while valuesOff or kept.
	updated []string
	// present collects the channels with a value for a base snapshot
	// (valuesBase).
	present []idEntry[any]
	// updatedIDs are the returned channels' ids, in the same order.
	updatedIDs []chanID
	// ids holds a task's write channels when its node keeps none
	// (writeIDs).
	ids []chanID
	// unknown are the writes of the last applyWrites that routed to a
	// node the graph does not have, which it dropped (as LangGraph does).
	unknown []unknownDest
}

// unknownDest is a route or goto of task t to node, which the graph does
// not have.
type unknownDest struct {
	t    *task
	node string
}

type channelWrites struct {
	id  chanID
	ch  channel
	one [1]any // the channel's only write, as most get one a superstep
	// more holds all its writes once a second one came (reused).
	more []any
}

// vals are the channel's writes, in order. The slice may point into the
// group itself: use it before the groups change.
func (cw *channelWrites) vals() []any {
	if len(cw.more) > 0 {
		return cw.more
	}
	return cw.one[:]
}

func (sc *applyScratch) reset() {
	sc.consume, sc.live, sc.touched = sc.consume[:0], sc.live[:0], sc.touched[:0]
	sc.updatedIDs = sc.updatedIDs[:0]
	for i := range sc.groups {
		cw := &sc.groups[i]
		cw.one[0] = nil // the channels keep what they need
		if len(cw.more) > 0 {
			clear(cw.more)
			cw.more = cw.more[:0]
		}
		// One by one: clearing all slots would cost the graph's size.
		sc.slot[cw.id] = 0
	}
	sc.groups = sc.groups[:0]
	clear(sc.unknown)
	sc.unknown = sc.unknown[:0]
}

// sc is the run's applyScratch, taken from the graph's pool on first use.
func (cs *channelState) sc() *applyScratch {
	if cs.scratch == nil {
		cs.scratch = cs.g.takeScratch()
	}
	return cs.scratch
}

// takeScratch returns working memory for applyWrites: what an earlier run
// of the graph gave back (releaseScratch), or new. A wide graph's first
// superstep grows it to hundreds of channels, which each run paid for
// again.
func (g *Graph) takeScratch() *applyScratch {
	if g.scratchPool != nil {
		if sc, ok := g.scratchPool.Get().(*applyScratch); ok {
			return sc
		}
	}
	return &applyScratch{slot: make([]int32, len(g.channelOrder))}
}

// releaseScratch gives the run's working memory back to the graph, for a
// run that will apply no more writes. It keeps no values.
func (cs *channelState) releaseScratch() {
	sc := cs.scratch
	if sc == nil {
		return
	}
	cs.scratch = nil
	if cs.g.scratchPool == nil {
		return
	}
	sc.reset()
	clear(sc.updated) // names only, but the next run's are others
	sc.updated = sc.updated[:0]
	cs.g.scratchPool.Put(sc)
}

// add groups value under channel id.
func (sc *applyScratch) add(id chanID, ch channel, value any) {
	i := int(sc.slot[id]) - 1
	if i < 0 {
		i = len(sc.groups)
		sc.slot[id] = int32(i + 1)
		if i < cap(sc.groups) {
			sc.groups = sc.groups[:i+1]
			sc.groups[i].id, sc.groups[i].ch = id, ch
		} else {
			sc.groups = append(sc.groups, channelWrites{id: id, ch: ch})
		}
		sc.groups[i].one[0] = value
		return
	}
	cw := &sc.groups[i]
	if len(cw.more) == 0 {
		cw.more = append(cw.more, cw.one[0])
	}
	cw.more = append(cw.more, value)
}

// setVersion gives channel id version v, unless the state is versionless.
func (cs *channelState) setVersion(id chanID, v Version) {
	if cs.versionless {
		return
	}
	cs.ver[id] = v
	cs.maxV = max(cs.maxV, v)
	if cs.valuesOff {
		return // nobody reads which changed
	}
	cs.verLog.note(int32(id), v) // a channel's version: verIndex is id
	if !cs.dirtyOff {
		cs.dirty = append(cs.dirty, cs.g.channelOrder[id])
	}
	if len(cs.appends) > 0 {
		c := cs.g.channelOrder[id]
		if _, ok := cs.appends[c]; ok {
			cs.ownAppends()
			delete(cs.appends, c)
		}
	}
}

// appender is a channel that can tell when its last update only appended
// to a list.
type appender interface {
	// lastAppend returns the list's length before the last update, when
	// that update only appended to it.
	lastAppend() (int, bool)
}

// noteAppend records that channel c, now at a new version, holds its value
// at version from followed by what its last update appended, if so. Not
// while no checkpoint is made: appends stays empty, which a checkpoint
// asked for after all reads as "nothing known".
func (cs *channelState) noteAppend(c string, ch channel, from Version) {
	if cs.valuesOff || cs.versionless || from == 0 {
		return
	}
	a, ok := ch.(appender)
	if !ok {
		return
	}
	if n, ok := a.lastAppend(); ok {
		cs.ownAppends()
		cs.appends[c] = ListAppend{From: from, Len: n}
	}
}

// ownAppends makes cs.appends safe to change.
func (cs *channelState) ownAppends() {
	if cs.appends == nil {
		cs.appends = map[string]ListAppend{}
	} else if cs.appendsShared {
		cs.appends = maps.Clone(cs.appends)
	}
	cs.appendsShared = false
}

// takeDirty returns the versions changed since the last call.
func (cs *channelState) takeDirty() map[string]Version {
	out := make(map[string]Version, len(cs.dirty))
	for _, c := range cs.dirty {
		out[c], _ = cs.versionOf(c)
	}
	cs.forgetDirty()
	return out
}

// forgetDirty forgets which channels changed (no saver wants to know).
func (cs *channelState) forgetDirty() {
	clear(cs.dirty) // no dangling references to channel names
	cs.dirty = cs.dirty[:0]
}

// newChannelState restores the channels of g from cp (nil: a new thread).
func newChannelState(g *Graph, cp *Checkpoint) *channelState {
	cs := &channelState{
		g:         g,
		chans:     make([]channel, len(g.channelOrder)),
		ver:       make([]Version, len(g.channelOrder)),
		state:     make(map[string]any, len(g.keys)),
		view:      viewLending{stale: true},
		seenOwned: map[string]uint64{},
		seenGen:   1,
		seenV:     make([]Version, g.seenSlots),
		seenRan:   make([]bool, len(g.nodeOrder)),
	}
	cs.view.id.Store(mapID(cs.state))
	cs.keepKeyed()
	lazy := cp.lazyState()
	var values []any
	if lazy != nil && lazy.g != g {
		// Another graph's checkpoint: ids differ, names do not.
		cp.Materialize()
		lazy = nil
	}
	if lazy != nil {
		values = lazy.values.flat()
	}
	slab := g.newChannelSlab()
	for id, name := range g.channelOrder {
		ch := g.newChannel(chanID(id), slab)
		cs.chans[id] = ch
		if cp == nil {
			if _, ok := ch.get(); !ok {
				continue // nothing to show: the state and live list start empty
			}
		} else {
			var v any
			var ok bool
			if lazy != nil {
				v = values[id]
				ok = v != absent
			} else {
				v, ok = cp.ChannelValues[name]
			}
			if ok {
				ch.restore(v)
			}
		}
		cs.refresh(chanID(id))
	}
	switch {
	case lazy != nil:
		cs.seen = sharing(lazy.seen)
		cs.extraVer, cs.extraSeen = lazy.extras()
		all := lazy.versions.flat()
		cs.restoreIndexed(all)
	case cp != nil:
		// Inner versions_seen maps are never modified in place (see
		// applyWrites), so they are shared with the checkpoint.
		for name, seen := range cp.VersionsSeen {
			if !cs.mirrorSeen(name, seen) {
				cs.seen.set(name, seen)
			}
		}
	}
	for _, v := range cs.extraVer {
		cs.maxV = max(cs.maxV, v)
	}
	if lazy == nil && cp != nil {
		for name, v := range cp.ChannelVersions {
			cs.maxV = max(cs.maxV, v)
			if id, ok := g.chanIDs[name]; ok {
				cs.ver[id] = v
			} else {
				if cs.extraVer == nil {
					cs.extraVer = map[string]Version{}
				}
				cs.extraVer[name] = v
			}
		}
	}
	return cs
}

// The indexed snapshot (verLog) holds, by index: the channels' versions
// by channel id, then the nodes' versions_seen slots (seenV), then 1 for
// each node that has a versions_seen entry (seenRan), by node order.
func (cs *channelState) verIndexLen() int {
	return len(cs.ver) + len(cs.seenV) + len(cs.seenRan)
}

// allIndexed is the indexed snapshot's contents, in a new slice.
func (cs *channelState) allIndexed() []Version {
	out := make([]Version, 0, cs.verIndexLen())
	out = append(append(out, cs.ver...), cs.seenV...)
	for _, ran := range cs.seenRan {
		out = append(out, b2v(ran))
	}
	return out
}

// restoreIndexed sets versions and the nodes' versions_seen from an
// indexed snapshot's contents.
func (cs *channelState) restoreIndexed(all []Version) {
	n := copy(cs.ver, all)
	n += copy(cs.seenV, all[n:])
	for i, ran := range all[n:] {
		cs.seenRan[i] = ran != 0
	}
	for _, v := range cs.ver {
		cs.maxV = max(cs.maxV, v)
	}
}

func b2v(b bool) Version {
	if b {
		return 1
	}
	return 0
}

// seenFromIndexed is versions_seen of g's nodes in an indexed snapshot's
// contents all, with extra (see channelState.extraSeen), added to out.
func seenFromIndexed(g *Graph, all []Version, extra map[string]map[string]Version, out map[string]map[string]Version) {
	seenV := all[len(g.channelOrder) : len(g.channelOrder)+g.seenSlots]
	ran := all[len(g.channelOrder)+g.seenSlots:]
	for i, name := range g.nodeOrder {
		if ran[i] != 0 {
			n := g.nodes[name]
			out[name] = slotsMap(n, seenV[n.seenAt-1:n.seenAt-1+len(n.triggers)], extra[name])
		}
	}
}

// seenSlots are node n's versions_seen of its triggers, by trigger index.
func (cs *channelState) seenSlots(n *node) []Version {
	return cs.seenV[n.seenAt-1 : n.seenAt-1+len(n.triggers)]
}

// mirrorSeen copies name's versions_seen into its slots, if it is a node
// that has them, and reports whether it did.
func (cs *channelState) mirrorSeen(name string, seen map[string]Version) bool {
	n := cs.g.nodes[name]
	if n == nil || n.seenAt == 0 {
		return false
	}
	cs.seenRan[n.ord] = true
	slots := cs.seenSlots(n)
	for i, trig := range n.triggers {
		slots[i] = seen[trig]
	}
	var extra map[string]Version
	for c, v := range seen {
		if !slices.Contains(n.triggers, c) {
			if extra == nil {
				extra = map[string]Version{}
			}
			extra[c] = v
		}
	}
	if _, had := cs.extraSeen[name]; extra != nil || had {
		// A new outer map each time: checkpoints may share the old one.
		cs.extraSeen = maps.Clone(cs.extraSeen)
		if cs.extraSeen == nil {
			cs.extraSeen = map[string]map[string]Version{}
		}
		if extra != nil {
			cs.extraSeen[name] = extra
		} else {
			delete(cs.extraSeen, name)
		}
	}
	return true
}

// setSeen makes seen name's versions_seen (a map nobody changes after).
func (cs *channelState) setSeen(name string, seen map[string]Version) {
	if cs.mirrorSeen(name, seen) {
		cs.verLog.restart() // rare (tests): the next snapshot is a base
		return
	}
	cs.seen.set(name, seen)
}

// slotsMap is node n's versions_seen as a map, from its slots and what
// it has of other channels (extra).
func slotsMap(n *node, slots []Version, extra map[string]Version) map[string]Version {
	out := maps.Clone(extra)
	if out == nil {
		out = map[string]Version{}
	}
	for i, v := range slots {
		if v != 0 {
			out[n.triggers[i]] = v
		}
	}
	return out
}

// seenMap returns versions_seen whole, in new outer maps.
func (cs *channelState) seenMap() map[string]map[string]Version {
	out := cs.seen.toMap()
	for i, name := range cs.g.nodeOrder {
		if cs.seenRan[i] {
			n := cs.g.nodes[name]
			out[name] = slotsMap(n, cs.seenSlots(n), cs.extraSeen[name])
		}
	}
	return out
}

// versionOf is channel name's version, if it has one.
func (cs *channelState) versionOf(name string) (Version, bool) {
	if id, ok := cs.g.chanIDs[name]; ok {
		return cs.ver[id], cs.ver[id] != 0
	}
	v, ok := cs.extraVer[name]
	return v, ok
}

// eachVersion calls fn with every channel's version.
func (cs *channelState) eachVersion(fn func(name string, v Version)) {
	for name, v := range cs.extraVer {
		fn(name, v)
	}
	for id, v := range cs.ver {
		if v != 0 {
			fn(cs.g.channelOrder[id], v)
		}
	}
}

// versionMap returns every channel's version in a new map.
func (cs *channelState) versionMap() map[string]Version {
	out := map[string]Version{}
	cs.eachVersion(func(name string, v Version) { out[name] = v })
	return out
}

// hasVersions reports whether any channel has a version.
func (cs *channelState) hasVersions() bool {
	return cs.maxV > 0 || len(cs.extraVer) > 0
}

// refresh re-reads one channel's snapshot and liveness after it changed.
func (cs *channelState) refresh(id chanID) {
	ch, name, meta := cs.chans[id], cs.g.channelOrder[id], cs.g.chanMeta[id]
	if !cs.valuesOff && cs.valLog.last != nil {
		cs.valLog.note(int32(id), storedValue(ch))
	}
	if key := meta.key; key >= 0 {
		v, ok := ch.get()
		cs.setState(name, key, v, ok)
		return
	}
	if meta.clears {
		_, avail := ch.get()
		i := slices.Index(cs.live, id)
		switch {
		case avail && i < 0:
			cs.live = append(cs.live, id)
		case !avail && i >= 0:
			cs.live = slices.Delete(cs.live, i, i+1)
		}
	}
}

// refreshAll refreshes the channels ids. A state key that is a
// LastValue, the usual one, is set here without refresh's calls, and its
// stored value logged for the next checkpoint's snapshot as refresh
// would (a run with a saver or a listener: every superstep).
func (cs *channelState) refreshAll(ids []chanID) {
	if cs.view.lent.Load() {
		for _, id := range ids {
			cs.refresh(id)
		}
		return
	}
	meta := cs.g.chanMeta
	logged := !cs.valuesOff && cs.valLog.last != nil
	for _, id := range ids {
		lv, isLV := cs.chans[id].(*lastValue)
		key := meta[id].key
		if !isLV || key < 0 {
			cs.refresh(id)
			continue
		}
		if logged {
			cs.valLog.note(int32(id), lv.stored())
		}
		// setState's work, for a map not lent. Checked once, above: the
		// superstep's tasks have returned, and an attempt abandoned by
		// its timeout lent the map when it was abandoned.
		cs.putState(cs.g.channelOrder[id], key, lv.val, lv.has)
	}
}

// channel is the run's channel named name (nil: the graph has none).
func (cs *channelState) channel(name string) channel {
	if id, ok := cs.g.chanIDs[name]; ok {
		return cs.chans[id]
	}
	return nil
}

func (cs *channelState) available(name string) bool {
	ch := cs.channel(name)
	if ch == nil {
		return false
	}
	_, avail := ch.get()
	return avail
}

// output is an entrypoint's output, its __end__ value (nil for a
// StateGraph).
func (cs *channelState) output() any {
	if !cs.g.entrypoint {
		return nil
	}
	v, _ := cs.channel(End).get()
	return v
}

// stateValues returns the graph state: every state key that has a value.
// The map is the caller's; the values in it are shared and immutable.
func (cs *channelState) stateValues() map[string]any {
	return maps.Clone(cs.state)
}

// stateView returns the graph state as tasks read it: shared with every
// other reader, nobody may modify it, and valid until the loop changes the
// state (stateview.go).
func (cs *channelState) stateView() map[string]any {
	if cs.view.stale {
		cs.view.stale = false
		cs.log.built()
	}
	return cs.state
}

// pushTriggers is every PUSH task's trigger list (shared: nobody writes it).
var pushTriggers = []string{Push}

// taskKind tells PULL tasks (triggered by channels) from PUSH tasks (Sends).
type taskKind uint8

const (
	pullTask taskKind = iota
	pushTask
)

// task is one unit of work of a superstep.
type task struct {
	// ident is the task's id once made (see id); planning leaves it empty
	// unless someone will read it.
	ident  string
	idOnce sync.Once
	// kind sits in idOnce's padding: a task of 560 bytes or less (and its
	// pointer, and the allocator's header) fits the 576-byte size class.
	kind taskKind
	// saveOnLoop: the task succeeded and the loop's goroutine saves and
	// reports it (fanout.commitOnLoop); set by settle, read by the loop
	// after the task's goroutine ended.
	saveOnLoop bool
	// nullGone: a Task call's task planned after a task of the superstep
	// took the run's plain resume value (newScope).
	nullGone bool
	// pendingRef: the loop's pending writes hold the task by reference
	// (pendingWrites.addTask; under the loop's mu).
	pendingRef bool
	name       string
	// index is a PUSH task's Send index in the task topic, a PULL task's
	// fired trigger's index in node.triggers.
	index    int
	triggers []string
	input    any
	node     *node
	// writes are the task's writes, in the order made: state keys, then
	// goto, then static edges, then routes. Empty until it ran (or its saved
	// writes were reused).
	writes []Write
	// parentNS is the namespace of the run planning the task (see
	// namespace).
	parentNS string
	// cpID and step are the checkpoint and superstep that planned the
	// task: with parentNS, what its id hashes.
	cpID string
	step int
	// result is what happened to the task.
	result TaskResult
	// scope is the running task's context (see newScope).
	scope taskScope
	// state says who settles the task when its superstep may abandon it
	// (taskQueued … taskAbandoned; runner.go claim).
	state atomic.Uint32
	// writeBuf holds the writes of a task that makes few, so they cost no
	// allocation of their own.
	writeBuf [4]Write
	// cacheKey is set for a task of a cached node (cache.go).
	cacheKey *CacheKey
}

// namespace is the task's checkpoint namespace, "<parent>|<node>:<id>".
// Only interrupts and subgraphs need it, so it is built on demand.
func (t *task) namespace() string { return TaskNamespace(t.parentNS, t.name, t.id()) }

// path is the task's path as LangGraph.js streams it (a planned task's
// PlannedTask.Path): [PULL, node], or [PUSH, Send index, false] (1.7.3
// dist pregel/algo.js:375, a Send's path cut to three elements and
// false added; :241 makes [PUSH, index]).
func (t *task) path() []any {
	if t.kind == pushTask {
		return []any{Push, t.index, false}
	}
	return []any{Pull, t.name}
}

// id is the task's id (LangGraph's, hashed from the checkpoint, namespace,
// step and task path: algo.py prepare_single_task). A run nobody watches or
// saves never reads most ids, so planning leaves them to be made here, on
// first use, from any goroutine: the node's own (CurrentTask, Interrupt) or
// the loop's.
func (t *task) id() string {
	t.idOnce.Do(t.makeID)
	return t.ident
}

func (t *task) makeID() {
	if t.ident == "" {
		t.ident = t.idFrom(taskIDPrefix(t.cpID, t.parentNS, t.step))
	}
}

// idFrom is the task's id from its superstep's id prefix.
func (t *task) idFrom(prefix fnv128a) string {
	if t.kind == pushTask {
		return prefix.pushID(t.name, t.index)
	}
	return prefix.pullID(t.name, t.triggers[0])
}

// nameTasks makes the ids of a superstep's planned tasks at once, sharing
// the hash of the parts they have in common: for runs that read every id
// (a saver stores writes by task id; listeners see them). Before the tasks
// run, so no goroutine reads them yet.
func nameTasks(tasks []*task) {
	if len(tasks) == 0 {
		return
	}
	t0 := tasks[0]
	prefix := taskIDPrefix(t0.cpID, t0.parentNS, t0.step)
	for _, t := range tasks {
		if t.ident == "" && t.cpID == t0.cpID && t.step == t0.step && t.parentNS == t0.parentNS {
			t.ident = t.idFrom(prefix)
		}
	}
}

// pathLess orders tasks as LangGraph's task_path_str does: PULL tasks by
// node name, then PUSH tasks by Send index.
func pathLess(a, b *task) bool {
	if a.kind != b.kind {
		return a.kind == pullTask
	}
	if a.kind == pullTask {
		return a.name < b.name
	}
	return a.index < b.index
}

func sortTasks(tasks []*task) []*task {
	if len(tasks) < 2 {
		return tasks
	}
	out := slices.Clone(tasks)
	sort.SliceStable(out, func(i, j int) bool { return pathLess(out[i], out[j]) })
	return out
}

// applyWrites ends a superstep: it records what each task saw, consumes
// barriers, applies the writes in task order giving every changed channel
// one new version, and clears ephemeral channels nobody wrote (only when real
// tasks ran). It returns the channels that became available with new values
// (the next planning hint), sorted.
func applyWrites(cs *channelState, tasks []*task) ([]string, error) {
	tasks = sortTasks(tasks)
	sc := cs.sc()
	sc.reset()
	bump := false
	for _, t := range tasks {
		if len(t.triggers) > 0 {
			bump = true
		}
		cs.see(t)
	}
	maxV := cs.maxV
	if cs.consumeSeen(sc, maxV+1) {
		maxV++
	}
	next := maxV + 1

	for _, t := range tasks {
		ids := cs.writeIDs(t)
		for i := range t.writes {
			if id := ids[i]; id >= 0 {
				sc.add(id, cs.chans[id], t.writes[i].Value)
			} else if node, ok := strings.CutPrefix(t.writes[i].Channel, BranchPrefix); ok {
				// A route to no node: no channel takes it (LangGraph.js
				// 1.7.3 dist pregel/algo.js:136 skips such a write).
				sc.unknown = append(sc.unknown, unknownDest{t, node})
			}
		}
	}
	var out []string
	if cs.valuesOff || cs.kept {
		// Nobody keeps the list past the next planning (no checkpoint
		// records it, or a kept one records a copy: keepUpdated), so it
		// is reused.
		out = sc.updated[:0]
	} else {
		out = make([]string, 0, len(sc.groups))
	}
	for i := range sc.groups {
		cw := &sc.groups[i]
		c, ch := cs.g.channelOrder[cw.id], cw.ch
		from := cs.ver[cw.id]
		changed, err := ch.update(cw.vals())
		if err != nil {
			return nil, err
		}
		if changed {
			cs.setVersion(cw.id, next)
			cs.noteAppend(c, ch, from)
			sc.touched = append(sc.touched, cw.id)
			if _, avail := ch.get(); avail {
				out = append(out, c)
				sc.updatedIDs = append(sc.updatedIDs, cw.id)
			}
		}
	}
	if bump {
		cs.clearUnwritten(sc, out, next)
	}
	if bump && len(cs.g.finishable) > 0 && !triggersNextStep(cs.g, out) {
		out = cs.finishDeferred(sc, out, next)
	}
	cs.refreshAll(sc.touched)
	cs.g.sortUpdated(out, sc.updatedIDs)
	if cs.valuesOff || cs.kept {
		sc.updated = out
	}
	return out, nil
}

// consumeSeen consumes the channels the step's tasks were triggered by
// (barriers that reset once read), giving each that changed version ver,
// and says whether any did.
func (cs *channelState) consumeSeen(sc *applyScratch, ver Version) bool {
	consumed := false
	for _, id := range sc.consume {
		if cs.chans[id].consume() {
			cs.setVersion(id, ver)
			consumed = true
			sc.touched = append(sc.touched, id)
		}
	}
	return consumed
}

// clearUnwritten clears, in channel order, the ephemeral and topic
// channels this step did not update (out), giving each that changed
// version next.
func (cs *channelState) clearUnwritten(sc *applyScratch, out []string, next Version) {
	for _, id := range cs.live {
		if sc.slot[id] == 0 || !slices.Contains(out, cs.g.channelOrder[id]) {
			sc.live = append(sc.live, id)
		}
	}
	slices.Sort(sc.live)
	for _, id := range sc.live {
		if changed, _ := cs.chans[id].update(nil); changed {
			cs.setVersion(id, next)
			sc.touched = append(sc.touched, id)
		}
	}
}

// finishDeferred finishes the deferred nodes' channels when this is
// tentatively the last superstep, which may make their nodes runnable
// (Python pregel/_algo.py:335-342, LangGraph.js pregel/algo.ts:423-436):
// each that changed gets version next, and joins out when it has a value.
func (cs *channelState) finishDeferred(sc *applyScratch, out []string, next Version) []string {
	for _, c := range cs.g.finishable {
		id := cs.g.chanIDs[c]
		ch := cs.chans[id]
		if ch.finish() {
			cs.setVersion(id, next)
			sc.touched = append(sc.touched, id)
			if _, avail := ch.get(); avail {
				out = append(out, c)
				sc.updatedIDs = append(sc.updatedIDs, id)
			}
		}
	}
	return out
}

// sortUpdated sorts the updated channels' names, and their ids beside
// them (the same channels, in the same places), by name. It sorts the ids
// by their precomputed name rank and writes the names in that order:
// integer compares instead of string ones, where a graph's input
// superstep can update hundreds of channels.
func (g *Graph) sortUpdated(names []string, ids []chanID) {
	if len(ids) < 2 {
		return
	}
	rank := g.nameRank
	// Often sorted already (a wide input's writes come in name order), or
	// nearly (a node's state keys, then its edge): an insertion sort of
	// the ids then costs about a compare each, unless far out of order.
	lo, moves := len(ids), 0
	for i := 1; i < len(ids); i++ {
		id, r := ids[i], rank[ids[i]]
		j := i
		for ; j > 0 && rank[ids[j-1]] > r; j-- {
			ids[j] = ids[j-1]
		}
		if j == i {
			continue
		}
		ids[j], lo = id, min(lo, j)
		if moves += i - j; moves > 4*len(ids) {
			slices.SortFunc(ids, func(a, b chanID) int { return int(rank[a]) - int(rank[b]) })
			lo = 0
			break
		}
	}
	for i := lo; i < len(ids); i++ {
		names[i] = g.channelOrder[ids[i]]
	}
}

// see records in versions_seen what task t saw of its triggers (their
// versions now) and lists those channels to consume. A node's tasks are
// triggered by its own triggers, Push or the interrupt, so a node's
// versions_seen fits its slots; by name it is kept as well only while
// checkpoints are made, and for other task names (the input) always.
func (cs *channelState) see(t *task) {
	var slots []Version
	var at int // slots' index in the indexed snapshot
	if n := t.node; n != nil && n.seenAt > 0 && n.name == t.name {
		slots = cs.seenSlots(n)
		at = len(cs.ver) + n.seenAt - 1
		if !cs.seenRan[n.ord] {
			cs.seenRan[n.ord] = true
			if !cs.valuesOff {
				cs.verLog.note(int32(len(cs.ver)+len(cs.seenV)+n.ord), 1)
			}
		}
	}
	byName := slots == nil
	var seen map[string]Version
	if byName {
		var ok bool
		if seen, ok = cs.seen.get(t.name); !ok {
			seen = map[string]Version{}
			cs.seen.set(t.name, seen)
			cs.seenOwned[t.name] = cs.seenGen
		}
	}
	for _, trig := range t.triggers {
		if trig == Push || trig == InterruptChannel {
			continue // not channels: nothing seen, nothing to consume
		}
		id, slot := cs.trigger(t, trig)
		if id < 0 {
			continue
		}
		v := cs.ver[id]
		if v != 0 && slot >= 0 && slots != nil && slots[slot] != v {
			slots[slot] = v
			if !cs.valuesOff {
				cs.verLog.note(int32(at+slot), v)
			}
		}
		if byName && v != 0 && seen[trig] != v {
			if cs.seenOwned[t.name] != cs.seenGen {
				// Copy on write: a checkpoint shares this map.
				seen = maps.Clone(seen)
				cs.seen.set(t.name, seen)
				cs.seenOwned[t.name] = cs.seenGen
			}
			seen[trig] = v
		}
		if sc := cs.sc(); !slices.Contains(sc.consume, id) {
			sc.consume = append(sc.consume, id)
		}
	}
}

// trigger finds trigger trig of task t: its channel (-1: none) and its
// index in the node's triggers (-1: none). A planned PULL task's is known
// by index, any other's by name.
func (cs *channelState) trigger(t *task, trig string) (chanID, int) {
	if t.kind == pullTask && t.node != nil && t.node.seenAt > 0 && len(t.triggers) == 1 {
		return t.node.trigIDs[t.index], t.index
	}
	id, ok := cs.g.chanIDs[trig]
	if !ok {
		return -1, -1
	}
	if t.node != nil {
		return id, slices.Index(t.node.triggers, trig)
	}
	return id, -1
}

// planHint is the optional "updated channels" index hint of planning.
type planHint struct {
	known    bool
	channels []string
	// ids are the channels' ids when known (else they are looked up).
	ids []chanID
}

// onlyIf is h, known only if cond.
func (h planHint) onlyIf(cond bool) planHint {
	h.known = h.known && cond
	return h
}

// hint is the planning hint for updated, what applyWrites just returned:
// with its channels' ids, kept until the next hint is made.
func (cs *channelState) hint(updated []string) planHint {
	cs.hintIDs = append(cs.hintIDs[:0], cs.sc().updatedIDs...)
	return planHint{known: true, channels: updated, ids: cs.hintIDs}
}

// prepareNextTasks plans a superstep from the current channels: one PUSH task
// per pending Send, then one PULL task per node whose trigger is available
// and newer than what the node last saw. cpID, ns and step make task ids.
func prepareNextTasks(cs *channelState, cpID, ns string, step int, hint planHint) []*task {
	// First find the tasks, then allocate them all at once.
	var sends []Send
	var sendIdx []int
	if tc, ok := cs.chans[cs.g.tasksID].(*topic); ok {
		for i, packet := range tc.vals {
			s, ok := asSend(packet)
			if !ok {
				continue
			}
			if cs.g.nodes[s.Node] == nil {
				continue // LangGraph ignores Sends to unknown nodes (Start is one)
			}
			sends = append(sends, s)
			sendIdx = append(sendIdx, i)
		}
	}
	pulls := cs.pulls[:0]
	for _, n := range candidateNodes(cs, hint) {
		ti := firedTrigger(cs, n)
		if ti < 0 {
			continue
		}
		if n.start {
			if _, ok := cs.chans[cs.g.startID].get(); !ok {
				continue
			}
		}
		pulls = append(pulls, firedNode{n, ti})
	}
	cs.pulls = pulls
	tasks := newTasks(len(sends) + len(pulls))
	for i, s := range sends {
		// Field by field: the task is zeroed already, and a whole-struct
		// assignment would write all of it again.
		t := tasks[i]
		t.name, t.kind, t.index, t.triggers, t.input = s.Node, pushTask, sendIdx[i], pushTriggers, s.Arg
		t.node, t.parentNS, t.cpID, t.step = cs.g.nodes[s.Node], ns, cpID, step
	}
	for i, p := range pulls {
		n := p.node
		var input any
		if n.start || n.entry {
			input, _ = cs.chans[cs.g.startID].get()
		} else {
			input = cs.stateView()
		}
		t := tasks[len(sends)+i]
		// The node's own trigger list, cut to the fired one: no copy.
		t.name, t.kind, t.index, t.triggers, t.input = n.name, pullTask, p.trigger, n.triggers[p.trigger:p.trigger+1:p.trigger+1], input
		t.node, t.parentNS, t.cpID, t.step = n, ns, cpID, step
	}
	if len(tasks) == 1 && cs.spareWrites != nil {
		tasks[0].writes, cs.spareWrites = cs.spareWrites, nil // empty: it has not run
	}
	return tasks
}

// firedNode is a node planning found triggered, by its trigger's index.
type firedNode struct {
	node    *node
	trigger int
}

// newTasks allocates n zeroed tasks (prepareNextTasks relies on it): one allocation for the usual single
// task of a superstep, two for any other number.
func newTasks(n int) []*task {
	switch n {
	case 0:
		return nil
	case 1:
		b := new(struct {
			t   task
			ptr [1]*task
		})
		b.ptr[0] = &b.t
		return b.ptr[:]
	}
	out := make([]*task, n)
	var store []task
	for i := range out {
		if len(store) == 0 {
			// In blocks of at most 32 KB: small objects, which the
			// allocator reuses from its spans, where one large array per
			// superstep would go back to the OS and fault in again.
			store = make([]task, min(n-i, taskBlock))
		}
		out[i], store = &store[0], store[1:]
	}
	return out
}

// taskBlock is how many tasks newTasks allocates together.
const taskBlock = 32 << 10 / int(unsafe.Sizeof(task{}))

// TaskNamespace is the checkpoint namespace of the subgraph run by task id
// of node name, below parentNS (the task's own namespace, "" at the
// root): "name:id", nested ones joined by "|" (LangGraph's NS_END and
// NS_SEP, constants.py; _algo.py prepare_single_task's checkpoint_ns).
func TaskNamespace(parentNS, name, id string) string {
	if parentNS == "" {
		return name + ":" + id
	}
	return parentNS + "|" + name + ":" + id
}

// candidateNodes narrows planning to the nodes the hint's channels trigger,
// by name; without a hint it scans every node in nodeOrder (none if no
// channel has a version).
func candidateNodes(cs *channelState, hint planHint) []*node {
	if !hint.known {
		if !cs.hasVersions() {
			return nil
		}
		return cs.g.nodeList
	}
	ids := hint.ids
	if ids == nil {
		ids = cs.hintIDs[:0]
		for _, c := range hint.channels {
			if id, ok := cs.g.chanIDs[c]; ok {
				ids = append(ids, id)
			}
		}
		cs.hintIDs = ids
	}
	out := cs.candidates[:0]
	for _, id := range ids {
		if nodes := cs.g.trigNodes[id]; len(nodes) > 0 {
			out = append(out, nodes...) // each sorted already
		}
	}
	if len(ids) > 1 {
		slices.SortFunc(out, func(a, b *node) int { return strings.Compare(a.name, b.name) })
		out = slices.Compact(out)
	}
	cs.candidates = out
	return out
}

// firedTrigger returns the index of the first trigger of n that is
// available and newer than what n last saw (-1 if none): a node never run
// fires on any available trigger.
func firedTrigger(cs *channelState, n *node) int {
	seen := cs.seenSlots(n)
	for i, id := range n.trigIDs {
		if id < 0 {
			continue
		}
		if _, avail := cs.chans[id].get(); !avail {
			continue
		}
		if TriggerFires(true, cs.ver[id], seen[i]) {
			return i
		}
	}
	return -1
}

// TriggerFires is LangGraph's trigger rule for one of a node's trigger
// channels (pregel/_algo.py _triggers, :1260-1277): the channel is
// available and at a version newer than the one the node saw, a version
// it never saw counting as the null version, 0 (:1251-1257). A node runs
// as a PULL task in the next Plan when one of its triggers fires. Planning
// applies it to the run's channels; a debugger explaining why a node runs
// applies it to a StepView's Channels, Versions and VersionsSeen.
func TriggerFires(available bool, current, seen Version) bool {
	return available && current > seen
}

// shouldInterrupt reports whether a breakpoint on nodes fires for tasks: some
// channel changed since the last interrupt was passed, and a task runs one of
// the nodes ("*": any node but __start__).
func shouldInterrupt(cs *channelState, nodes []string, tasks []*task) bool {
	if len(nodes) == 0 {
		return false
	}
	seen, _ := cs.seen.get(InterruptChannel)
	anyUpdate := false
	cs.eachVersion(func(c string, v Version) {
		if v > seen[c] {
			anyUpdate = true
		}
	})
	if !anyUpdate {
		return false
	}
	for _, t := range tasks {
		if slices.Contains(nodes, "*") && t.name != Start {
			return true
		}
		if slices.Contains(nodes, t.name) {
			return true
		}
	}
	return false
}

// checkpoint snapshots the current channel state as a checkpoint with id
// and time ts in O(1): its maps are filled in only when someone reads
// them (see lazyCheckpoint). updated is the last superstep's hint (hint),
// its UpdatedChannels when known. In a kept run the checkpoint is a
// keptCheckpoint (kc; cp is nil), else a Checkpoint (cp; kc is nil).
func (cs *channelState) checkpoint(id string, ts time.Time, updated planHint) (cp *Checkpoint, kc *keptCheckpoint) {
	if cs.valuesOff {
		cs.valuesOff = false
		cs.sc().updated = nil // updated may be it: it is the checkpoint's now
		// Nothing was logged: the snapshots below are bases.
		cs.verLog.restart()
		cs.valLog.restart()
	}
	var lz *lazyCheckpoint
	if cs.kept {
		kc = cs.newKept()
		kc.setID(id, cs)
		kc.ts = ts
		lz = &kc.lazy
	} else {
		both := &checkpointAlloc{}
		cp = &both.cp
		cp.V, cp.ID, cp.TS = CheckpointFormat, id, ts
		lz = &both.lazy
		both.ref.lz = lz
		cp.lazy = &both.ref
	}
	lz.g = cs.g
	if cs.extraVer != nil || cs.extraSeen != nil {
		m := lz.moreOf(cs)
		m.extraVer, m.extraSeen = cs.extraVer, cs.extraSeen
	}
	cs.valLog.carve, cs.verLog.carve = cs.kept, cs.kept
	cs.valLog.snapshotTo(&lz.values, lz.valuesRoom[:], len(cs.chans), cs.valuesBase)
	cs.verLog.snapshotTo(&lz.versions, lz.versionsRoom[:], cs.verIndexLen(), cs.versionsBase)
	lz.seen = cs.seen.snapshot()
	if len(cs.appends) > 0 {
		if kc != nil {
			lz.moreOf(cs).appends = cs.appends
		} else {
			cp.Appends = cs.appends
		}
		cs.appendsShared = true
	}
	cs.seenGen++ // the snapshot shares every versions_seen map now
	switch {
	case !updated.known:
	case kc != nil && cs.keepUpdated(lz, updated):
		// Names when read (Materialize).
	case kc != nil:
		// Rare (a hint without ids): the public checkpoint is made now,
		// to hold a copy of the names (applyWrites reuses its list).
		kc.public().UpdatedChannels = append([]string{}, updated.channels...)
	default:
		// Shared, not copied: applyWrites makes a new list each superstep
		// while checkpoints are made, and nobody changes one.
		cp.UpdatedChannels = updated.channels
	}
	return cp, kc
}

// checkpointAlloc is a checkpoint, its lazy part and the link between
// them, in one allocation.
type checkpointAlloc struct {
	cp   Checkpoint
	ref  lazyRef
	lazy lazyCheckpoint
}

// checkpointSlabMax is the most checkpoints one slab holds: as many
// keptCheckpoints as fill the allocator's 8 KB size class.
const checkpointSlabMax = slabBytes / int(unsafe.Sizeof(keptCheckpoint{}))

// slabBytes is what an object with pointers may take of the allocator's
// 8 KB size class: past 512 bytes such an object starts with an 8-byte
// header of its type (runtime/malloc.go, mallocHeaderSize), so 8192
// bytes of it would take the next class (9472 bytes).
const slabBytes = 8192 - 8

// newKept returns a zero keptCheckpoint, carved from a slab, as many as
// the run has made so far (2 to checkpointSlabMax) in one allocation: the
// collector then allocates, marks and sweeps one object where it had up
// to 23, each cycle again for a MemorySaver's whole history. A slab stays
// alive while any of its checkpoints does; those of a kept run live as
// long as its history (each delta points to its parent anyway). A run
// whose saver does not keep every checkpoint makes each on its own: a
// slab would keep the siblings of any checkpoint it holds.
func (cs *channelState) newKept() *keptCheckpoint {
	if cs.slabAt == len(cs.slab) {
		cs.slab, cs.slabAt = make([]keptCheckpoint, min(max(cs.made, 2), checkpointSlabMax)), 0
	}
	c := &cs.slab[cs.slabAt]
	cs.slabAt++
	cs.made++
	return c
}

// newMore returns a zero lazyMore for a checkpoint cs makes: in a kept
// run carved from a slab of its own (a run that updates more channels a
// superstep than a checkpoint's room holds needs one for every
// checkpoint), else allocated alone, as the checkpoint is.
func (cs *channelState) newMore() *lazyMore {
	if cs == nil || !cs.kept {
		return &lazyMore{}
	}
	if cs.moreAt == len(cs.mores) {
		cs.mores, cs.moreAt = make([]lazyMore, 16), 0
	}
	cs.moreAt++
	return &cs.mores[cs.moreAt-1]
}

// idRoom returns room for a kept run's next checkpoint id, carved like
// its checkpoints from chunks (of as many ids as newCheckpoint's next
// slab holds), where each id was an allocation of its own that the
// collector marked again in every cycle. A chunk holds no pointer.
func (cs *channelState) idRoom() *[idLen]byte {
	if len(cs.ids)-cs.idsAt < idLen {
		cs.ids, cs.idsAt = make([]byte, idLen*min(max(cs.made, 2), checkpointSlabMax)), 0
	}
	b := (*[idLen]byte)(cs.ids[cs.idsAt:])
	cs.idsAt += idLen
	return b
}

// valuesBase is a full snapshot of the channels' values. When at most
// half of them have one (a graph of many nodes has a branch channel for
// each, nearly all empty), it lists only those, over the graph's snapshot
// of no values: a MemorySaver keeps every base of a run, and a full copy
// is mostly pointers to absent that each collection scans again.
func (cs *channelState) valuesBase() idFrozen[any] {
	present := cs.sc().present[:0]
	for id, ch := range cs.chans {
		// snapshot's ok, not storedValue's absent: comparing interfaces
		// of one type is a call, for each of chain_1000's empty channels.
		if v, ok := ch.snapshot(); ok {
			present = append(present, idEntry[any]{int32(id), v})
		}
	}
	defer func() {
		clear(present) // the scratch keeps no values
		cs.sc().present = present[:0]
	}()
	if len(present) > len(cs.chans)/2 {
		all := slices.Clone(cs.g.noValues.base())
		for _, e := range present {
			all[e.id] = e.val
		}
		return denseBase(all)
	}
	return deltaOver(slices.Clone(present), cs.g.noValues)
}

// versionsBase is a full snapshot of the versions and versions_seen
// (allIndexed's layout). For a run's first snapshot, when at most half of
// them are not zero (a new thread's first checkpoint has nearly none; a
// graph of many nodes has a versions_seen slot for each trigger of each),
// it lists only those, over the graph's snapshot of none, as valuesBase
// does: a MemorySaver keeps every base of a run, where a dense one is 8
// bytes a slot. A later base is taken once the changes since the last one
// outnumber the slots (idLog.snapshotTo), when most are usually set: it
// is not worth counting them there.
func (cs *channelState) versionsBase() idFrozen[Version] {
	n := cs.verIndexLen()
	if zero := cs.g.noVersions; cs.verLog.last == nil && zero != nil && int(zero.n) == n {
		if set := setSlots(cs.ver) + setSlots(cs.seenV) + setFlags(cs.seenRan); 2*set <= n {
			delta := make([]idEntry[Version], 0, set)
			delta = appendSet(delta, cs.ver, 0)
			delta = appendSet(delta, cs.seenV, len(cs.ver))
			at := len(cs.ver) + len(cs.seenV)
			for i, ran := range cs.seenRan {
				if ran {
					delta = append(delta, idEntry[Version]{int32(at + i), 1})
				}
			}
			return deltaOver(delta, zero)
		}
	}
	return denseBase(cs.allIndexed())
}

// setSlots counts the versions in vs that are not zero, skipping zeros
// four at a time: a new thread's are nearly all zero.
func setSlots(vs []Version) int {
	set, i := 0, 0
	for ; i+4 <= len(vs); i += 4 {
		q := (*[4]Version)(vs[i:]) // one bounds check for four
		if q[0]|q[1]|q[2]|q[3] == 0 {
			continue
		}
		set += int(b2v(q[0] != 0) + b2v(q[1] != 0) + b2v(q[2] != 0) + b2v(q[3] != 0))
	}
	for ; i < len(vs); i++ {
		set += int(b2v(vs[i] != 0))
	}
	return set
}

// appendSet appends the versions in vs that are not zero to out, with
// ids from at on.
func appendSet(out []idEntry[Version], vs []Version, at int) []idEntry[Version] {
	i := 0
	for ; i+4 <= len(vs); i += 4 {
		q := (*[4]Version)(vs[i:]) // one bounds check for four
		if q[0]|q[1]|q[2]|q[3] == 0 {
			continue
		}
		for j, v := range q {
			if v != 0 {
				out = append(out, idEntry[Version]{int32(at + i + j), v})
			}
		}
	}
	for ; i < len(vs); i++ {
		if vs[i] != 0 {
			out = append(out, idEntry[Version]{int32(at + i), vs[i]})
		}
	}
	return out
}

// setFlags counts the true flags in fs.
func setFlags(fs []bool) int {
	set := 0
	for _, f := range fs {
		set += int(b2v(f))
	}
	return set
}

// absent stands for "no value" in a snapshot of values by channel id.
// It points to a package variable, not into the heap: a full snapshot of
// a graph with many channels holds it in most of its slots, and the
// collector, marking every retained snapshot on every cycle, drops a
// pointer outside the heap at its first check.
var absent any = &absentValue

// absentValue is what absent points to; only its address matters.
var absentValue struct{ _ byte }

// storedValue is ch's stored snapshot, or absent.
func storedValue(ch channel) any {
	if v, ok := ch.snapshot(); ok {
		return v
	}
	return absent
}

// asSend reads a Send packet: a Send, or the plain {"node", "args"} object a
// Send becomes once stored and loaded again, which LangGraph.js accepts as
// a packet too.
func asSend(v any) (Send, bool) {
	switch x := v.(type) {
	case Send:
		return x, true
	case map[string]any:
		node, ok := x["node"].(string)
		if _, hasArgs := x["args"]; ok && hasArgs && len(x) == 2 {
			return Send{Node: node, Arg: x["args"]}, true
		}
	}
	return Send{}, false
}

// storedSend is the form a Send packet takes once it went through storage:
// LangGraph.js does not revive Send objects from its checkpointer, so
// packets loaded back are plain {"node", "args"} objects, and its traces
// show them so.
func storedSend(v any) any {
	if s, ok := v.(Send); ok {
		return map[string]any{"node": s.Node, "args": s.Arg}
	}
	return v
}

// savedWrite is a pending write as read back from the saver: a Send
// packet in it is in its stored form (storedSend).
func savedWrite(pw PendingWrite) Write {
	if pw.Channel == TasksChannel {
		return Write{Channel: pw.Channel, Value: storedSend(pw.Value)}
	}
	return Write{Channel: pw.Channel, Value: pw.Value}
}
