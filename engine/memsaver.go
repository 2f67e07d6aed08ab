package engine

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// MemorySaver is the in-memory reference Saver. It keeps everything for the
// life of the process. Safe for concurrent use.
type MemorySaver struct {
	// mu guards everything below, for writers and readers alike. A run
	// saves twice a superstep, and an RWMutex's write lock takes two
	// atomic operations more than a Mutex (one each way), as costly as
	// the rest of the save on a busy machine; readers hold mu only to copy
	// what they return, and make the maps of its checkpoints (the most of
	// a read) after releasing it.
	mu      sync.Mutex
	threads map[string]map[string]*memNamespace // thread -> ns -> checkpoints
	// last is the namespace a write found last: a run writes its thread's
	// one namespace twice a superstep (writes, checkpoint); rec is the
	// record last put there, by its place + 1 (0: none since), which a
	// run's next writes are saved against. Records never move (chunks),
	// and go only with their thread (DeleteThread). A place, not a
	// pointer: it changes every superstep, and a pointer stored is a write
	// through the barrier while the collector marks.
	last struct {
		thread, ns string
		n          *memNamespace
		rec        int32
	}
}

// memNamespace holds one namespace's checkpoints, sorted by id. A run
// puts ids that grow and writes against the latest, so both are found
// without a search; any other id by binary search.
type memNamespace struct {
	// order lists the records by their checkpoint's id, ascending, as
	// places in chunks. Neither ids nor pointers are kept in it: it is
	// as long as the history, and a list with no pointer is not scanned
	// by the collector (one of pointers was marked again by every cycle).
	order []int32
	// chunks hold the records, many to an allocation, in the order they
	// were made: a namespace's records live as long as it does. made
	// counts them; chunks are made whole and stay as they are (a record
	// made costs no pointer write).
	chunks [][]memRecord
	made   int32
	// orphans holds writes against ids with no checkpoint (yet): the
	// contract takes them, and a later Put of that id adopts them.
	orphans map[string]*memWrites
	// spare is room for a run's writes beyond a record's first (see
	// writesRoom).
	spare []memWrite
	// names are the channels of the writes kept by name (memWrite).
	names memNames
}

// writesRoom returns an empty slice with room for n writes, carved
// (capacity n) from a chunk that holds about eight such batches, where
// each was an allocation of its own that the collector marked again in
// every cycle: a superstep whose one task writes more than a record's
// first holds (wide state). A chunk lives as long as any of its records'
// writes; records live as long as the namespace anyway.
func (n *memNamespace) writesRoom(k int) []memWrite {
	if len(n.spare) < k {
		n.spare = make([]memWrite, max(8*k, 64))
	}
	out := n.spare[:0:k]
	n.spare = n.spare[k:]
	return out
}

// memChunk is how many records one allocation holds: as many as fill the
// allocator's 8 KB size class.
const memChunk = slabBytes / int(unsafe.Sizeof(memRecord{}))

// newRecord returns a new zero record and its place.
func (n *memNamespace) newRecord() (*memRecord, int32) {
	p := n.made
	if int(p) == len(n.chunks)*memChunk {
		n.chunks = append(n.chunks, make([]memRecord, memChunk))
	}
	n.made++
	return n.place(p), p
}

// place is the record at place p.
func (n *memNamespace) place(p int32) *memRecord {
	return &n.chunks[int(p)/memChunk][int(p)%memChunk]
}

// at returns the i-th record in id order.
func (n *memNamespace) at(i int) *memRecord {
	return n.place(n.order[i])
}

// find returns where id is or would go in n.order.
func (n *memNamespace) find(id string) (int, bool) {
	k := len(n.order)
	if k == 0 {
		return 0, false
	}
	if sameString(n.at(k-1).id(), id) { // a run writes against its latest
		return k - 1, true
	}
	switch c := strings.Compare(n.at(k-1).id(), id); { // one compare, equal pointers at once
	case c < 0:
		return k, false
	case c == 0:
		return k - 1, true
	}
	return sort.Find(len(n.order), func(i int) int { return strings.Compare(id, n.at(i).id()) })
}

// record returns id's checkpoint, or nil.
func (n *memNamespace) record(id string) *memRecord {
	if i, ok := n.find(id); ok {
		return n.at(i)
	}
	return nil
}

// parentID is the parent id of the i-th record.
func (n *memNamespace) parentID(i int) string {
	r := n.at(i)
	switch {
	case r.parentPrev:
		return n.at(i - 1).id()
	case r.more != nil:
		return r.more.parentID
	}
	return ""
}

