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
	mu      sync.RWMutex
	threads map[string]map[string]*memNamespace // thread -> ns -> checkpoints
	// last is the namespace a write found last: a run writes its thread's
	// one namespace twice a superstep (writes, checkpoint).
	last struct {
		thread, ns string
		n          *memNamespace
	}
}

// memNamespace holds one namespace's checkpoints, sorted by id. A run
// puts ids that grow and writes against the latest, so both are found
// without a search; any other id by binary search.
type memNamespace struct {
	// records are sorted by their checkpoint's id, ascending. The ids are
	// not kept beside them: a list the size of the history, with a pointer
	// per checkpoint that every collection marks again.
	records []*memRecord
	// orphans holds writes against ids with no checkpoint (yet): the
	// contract takes them, and a later Put of that id adopts them.
	orphans map[string]*memWrites
	// chunk is where new records are made, many to an allocation: a
	// namespace's records live as long as it does.
	chunk []memRecord
}

// memChunk is how many records one allocation holds: as many as fill the
// allocator's 8 KB size class (32 records of 216 bytes left 1,280 of it
// unused).
const memChunk = 8192 / int(unsafe.Sizeof(memRecord{}))

// newRecord returns a new zero record.
func (n *memNamespace) newRecord() *memRecord {
	if len(n.chunk) == cap(n.chunk) {
		n.chunk = make([]memRecord, 0, memChunk)
	}
	n.chunk = n.chunk[:len(n.chunk)+1]
	return &n.chunk[len(n.chunk)-1]
}

// find returns where id is or would go in n.records.
func (n *memNamespace) find(id string) (int, bool) {
	switch k := len(n.records); {
	case k == 0 || n.records[k-1].id() < id:
		return k, false
	case n.records[k-1].id() == id:
		return k - 1, true
	}
	return slices.BinarySearchFunc(n.records, id, func(r *memRecord, id string) int {
		return strings.Compare(r.id(), id)
	})
}

// record returns id's checkpoint, or nil.
func (n *memNamespace) record(id string) *memRecord {
	if i, ok := n.find(id); ok {
		return n.records[i]
	}
	return nil
}

