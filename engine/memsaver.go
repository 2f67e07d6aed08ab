package engine

import (
	"context"
	"maps"
	"slices"
	"sort"
	"sync"
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

type memNamespace struct {
	ids     []string // sorted ascending
	records map[string]*memRecord
	writes  map[string]*memWrites // checkpoint id -> writes
}

type memRecord struct {
	cp       *Checkpoint
	md       Metadata
	parentID string
	// emptyParents stands for md.Parents when that is an empty map (a
	// root run's): kept as nil, it costs a checkpoint no map of its own.
	emptyParents bool
}

// metadata returns a copy of the record's metadata for a reader.
func (r *memRecord) metadata() Metadata {
	md := cloneMetadata(r.md)
	if r.emptyParents {
		md.Parents = map[string]string{}
	}
	return md
}

type memWriteKey struct {
	task string
	slot int
}

// memWrites holds one checkpoint's pending writes in save order; an index
// is built only once there are many (a wide superstep), since a slice scan
// beats a map for the usual handful.
type memWrites struct {
	entries []memWriteEntry
	index   map[memWriteKey]int
	// first holds the first entries, so a superstep's usual one task
	// with a write or two costs one allocation.
	first [2]memWriteEntry
}

type memWriteEntry struct {
	key memWriteKey
	w   PendingWrite
}

const memWritesIndexAt = 16

func (w *memWrites) find(k memWriteKey) int {
	if w.index != nil {
		if i, ok := w.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range w.entries {
		if w.entries[i].key == k {
			return i
		}
	}
	return -1
}

func (w *memWrites) add(k memWriteKey, pw PendingWrite) {
	w.entries = append(w.entries, memWriteEntry{k, pw})
	switch {
	case w.index != nil:
		w.index[k] = len(w.entries) - 1
	case len(w.entries) > memWritesIndexAt:
		w.index = make(map[memWriteKey]int, 2*len(w.entries))
		for i, e := range w.entries {
			w.index[e.key] = i
		}
	}
}

var _ Saver = (*MemorySaver)(nil)

// storesLazyCheckpoints: MemorySaver keeps the engine's O(1) checkpoint
// snapshots and materializes them when they are read.
func (m *MemorySaver) storesLazyCheckpoints() {}

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
		n = &memNamespace{records: map[string]*memRecord{}, writes: map[string]*memWrites{}}
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
	if _, exists := n.records[cp.ID]; !exists {
		if k := len(n.ids); k == 0 || n.ids[k-1] < cp.ID {
			n.ids = append(n.ids, cp.ID) // the usual case: ids grow
		} else {
			i := sort.SearchStrings(n.ids, cp.ID)
			n.ids = append(n.ids, "")
			copy(n.ids[i+1:], n.ids[i:])
			n.ids[i] = cp.ID
		}
	}
	emptyParents := md.Parents != nil && len(md.Parents) == 0
	if emptyParents {
		md.Parents = nil
	}
	n.records[cp.ID] = &memRecord{cp: cp, md: cloneMetadata(md), parentID: cfg.CheckpointID, emptyParents: emptyParents}
	return Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cp.ID}, nil
}

// PutWrites implements Saver.
func (m *MemorySaver) PutWrites(_ context.Context, cfg Config, taskID string, writes []Write) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, true)
	w := n.writes[cfg.CheckpointID]
	if w == nil {
		w = &memWrites{}
		w.entries = w.first[:0]
		n.writes[cfg.CheckpointID] = w
	}
	base := 0
	if taskID == NullTaskID {
		// Null-task writes accumulate across calls.
		for _, e := range w.entries {
			if e.key.task == NullTaskID && e.key.slot >= 0 {
				base++
			}
		}
	}
	for i, wr := range writes {
		slot := WriteSlot(wr.Channel, base+i)
		key := memWriteKey{taskID, slot}
		pw := PendingWrite{TaskID: taskID, Channel: wr.Channel, Value: wr.Value}
		switch at := w.find(key); {
		case at < 0:
			w.add(key, pw)
		case slot < 0:
			w.entries[at].w = pw // special writes replace
		}
	}
	return nil
}

// GetTuple implements Saver.
func (m *MemorySaver) GetTuple(_ context.Context, cfg Config) (*CheckpointTuple, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := m.ns(cfg.ThreadID, cfg.CheckpointNS, false)
	if n == nil || len(n.ids) == 0 {
		return nil, nil
	}
	id := cfg.CheckpointID
	if id == "" {
		id = n.ids[len(n.ids)-1]
	}
	if n.records[id] == nil {
		return nil, nil
	}
	return m.tuple(cfg.ThreadID, cfg.CheckpointNS, n, id), nil
}

func (m *MemorySaver) tuple(thread, ns string, n *memNamespace, id string) *CheckpointTuple {
	r := n.records[id]
	t := &CheckpointTuple{
		Config:     Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: id},
		Checkpoint: r.cp.Materialize(), // shared: checkpoints are immutable
		Metadata:   r.metadata(),
		ParentID:   r.parentID,
	}
	t.PendingWrites = sortedPendingWrites(n.writes[id])
	return t
}

// sortedPendingWrites returns writes in task order, each task's special
// writes first and then its regular writes by index.
func sortedPendingWrites(w *memWrites) []PendingWrite {
	if w == nil {
		return nil
	}
	entries := slices.Clone(w.entries)
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].key.task != entries[j].key.task {
			return entries[i].key.task < entries[j].key.task
		}
		return entries[i].key.slot < entries[j].key.slot
	})
	out := make([]PendingWrite, len(entries))
	for i, e := range entries {
		out[i] = e.w
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
		n  *memNamespace
		id string
	}
	var refs []ref
	for nsName, n := range t {
		if !opt.AllNamespaces && nsName != cfg.CheckpointNS {
			continue
		}
		for _, id := range n.ids {
			refs = append(refs, ref{nsName, n, id})
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
		if !MatchesFilter(r.n.records[r.id].md, opt.Filter) {
			continue
		}
		out = append(out, m.tuple(cfg.ThreadID, r.ns, r.n, r.id))
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