// setParent sets the parent of the i-th record, r: kept as a mark when
// it is the record before (a run's checkpoints: no string to keep).
func (n *memNamespace) setParent(i int, r *memRecord, parentID string) {
	r.parentPrev = parentID != "" && i > 0 && n.at(i-1).id() == parentID
	if r.parentPrev {
		parentID = ""
	}
	if parentID != "" || r.more != nil {
		r.more = r.moreOf()
		r.more.parentID = parentID
	}
}

// orphan returns the writes against id when it has no checkpoint, made
// if there are none yet.
func (n *memNamespace) orphan(id string) *memWrites {
	w := n.orphans[id]
	if w == nil {
		if n.orphans == nil {
			n.orphans = map[string]*memWrites{}
		}
		w = &memWrites{}
		n.orphans[id] = w
	}
	return w
}

// memRecord is one checkpoint with what is stored beside it. A run's
// usual checkpoint needs no pointer here but to itself (and to its
// writes' values): its metadata is a source and a step, with Parents
// empty or nil and no Extra, and its parent is the record before.
type memRecord struct {
	// kept is the checkpoint, when a run of the engine made it for this
	// saver (keptCheckpoint); else it is more.cp.
	kept *keptCheckpoint
	// more holds what the usual checkpoint lacks: metadata of any other
	// shape, a parent id that is not the record before's, a checkpoint
	// given to Put. nil if none.
	more *memMore
	step int32 // the metadata's, unless more
	// source is the metadata's, as an index in memSources, unless more.
	source uint8
	// parentPrev: the parent is the record before in id order (see
	// memNamespace.parentID).
	parentPrev bool
	// emptyParents: the metadata's Parents is an empty map (a root
	// run's), not nil, unless more.
	emptyParents bool
	// writes are the pending writes saved against the checkpoint, in the
	// record so that a superstep's usual few cost no allocation of their own.
	writes memWrites
}

// memMore is what a record keeps of a checkpoint beyond the usual.
type memMore struct {
	md       *Metadata // nil: the record's own fields say it
	parentID string
	cp       *Checkpoint // given to Put (kept is nil)
}

// memSources are the sources a record keeps as an index.
var memSources = [...]string{"", SourceInput, SourceLoop, SourceUpdate, SourceFork}

// id is the record's checkpoint id.
func (r *memRecord) id() string {
	if r.kept != nil {
		return r.kept.id()
	}
	return r.more.cp.ID
}

// setCheckpoint makes the record's checkpoint kc, if not nil, else cp.
func (r *memRecord) setCheckpoint(cp *Checkpoint, kc *keptCheckpoint) {
	r.kept = kc
	switch {
	case kc == nil:
		r.moreOf().cp = cp
	case r.more != nil:
		r.more.cp = nil
	}
}

// checkpoint is the record's checkpoint for a reader (shared:
// checkpoints are immutable), to be materialized (materialize) once the
// reader released the saver's lock.
func (r *memRecord) checkpoint() *Checkpoint {
	if r.kept != nil {
		return r.kept.public()
	}
	return r.more.cp
}

// materialize fills the maps of the checkpoints of tuples (tuple made
// them under the lock; Materialize is safe for concurrent use).
func materialize(tuples ...*CheckpointTuple) {
	for _, tp := range tuples {
		tp.Checkpoint.Materialize()
	}
}

// ownedBy reports whether the record's checkpoint is an engine snapshot
// of graph g's.
func (r *memRecord) ownedBy(g *Graph) bool {
	lz := r.lazy()
	return lz != nil && lz.g == g
}

// lazy is the engine's snapshot behind the record's checkpoint, or nil.
func (r *memRecord) lazy() *lazyCheckpoint {
	if r.kept != nil {
		return &r.kept.lazy
	}
	return r.more.cp.lazyState()
}

// moreOf returns r.more, made if r has none.
func (r *memRecord) moreOf() *memMore {
	if r.more == nil {
		r.more = &memMore{}
	}
	return r.more
}

// setMetadata keeps md (a copy of its maps) in r.
func (r *memRecord) setMetadata(md Metadata) {
	src := -1
	switch md.Source {
	case "":
		src = 0
	case SourceInput:
		src = 1
	case SourceLoop:
		src = 2
	case SourceUpdate:
		src = 3
	case SourceFork:
		src = 4
	}
	usual := src >= 0 && md.Step == int(int32(md.Step)) && len(md.Parents) == 0 && md.Extra == nil
	if r.more != nil {
		r.more.md = nil
	}
	if !usual {
		c := cloneMetadata(md)
		r.moreOf().md = &c
		return
	}
	r.source, r.step, r.emptyParents = uint8(src), int32(md.Step), md.Parents != nil
}

