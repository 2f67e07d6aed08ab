package typed

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// Graph is a compiled typed graph. It is the engine graph (embedded: every
// engine method, Stream and the Stepper included, works on it with maps)
// plus typed entry points that take Updates and return S.
type Graph[S any] struct {
	*engine.Graph
	schema *schema
	cache  *stateCache              // its StateGraph's: the state keys by position
	input  atomic.Pointer[inputMap] // the last Update of several changes run, as a map
}

// inputMap is the map of state keys a run input of several changes
// became: Updates are values that nothing changes, so the same Update
// run again (one input for many threads) makes the same map, and the map
// is reused, as a map-API caller reuses its input map (the engine only
// reads it).
type inputMap struct {
	from *updateRest
	m    map[string]any
}

// inputOf is input as the map of state keys the engine takes as a run's
// input.
func (g *Graph[S]) inputOf(input *Update[S]) (map[string]any, error) {
	r := input.rest()
	if last := g.input.Load(); r != nil && last != nil && last.from == r {
		return last.m, nil
	}
	m, err := input.values(g.schema)
	if err == nil && r != nil {
		g.input.Store(&inputMap{from: r, m: m})
	}
	return m, err
}

// Engine returns the engine graph of a Compile result, for code that wants
// *engine.Graph (a registry, the debugger): Engine(b.Compile(opts...)).
func Engine[S any](g *Graph[S], err error) (*engine.Graph, error) {
	if err != nil {
		return nil, err
	}
	return g.Graph, nil
}

// Result is a typed run's outcome: the engine's result and its state
// decoded into S. A run that started and then failed or was cancelled
// returns its Result beside the error (the state it reached), as
// engine.Graph.Invoke does.
type Result[S any] struct {
	*engine.Result
	State S // Result.Values decoded
}

// Run starts a run with input as its input: the fields it sets become the
// map of state keys a map-API run is given (the input checkpoint stores
// that map, and its keys are written in sorted order, as LangGraph writes
// a dict input). An input that sets nothing continues the thread instead
// (see Continue). An input with Goto or Send is a Command instead, as
// LangGraph's invoke(Command(update=..., goto=...)): its fields are written
// in the order they were set and the nodes it names run next, from the
// thread's checkpoint.
func (g *Graph[S]) Run(ctx context.Context, input Update[S], opts ...engine.RunOption) (*Result[S], error) {
	if len(input.gotos()) > 0 {
		cmd, err := g.command(&input)
		if err != nil {
			return nil, err
		}
		return g.finish(g.Graph.Invoke(ctx, cmd, opts...))
	}
	if input.empty() {
		res, err := g.finish(g.Graph.Invoke(ctx, nil, opts...))
		return res, nothingToContinue(err, "Run was given an input that sets no field, which continues the thread, and", opts)
	}
	in, err := g.inputOf(&input)
	if err != nil {
		return nil, err
	}
	return g.finish(g.Graph.Invoke(ctx, in, opts...))
}

// Continue runs the thread on from its checkpoint without new input
// (LangGraph's invoke(None)): past a breakpoint, or from a fork made by
// UpdateState (with engine.FromCheckpoint). A thread with nothing to
// continue returns engine.ErrEmptyInput, with the thread's id: one that
// has no checkpoint (not started with Run yet, or mistyped).
func (g *Graph[S]) Continue(ctx context.Context, opts ...engine.RunOption) (*Result[S], error) {
	res, err := g.finish(g.Graph.Invoke(ctx, nil, opts...))
	if t := threadOf(opts); t != "" && errors.Is(err, engine.ErrEmptyInput) {
		err = fmt.Errorf("Continue: thread %q has no checkpoint to go on from (start it with Run; a mistyped thread id?): %w", t, err)
	}
	return res, err
}

// threadOf is the thread opts run on, "" for none.
func threadOf(opts []engine.RunOption) string {
	var o engine.RunOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o.Thread
}

