package engine

import (
	"context"
	"iter"
	"strconv"
)

// Invoke runs the graph until it finishes, is interrupted, or fails. input
// is a map of state keys (new input), nil (continue the thread), or a
// Command (resume with an answer, update, goto). The error is the run's
// failure (*NodeError, *InvalidUpdateError, *GraphRecursionError, …); an
// interrupt is not an error: the Result says StatusInterrupted.
func (g *Graph) Invoke(ctx context.Context, input any, opts ...RunOption) (*Result, error) {
	s, err := g.Start(ctx, input, opts...)
	if err != nil {
		return &Result{Status: StatusFailed, Err: err}, err
	}
	return s.Run(ctx)
}

// Stream runs the graph like Invoke and yields its events as they happen.
// A failure is yielded last, as the error of a zero Event.
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
			_, err := g.Invoke(ctx, input, append(opts, WithEvents(forward))...)
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
	// Each run of a subgraph inside one task execution gets its own
	// namespace: the first the task's, the next "<ns>|1", and so on. The
	// counter lives in the task's scope, so it survives retries: a retried
	// subgraph node starts again from its input in a fresh namespace
	// (_loop.py:325-340 with the scratchpad's subgraph_counter,
	// _algo.py:1344; loop.ts:553-562).
	ns := t.namespace()
	if n := scope.subgraphRuns; n > 0 {
		ns += "|" + strconv.Itoa(n) // NS_SEP
	}
	scope.subgraphRuns++
	opts := RunOptions{
		Thread:         l.cfg.ThreadID,
		RecursionLimit: l.opts.RecursionLimit,
		SubgraphTurns:  l.opts.SubgraphTurns,
		ns:             ns,
		parent:         scope,
	}
	if ls := l.turns; ls != nil {
		if at, ok := l.turnOf[t.id]; ok && ls.isActive(at) {
			opts.turns, opts.turnAt = ls, at
			defer ls.leave(at)
		}
	}
	child, err := newLoop(ctx, sub, t.input, opts)
	if err != nil {
		return nil, err
	}
	s := &Stepper{l: child}
	res, err := s.Run(ctx)
	if err != nil {
		return nil, err
	}
	if res.Status == StatusInterrupted {
		ints := make([]Interruption, len(res.Interrupts))
		for i, in := range res.Interrupts {
			ints[i] = in.Interruption
		}
		scope.interrupt = &InterruptError{Interrupts: ints}
		return nil, scope.interrupt
	}
	out := make(Update, 0, len(sub.keys))
	for _, k := range sub.keys {
		if v, ok := res.Values[k.Name]; ok {
			out = append(out, KV{k.Name, v})
		}
	}
	return out, nil
}
