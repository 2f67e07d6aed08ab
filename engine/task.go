package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// InterruptError is how a node's Interrupt call stops the task: the node
// returns it (or any error wrapping it) and the run pauses for input.
type InterruptError struct {
	Interrupts []Interruption
}

func (e *InterruptError) Error() string {
	if len(e.Interrupts) == 1 {
		return fmt.Sprintf("interrupted: %s", MustEncode(e.Interrupts[0].Value))
	}
	return fmt.Sprintf("interrupted (%d interrupts)", len(e.Interrupts))
}

// taskScope is what a running task carries in its context: the answers
// available to its Interrupt calls and the writes those calls make.
type taskScope struct {
	t      *task
	run    *loop
	step   int
	mu     sync.Mutex
	resume []any // answers to this task's interrupts, by call position
	// nullResume is the run's plain resume value; each task may take it once.
	nullResume    any
	hasNullResume bool
	counter       int
	resumeWrite   []any // the answers used so far, saved as the __resume__ write
	hasResume     bool
	interrupt     *InterruptError
}

type taskScopeKey struct{}

func scopeOf(ctx context.Context) *taskScope {
	s, _ := ctx.Value(taskScopeKey{}).(*taskScope)
	return s
}

// Interrupt pauses the run for human input. The first time a node calls it,
// it returns an *InterruptError that the node must return; the run stops and
// reports value. When the run is resumed with an answer, the node runs again
// from its top and the same call returns the answer. Several calls in one
// node are answered one at a time, matched by position.
func Interrupt(ctx context.Context, value any) (any, error) {
	s := scopeOf(ctx)
	if s == nil {
		return nil, errors.New("engine.Interrupt called outside a running node")
	}
	if s.run.saver == nil {
		return nil, ErrNoCheckpointer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := s.counter
	s.counter++
	if idx < len(s.resume) {
		s.resumeWrite = slices.Clone(s.resume[:idx+1])
		s.hasResume = true
		return s.resume[idx], nil
	}
	if s.hasNullResume {
		v := s.nullResume
		s.hasNullResume = false
		s.resume = append(s.resume, v)
		s.resumeWrite = slices.Clone(s.resume)
		s.hasResume = true
		return v, nil
	}
	s.interrupt = &InterruptError{Interrupts: []Interruption{{ID: interruptID(s.t.ns, len(s.resume)), Value: value}}}
	return nil, s.interrupt
}

// Emit sends a custom stream event from inside a node.
func Emit(ctx context.Context, value any) {
	if s := scopeOf(ctx); s != nil && s.run.emit != nil {
		s.run.emit(Event{Kind: EventCustom, Step: s.step, Node: s.t.name, TaskID: s.t.id, Value: value})
	}
}

// TaskInfo describes the running task to node code.
type TaskInfo struct {
	ID, Node, Namespace string
	Step                int
	ThreadID            string
}

// CurrentTask returns the task running in ctx, if any.
func CurrentTask(ctx context.Context) (TaskInfo, bool) {
	s := scopeOf(ctx)
	if s == nil {
		return TaskInfo{}, false
	}
	return TaskInfo{ID: s.t.id, Node: s.t.name, Namespace: s.t.ns, Step: s.step, ThreadID: s.run.cfg.ThreadID}, true
}

// nodeWrites turns what a node returned into the task's writes, writer by
// writer in LangGraph's order: the state update with its Command goto, one
// writer per static edge, one per conditional edge (evaluated on the state
// plus this task's own update) — state.py attach_node / attach_edge /
// attach_branch append them to the node's writers. Writes accumulate: when
// the superstep is cancelled between two writers, the task returns what it
// wrote so far with the cancellation (runner.ts aborts a task between the
// steps of its node sequence; it then saves task.writes with its error).
func (l *loop) nodeWrites(ctx context.Context, t *task, ret any) ([]Write, error) {
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	g := l.g
	n := t.node
	var writes []Write
	var update any = ret
	var gotos []any
	switch r := ret.(type) {
	case Command:
		update, gotos = r.Update, r.Goto
	case *Command:
		update, gotos = r.Update, r.Goto
	case Send:
		update, gotos = nil, []any{r}
	}
	pairs, err := updatePairs(update)
	if err != nil {
		return nil, &InvalidUpdateError{Msg: fmt.Sprintf("node %q returned %T: expected a map of state keys, an Update, a Command or nil", t.name, update)}
	}
	for _, kv := range pairs {
		if g.IsStateKey(kv.Key) {
			writes = append(writes, Write{Channel: kv.Key, Value: Normalize(kv.Value)})
		}
	}
	for _, dest := range gotos {
		w, err := g.gotoWrite(t.name, dest)
		if err != nil {
			return writes, err
		}
		writes = append(writes, w...)
	}
	for _, w := range n.edgeWrites {
		if err := cancelled(ctx); err != nil {
			return writes, err
		}
		writes = append(writes, w)
	}
	if len(n.branches) > 0 {
		local := l.localState(writes)
		for _, br := range n.branches {
			if err := cancelled(ctx); err != nil {
				return writes, err
			}
			dest, err := br.route(ctx, local)
			if err != nil {
				return writes, fmt.Errorf("route from %q: %w", t.name, err)
			}
			w, err := g.routeWrites(br, dest)
			if err != nil {
				return writes, err
			}
			writes = append(writes, w...)
		}
	}
	return writes, nil
}

// gotoWrite is the control write of one Command goto destination.
func (g *Graph) gotoWrite(from string, dest any) ([]Write, error) {
	switch d := dest.(type) {
	case string:
		if d == End {
			return nil, nil
		}
		return []Write{{Channel: BranchPrefix + d, Value: from}}, nil
	case Send:
		if g.nodes[d.Node] == nil || d.Node == Start {
			return nil, &InvalidUpdateError{Msg: fmt.Sprintf("invalid node name %q in Send packet from %q", d.Node, from)}
		}
		return []Write{{Channel: TasksChannel, Value: Send{Node: d.Node, Arg: Normalize(d.Arg)}}}, nil
	case []any:
		var out []Write
		for _, x := range d {
			w, err := g.gotoWrite(from, x)
			if err != nil {
				return nil, err
			}
			out = append(out, w...)
		}
		return out, nil
	case []string:
		var out []Write
		for _, x := range d {
			w, _ := g.gotoWrite(from, x)
			out = append(out, w...)
		}
		return out, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("goto from %q: expected a node name or a Send, got %T", from, dest)
}

// routeWrites is what a conditional edge writes for a route's result.
func (g *Graph) routeWrites(br *branchSpec, dest any) ([]Write, error) {
	var items []any
	switch d := dest.(type) {
	case nil:
		return nil, fmt.Errorf("route from %q did not return a valid destination", br.from)
	case []any:
		items = d
	case []string:
		for _, s := range d {
			items = append(items, s)
		}
	default:
		items = []any{d}
	}
	var out []Write
	for _, it := range items {
		switch d := it.(type) {
		case string:
			if d == Start || d == "" {
				return nil, fmt.Errorf("route from %q did not return a valid destination (%q)", br.from, d)
			}
			if br.ends != nil && !slices.Contains(br.ends, d) {
				return nil, fmt.Errorf("route from %q returned %q, which is not one of its ends %v", br.from, d, br.ends)
			}
			if d != End {
				out = append(out, Write{Channel: BranchPrefix + d, Value: br.from})
			}
		case Send:
			if d.Node == End {
				return nil, &InvalidUpdateError{Msg: "cannot send a packet to the END node"}
			}
			if g.nodes[d.Node] == nil || d.Node == Start {
				return nil, &InvalidUpdateError{Msg: fmt.Sprintf("invalid node name %q in Send packet from %q", d.Node, br.from)}
			}
			out = append(out, Write{Channel: TasksChannel, Value: Send{Node: d.Node, Arg: Normalize(d.Arg)}})
		default:
			return nil, fmt.Errorf("route from %q returned %T: expected a node name or a Send", br.from, it)
		}
	}
	return out, nil
}

// localState is the graph state as one task sees it after its own writes:
// committed values plus this task's state-key writes, reducers applied, and
// no sibling's writes.
func (l *loop) localState(writes []Write) map[string]any {
	state := l.cs.stateValues()
	byKey := map[string][]any{}
	var order []string
	for _, w := range writes {
		if l.g.IsStateKey(w.Channel) {
			if _, ok := byKey[w.Channel]; !ok {
				order = append(order, w.Channel)
			}
			byKey[w.Channel] = append(byKey[w.Channel], w.Value)
		}
	}
	for _, k := range order {
		ch := l.cs.channels[k].clone()
		if _, err := ch.update(byKey[k]); err != nil {
			continue
		}
		if v, ok := ch.get(); ok {
			state[k] = v
		}
	}
	return state
}

// cancelled is the reason ctx was cancelled, or nil while it runs.
func cancelled(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}
