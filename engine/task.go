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
	Interrupts []Interruption // what the node asked
}

// Error shows the interrupt's value, or how many interrupts there are.
func (e *InterruptError) Error() string {
	if len(e.Interrupts) == 1 {
		return fmt.Sprintf("interrupted: %s", MustEncode(e.Interrupts[0].Value))
	}
	return fmt.Sprintf("interrupted (%d interrupts)", len(e.Interrupts))
}

// taskScope is what a running task carries in its context: the answers
// available to its Interrupt calls and the writes those calls make. It is
// the task's context itself, wrapping the superstep's.
type taskScope struct {
	context.Context
	t      *task
	run    *loop
	step   int
	mu     sync.Mutex
	resume []any // answers to this task's interrupts, by call position
	// nullResume is the run's plain resume value; each task may take it once.
	nullResume    any
	hasNullResume bool
	hasResume     bool // resumeWrite holds answers (beside hasNullResume: one word for both)
	counter       int
	resumeWrite   []any // the answers used so far, saved as the __resume__ write
	interrupt     *InterruptError
	// subgraphRuns counts the subgraph runs of this task execution, all
	// attempts together (LangGraph's scratchpad subgraph counter).
	subgraphRuns int
	// calls counts the node's Task calls, all attempts together (the
	// scratchpad's callCounter, made once per task: algo.ts:1499).
	calls int
	// timedCalls, in a timed attempt's scope (forAttempt), gathers the
	// calls the attempt started, which may outlive it (attemptTimed).
	timedCalls *[]startedCall
	// timeoutAbort, in a task's scope, is what its last attempt's
	// timeout aborted, until the task decides whether it retries.
	timeoutAbort *timeoutAbort
}

// startedCall is a Task call a timed attempt started: its task and its
// outcome.
type startedCall struct {
	t *task
	c *call
}

type taskScopeKey struct{}

// newAttempt readies the scope for an attempt of its task: no Interrupt
// call made yet, no answer written (see runTask).
func (s *taskScope) newAttempt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counter = 0
	s.resumeWrite, s.hasResume = nil, false
}

// Value answers taskScopeKey with the scope and asks the wrapped context
// for anything else.
func (s *taskScope) Value(key any) any {
	if key == (taskScopeKey{}) {
		return s
	}
	return s.Context.Value(key)
}

func scopeOf(ctx context.Context) *taskScope {
	if s, ok := ctx.(*taskScope); ok {
		return s
	}
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
		return nil, fmt.Errorf("%w: an interrupt waits in a checkpoint for its answer; compile the graph with engine.WithSaver (engine.NewMemorySaver(), or a persist store) and run it on a thread (engine.OnThread)", ErrNoCheckpointer)
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
		s.run.mu.Lock()
		s.run.nullResumeTaken = true
		s.run.pending.dropNullResume()
		s.run.mu.Unlock()
		s.resume = append(s.resume, v)
		s.resumeWrite = slices.Clone(s.resume)
		s.hasResume = true
		return v, nil
	}
	s.run.cs.view.escapes(value) // kept in the interrupt and its checkpoint
	s.interrupt = &InterruptError{Interrupts: []Interruption{{ID: interruptID(s.t.namespace(), len(s.resume)), Value: value}}}
	return nil, s.interrupt
}

// Emit sends a custom stream event from inside a node.
func Emit(ctx context.Context, value any) {
	if !attemptLive(ctx) {
		return // an attempt that timed out is abandoned; Emit counts as progress
	}
	s := scopeOf(ctx)
	if s == nil {
		return
	}
	if emit, ns := s.run.customSink(); emit != nil {
		s.run.cs.view.escapes(value) // a listener may keep it
		emit(Event{Kind: EventCustom, Step: s.step, Node: s.t.name, TaskID: s.t.id(), Value: value, Namespace: ns})
	}
}

// customSink is where Emit sends a custom event: the run's own listener,
// or, in a subgraph run that streams nothing else, the nearest enclosing
// run's, with the subgraph's namespace. The root run's custom writer is
// inherited by every subgraph run whatever the subgraphs option
// (LangGraph.js pregel/index.ts:2356 `config.writer ??=`; the chunk
// carries the namespace of the task that wrote it).
func (l *loop) customSink() (func(Event), string) {
	if l.emit != nil {
		return l.emit, ""
	}
	for p := l.opts.parent; p != nil; p = p.run.opts.parent {
		if p.run.emit != nil {
			return p.run.emit, l.cfg.CheckpointNS
		}
	}
	return nil, ""
}