// md returns the record's metadata, its maps shared with the record.
func (r *memRecord) md() Metadata {
	if r.more != nil && r.more.md != nil {
		return *r.more.md
	}
	md := Metadata{Source: memSources[r.source], Step: int(r.step)}
	if r.emptyParents {
		md.Parents = noParents // read only: metadata copies it
	}
	return md
}

// metadata returns a copy of the record's metadata for a reader.
func (r *memRecord) metadata() Metadata { return cloneMetadata(r.md()) }

// memWriteKey is a write's task and its slot (WriteSlot).
type memWriteKey struct {
	task memTask
	slot int32
}

// memTask is a task, by reference or by id, in 8 bytes with no pointer:
// a MemorySaver keeps one for every write of a run, and the collector
// marks what it keeps again in every cycle.
//
// By reference (node > 0), it is a task planned from the checkpoint its
// writes are saved against, by what its id hashes besides that
// checkpoint's id, namespace and superstep (memWrites.step): its node, by
// its place in the graph of that checkpoint (ord, in nodeList), and the
// index of its trigger (PULL) or of its Send (PUSH). Its id is made only
// when it is read.
//
// By id (node < 0), path is the id's place in its memWrites' ids
// (memWrites.byID); memNullTask is NullTaskID's.
type memTask struct {
	node int32 // by reference: its place + 1; memByID: by id
	// path is a PULL task's trigger index, or -1 - a PUSH task's Send
	// index; by id, the place of its id.
	path int32
}

const memByID = -1

// memNullTask is the null task (NullTaskID): Command input and resume
// values.
var memNullTask = memTask{memByID, -1}

// newMemTask is the memTask of the node at ord, of kind, at index.
func newMemTask(ord int, kind taskKind, index int) memTask {
	if kind == pushTask {
		return memTask{int32(ord) + 1, int32(-1 - index)}
	}
	return memTask{int32(ord) + 1, int32(index)}
}

// byRef reports whether the task is kept by reference (its id unmade).
func (r memTask) byRef() bool { return r.node > 0 }

// slot is the task's key in an index of tasks.
func (r memTask) slot() uint64 { return uint64(uint32(r.node))<<32 | uint64(uint32(r.path)) }

// id is the task's id, planned at step from checkpoint cpID of graph g in
// ns: the same as the planned task's own (task.idFrom).
func (r memTask) id(g *Graph, cpID, ns string, step int) string {
	prefix := taskIDPrefix(cpID, ns, step)
	n := g.nodeList[r.node-1]
	if r.path < 0 {
		return prefix.pushID(n.name, int(-1-r.path))
	}
	return prefix.pullID(n.name, n.triggers[r.path])
}

// memWrites holds one checkpoint's pending writes in save order. A task
// usually saves its writes once, in one call, so only a task seen before
// needs a search for its (task, slot) keys: a slice scan while there are
// few, from the task's first write on once there are many (a wide
// superstep), found by an index of tasks.
//
// Tasks saved by reference and by id never mix, except with the null
// task's writes: a task saved by id names the others first (name), and a
// task saved by reference is saved by id once another is.
type memWrites struct {
	// over holds the entries once they outgrow first (capacity c; nil
	// while they fit in first); n counts them. A pointer and a count,
	// not a slice (24 bytes in every record), and no slice pointing into
	// the record itself (a pointer write a superstep, through the write
	// barrier while the collector marks).
	over *memWrite
	n, c int32
	// more holds the ids of tasks saved by id and the index of tasks:
	// nil for a run's usual checkpoint, whose tasks are by reference and
	// few (a pointer, where they were 40 bytes in every record).
	more *memWritesMore
	// named counts the entries of tasks saved by id (but the null
	// task's), lazy those saved by reference; step is the superstep of
	// the latter.
	named, lazy, step int32
	// first holds the first entries, so a superstep's usual one task
	// with a write or two needs no allocation for them.
	first [memWritesFirst]memWrite
}

// memWritesMore is what memWrites keeps beyond the usual.
type memWritesMore struct {
	// ids are the ids of the tasks saved by id (but the null task), by
	// memTask.path; places finds them once there are many.
	ids    []string
	places map[string]int32
	// tasks indexes each task's first entry (by memTask.slot), once
	// from looks for a task among more than memWritesIndexAt entries.
	tasks memTaskIndex
}