// writesFor returns the writes against id, made if there are none yet.
func (n *memNamespace) writesFor(id string) *memWrites {
	if r := n.record(id); r != nil {
		return &r.writes
	}
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

type memRecord struct {
	cp       *Checkpoint
	md       Metadata
	parentID string
	// emptyParents stands for md.Parents when that is an empty map (a
	// root run's): kept as nil, it costs a checkpoint no map of its own.
	emptyParents bool
	// writes are the pending writes saved against the checkpoint, in the
	// record so that a superstep's usual few cost no allocation of their own.
	writes memWrites
}

// id is the record's checkpoint id.
func (r *memRecord) id() string { return r.cp.ID }

// metadata returns a copy of the record's metadata for a reader.
func (r *memRecord) metadata() Metadata {
	md := cloneMetadata(r.md)
	if r.emptyParents {
		md.Parents = map[string]string{}
	}
	return md
}

// memWriteKey is a write's task and its slot (WriteSlot). The task is
// its id, or, for a task the engine saved by reference (putTaskWrites),
// ref with id "": the id of such a task is made only when it is read.
type memWriteKey struct {
	task memTaskKey
	slot int
}

// memTaskKey is a task, by id or by reference (then id is "").
type memTaskKey struct {
	id  string
	ref memTask
}

// memTask is a task planned from the checkpoint its writes are saved
// against, by what its id hashes besides that checkpoint's id, namespace
// and superstep (memWrites.step): its node and the index of its trigger
// (PULL) or of its Send (PUSH). It holds no pointer but to the graph's
// node, which outlives it.
type memTask struct {
	node  *node
	index int32
	kind  taskKind
}

// slot is the task's key in an index of tasks: its Send index (PUSH),
// its node's place in the graph and its trigger's index (PULL). Two
// graphs' nodes can share it: the index's entry is checked (from).
func (r memTask) slot() uint64 {
	if r.kind == pushTask {
		return 1<<63 | uint64(uint32(r.index))
	}
	return uint64(uint32(r.node.ord))<<32 | uint64(uint32(r.index))
}

// id is the task's id, planned at step from checkpoint cpID in ns: the
// same as the planned task's own (task.idFrom).
func (r memTask) id(cpID, ns string, step int) string {
	prefix := taskIDPrefix(cpID, ns, step)
	if r.kind == pushTask {
		return prefix.pushID(r.node.name, int(r.index))
	}
	return prefix.pullID(r.node.name, r.node.triggers[r.index])
}

// memWrites holds one checkpoint's pending writes in save order. A task
// usually saves its writes once, in one call, so only a task seen before
// needs a search for its (task, slot) keys: a slice scan while there are
// few, from the task's first write on once there are many (a wide
// superstep), found by an index of tasks.
//
// Tasks saved by reference (memTask) and by id never mix, except with
// the null task's writes: a task saved by id names the others first
// (name), and a task saved by reference is saved by id once another is.
type memWrites struct {
	entries []memWrite
	// tasks and refs index each task's first entry, by id and by
	// reference, from memWritesIndexAt entries on.
	tasks map[string]int
	refs  map[uint64]int // by memTask.slot
	// named counts the entries of tasks saved by id (but the null
	// task's), lazy those saved by reference; step is the superstep of
	// the latter.
	named, lazy, step int32
	// first holds the first entries, so a superstep's usual one task
	// with a write or two needs no allocation for them.
	first [2]memWrite
}

// memWrite is one pending write (its task is the key's).
type memWrite struct {
	key     memWriteKey
	channel string
	value   any
}

const memWritesIndexAt = 16

// from returns where task's first write is, or -1.
func (w *memWrites) from(task memTaskKey) int {
	if w.indexed() {
		if task.ref.node == nil {
			if i, ok := w.tasks[task.id]; ok {
				return i
			}
			return -1
		}
		i, ok := w.refs[task.ref.slot()]
		switch {
		case !ok:
			return -1
		case w.entries[i].key.task == task:
			return i
		}
		// Another task with the same slot (another graph's): search.
	}
	for i := range w.entries {
		if w.entries[i].key.task == task {
			return i
		}
	}
	return -1
}

func (w *memWrites) indexed() bool { return w.tasks != nil || w.refs != nil }

// find returns where k's write is, looking from entry i on, or -1.
func (w *memWrites) find(k memWriteKey, i int) int {
	for ; i >= 0 && i < len(w.entries); i++ {
		if w.entries[i].key == k {
			return i
		}
	}
	return -1
}

// grow makes room for n more entries at once: a task's writes come
// together. It doubles, where append grows a long slice by a quarter and
// copies a wide superstep's writes many times over.
func (w *memWrites) grow(n int) {
	if w.entries == nil {
		w.entries = w.first[:0]
	}
	if len(w.entries)+n > cap(w.entries) {
		w.entries = append(make([]memWrite, 0, max(2*cap(w.entries), len(w.entries)+n)), w.entries...)
	}
}

// add appends e; first says it is its task's first entry, which the
// index of tasks then records (no lookup per write).
func (w *memWrites) add(e memWrite, first bool) {
	w.grow(1)
	w.entries = append(w.entries, e)
	switch k := e.key.task; {
	case k.ref.node != nil:
		w.lazy++
	case k.id != NullTaskID:
		w.named++
	}
	switch {
	case w.indexed():
		if first {
			w.index(len(w.entries) - 1)
		}
	case len(w.entries) > memWritesIndexAt:
		for i := len(w.entries) - 1; i >= 0; i-- { // the first of each task wins
			w.index(i)
		}
	}
}

// index records entry i as its task's first.
func (w *memWrites) index(i int) {
	k := w.entries[i].key.task
	if k.ref.node != nil {
		if w.refs == nil {
			w.refs = make(map[uint64]int, 2*len(w.entries))
		}
		w.refs[k.ref.slot()] = i
		return
	}
	if w.tasks == nil {
		w.tasks = make(map[string]int, 2*len(w.entries))
	}
	w.tasks[k.id] = i
}

// name gives every task saved by reference its id, for the checkpoint
// cpID of namespace ns they are saved against.
func (w *memWrites) name(cpID, ns string) {
	if w.lazy == 0 {
		return
	}
	for i := range w.entries {
		k := &w.entries[i].key.task
		if k.ref.node != nil {
			*k = memTaskKey{id: k.ref.id(cpID, ns, int(w.step))}
			w.named++
		}
	}
	w.lazy = 0
	if w.indexed() {
		w.tasks, w.refs = nil, nil
		for i := len(w.entries) - 1; i >= 0; i-- {
			w.index(i)
		}
	}
}

// put saves a task's writes (PutWrites' contract).
func (w *memWrites) put(task memTaskKey, writes []Write) {
	base := 0
	if task.id == NullTaskID {
		// Null-task writes accumulate across calls.
		for _, e := range w.entries {
			if e.key.task.id == NullTaskID && e.key.slot >= 0 {
				base++
			}
		}
	}
	// A task's writes from an earlier call are searched from its first;
	// in this call only special writes can repeat a key.
	earlier, batch := w.from(task), len(w.entries)
	w.grow(len(writes))
	for i, wr := range writes {
		e := memWrite{key: memWriteKey{task, WriteSlot(wr.Channel, base+i)}, channel: wr.Channel, value: wr.Value}
		at := w.find(e.key, earlier)
		if at < 0 && e.key.slot < 0 {
			at = w.find(e.key, batch)
		}
		switch {
		case at < 0:
			w.add(e, earlier < 0 && len(w.entries) == batch) // the task's first entry
		case e.key.slot < 0:
			w.entries[at] = e // special writes replace
		}
	}
}

var _ Saver = (*MemorySaver)(nil)

// NewMemorySaver returns an empty MemorySaver.
func NewMemorySaver() *MemorySaver {
	return &MemorySaver{threads: map[string]map[string]*memNamespace{}}
}

func (m *MemorySaver) ns(thread, ns string, create bool) *memNamespace {
	if l := &m.last; l.n != nil && l.thread == thread && l.ns == ns {
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
	if create { // under the write lock: readers only share m.mu.RLock
		m.last.thread, m.last.ns, m.last.n = thread, ns, n
	}
	return n
}

// Put implements Saver. cp is kept as it is (checkpoints are immutable).
func (m *MemorySaver) Put(_ context.Context, cfg Config, cp *Checkpoint, md Metadata, _ map[string]Version) (Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, true)
	emptyParents := md.Parents != nil && len(md.Parents) == 0
	if emptyParents {
		md.Parents = nil
	}
	i, exists := n.find(cp.ID)
	if exists {
		// Put again: the checkpoint is replaced, its writes are kept.
		r := n.records[i]
		r.cp, r.md, r.parentID, r.emptyParents = cp, cloneMetadata(md), cfg.CheckpointID, emptyParents
	} else {
		r := n.newRecord()
		r.cp, r.md, r.parentID, r.emptyParents = cp, cloneMetadata(md), cfg.CheckpointID, emptyParents
		if w := n.orphans[cp.ID]; w != nil {
			for _, e := range w.entries {
				r.writes.add(e, r.writes.from(e.key.task) < 0)
			}
			delete(n.orphans, cp.ID)
		}
		if i == len(n.records) { // ids grow, as they do: appended
			n.records = append(n.records, r)
		} else {
			n.records = slices.Insert(n.records, i, r)
		}
	}
	return Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cp.ID}, nil
}

