package engine

import "slices"

// pendingWrites holds the writes saved against the current checkpoint, by
// task, so that saving one task's writes costs what it wrote even in a
// superstep of a thousand tasks.
type pendingWrites struct {
	null   []PendingWrite     // NullTaskID writes, accumulated
	byTask map[string][]Write // a task's latest batch
	order  []string           // task ids in first-save order
}

func newPendingWrites(ws []PendingWrite) *pendingWrites {
	p := &pendingWrites{byTask: map[string][]Write{}}
	for _, w := range ws {
		if w.TaskID == NullTaskID {
			p.null = append(p.null, w)
			continue
		}
		if _, ok := p.byTask[w.TaskID]; !ok {
			p.order = append(p.order, w.TaskID)
		}
		p.byTask[w.TaskID] = append(p.byTask[w.TaskID], Write{Channel: w.Channel, Value: w.Value})
	}
	return p
}

// add records a batch: a task's batch replaces its earlier one (as
// LangGraph.js keeps it in memory); null-task writes accumulate, special ones
// replacing their earlier value. A task's batch is kept as given (no copy
// per task of a wide superstep): the caller does not modify it afterwards.
func (p *pendingWrites) add(taskID string, writes []Write) {
	if taskID == NullTaskID {
		for _, w := range writes {
			if WriteSlot(w.Channel, 0) < 0 {
				p.null = slices.DeleteFunc(p.null, func(x PendingWrite) bool { return x.Channel == w.Channel })
			}
			p.null = append(p.null, PendingWrite{TaskID: taskID, Channel: w.Channel, Value: w.Value})
		}
		return
	}
	if _, ok := p.byTask[taskID]; !ok {
		p.order = append(p.order, taskID)
	}
	p.byTask[taskID] = writes
}

// reset forgets every write, keeping the allocations for the next superstep.
func (p *pendingWrites) reset() {
	p.null = p.null[:0]
	for _, id := range p.order {
		delete(p.byTask, id) // clear would cost the widest superstep's size
	}
	p.order = p.order[:0]
}

func (p *pendingWrites) empty() bool { return len(p.null) == 0 && len(p.order) == 0 }

// all lists every write: null-task writes first, then by task.
func (p *pendingWrites) all() []PendingWrite {
	out := slices.Clone(p.null)
	for _, id := range p.order {
		for _, w := range p.byTask[id] {
			out = append(out, PendingWrite{TaskID: id, Channel: w.Channel, Value: w.Value})
		}
	}
	return out
}

// dropChannel forgets every write to ch (replay drops saved answers).
func (p *pendingWrites) dropChannel(ch string) {
	p.null = slices.DeleteFunc(p.null, func(w PendingWrite) bool { return w.Channel == ch })
	for id, ws := range p.byTask {
		p.byTask[id] = slices.DeleteFunc(slices.Clone(ws), func(w Write) bool { return w.Channel == ch })
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
	for _, id := range p.order {
		for _, w := range p.byTask[id] {
			if w.Channel != ResumeChannel {
				continue
			}
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