// memTaskIndex maps tasks (memTask.slot, never 0: a task's node is >= 1
// or memByID) to their first entry, in one table with no pointer, open
// addressing, linear probing: a fan-out's thousand tasks each add an
// entry, and a map's growth (its table split and rehashed) cost them
// about 600 instructions each, a third of what the MemorySaver added to
// the superstep.
type memTaskIndex struct {
	slots []memTaskSlot // nil: no index; else a power of two long
	n     int
}

type memTaskSlot struct {
	key uint64 // 0: free
	at  int32
}

// find returns where key is in slots, or the free slot it would go in.
func (x *memTaskIndex) find(key uint64) *memTaskSlot {
	mask := uint64(len(x.slots) - 1)
	for i := (key * 0x9e3779b97f4a7c15) >> 32 & mask; ; i = (i + 1) & mask {
		if s := &x.slots[i]; s.key == key || s.key == 0 {
			return s
		}
	}
}

// get returns key's entry.
func (x *memTaskIndex) get(key uint64) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	s := x.find(key)
	return int(s.at), s.key == key
}

// set makes key's entry at, growing the table at half full.
func (x *memTaskIndex) set(key uint64, at int) {
	if 2*(x.n+1) > len(x.slots) {
		old := x.slots
		x.slots, x.n = make([]memTaskSlot, max(64, 2*len(old))), 0
		for _, s := range old {
			if s.key != 0 {
				x.set(s.key, int(s.at))
			}
		}
	}
	s := x.find(key)
	if s.key == 0 {
		s.key = key
		x.n++
	}
	s.at = int32(at)
}

// memWrite is one pending write (its task is the key's). Its channel is
// kept as the channel's id in the graph of the record's checkpoint when
// the engine saved it with the id (ch >= 0: a run's writes, by
// reference, once the node's ids are known), else by name (ch < 0: at
// -1-ch in its namespace's memNames): an id is 4 bytes in the key's
// padding where a name was 16 (a string header, and a pointer the
// collector marked in every cycle and the save wrote through the barrier
// while it marked).
type memWrite struct {
	key   memWriteKey
	ch    int32
	value any
}

// memNames are the channels of a namespace's writes kept by name
// (memWrite.ch), in one table: a record's own list would be an
// allocation or two for each on a graph's first run. The table grows by
// chunks that stay where they are, so a name costs a store, not a share
// of copying the table as it grows.
type memNames struct {
	chunks [][]string // full, then cur
	cur    []string   // the chunk names go into (capacity memNamesChunk)
	n      int32
}

// memNamesChunk is how many names a chunk of memNames holds.
const memNamesChunk = 256

// byName is the ch of a write to channel name.
func (ns *memNames) byName(name string) int32 {
	if len(ns.cur) == cap(ns.cur) {
		ns.cur = make([]string, 0, memNamesChunk)
		ns.chunks = append(ns.chunks, ns.cur)
	}
	ns.cur = append(ns.cur, name)
	ns.n++
	return -ns.n
}

// channel is e's channel; g is the graph of its record's checkpoint
// (nil: none), which ids are of.
func (ns *memNames) channel(e *memWrite, g *Graph) string {
	if e.ch >= 0 {
		return g.channelOrder[e.ch]
	}
	i := int(-1 - e.ch)
	return ns.chunks[i/memNamesChunk][:memNamesChunk][i%memNamesChunk]
}

const memWritesIndexAt = 16

// memWritesFirst is how many writes a record holds in its own room.
const memWritesFirst = 2

// moreOf returns w.more, made if w has none.
func (w *memWrites) moreOf() *memWritesMore {
	if w.more == nil {
		w.more = &memWritesMore{}
	}
	return w.more
}

// byID returns the memTask of the task with id, its id kept in w.
func (w *memWrites) byID(id string) memTask {
	if id == NullTaskID {
		return memNullTask
	}
	x := w.moreOf()
	if x.places != nil {
		if k, ok := x.places[id]; ok {
			return memTask{memByID, k}
		}
	} else if k := slices.Index(x.ids, id); k >= 0 {
		return memTask{memByID, int32(k)}
	}
	x.ids = append(x.ids, id)
	k := int32(len(x.ids) - 1)
	switch {
	case x.places != nil:
		x.places[id] = k
	case len(x.ids) > memWritesIndexAt:
		x.places = make(map[string]int32, 2*len(x.ids))
		for j, id := range x.ids {
			x.places[id] = int32(j)
		}
	}
	return memTask{memByID, k}
}

// taskID is the id of task, saved by id in w.
func (w *memWrites) taskID(task memTask) string {
	if task == memNullTask {
		return NullTaskID
	}
	return w.more.ids[task.path]
}