// TaskInfo describes the running task to node code.
type TaskInfo struct {
	ID, Node, Namespace string // the task id, its node, its checkpoint namespace
	Step                int    // the superstep it runs in
	ThreadID            string // the run's thread
}

// CurrentTask returns the task running in ctx, if any.
func CurrentTask(ctx context.Context) (TaskInfo, bool) {
	s := scopeOf(ctx)
	if s == nil {
		return TaskInfo{}, false
	}
	return TaskInfo{ID: s.t.id(), Node: s.t.name, Namespace: s.t.namespace(), Step: s.step, ThreadID: s.run.cfg.ThreadID}, true
}

// nodeWrites turns what a node returned into the task's writes, writer by
// writer in LangGraph's order: the state update with its Command goto, one
// writer per static edge, one per conditional edge (evaluated on the state
// plus this task's own update) — state.py attach_node / attach_edge /
// attach_branch append them to the node's writers. Writes accumulate: when
// the superstep is cancelled between two writers, the task returns what it
// wrote so far with the cancellation (runner.ts aborts a task between the
// steps of its node sequence; it then saves task.writes with its error).
// Writes that pass a bound of Limits fail the task with no writes.
func (l *loop) nodeWrites(ctx context.Context, t *task, ret any) (writes []Write, states int, err error) {
	if err := cancelled(ctx); err != nil {
		return nil, 0, err
	}
	n := t.node
	pairs, isUpdate := ret.(Update)
	var gotos []any
	if !isUpdate {
		if pairs, gotos, err = l.returnPairs(t, ret); err != nil {
			return nil, 0, err
		}
	}
	// Sized for the usual case, so a task's writes are one allocation at
	// most, none if they fit in the task's own buffer. Only the task's own
	// attempt uses the buffer: a timed attempt runs on a copy of the scope
	// and, once abandoned, may still get here while a retry fills it.
	need := len(pairs) + len(gotos) + len(n.edgeWrites) + len(n.branches)
	own, _ := ctx.(*taskScope)
	switch {
	case own == &t.scope && need <= len(t.writeBuf):
		writes = t.writeBuf[:0]
	case own == &t.scope && len(t.writes) == 0 && cap(t.writes) >= need:
		writes = t.writes[:0] // an earlier task's memory (loop.keepWrites)
	default:
		writes = make([]Write, 0, need)
	}
	writes = l.g.stateWrites(n, writes, pairs)
	if len(writes) < len(pairs) {
		l.noteMisspeltKeys(t, pairs)
	}
	for i := range writes {
		// Here, not in stateWrites: a fan-out task runs on a small stack,
		// which Normalize's frames under both would overflow.
		writes[i].Value = Normalize(writes[i].Value)
	}
	states = len(writes)
	if len(gotos) > 0 {
		if writes, err = l.g.gotoWrites(writes, t.name, gotos); err != nil {
			return writes, states, err
		}
	}
	for _, w := range n.edgeWrites {
		if err := cancelled(ctx); err != nil {
			return writes, states, err
		}
		writes = append(writes, w)
	}
	if len(n.branches) > 0 {
		writes, err = l.branchWrites(ctx, t, writes)
	}
	return writes, states, err
}

// stateWrites appends the writes of pairs to state keys, as they are
// (nodeWrites normalizes them).
func (g *Graph) stateWrites(n *node, writes []Write, pairs Update) []Write {
	keys := g.stateKeys(n, pairs)
	for i, kv := range pairs {
		if keys != nil && keys.ids[i] >= 0 || keys == nil && g.IsStateKey(kv.Key) {
			writes = append(writes, Write{Channel: kv.Key, Value: kv.Value})
		}
	}
	return writes
}

// The parts of nodeWrites that few tasks need are functions of their own,
// so that its frame stays small: a task runs on a goroutine whose stack
// grows (every frame copied) once its calls pass 2 KB.

// returnPairs is what a node returned other than an Update: its state
// update as pairs, and the destinations of a Command's goto or a Send.
func (l *loop) returnPairs(t *task, ret any) (Update, []any, error) {
	var update any = ret
	var gotos []any
	switch r := ret.(type) {
	case Command:
		update, gotos = r.Update, r.Goto
	case *Command:
		if r == nil {
			return nil, nil, &InvalidUpdateError{Msg: fmt.Sprintf("node %q returned a nil *Command: return nil for no update, or a Command", t.name)}
		}
		update, gotos = r.Update, r.Goto
	case Send:
		update, gotos = nil, []any{r}
	}
	pairs, err := updatePairs(update)
	if err != nil {
		return nil, nil, &InvalidUpdateError{Msg: fmt.Sprintf("node %q returned %T: expected a map of state keys, an Update, a Command or nil", t.name, update)}
	}
	return pairs, gotos, nil
}