// PutWrites implements Saver.
func (m *MemorySaver) PutWrites(_ context.Context, cfg Config, taskID string, writes []Write) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.ns(cfg.ThreadID, cfg.CheckpointNS, true).writesFor(cfg.CheckpointID)
	w.name(cfg.CheckpointID, cfg.CheckpointNS) // ids are compared with ids
	w.put(memTaskKey{id: taskID}, writes)
	return nil
}

// putTaskWrites is PutWrites for a task the engine planned at step from
// checkpoint cfg.CheckpointID, by reference: its id is made when
// something reads it (GetTuple, List, a PutWrites by id), not for every
// task of a run. A write saved this way reads back exactly as if saved
// by the task's id.
func (m *MemorySaver) putTaskWrites(cfg Config, step int, task memTask, writes []Write) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, true)
	var w *memWrites
	if r := n.record(cfg.CheckpointID); r != nil && r.writes.named == 0 && (r.writes.lazy == 0 || int(r.writes.step) == step) {
		w = &r.writes
		w.step = int32(step)
		w.put(memTaskKey{ref: task}, writes)
		return
	}
	w = n.writesFor(cfg.CheckpointID)
	w.name(cfg.CheckpointID, cfg.CheckpointNS)
	w.put(memTaskKey{id: task.id(cfg.CheckpointID, cfg.CheckpointNS, step)}, writes)
}