// from returns where task's first write is, or -1.
func (w *memWrites) from(task memTask) int {
	if w.n == 0 { // a task's first writes, usually
		return -1
	}
	if !w.indexed() && w.n > memWritesIndexAt {
		w.reindex()
	}
	if w.indexed() {
		if i, ok := w.more.tasks.get(task.slot()); ok {
			return i
		}
		return -1
	}
	es := w.entries()
	for i := range es {
		if es[i].key.task == task {
			return i
		}
	}
	return -1
}

func (w *memWrites) indexed() bool { return w.more != nil && w.more.tasks.slots != nil }

// find returns where k's write is, looking from entry i on, or -1.
func (w *memWrites) find(k memWriteKey, i int) int {
	es := w.entries()
	for ; i >= 0 && i < len(es); i++ {
		if es[i].key == k {
			return i
		}
	}
	return -1
}

// reserve makes room, in w with no entries yet, for a superstep's first
// task's k writes, carved from namespace n's chunks when they are few,
// or for as many from each of its tasks (a fan-out's tasks usually write
// alike): the room then grows no more, where doubling allocated and
// copied the entries some ten times over for a thousand tasks. A task
// writing more than its share makes the room double as before.
func (w *memWrites) reserve(n *memNamespace, k, tasks int) {
	switch {
	case tasks > 1 && k > 0:
		w.grow(tasks * min(k, memWritesShare))
	case k > len(w.first) && k <= maxCarved:
		w.setRoom(n.writesRoom(k))
	}
}

// memWritesShare bounds the room a task's writes reserve for each of its
// superstep's tasks (reserve).
const memWritesShare = 4

// grow makes room for n more entries at once: a task's writes come
// together. It doubles, where append grows a long slice by a quarter and
// copies a wide superstep's writes many times over.
func (w *memWrites) grow(n int) {
	if have := w.room(); int(w.n)+n > len(have) {
		more := make([]memWrite, max(2*len(have), int(w.n)+n))
		copy(more, have[:w.n])
		w.setRoom(more)
	}
}

// entries are the entries, in save order (in w: do not keep).
func (w *memWrites) entries() []memWrite { return w.room()[:w.n] }

// room is where the entries are, to its capacity.
func (w *memWrites) room() []memWrite {
	if w.over != nil {
		return unsafe.Slice(w.over, w.c)
	}
	return w.first[:]
}

// setRoom moves the entries to room (to its capacity), which holds them
// already (or has none to hold).
func (w *memWrites) setRoom(room []memWrite) {
	w.over, w.c = unsafe.SliceData(room), int32(cap(room))
}

// extend adds k zero entries (room for them made first) and returns them.
func (w *memWrites) extend(k int) []memWrite {
	w.grow(k)
	at := int(w.n)
	w.n += int32(k)
	return w.room()[at:w.n]
}

// add appends e; first says it is its task's first entry, which the
// index of tasks then records (no lookup per write).
func (w *memWrites) add(e memWrite, first bool) {
	w.extend(1)[0] = e
	w.count(e.key.task, 1)
	w.indexAdded(int(w.n)-1, first)
}

// count counts n more entries of task.
func (w *memWrites) count(task memTask, n int32) {
	switch {
	case task.byRef():
		w.lazy += n
	case task != memNullTask:
		w.named += n
	}
}

// indexAdded indexes the entries added from at on, if the entries are
// indexed (else from indexes them when it needs to: one task's many
// writes, a run's input, are usually all its checkpoint gets, and an
// index made for them would go unread); first says the one at at is its
// task's first.
func (w *memWrites) indexAdded(at int, first bool) {
	if first && w.indexed() {
		w.index(at)
	}
}

// reindex indexes every task's first entry anew.
func (w *memWrites) reindex() {
	w.moreOf().tasks = memTaskIndex{}
	for i := int(w.n) - 1; i >= 0; i-- { // the first of each task wins
		w.index(i)
	}
}

// index records entry i as its task's first.
func (w *memWrites) index(i int) {
	w.moreOf().tasks.set(w.room()[i].key.task.slot(), i)
}

// nameWrites gives every task saved by reference its id, for the
// record's checkpoint in namespace ns.
func (r *memRecord) nameWrites(names *memNames, ns string) {
	w := &r.writes
	if w.lazy == 0 {
		return
	}
	g := r.lazy().g
	es := w.entries()
	for i := range es {
		k := &es[i].key.task
		if k.byRef() {
			*k = w.byID(k.id(g, r.id(), ns, int(w.step)))
			w.named++
		}
		if es[i].ch >= 0 { // only a task by reference's: named with it
			es[i].ch = names.byName(g.channelOrder[es[i].ch])
		}
	}
	w.lazy = 0
	if w.indexed() {
		w.reindex()
	}
}

