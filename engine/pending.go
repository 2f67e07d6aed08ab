package engine

import "slices"

// pendingWrites holds the writes saved against the current checkpoint, by
// task, so that saving one task's writes costs what it wrote even in a
// superstep of a thousand tasks. Tasks are found by a scan while there are
// few (a superstep's usual one or two: no map to fill and empty each
// superstep), by an index once there are many.
type pendingWrites struct {
	null  []PendingWrite // NullTaskID writes, accumulated
	order []string       // task ids in first-save order ("": see refs)
	// refs holds, as order, the tasks of this run saved by reference
	// (addTask) whose ids nobody read yet: a task id is a hash that only
	// a reader needs (find names them all first). nil for the others.
	// Such a task is marked (task.pendingRef), so its first save needs
	// no search.
	refs    []*task
	batches [][]Write      // each task's latest batch, as order
	index   map[string]int // task id -> its place in order, past pendingIndexAt
	unnamed int            // how many entries are refs
	// tasks is the current superstep's task count when it is wide (0
	// otherwise): what the index is sized for (no growth while a wide
	// superstep's tasks save), and each task's share of a checkpoint's
	// room for writes (memSaveHint.tasks).
	tasks int
}

const pendingIndexAt = 8

// reserve sizes the lists for a superstep of n tasks (tasks), with room
// for each task's entry when they will be saved (saved): a wide
// superstep's tasks then add theirs without growing the lists, which
// copied them some ten times over and left as much garbage (a fan-out's
// thousand: ~50 KB a run).
func (p *pendingWrites) reserve(n int, saved bool) {
	p.tasks = n
	// Each list grows on its own (push): append rounds a capacity to its
	// element size's class, so one list's room says nothing of another's.
	if !saved || cap(p.order) >= n && cap(p.refs) >= n && cap(p.batches) >= n {
		return
	}
	// New arrays are zero past the length, as grown needs.
	p.order = slices.Grow(p.order, n-len(p.order))
	p.refs = slices.Grow(p.refs, n-len(p.refs))
	p.batches = slices.Grow(p.batches, n-len(p.batches))
}

func newPendingWrites(ws []PendingWrite) *pendingWrites {
	p := &pendingWrites{}
	for _, w := range ws {
		if w.TaskID == NullTaskID {
			p.null = append(p.null, w)
			continue
		}
		i := p.find(w.TaskID)
		if i < 0 {
			i = p.push(w.TaskID, nil)
		}
		p.batches[i] = append(p.batches[i], Write{Channel: w.Channel, Value: w.Value})
	}
	return p
}

// find returns task's place in order, or -1. It names the tasks saved by
// reference first: an id is compared with ids.
func (p *pendingWrites) find(task string) int {
	if p.unnamed > 0 {
		p.name()
	}
	if p.index != nil {
		if i, ok := p.index[task]; ok {
			return i
		}
		return -1
	}
	return slices.Index(p.order, task)
}

// push adds a task with no writes, by its id or by reference (ref, with
// id ""), and returns its place.
func (p *pendingWrites) push(id string, ref *task) int {
	p.order, p.refs, p.batches = grown(p.order), grown(p.refs), grown(p.batches)
	i := len(p.order) - 1
	if id != "" {
		p.order[i] = id
	}
	if ref != nil {
		p.refs[i] = ref
		ref.pendingRef = true
		p.unnamed++
		return i // found by its mark, not by the index of ids
	}
	switch {
	case p.index != nil:
		p.index[id] = i
	case len(p.order) > pendingIndexAt:
		p.reindex()
	}
	return i
}

// reindex indexes the tasks by id once there are many.
func (p *pendingWrites) reindex() {
	if p.index == nil && len(p.order) <= pendingIndexAt {
		return
	}
	if p.index == nil {
		p.index = make(map[string]int, max(2*len(p.order), p.tasks))
	}
	for j, id := range p.order {
		if p.refs[j] == nil {
			p.index[id] = j
		}
	}
}

// name makes the ids of the tasks saved by reference: from then on they
// are found by id, like any other.
func (p *pendingWrites) name() {
	for j, ref := range p.refs {
		if ref != nil {
			p.order[j], p.refs[j] = ref.id(), nil
			ref.pendingRef = false
		}
	}
	p.unnamed = 0
	p.reindex()
}

// addTask is add for a task of this run, by reference: its id is made
// only if something reads it. Once any task is saved by id, it is add.
// It reports whether the task is known to save for the first time this
// superstep (false when unknown: some task was saved by id).
func (p *pendingWrites) addTask(t *task, writes []Write) (first bool) {
	if len(p.order) > p.unnamed {
		p.add(t.id(), writes)
		return false
	}
	i := -1
	if t.pendingRef { // saved before in this superstep (rare): search
		i = slices.Index(p.refs, t)
	}
	if i < 0 {
		i = p.push("", t)
		first = true
	}
	p.batches[i] = writes
	return first
}

// id is the id of the task at place i in order.
func (p *pendingWrites) id(i int) string {
	if ref := p.refs[i]; ref != nil {
		return ref.id()
	}
	return p.order[i]
}

