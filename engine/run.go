package engine

import (
	"context"
	"iter"
	"strconv"
)

// Invoke runs the graph until it finishes, is interrupted, or fails. input
// is a map of state keys (new input), nil (continue the thread), or a
// Command (resume with an answer, update, goto). Invoke only reads input:
// the caller may keep it and pass it again. The error is the run's
// failure (*NodeError, *InvalidUpdateError, *GraphRecursionError, …); an
// interrupt is not an error: the Result says StatusInterrupted.
//
// Cancelling ctx (a client that went away, a server shutting down) stops
// the run at once: no further superstep starts, the running nodes'
// contexts are cancelled, and Invoke returns an error that matches ctx's
// (errors.Is(err, context.Canceled) or context.DeadlineExceeded) without
// waiting for them, as LangGraph.js races each task against the caller's
// abort signal. Each task that had finished keeps its saved writes; each
// that had not saves its error (a *NodeError wrapping ctx's cause) and is
// abandoned: a node that ignores its context runs on until it returns,
// on its own goroutine, and what it then writes, asks or emits is
// dropped. The thread continues from its latest checkpoint (Invoke with
// nil input), running only the tasks that had not finished. A sibling's
// failure abandons the superstep's other tasks the same way.
//
// Runs of one thread are not serialized, as in LangGraph: two at once
// each go on from the checkpoint they read, and the thread's history
// branches. A service that takes requests runs one at a time per thread.
func (g *Graph) Invoke(ctx context.Context, input any, opts ...RunOption) (*Result, error) {
	s, err := g.start(ctx, input, false, opts)
	if err != nil {
		return &Result{Status: StatusFailed, Err: err}, err
	}
	s.l.invoked = true
	res, err := s.Run(ctx)
	s.l.gate.close() // the run is over for the caller
	// Nothing applies this run's writes any more: the Stepper is Invoke's.
	s.l.cs.releaseScratch()
	return res, err
}

// invokeRecovered is Invoke on a goroutine of Stream's or StreamModes':
// a panic there would end the process, out of the caller's reach, so it
// is the run's error instead (a panic of the program's code the engine
// calls on its own goroutine: an event listener, a step hook).
func (g *Graph) invokeRecovered(ctx context.Context, input any, opts []RunOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError("the run", r)
		}
	}()
	_, err = g.Invoke(ctx, input, opts...)
	return err
}

// Stream runs the graph like Invoke and yields its events as they happen.
// A failure is yielded last, as the error of a zero Event. Leaving the loop
// early (break, return) cancels the run as cancelling ctx does (see Invoke)
// and returns once the run has stopped; the run may have gone on past the
// last event read (events are buffered), and the thread continues from its
// latest checkpoint.
func (g *Graph) Stream(ctx context.Context, input any, opts ...RunOption) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		events := make(chan Event, 64)
		done := make(chan error, 1)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		forward := func(e Event) {
			select {
			case events <- e:
			case <-ctx.Done():
			}
		}
		go func() {
			err := g.invokeRecovered(ctx, input, append(opts, alsoEvents(forward)))
			done <- err
			close(events)
		}()
		for e := range events {
			if !yield(e, nil) {
				cancel()
				for range events {
				}
				return
			}
		}
		if err := <-done; err != nil {
			yield(Event{}, err)
		}
	}
}

// runSubgraph runs a subgraph node's graph inside its task, in the task's
// checkpoint namespace, and returns the subgraph's final state as the
// node's update.
func (l *loop) runSubgraph(ctx context.Context, scope *taskScope, t *task) (any, error) {
	sub := t.node.subgraph
	res, _, err := l.runChild(ctx, scope, sub, "", t.input)
	if err != nil {
		return takeParentCommand(t.namespace(), err)
	}
	out := make(Update, 0, len(sub.keys))
	for _, k := range sub.keys {
		if v, ok := res.Values[k.Name]; ok {
			out = append(out, KV{k.Name, v})
		}
	}
	return out, nil
}

// SubgraphRunNamespace is the namespace of the k-th run (from 0) of a subgraph
// inside the task whose namespace is taskNS: the task's own for the first,
// then "<taskNS>|1", "<taskNS>|2", … (NS_SEP and the scratchpad's
// subgraph_counter: _loop.py:325-340, _algo.py:1344; loop.ts:553-562).
// runChild names runs by it; readers (here, the debugger) walk them with
// it.
func SubgraphRunNamespace(taskNS string, k int) string {
	if k == 0 {
		return taskNS
	}
	return taskNS + "|" + strconv.Itoa(k)
}