// put saves a task's writes (PutWrites' contract).
//
// ids are the writes' channel ids, for appendFirst (nil: unknown); fresh
// says the task has no writes in w yet (memSaveHint).
func (w *memWrites) put(names *memNames, task memTask, writes []Write, ids []chanID, fresh bool) {
	if !anySpecial(writes) && (fresh || w.from(task) < 0) {
		w.appendFirst(names, task, writes, ids)
		return
	}
	// A task's writes from an earlier call are searched from its first;
	// in this call only special writes can repeat a key.
	earlier, batch := w.from(task), int(w.n)
	w.grow(len(writes))
	for i, wr := range writes {
		e := memWrite{key: memWriteKey{task, int32(WriteSlot(wr.Channel, i))}, value: wr.Value}
		at := w.find(e.key, earlier)
		if at < 0 && e.key.slot < 0 {
			at = w.find(e.key, batch)
		}
		switch {
		case at < 0:
			e.ch = names.byName(wr.Channel)
			w.add(e, earlier < 0 && int(w.n) == batch) // the task's first entry
		case e.key.slot < 0:
			e.ch = names.byName(wr.Channel)
			w.entries()[at] = e // special writes replace
		}
	}
}

// anySpecial reports whether writes has a special write (WriteSlot).
func anySpecial(writes []Write) bool {
	for _, wr := range writes {
		if WriteSlot(wr.Channel, 0) < 0 {
			return true
		}
	}
	return false
}

// appendFirst is put for a task's first writes, none of them special:
// no key can repeat, so they are appended as they are. ids are the
// writes' channel ids (nil: unknown; an id < 0: not a channel), of the
// graph of w's record's checkpoint, if task is by reference.
func (w *memWrites) appendFirst(names *memNames, task memTask, writes []Write, ids []chanID) {
	first, k := int(w.n), int(w.n)+len(writes)
	room := w.room()
	if k > len(room) {
		w.grow(len(writes))
		room = w.room()
	}
	es := room[first:k]
	w.n = int32(k)
	for i := range writes {
		// Field by field, not a struct copy: while the collector marks,
		// copying a struct with pointers into kept memory is a bulk
		// barrier that walks its type (hundreds of instructions a
		// write); a pointer stored alone is a few. The room is zero.
		wr, e := &writes[i], &es[i]
		e.key = memWriteKey{task, int32(i)}
		if ids != nil && ids[i] >= 0 {
			e.ch = int32(ids[i])
		} else {
			e.ch = names.byName(wr.Channel)
		}
		e.value = wr.Value
	}
	w.count(task, int32(len(writes)))
	w.indexAdded(first, true)
}

var _ Saver = (*MemorySaver)(nil)

// NewMemorySaver returns an empty MemorySaver.
func NewMemorySaver() *MemorySaver {
	return &MemorySaver{threads: map[string]map[string]*memNamespace{}}
}

func (m *MemorySaver) ns(thread, ns string, create bool) *memNamespace {
	if l := &m.last; l.n != nil && sameString(l.thread, thread) && sameString(l.ns, ns) {
		return l.n
	}
	t := m.threads[thread]
	if t == nil {
		if !create {
			return nil
		}
		t = map[string]*memNamespace{}
		m.threads[thread] = t
	}
	n := t[ns]
	if n == nil && create {
		n = &memNamespace{}
		t[ns] = n
	}
	if create { // a write: a reader keeps its lookups out of m.last
		m.last.thread, m.last.ns, m.last.n, m.last.rec = thread, ns, n, 0
	}
	return n
}

// Put implements Saver. cp is kept as it is (checkpoints are immutable).
func (m *MemorySaver) Put(_ context.Context, cfg Config, cp *Checkpoint, md Metadata, _ map[string]Version) (Config, error) {
	m.put(&cfg, cp, nil, &md)
	return Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cp.ID}, nil
}

// putKept is Put for a checkpoint a run of the engine made for this saver
// (keptCheckpoint: the public Checkpoint is made when read).
func (m *MemorySaver) putKept(cfg *Config, kc *keptCheckpoint, md *Metadata) {
	m.put(cfg, nil, kc, md)
}