// nothingToContinue says, when err is the engine's ErrEmptyInput (which
// names no thread), that what was asked (Run's or Stream's empty input)
// continues a thread, and which thread had no checkpoint to go on from.
func nothingToContinue(err error, what string, opts []engine.RunOption) error {
	if !errors.Is(err, engine.ErrEmptyInput) {
		return err
	}
	if t := threadOf(opts); t != "" {
		return fmt.Errorf("typed: %s thread %q has no checkpoint to go on from (start it with an input that sets a field; a mistyped thread id?): %w", what, t, err)
	}
	return fmt.Errorf("typed: %s the run has no thread and so no checkpoint to go on from (without a saver it never has): %w", what, err)
}

// Resume answers the thread's pending interrupt with answer (any Go value;
// the node reads it with Interrupt into its own type) and continues the run.
// With several interrupts pending (parallel Send tasks that each ask), one
// answer answers every one of them; an engine.ResumeMap answers each by
// its interrupt id (State's snapshot's Interrupts lists them).
// A thread with no pending interrupt runs no task and returns its state,
// StatusDone, without an error, as the engine does (see
// engine.ErrNothingPending): a caller that must refuse such an answer
// checks State's snapshot's Interrupts first. That includes a thread id
// that has no checkpoint yet (a mistyped one), where the run writes an
// empty input checkpoint and returns a zero state, as LangGraph.js does.
//
// With engine.FromCheckpoint at a checkpoint whose interrupt was answered
// already, the saved answer is the one the node gets, not answer: to
// answer an old question differently, Continue from that checkpoint (it
// asks again, on a new branch) and Resume then (example: Graph.Resume,
// fork).
func (g *Graph[S]) Resume(ctx context.Context, answer any, opts ...engine.RunOption) (*Result[S], error) {
	cmd, err := Resume(answer)
	if err != nil {
		return nil, err
	}
	return g.finish(g.Graph.Invoke(ctx, cmd, opts...))
}

// ResumeWith is Resume with a state update, as LangGraph's
// Command(resume=answer, update=..., goto=...): the fields update sets are
// written through their channels before the answered nodes run again, and
// its Goto and Send name nodes to run next. The zero Update is Resume.
func (g *Graph[S]) ResumeWith(ctx context.Context, answer any, update Update[S], opts ...engine.RunOption) (*Result[S], error) {
	cmd, err := Resume(answer)
	if err != nil {
		return nil, err
	}
	upd, err := g.command(&update)
	if err != nil {
		return nil, err
	}
	cmd.Update, cmd.Goto = upd.Update, upd.Goto
	return g.finish(g.Graph.Invoke(ctx, cmd, opts...))
}

// command is update as an engine.Command: its writes in the order they
// were set and its gotos, each Send's argument encoded as a node's are.
func (g *Graph[S]) command(update *Update[S]) (engine.Command, error) {
	var cmd engine.Command
	pairs, err := update.pairs(g.schema)
	if err != nil {
		return cmd, err
	}
	if pairs != nil {
		cmd.Update = pairs
	}
	if gotos := update.gotos(); len(gotos) > 0 {
		if cmd.Goto, err = encodeGotos(gotos); err != nil {
			return engine.Command{}, err
		}
	}
	return cmd, nil
}

func (g *Graph[S]) finish(res *engine.Result, err error) (*Result[S], error) {
	if res == nil {
		return nil, err
	}
	out := &Result[S]{Result: res}
	var derr error
	if kv, keys, ok := g.resultByKey(res); ok {
		derr = g.schema.decodeByKey(kv, keys, unsafe.Pointer(&out.State))
	} else {
		derr = g.schema.decode(res.Values, reflect.ValueOf(&out.State).Elem())
	}
	if derr != nil && err == nil {
		err = derr
	}
	return out, err
}

// resultByKey is the run's values by key position, when the engine kept
// them (engine.Result.ValuesByKey): decoding them costs no map lookups.
func (g *Graph[S]) resultByKey(res *engine.Result) (engine.KeyedState, []keySlot, bool) {
	if g.cache == nil {
		return engine.KeyedState{}, nil, false
	}
	p := g.cache.keys.Load()
	if p == nil {
		return engine.KeyedState{}, nil, false
	}
	kv, ok := res.ValuesByKey()
	return kv, *p, ok && kv.Len() == len(*p)
}