// GetTuple implements Saver.
func (m *MemorySaver) GetTuple(_ context.Context, cfg Config) (*CheckpointTuple, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, false)
	if n == nil || len(n.records) == 0 {
		return nil, nil
	}
	i := len(n.records) - 1
	if cfg.CheckpointID != "" {
		var ok bool
		if i, ok = n.find(cfg.CheckpointID); !ok {
			return nil, nil
		}
	}
	return tuple(cfg.ThreadID, cfg.CheckpointNS, n.records[i]), nil
}

func tuple(thread, ns string, r *memRecord) *CheckpointTuple {
	return &CheckpointTuple{
		Config:        Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: r.id()},
		Checkpoint:    r.cp.Materialize(), // shared: checkpoints are immutable
		Metadata:      r.metadata(),
		ParentID:      r.parentID,
		PendingWrites: r.writes.sorted(r.id(), ns),
	}
}

// sorted returns the writes in task order, each task's special writes
// first and then its regular writes by index. cpID and ns name the
// checkpoint they are saved against, which the ids of tasks saved by
// reference hash.
func (w *memWrites) sorted(cpID, ns string) []PendingWrite {
	if len(w.entries) == 0 {
		return nil
	}
	entries := slices.Clone(w.entries)
	if w.lazy > 0 { // named here, in the copy: a reader holds only the read lock
		for i := range entries {
			if k := &entries[i].key.task; k.ref.node != nil {
				*k = memTaskKey{id: k.ref.id(cpID, ns, int(w.step))}
			}
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if a, b := entries[i].key.task.id, entries[j].key.task.id; a != b {
			return a < b
		}
		return entries[i].key.slot < entries[j].key.slot
	})
	out := make([]PendingWrite, len(entries))
	for i := range entries {
		e := &entries[i]
		out[i] = PendingWrite{TaskID: e.key.task.id, Channel: e.channel, Value: e.value}
	}
	return out
}

// List implements Saver.
func (m *MemorySaver) List(_ context.Context, cfg Config, opt ListOptions) ([]*CheckpointTuple, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.threads[cfg.ThreadID]
	type ref struct {
		ns string
		id string
		r  *memRecord
	}
	var refs []ref
	for nsName, n := range t {
		if !opt.AllNamespaces && nsName != cfg.CheckpointNS {
			continue
		}
		for _, r := range n.records {
			refs = append(refs, ref{nsName, r.id(), r})
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
		if !MatchesFilter(r.r.md, opt.Filter) {
			continue
		}
		out = append(out, tuple(cfg.ThreadID, r.ns, r.r))
		if opt.Limit > 0 && len(out) >= opt.Limit {
			break
		}
	}
	return out, nil
}

// DeleteThread implements Saver.
func (m *MemorySaver) DeleteThread(_ context.Context, threadID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.threads, threadID)
	m.last.n = nil
	return nil
}

var _ ThreadLister = (*MemorySaver)(nil)

// Threads implements ThreadLister.
func (m *MemorySaver) Threads(context.Context) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
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