// batch returns task's latest batch.
func (p *pendingWrites) batch(task string) []Write {
	if i := p.find(task); i >= 0 {
		return p.batches[i]
	}
	return nil
}

// add records a batch: a task's batch replaces its earlier one, the null
// task's too (LangGraph.js loop.js:538 putWrites drops every write of the
// task id from checkpointPendingWrites before adding the new ones; the
// saver keeps the first write of each (task, index): see Saver.PutWrites). Within one batch of special writes only, the last of a
// channel wins. A task's batch is kept as given (no copy per task of a
// wide superstep): the caller does not modify it afterwards.
func (p *pendingWrites) add(taskID string, writes []Write) {
	if taskID == NullTaskID {
		p.null = nil // not [:0]: an earlier reader may hold the old slice
		for _, w := range writes {
			if WriteSlot(w.Channel, 0) < 0 {
				p.null = slices.DeleteFunc(p.null, func(x PendingWrite) bool { return x.Channel == w.Channel })
			}
			p.null = append(p.null, PendingWrite{TaskID: taskID, Channel: w.Channel, Value: w.Value})
		}
		return
	}
	i := p.find(taskID)
	if i < 0 {
		i = p.push(taskID, nil)
	}
	p.batches[i] = writes
}

// reset forgets every write, keeping the allocations for the next superstep.
func (p *pendingWrites) reset() {
	p.null = p.null[:0]
	if p.index != nil {
		for _, id := range p.order {
			delete(p.index, id) // clear would cost the widest superstep's size
		}
	}
	// No references kept to what the superstep wrote, dropped one by one
	// and not by clear: while the collector marks, clearing memory with
	// pointers is a bulk barrier that walks its type, three a superstep
	// for its usual one task.
	// Every element past the length stays zero (grown relies on it).
	for i, ref := range p.refs {
		if ref != nil {
			ref.pendingRef = false
			p.refs[i] = nil
		}
		if p.order[i] != "" {
			p.order[i] = ""
		}
		if p.batches[i] != nil {
			p.batches[i] = nil
		}
	}
	p.order, p.refs, p.batches = p.order[:0], p.refs[:0], p.batches[:0]
	p.unnamed = 0
	p.tasks = 0 // the next superstep's, if wide, is set by reserve
}

// grown returns s one element longer. The new element is zero: reset
// leaves every element past the length zero, so none is written here;
// while the collector marks, each pointer written goes through the write
// barrier, and a superstep's usual one task was four.
func grown[T any](s []T) []T {
	if len(s) < cap(s) {
		return s[:len(s)+1]
	}
	var zero T
	return append(s, zero)
}

func (p *pendingWrites) empty() bool { return len(p.null) == 0 && len(p.order) == 0 }

// all lists every write: null-task writes first, then by task.
func (p *pendingWrites) all() []PendingWrite {
	out := slices.Clone(p.null)
	for i := range p.order {
		id := p.id(i)
		for _, w := range p.batches[i] {
			out = append(out, PendingWrite{TaskID: id, Channel: w.Channel, Value: w.Value})
		}
	}
	return out
}

// dropChannel forgets every write to ch (replay drops saved answers).
func (p *pendingWrites) dropChannel(ch string) {
	p.null = slices.DeleteFunc(p.null, func(w PendingWrite) bool { return w.Channel == ch })
	for i, ws := range p.batches {
		p.batches[i] = slices.DeleteFunc(slices.Clone(ws), func(w Write) bool { return w.Channel == ch })
	}
}

// dropNullResume forgets the run's plain resume value once a task took
// it, as LangGraph.js's consumeNullResume splices it from the loop's
// pending writes (pregel/algo.ts:1505-1515): what was saved stays saved,
// but a DurabilityExit run, which saves its pending writes only at exit
// (loop.ts:1169 _flushPendingWrites), does not save it.
func (p *pendingWrites) dropNullResume() {
	i := slices.IndexFunc(p.null, func(w PendingWrite) bool { return w.Channel == ResumeChannel })
	if i >= 0 {
		p.null = slices.Delete(slices.Clone(p.null), i, i+1) // an earlier reader may hold the old slice
	}
}

// resumeIndex is what Interrupt needs from the pending writes: each task's
// saved answers and the run's plain resume value.
type resumeIndex struct {
	byTask  map[string][]any
	null    any
	hasNull bool
}

func (p *pendingWrites) resumes() resumeIndex {
	var idx resumeIndex // byTask stays nil (no allocation) without answers
	for _, w := range p.null {
		if w.Channel == ResumeChannel && !idx.hasNull {
			idx.null, idx.hasNull = w.Value, true
		}
	}
	for i := range p.order {
		for _, w := range p.batches[i] {
			if w.Channel != ResumeChannel {
				continue
			}
			id := p.id(i)
			if idx.byTask == nil {
				idx.byTask = map[string][]any{}
			}
			if l, ok := w.Value.([]any); ok {
				idx.byTask[id] = append(idx.byTask[id], l...)
			} else {
				idx.byTask[id] = append(idx.byTask[id], w.Value)
			}
		}
	}
	return idx
}