// State returns the thread's state at cfg (its latest checkpoint when
// cfg.CheckpointID is empty) decoded into S, with the engine's snapshot,
// read through the graph's own saver. A graph that runs inside another
// has none: read its state with StateIn.
func (g *Graph[S]) State(ctx context.Context, cfg engine.Config) (S, *engine.StateSnapshot, error) {
	if err := g.ownSaver(cfg, "State", "StateIn"); err != nil {
		var s S
		return s, nil, err
	}
	return g.StateIn(ctx, g.Graph, cfg)
}

// ownSaver refuses a subgraph's namespace on a graph without a saver, which
// is how a graph that runs inside another is compiled, naming the method
// that reads or writes through the graph that ran it.
func (g *Graph[S]) ownSaver(cfg engine.Config, method, through string) error {
	if g.Graph.Saver() != nil || cfg.CheckpointNS == "" {
		return nil
	}
	return fmt.Errorf("%w: %s of graph %q in namespace %q: a graph that runs inside another keeps its checkpoints in its parent's saver; use %s with the parent's graph", engine.ErrNoCheckpointer, method, g.Name(), cfg.CheckpointNS, through)
}

// StateIn is State for a graph that runs inside another — a subgraph
// node (AddSubgraph) or a node's InvokeSubgraph — and so has no saver of
// its own: its state in the run cfg.CheckpointNS names (the namespace a
// task of owner's snapshot gives, engine.SnapshotTask.Subgraph) is read
// through owner, the graph whose saver keeps it, usually the parent's
// g.Graph, and decoded into S:
//
//	r, snap, err := sub.StateIn(ctx, parent.Graph, engine.Config{ThreadID: "t", CheckpointNS: ns})
//
// A value that does not fit S is a *DecodeError naming its field; a nil
// owner is engine.ErrNoCheckpointer.
func (g *Graph[S]) StateIn(ctx context.Context, owner *engine.Graph, cfg engine.Config) (S, *engine.StateSnapshot, error) {
	var s S
	if owner == nil {
		return s, nil, fmt.Errorf("%w: StateIn was given no graph to read through", engine.ErrNoCheckpointer)
	}
	snap, err := owner.GetState(ctx, cfg)
	if err != nil {
		return s, nil, err
	}
	err = g.schema.decode(snap.Values, reflect.ValueOf(&s).Elem())
	return s, snap, err
}

// Decode reads a state map (engine.Result.Values, StateSnapshot.Values)
// into S; a value that does not fit its field is a *DecodeError naming it.
func (g *Graph[S]) Decode(values map[string]any) (S, error) {
	var s S
	err := g.schema.decode(values, reflect.ValueOf(&s).Elem())
	return s, err
}

// InvokeSubgraph runs the graph from inside a running node of another
// graph with a typed input and returns its final state decoded into S: the
// typed form of engine.InvokeSubgraph (the calling task's namespace, the
// run's saver; declare the graph on the node with engine.UsesSubgraph to
// read its state by namespace). It is for a node that chooses what the
// subgraph hands back to its own state, where a subgraph node
// (StateGraph.AddSubgraph) hands back the subgraph's whole state. An
// interrupt inside the subgraph comes back as the error, which the node
// returns; when the run resumes, the node runs again and this call
// resumes the subgraph.
func (g *Graph[S]) InvokeSubgraph(ctx context.Context, input Update[S]) (S, error) {
	var out S
	in, err := input.values(g.schema)
	if err != nil {
		return out, err
	}
	values, err := engine.InvokeSubgraph(ctx, g.Graph, in)
	if err != nil {
		return out, err
	}
	err = g.schema.decode(values, reflect.ValueOf(&out).Elem())
	return out, err
}