// put is Put of cp, or of kc if it is not nil.
func (m *MemorySaver) put(cfg *Config, cp *Checkpoint, kc *keptCheckpoint, md *Metadata) {
	id := kc.idOr(cp)
	m.mu.Lock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, true)
	if k := len(n.order); k > 0 && len(n.orphans) == 0 {
		// A run's checkpoint: an id after every other, its parent
		// usually the one before. (Unlocked without a defer: nothing
		// here calls out or panics.)
		if last := n.at(k - 1); last.id() < id {
			r, at := n.newRecord()
			r.setCheckpoint(cp, kc)
			r.setMetadata(*md)
			n.order = append(n.order, at)
			if r.parentPrev = sameString(cfg.CheckpointID, last.id()); !r.parentPrev && cfg.CheckpointID != "" {
				r.moreOf().parentID = cfg.CheckpointID
			}
			m.last.rec = at + 1
			m.mu.Unlock()
			return
		}
	}
	defer m.mu.Unlock()
	i, exists := n.find(id)
	if exists {
		// Put again: the checkpoint is replaced, its writes are kept
		// (named first: the old checkpoint's graph names its tasks).
		r := n.at(i)
		r.nameWrites(&n.names, cfg.CheckpointNS)
		r.setCheckpoint(cp, kc)
		r.setMetadata(*md)
		n.setParent(i, r, cfg.CheckpointID)
		m.last.rec = n.order[i] + 1
	} else {
		r, at := n.newRecord()
		r.setCheckpoint(cp, kc)
		r.setMetadata(*md)
		if w := n.orphans[id]; w != nil {
			for _, e := range w.entries() { // its task ids are w's: kept again in r
				if !e.key.task.byRef() {
					e.key.task = r.writes.byID(w.taskID(e.key.task))
				}
				r.writes.add(e, r.writes.from(e.key.task) < 0)
			}
			delete(n.orphans, id)
		}
		if i == len(n.order) { // ids grow, as they do: appended
			n.order = append(n.order, at)
		} else {
			// The record at i gets r before it: its parent is kept by id.
			if next := n.at(i); next.parentPrev {
				next.moreOf().parentID, next.parentPrev = n.at(i-1).id(), false
			}
			n.order = slices.Insert(n.order, i, at)
		}
		n.setParent(i, r, cfg.CheckpointID)
		m.last.rec = at + 1
	}
}

// PutWrites implements Saver.
func (m *MemorySaver) PutWrites(_ context.Context, cfg Config, taskID string, writes []Write) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, true)
	var w *memWrites
	if r := n.record(cfg.CheckpointID); r != nil {
		r.nameWrites(&n.names, cfg.CheckpointNS) // ids are compared with ids
		w = &r.writes
	} else {
		w = n.orphan(cfg.CheckpointID)
	}
	w.put(&n.names, w.byID(taskID), writes, nil, false)
	return nil
}

// memSaveHint is what a run knows of a task's save that the saver could
// learn only at a cost.
type memSaveHint struct {
	// fresh: the task saves for the first time this superstep, against a
	// checkpoint its run put (loop.cpOwn), so none of its keys is there
	// yet: no search for its earlier writes, and no index of tasks made
	// for one (a fan-out's thousand tasks each added an entry to it).
	fresh bool
	// tasks is the superstep's count of tasks (0: unknown), for the room
	// its writes take.
	tasks int
}

// putTaskWrites is PutWrites for a task the engine planned at step from
// checkpoint cfg.CheckpointID, by reference: its id is made when
// something reads it (GetTuple, List, a PutWrites by id), not for every
// task of a run. A write saved this way reads back exactly as if saved
// by the task's id. ids are the writes' channel ids in g (nil: unknown;
// see memWrite).
func (m *MemorySaver) putTaskWrites(cfg Config, g *Graph, step int, task memTask, writes []Write, ids []chanID, hint memSaveHint) {
	m.mu.Lock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, true)
	var r *memRecord
	if at := m.last.rec; at > 0 { // a run saves against the checkpoint it put last
		r = n.place(at - 1)
	}
	if r == nil || !sameString(r.id(), cfg.CheckpointID) {
		r = n.record(cfg.CheckpointID)
	}
	if r != nil && r.ownedBy(g) && r.writes.named == 0 && (r.writes.lazy == 0 || int(r.writes.step) == step) {
		r.writes.step = int32(step)
		if r.writes.n == 0 {
			r.writes.reserve(n, len(writes), hint.tasks)
		}
		r.writes.put(&n.names, task, writes, ids, hint.fresh)
		m.mu.Unlock() // no defer: nothing here calls out or panics
		return
	}
	defer m.mu.Unlock()
	var w *memWrites
	if r != nil {
		r.nameWrites(&n.names, cfg.CheckpointNS)
		w = &r.writes
	} else {
		w = n.orphan(cfg.CheckpointID)
	}
	w.put(&n.names, w.byID(task.id(g, cfg.CheckpointID, cfg.CheckpointNS, step)), writes, nil, false)
}