// gotoWrites appends the control writes of a Command's goto destinations,
// all or none: one bad destination fails the node with none of them
// written (LangGraph.js writes a goto's destinations in one writer call,
// which checks every Send before it writes any: 1.7.3 dist
// graph/state.js:768-781, pregel/algo.js:95-101 _localWrite). The
// node's update, written before them, stays.
func (g *Graph) gotoWrites(writes []Write, from string, gotos []any) ([]Write, error) {
	before := len(writes)
	for _, dest := range gotos {
		w, err := g.gotoWrite(from, dest)
		if err != nil {
			return writes[:before], err
		}
		writes = append(writes, w...)
	}
	return writes, nil
}

// branchWrites appends what the node's conditional edges write, each route
// evaluated on the state plus this task's own update.
func (l *loop) branchWrites(ctx context.Context, t *task, writes []Write) ([]Write, error) {
	local, err := l.localState(writes)
	if err != nil {
		return writes, fmt.Errorf("route from %q: %w", t.name, err)
	}
	// A task its superstep may abandon (attempt moved it to writing) can
	// be abandoned while a route runs: a route is the caller's code and
	// may ignore its context. The loop then saves the writes made before
	// it (t.writes) with the cancellation.
	watched := t.state.Load() == taskWriting
	for _, br := range t.node.branches {
		if err := cancelled(ctx); err != nil {
			return writes, err
		}
		if watched {
			t.writes = writes // published by the CAS
			t.state.CompareAndSwap(taskWriting, taskRouting)
		}
		dest, err := br.route(ctx, local)
		if watched && !t.state.CompareAndSwap(taskRouting, taskWriting) {
			return writes, context.Cause(ctx) // abandoned: what it returned is dropped
		}
		if err != nil {
			return writes, fmt.Errorf("route from %q: %w", t.name, err)
		}
		if writes, err = l.g.routeWrites(writes, br, dest); err != nil {
			return writes, err
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
		return []Write{{Channel: g.branchChannel(d), Value: from}}, nil
	case Send:
		if g.nodes[d.Node] == nil {
			return nil, &InvalidUpdateError{Msg: fmt.Sprintf("invalid node name %q in Send packet from %q", d.Node, from)}
		}
		return []Write{sendWrite(dest)}, nil
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

// routeWrites appends to out what a conditional edge writes for a route's
// result. On error, out comes back as it was given.
func (g *Graph) routeWrites(out []Write, br *branchSpec, dest any) ([]Write, error) {
	given := out
	var err error
	switch d := dest.(type) {
	case nil:
		return given, fmt.Errorf("route from %q did not return a valid destination", br.from)
	case []any:
		out = slices.Grow(out, len(d))
		valid := "" // the node the last Send went to: a fan-out sends to one
		for _, it := range d {
			if s, ok := it.(Send); ok && valid != "" && s.Node == valid {
				out = append(out, sendWrite(it)) // its node checked already
				continue
			}
			if out, err = g.routeWrite(out, br, it); err != nil {
				return given, err
			}
			if s, ok := it.(Send); ok {
				valid = s.Node
			}
		}
	case []string:
		out = slices.Grow(out, len(d))
		for _, it := range d {
			if out, err = g.routeWrite(out, br, it); err != nil {
				return given, err
			}
		}
	case []Send: // a fan-out, as Go builds it
		out = slices.Grow(out, len(d))
		valid := ""
		for _, it := range d {
			if valid != "" && it.Node == valid {
				out = append(out, sendWrite(it))
				continue
			}
			if out, err = g.routeWrite(out, br, it); err != nil {
				return given, err
			}
			valid = it.Node
		}
	default:
		if out, err = g.routeWrite(out, br, d); err != nil {
			return given, err
		}
	}
	return out, nil
}

// routeWrite appends the write of one route destination: a node name or a
// Send.
func (g *Graph) routeWrite(out []Write, br *branchSpec, dest any) ([]Write, error) {
	switch d := dest.(type) {
	case string:
		if br.pathMap != nil {
			// LangGraph.js graph/graph.ts Branch._finish: labels go
			// through the path map; an unknown label is an error.
			to, ok := br.pathMap[d]
			if !ok {
				return out, fmt.Errorf("route from %q returned %q, which is not a label of its path map", br.from, d)
			}
			d = to
		}
		// Only an empty destination is invalid: LangGraph.js
		// graph/graph.ts:211 (Branch._route) rejects falsy ones and writes
		// branch:to:__start__ for __start__, a channel no node reads (an
		// unknown name's write is dropped). Python also rejects START
		// (graph/_branch.py); the oracle is JS.
		if d == "" {
			return out, fmt.Errorf("route from %q did not return a valid destination (%q)", br.from, d)
		}
		if br.ends != nil && !slices.Contains(br.ends, d) {
			return out, fmt.Errorf("route from %q returned %q, which is not one of its ends %v", br.from, d, br.ends)
		}
		if d != End {
			out = append(out, Write{Channel: g.branchChannel(d), Value: br.fromValue})
		}
	case Send:
		if d.Node == End {
			return out, &InvalidUpdateError{Msg: "cannot send a packet to the END node"}
		}
		if g.nodes[d.Node] == nil {
			return out, &InvalidUpdateError{Msg: fmt.Sprintf("invalid node name %q in Send packet from %q", d.Node, br.from)}
		}
		out = append(out, sendWrite(dest))
	default:
		return out, fmt.Errorf("route from %q returned %T: expected a node name or a Send", br.from, dest)
	}
	return out, nil
}

// sendWrite is the task-topic write of a Send, boxed: the write
// holds boxed itself (a fan-out of many Sends costs no allocation per
// Send here), its argument as the node made it. The check of the task's
// writes, which measures the argument, puts it in engine form in the same
// walk (writeCheck.write); writes that leave a task unchecked go through
// normalizedSends.
func sendWrite(boxed any) Write {
	return Write{Channel: TasksChannel, Value: boxed}
}

// normalizedSends returns writes with every Send's argument in engine
// form: writes itself when all are, else a copy (the slice may be shared
// with a goroutine the superstep abandoned). It serves the writes a task
// keeps without their check: those made before it was cancelled or
// abandoned between its writers.
func normalizedSends(writes []Write) []Write {
	for i, w := range writes {
		if s, ok := w.Value.(Send); ok && w.Channel == TasksChannel && !normalized(s.Arg) {
			out := slices.Clone(writes)
			for j := i; j < len(out); j++ {
				if _, ok := out[j].Value.(Send); ok && out[j].Channel == TasksChannel {
					out[j].Value = Normalize(out[j].Value)
				}
			}
			return out
		}
	}
	return writes
}

// localState is the graph state as one task sees it after its own writes:
// committed values plus this task's state-key writes, reducers applied, and
// no sibling's writes, and the graph's managed values (withManaged).
//
// Without state-key writes or managed values it is the superstep's shared
// read-only view.
func (l *loop) localState(writes []Write) (map[string]any, error) {
	var state map[string]any
	var byKey map[string][]any
	var order []string
	for _, w := range writes {
		if !l.g.IsStateKey(w.Channel) {
			continue
		}
		if state == nil {
			state = l.cs.stateValues()
		}
		// The usual case, without building an index: a LastValue key
		// written once takes the value, as its channel would.
		if _, isLast := l.cs.channel(w.Channel).(*lastValue); isLast && len(writes) <= 16 && writtenOnce(writes, w.Channel) {
			state[w.Channel] = w.Value
			continue
		}
		if byKey == nil {
			byKey = map[string][]any{}
		}
		if _, ok := byKey[w.Channel]; !ok {
			order = append(order, w.Channel)
		}
		byKey[w.Channel] = append(byKey[w.Channel], w.Value)
	}
	if state == nil {
		return l.withManaged(l.cs.stateView(), false), nil
	}
	for _, k := range order {
		ch := l.cs.channel(k).clone()
		// A write the channel refuses fails the read, and so the task:
		// LangGraph.js _localRead applies the task's writes with
		// _applyWrites, which throws (pregel/algo.ts:190-222, 375-390).
		if _, err := ch.update(byKey[k]); err != nil {
			return nil, fmt.Errorf("reading the state with the task's own writes: channel %q: %w", k, err)
		}
		if v, ok := ch.get(); ok {
			state[k] = v
		}
	}
	return l.withManaged(state, true), nil
}

// writtenOnce reports whether writes hold exactly one write to channel.
func writtenOnce(writes []Write, channel string) bool {
	n := 0
	for _, w := range writes {
		if w.Channel == channel {
			n++
		}
	}
	return n == 1
}

// cancelled is the reason ctx was cancelled, or nil while it runs.
func cancelled(ctx context.Context) error {
	// A look at Done first: Err takes the context's lock, which a thousand
	// tasks of one superstep would all contend for.
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	default:
		return nil
	}
}