// UpdateState writes update into the thread at cfg as if node asNode had
// returned it (engine.Graph.UpdateState): at an old checkpoint this forks
// the thread. An update with Goto or Send is a Command asNode returned, so
// the nodes it names run next. It returns the new checkpoint's config.
func (g *Graph[S]) UpdateState(ctx context.Context, cfg engine.Config, update Update[S], asNode string) (engine.Config, error) {
	if err := g.ownSaver(cfg, "UpdateState", "UpdateStateIn"); err != nil {
		return engine.Config{}, err
	}
	return g.UpdateStateIn(ctx, g.Graph, cfg, update, asNode)
}

// UpdateStateIn is UpdateState for a graph that runs inside another (see
// StateIn): update is written as node asNode of this graph returned it,
// into the subgraph's checkpoint in the run cfg.CheckpointNS names, through
// owner, the graph whose saver keeps it (LangGraph's update_state with a
// subgraph's config). The run goes on with the edit when the parent is
// resumed or continued:
//
//	cfg, err := sub.UpdateStateIn(ctx, parent.Graph, engine.Config{ThreadID: "t", CheckpointNS: ns}, typed.Write(&c, typed.Set(&c.Draft, "fixed")), "write")
//
// A nil owner is engine.ErrNoCheckpointer.
func (g *Graph[S]) UpdateStateIn(ctx context.Context, owner *engine.Graph, cfg engine.Config, update Update[S], asNode string) (engine.Config, error) {
	if owner == nil {
		return engine.Config{}, fmt.Errorf("%w: UpdateStateIn was given no graph to write through", engine.ErrNoCheckpointer)
	}
	cmd, err := g.command(&update)
	if err != nil {
		return engine.Config{}, err
	}
	var values any
	if cmd.Goto != nil {
		values = cmd
	} else if cmd.Update != nil {
		values = cmd.Update
	}
	return owner.UpdateState(ctx, cfg, values, asNode)
}

// Interrupt pauses the node for a person's answer, as engine.Interrupt, with
// a typed payload and a typed answer: payload is encoded like a state value
// and the answer decoded into A. On the first call it returns the error the
// node must return; after a resume it returns the answer.
//
// The caller reads the payload back as the engine's value, in
// Result.Interrupts (engine.PendingInterrupt.Value) or a snapshot's
// Interrupts: Decode[T] turns it into the payload's type again.
func Interrupt[A any](ctx context.Context, payload any) (A, error) {
	var answer A
	p, err := Encode(payload)
	if err != nil {
		return answer, &EncodeError{Where: "interrupt payload", Err: err}
	}
	v, err := engine.Interrupt(ctx, p)
	if err != nil {
		return answer, err
	}
	if err := codecFor(reflect.TypeFor[A]()).dec(reflect.ValueOf(&answer).Elem(), v); err != nil {
		if de, ok := err.(*DecodeError); ok {
			de.Where = "interrupt answer"
		}
		return answer, err
	}
	return answer, nil
}

// Resume is the run input that answers a pending interrupt with a Go value
// (engine.Command{Resume: …} with the value encoded). An engine.ResumeMap
// answers several interrupts by id; each of its values is encoded.
// Graph.ResumeWith answers with a state update too.
func Resume(answer any) (engine.Command, error) {
	if byID, ok := answer.(engine.ResumeMap); ok {
		out := make(engine.ResumeMap, len(byID))
		for id, a := range byID {
			v, err := Encode(a)
			if err != nil {
				return engine.Command{}, &EncodeError{Where: fmt.Sprintf("resume answer for interrupt %s", id), Err: err}
			}
			out[id] = v
		}
		return engine.Command{Resume: out}, nil
	}
	v, err := Encode(answer)
	if err != nil {
		return engine.Command{}, &EncodeError{Where: "resume answer", Err: err}
	}
	if v == nil {
		return engine.Command{}, fmt.Errorf("typed: a resume answer must not be nil: %w", engine.ErrEmptyInput)
	}
	return engine.Command{Resume: v}, nil
}