// GetTuple implements Saver.
func (m *MemorySaver) GetTuple(_ context.Context, cfg Config) (*CheckpointTuple, error) {
	tp := m.getTuple(cfg)
	if tp != nil {
		materialize(tp)
	}
	return tp, nil
}

// getTuple is GetTuple's tuple, its checkpoint not materialized yet.
func (m *MemorySaver) getTuple(cfg Config) *CheckpointTuple {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, false)
	if n == nil || len(n.order) == 0 {
		return nil
	}
	i := len(n.order) - 1
	if cfg.CheckpointID != "" {
		var ok bool
		if i, ok = n.find(cfg.CheckpointID); !ok {
			return nil
		}
	}
	return tuple(cfg.ThreadID, cfg.CheckpointNS, n, i)
}

// tuple is the i-th record of namespace ns, n.
func tuple(thread, ns string, n *memNamespace, i int) *CheckpointTuple {
	r := n.at(i)
	return &CheckpointTuple{
		Config:        Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: r.id()},
		Checkpoint:    r.checkpoint(),
		Metadata:      r.metadata(),
		ParentID:      n.parentID(i),
		PendingWrites: r.sortedWrites(&n.names, ns),
	}
}

// sortedWrites returns the record's writes in task order, each task's
// special writes first and then its regular writes by index. ns is the
// record's namespace, which the ids of tasks saved by reference hash.
func (r *memRecord) sortedWrites(names *memNames, ns string) []PendingWrite {
	w := &r.writes
	es := w.entries()
	if len(es) == 0 {
		return nil
	}
	// Named here, in a copy: a reader holds only the read lock.
	type sortable struct {
		PendingWrite
		slot int32
	}
	var g *Graph // the graph of the ids of tasks and channels by reference
	if lz := r.lazy(); lz != nil {
		g = lz.g
	}
	ws := make([]sortable, len(es))
	for i := range es {
		e := &es[i]
		var id string
		if k := e.key.task; k.byRef() {
			id = k.id(g, r.id(), ns, int(w.step))
		} else {
			id = w.taskID(k)
		}
		ws[i] = sortable{PendingWrite{TaskID: id, Channel: names.channel(e, g), Value: e.value}, e.key.slot}
	}
	sort.SliceStable(ws, func(i, j int) bool {
		if a, b := ws[i].TaskID, ws[j].TaskID; a != b {
			return a < b
		}
		return ws[i].slot < ws[j].slot
	})
	out := make([]PendingWrite, len(ws))
	for i := range ws {
		out[i] = ws[i].PendingWrite
	}
	return out
}

// List implements Saver.
func (m *MemorySaver) List(_ context.Context, cfg Config, opt ListOptions) ([]*CheckpointTuple, error) {
	out := m.list(cfg, opt)
	materialize(out...)
	return out, nil
}

// list is List's tuples, their checkpoints not materialized yet.
func (m *MemorySaver) list(cfg Config, opt ListOptions) []*CheckpointTuple {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.threads[cfg.ThreadID]
	type ref struct {
		ns string
		id string
		n  *memNamespace
		i  int
	}
	var refs []ref
	for nsName, n := range t {
		if !opt.AllNamespaces && nsName != cfg.CheckpointNS {
			continue
		}
		for i := range n.order {
			refs = append(refs, ref{nsName, n.at(i).id(), n, i})
		}
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].id != refs[j].id {
			return refs[i].id > refs[j].id
		}
		return refs[i].ns < refs[j].ns
	})
	var out []*CheckpointTuple
	for _, r := range refs {
		if cfg.CheckpointID != "" && r.id != cfg.CheckpointID {
			continue
		}
		if opt.Before != "" && r.id >= opt.Before {
			continue
		}
		if !MatchesFilter(r.n.at(r.i).md(), opt.Filter) {
			continue
		}
		out = append(out, tuple(cfg.ThreadID, r.ns, r.n, r.i))
		if opt.Limit > 0 && len(out) >= opt.Limit {
			break
		}
	}
	return out
}

// DeleteThread implements Saver.
func (m *MemorySaver) DeleteThread(_ context.Context, threadID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.threads, threadID)
	m.last.n, m.last.rec = nil, 0
	return nil
}

var _ ThreadLister = (*MemorySaver)(nil)

// Threads implements ThreadLister.
func (m *MemorySaver) Threads(context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.threads))
	for t := range m.threads {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, nil
}

func cloneMetadata(md Metadata) Metadata {
	md.Parents = maps.Clone(md.Parents)
	md.Extra = maps.Clone(md.Extra)
	return md
}