// runChild runs sub inside scope's task as a subgraph: in the task's
// checkpoint namespace (or the next one, for a second run in the same
// task), with the run's saver, limits and context. An interrupt inside it
// becomes the task's interrupt, returned as the error; ns is the namespace
// it ran in. declared is the name the node declared sub under
// (UsesSubgraph), recorded in each checkpoint the run writes, or "".
func (l *loop) runChild(ctx context.Context, scope *taskScope, sub *Graph, declared string, input any) (res *Result, ns string, err error) {
	t := scope.t
	// Each run of a subgraph inside one task execution gets its own
	// namespace: the first the task's, the next "<ns>|1", and so on. The
	// counter lives in the task's scope, so it survives retries: a retried
	// subgraph node starts again from its input in a fresh namespace
	// (_loop.py:325-340 with the scratchpad's subgraph_counter,
	// _algo.py:1344; loop.ts:553-562).
	scope.mu.Lock() // a timed attempt's scope is read when it times out
	ns = SubgraphRunNamespace(t.namespace(), scope.subgraphRuns)
	scope.subgraphRuns++
	scope.mu.Unlock()
	if sub.stateful {
		// One history per thread: the namespace without task ids
		// (LangGraph.js pregel/index.ts _ownCheckpointConfig).
		ns = NamespaceNodes(ns)
	}
	opts := RunOptions{
		Thread:         l.cfg.ThreadID,
		RecursionLimit: l.opts.RecursionLimit,
		SubgraphTurns:  l.opts.SubgraphTurns,
		Context:        l.opts.Context,
		MaxConcurrency: l.opts.MaxConcurrency,
		Durability:     l.opts.Durability,
		ns:             ns,
		parent:         scope,
		declaredAs:     declared,
	}
	if l.opts.StreamSubgraphs && l.emit != nil {
		opts.StreamSubgraphs, opts.Events = true, subgraphEvents(ns, sub, l.emit)
		opts.planEvents = l.opts.planEvents
	}
	if ls := l.turns; ls != nil {
		if at, ok := l.turnOf[t.id()]; ok && ls.isActive(at) {
			opts.turns, opts.turnAt = ls, at
			defer ls.leave(at)
		}
	}
	if l.opts.StepSubgraphs && l.opts.Hook != nil {
		opts.Hook, opts.StepSubgraphs = l.opts.Hook, true
	}
	child, err := newLoop(ctx, sub, input, opts)
	if err != nil {
		return nil, ns, err
	}
	s := &Stepper{l: child, viewed: opts.Hook != nil}
	if err := s.callHook(ctx); err != nil {
		return nil, ns, err // the run's start, as Start shows it
	}
	if res, err = s.Run(ctx); err != nil {
		return nil, ns, err
	}
	if res.Status == StatusInterrupted {
		if len(res.HeldCalls) > 0 {
			// The parent's stop names the calls its subgraph's
			// breakpoints held (it stops for the task's interrupt).
			l.mu.Lock()
			l.heldCalls = append(l.heldCalls, res.HeldCalls...)
			l.mu.Unlock()
		}
		ints := make([]Interruption, len(res.Interrupts))
		for i, in := range res.Interrupts {
			ints[i] = in.Interruption
		}
		scope.interrupt = &InterruptError{Interrupts: ints}
		return nil, ns, scope.interrupt
	}
	return res, ns, nil
}

// InvokeSubgraph runs sub from inside a running node as LangGraph runs a
// compiled graph invoked in a node function (its config carries the task's
// checkpoint namespace and checkpointer: Python pregel/main.py stream reads
// CONFIG_KEY_CHECKPOINT_NS from the task's config): in the calling task's
// namespace, with the run's saver, recursion limit and context. An interrupt
// inside sub stops the parent run (return the error from the node); when
// the parent resumes, the node runs again and this call resumes sub from its
// checkpoint. A second call in the same node execution runs in the next
// namespace ("<ns>|1"). It returns sub's final state.
//
// A node of sub that returns a Command for engine.Parent ends sub's run
// with a *ParentCommandError; the node returns it as its error, and the
// calling task applies the Command (update, goto) as if the node had
// returned it (LangGraph.js pregel/retry.ts:129-139). Only the first run
// of a node execution, and only of a sub that is not stateful, is the
// task's own: a Command.PARENT from a second run or from a stateful sub
// goes on up, as in LangGraph.js (see takeParentCommand).
//
// Declare sub on the node (UsesSubgraph) to read and update its state by
// namespace afterwards; an undeclared sub runs the same way but only its
// events and its Command.PARENT reach the parent.
func InvokeSubgraph(ctx context.Context, sub *Graph, input any) (map[string]any, error) {
	scope := scopeOf(ctx)
	if scope == nil {
		return nil, ErrOutsideNode
	}
	res, _, err := scope.run.runChild(ctx, scope, sub, scope.t.node.declaredName(sub), input)
	if err != nil {
		return nil, err
	}
	return res.Values, nil
}
