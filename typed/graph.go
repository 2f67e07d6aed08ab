package typed

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/superstep/superstep/engine"
)

// NodeFunc is a typed node: it gets its own copy of the state (changing it
// changes nothing) and returns the fields it updates.
//
// s is valid until the node returns, the rule the map API has for its
// state map (engine.NodeFunc): the graph reuses the copy for a later task.
// A node that keeps the state past its return — in a variable, a closure
// or a goroutine that outlives it — keeps a copy of its own (c := *s).
// What the node hands back is safe: its Update, its Sends and a typed
// Interrupt's payload are encoded before the copy is reused, a node that
// returns an error (an interrupt included) never has its copy reused, and
// the values of its slice, map and pointer fields are decoded (or copied)
// afresh for every task, so keeping s.Items (not s) is safe too. The same
// holds for RouteFunc's and SendsFunc's s. See "What a node costs" in the
// package doc.
type NodeFunc[S any] func(ctx context.Context, s *S) (Update[S], error)

// SendFunc is a node started by Sends: it gets the Send's argument
// decoded into A and returns its update of the graph state S, built on
// out, a zero S the layer lends it for that:
//
//	return typed.Write(out, typed.Append(&out.Results, arg.N*2)), nil
//
// A Send's node reads no state (LangGraph hands it the argument alone), but
// an Update names its fields by their address in a struct (see "Why
// Set(&s.Field, value)" in the package doc), so it needs one. A struct of
// the node's own (var out S) would do as well, but its address in the
// Update moves it to the heap: one allocation per task, the size of S, on
// the hottest path of a fan-out. out is allocated with the node's write
// instead (a state of up to 256 bytes) or recycled (a larger one), with
// the rule NodeFunc's s has: it is valid until the node returns, and what
// the node hands back is encoded first.
type SendFunc[S, A any] func(ctx context.Context, arg A, out *S) (Update[S], error)

// RouteFunc picks the next node of a conditional edge (or engine.End) from
// the state after the routing node's own update. s is valid until the
// route returns (see NodeFunc).
type RouteFunc[S any] func(ctx context.Context, s *S) (string, error)

// SendsFunc fans out from a node: one task per Send, each with its own
// argument. s is valid until it returns (see NodeFunc); the Sends'
// arguments are encoded before s is reused.
type SendsFunc[S any] func(ctx context.Context, s *S) ([]engine.Send, error)

// StateGraph builds a graph whose state is the struct S. It wraps
// engine.StateGraph: the same methods, the same validation, the same
// compiled graph; only nodes and routes are typed. Each exported field of S
// is one state key, named as encoding/json names it (its json tag, else
// the field name; `json:"-"` skips it). Its channel is LastValue, unless
// the field is tagged `reducer:"append"` (a slice whose writes are
// appended), is of type Messages or tagged `reducer:"add_messages"`, or is
// tagged with a reducer registered by WithReducer.
type StateGraph[S any] struct {
	b      *engine.StateGraph
	schema *schema
	cache  *stateCache // the state its nodes and routes decoded last
	states *statePool[S]
	cached bool // nodes and routes decode through cache (cache.go)
	err    error
}

// NewGraph starts a typed graph named name over the state struct S. A state
// type that cannot be a schema is reported by Compile.
func NewGraph[S any](name string, opts ...Option) *StateGraph[S] {
	o := &options{reducers: map[string]reducerDef{}}
	for _, opt := range opts {
		opt(o)
	}
	sc, err := schemaFor(ptrTypeOf[S]())
	var keys []engine.KeySpec
	if err == nil {
		keys, err = sc.keySpecs(o)
	}
	var se *SchemaError
	if errors.As(err, &se) {
		// The schema's own errors are cached per type: name the graph on
		// a copy.
		named := *se
		named.Graph = name
		err = &named
	}
	g := &StateGraph[S]{schema: sc, cache: &stateCache{}, states: &statePool[S]{}, err: err}
	g.cached = err == nil && len(sc.shared) >= cacheFrom
	g.b = engine.NewStateGraph(keys...)
	g.b.Named(name)
	return g
}

// AddNode adds a node that reads the state as *S.
func (g *StateGraph[S]) AddNode(name string, fn NodeFunc[S], opts ...engine.NodeOption) *StateGraph[S] {
	if fn == nil {
		g.b.AddNode(name, nil, opts...)
		return g
	}
	// One closure between the engine and fn, with the Update in its own
	// frame: every frame here is on each task's stack.
	block := reflect.TypeFor[S]().Size() <= nodeTaskMaxState
	g.b.AddNode(name, func(ctx context.Context, input any) (any, error) {
		var s *S
		var out *engine.Update
		dirty := false
		if block {
			t := new(nodeTask[S])
			s, out = &t.state, &t.out
			t.out = t.writes[:0]
		} else {
			s, dirty = g.states.get()
		}
		if err := g.decodeInput(ctx, input, s, dirty, true); err != nil {
			return nil, err // the engine's NodeError names the node
		}
		u, err := fn(ctx, s)
		if err != nil {
			return nil, err // s may be in err (an interrupt's payload): not reused
		}
		res, err := g.schema.nodeOutput(&u.update, out)
		if err == nil && !block {
			g.states.put(s) // the writes and Sends are encoded: nothing of them points into s
		}
		return res, err
	}, opts...)
	return g
}

// nodeTaskMaxState is the largest state a nodeTask holds; a larger one is
// recycled (statePool). A small copy costs one allocation shared with the
// node's writes, which the engine keeps anyway, and recycling it measured
// slower than allocating it (loop_5000). The writes make the block one the
// garbage collector scans; a large state of numbers alone would otherwise
// never be scanned (measured on wide_state: its 1.6 KB state in a block
// cost more CPU time than the allocation saved).
const nodeTaskMaxState = 256

// nodeTask is what a node's task allocates for a small state: the node's
// own copy of the state, room for its write (an Update of more changes
// brings room of its own) and the result that points to it (see boxed),
// in one allocation instead of three.
type nodeTask[S any] struct {
	state  S
	writes [1]engine.KV
	out    engine.Update
}

// copyOf copies the S at src to dst: a typed copy, not reflect's.
func copyOf[S any](dst, src unsafe.Pointer) { *(*S)(dst) = *(*S)(src) }

// statePool recycles the state copies nodes and routes decode into: a
// copy is valid until its node or route returns (see NodeFunc and
// "What a node costs" in the package doc). The last copy handed back is
// kept in a slot of its own, taken and put back with one atomic swap
// each: nodes and routes that run one after another (a chain, a loop)
// reuse it for a fraction of what sync.Pool's Get and Put cost, which
// measured more than the allocation they save on small states. Copies
// handed back while the slot is full (tasks running at once) go to the
// sync.Pool.
type statePool[S any] struct {
	last atomic.Pointer[S]
	p    sync.Pool
}

// get is a state copy: fresh (zero) or recycled (dirty: any content).
func (sp *statePool[S]) get() (s *S, dirty bool) {
	if s := sp.last.Swap(nil); s != nil {
		return s, true
	}
	if s, ok := sp.p.Get().(*S); ok {
		return s, true
	}
	return new(S), false
}

// put hands back a copy whose node or route has returned.
func (sp *statePool[S]) put(s *S) {
	if !sp.last.CompareAndSwap(nil, s) {
		sp.p.Put(s)
	}
}

// AddSendNode adds a node that Sends start: fn gets the Send's argument
// decoded into A. (A method cannot take the type parameter A, hence a
// function.)
func AddSendNode[S, A any](g *StateGraph[S], name string, fn SendFunc[S, A], opts ...engine.NodeOption) *StateGraph[S] {
	if fn == nil {
		g.b.AddNode(name, nil, opts...)
		return g
	}
	c := codecFor(reflect.TypeFor[A]())
	n := &sendNode[S, A]{fn: fn, scalars: c.scalars, block: reflect.TypeFor[S]().Size() <= nodeTaskMaxState, sendArg: sendArg{schema: g.schema, codec: c, name: name}}
	g.b.AddNode(name, func(ctx context.Context, input any) (any, error) {
		var arg A // on this task's stack: the direct path is a static call
		if n.scalars == nil || !n.scalars.decAt(unsafe.Pointer(&arg), input) {
			var err error
			if arg, err = decodeArg[A](&n.sendArg, input); err != nil {
				return nil, err
			}
		}
		if n.block {
			// out and the room for the node's write in one allocation,
			// as a NodeFunc's small state (nodeTask): zero as allocated.
			t := new(nodeTask[S])
			t.out = t.writes[:0]
			u, err := n.fn(ctx, arg, &t.state)
			if err != nil {
				return nil, err
			}
			return n.output(u.update, &t.out)
		}
		out := n.scratch()
		u, err := n.fn(ctx, arg, out)
		if err != nil {
			return nil, err // out may be in err: not reused
		}
		res, err := n.output(u.update, nil)
		if err == nil {
			n.outs.Put(out) // the writes and Sends are encoded: nothing of them points into out
		}
		return res, err
	}, opts...)
	return g
}

// sendNode is what a Send node's closure uses, behind one pointer. The
// closure's frame is on every Send task's stack, which starts at 2 KB and
// is mostly the engine's (see "What a node costs" in the package doc), so
// it keeps one word of what the closure captured, and its calls take few
// arguments (the frame holds room for them).
type sendNode[S, A any] struct {
	fn      SendFunc[S, A]
	scalars *scalarStruct // the argument's direct path (codec.scalars), or nil
	// block: a task allocates its out with its write (nodeTask), for an S
	// of at most nodeTaskMaxState bytes. The allocation replaces the
	// write's own (oneWrite), so a small out costs its bytes and no
	// call: recycling it through outs cost about 120 instructions a task
	// in sync.Pool's Get and Put (callgrind, fanout_1000).
	block bool
	// outs recycles the larger zero states fn builds its updates on
	// (SendFunc's out). A sync.Pool, not statePool's slot: a fan-out's
	// tasks run at once on every core, where one slot shared by all would
	// move between their caches twice a task; the pool's Get and Put stay
	// on one core.
	outs sync.Pool
	sendArg
}

// scratch is a zero S for fn's update: recycled (and zeroed) or new.
func (n *sendNode[S, A]) scratch() *S {
	if out, ok := n.outs.Get().(*S); ok {
		var zero S
		*out = zero
		return out
	}
	return new(S)
}

// sendArg is a Send node's non-generic part.
type sendArg struct {
	schema *schema
	codec  *codec // the argument's
	name   string
}

// output is what the node returns to the engine for its Update u. It
// takes u in registers and is not inlined, so that the closure's frame,
// on the stack while the node runs, holds neither u nor room for
// nodeOutput's arguments.
//
//go:noinline
func (n *sendArg) output(u update, out *engine.Update) (any, error) {
	return n.schema.nodeOutput(&u, out)
}

// decodeArg decodes a Send's argument through its codec, into a value of
// its own (reflect would move the caller's to the heap).
func decodeArg[A any](n *sendArg, input any) (A, error) {
	arg := new(A)
	if err := n.codec.dec(reflect.ValueOf(arg).Elem(), input); err != nil {
		if de, ok := err.(*DecodeError); ok {
			de.Where = fmt.Sprintf("node %q: Send argument", n.name)
		}
		return *arg, err
	}
	return *arg, nil
}

// state decodes a route's input into a copy from the pool; the route
// hands it back with states.put when it has returned.
func (g *StateGraph[S]) state(ctx context.Context, input any) (*S, error) {
	s, dirty := g.states.get()
	return s, g.decodeInput(ctx, input, s, dirty, false)
}

// decodeInput decodes a node's or a route's input state into s, which is
// zero unless dirty (a recycled copy). A node's input is usually the
// run's shared state view, which the engine may let it read by key
// position; a route's usually includes its node's own writes, a map of
// its own, read by name without asking (view false).
func (g *StateGraph[S]) decodeInput(ctx context.Context, input any, s *S, dirty, view bool) error {
	m, ok := input.(map[string]any)
	if !ok || !g.cached {
		if dirty {
			var zero S
			*s = zero
		}
		if input == nil {
			return nil
		}
		if !ok {
			// Only a Send gives a node something else than the state.
			return &DecodeError{Where: "Send argument, read as the state (AddSendNode adds a node that takes an argument of its own type)", Type: g.schema.typ, Value: input}
		}
		if !view {
			return g.schema.decodeAt(m, unsafe.Pointer(s))
		}
		if kv, keys, byKey := g.cache.byKey(ctx, m); byKey {
			return g.schema.decodeByKey(kv, keys, unsafe.Pointer(s))
		}
		return g.schema.decodeAt(m, unsafe.Pointer(s))
	}
	// decodeState writes every field: the cached ones from the cache, the
	// others decoded into their zero.
	return g.schema.decodeState(ctx, g.cache, m, unsafe.Pointer(s), copyOf[S])
}

// AddEdge runs to after from (engine.StateGraph.AddEdge).
func (g *StateGraph[S]) AddEdge(from, to string) *StateGraph[S] {
	g.b.AddEdge(from, to)
	return g
}

// AddJoin runs to once every node of from has run (engine.StateGraph.AddJoin).
func (g *StateGraph[S]) AddJoin(from []string, to string) *StateGraph[S] {
	g.b.AddJoin(from, to)
	return g
}

// AddConditionalEdges routes from a node with route; ends lists every name
// route may return (engine.StateGraph.AddConditionalEdges).
func (g *StateGraph[S]) AddConditionalEdges(from string, route RouteFunc[S], ends ...string) *StateGraph[S] {
	if route == nil {
		g.b.AddConditionalEdges(from, nil, ends...)
		return g
	}
	// The declared ends boxed once: a route returns one of them, and
	// returning the boxed copy costs no allocation per routing.
	boxed := anys(ends)
	g.b.AddConditionalEdges(from, func(ctx context.Context, state map[string]any) (any, error) {
		s, err := g.state(ctx, state)
		if err != nil {
			return nil, err
		}
		next, err := route(ctx, s)
		if err != nil {
			return nil, err // s may be in err: not reused
		}
		g.states.put(s)
		for i, end := range ends {
			if end == next {
				return boxed[i], nil
			}
		}
		return next, nil
	}, ends...)
	return g
}

// AddSends fans out from a node: sends returns one engine.Send (see Send)
// per task to start; ends lists the nodes they may target.
func (g *StateGraph[S]) AddSends(from string, sends SendsFunc[S], ends ...string) *StateGraph[S] {
	if sends == nil {
		g.b.AddConditionalEdges(from, nil, ends...)
		return g
	}
	g.fanOut(from, func(ctx context.Context, s *S) ([]any, error) {
		list, err := sends(ctx, s)
		if err != nil {
			return nil, err
		}
		return encodeSends(list)
	}, ends...)
	return g
}

// fanOut routes from with sends, which gives a state's Sends encoded (the
// user's function, then encoding what it returned).
func (g *StateGraph[S]) fanOut(from string, sends func(context.Context, *S) ([]any, error), ends ...string) {
	g.b.AddConditionalEdges(from, func(ctx context.Context, state map[string]any) (any, error) {
		s, err := g.state(ctx, state)
		if err != nil {
			return nil, err
		}
		out, err := sends(ctx, s)
		if err != nil {
			return nil, err // s may be in err: not reused
		}
		g.states.put(s) // the Sends' arguments are encoded: none points into s
		return out, nil
	}, ends...)
}

// FanOutFunc gives the arguments of a fan-out's tasks, one task per
// element. s is valid until it returns (see NodeFunc); the arguments are
// encoded before s is reused.
type FanOutFunc[S, A any] func(ctx context.Context, s *S) ([]A, error)

// AddFanOut fans out from node from to the Send node to (added with
// AddSendNode): each element of the list args returns starts one task of
// to, with the element as its argument — LangGraph's
// [Send(to, a) for a in …] from a conditional edge. It is AddSends for
// the usual fan-out, one target and one argument type, and the cheaper of
// the two: the arguments stay in the list the function returns, typed,
// until each is encoded into the engine's value, where Send boxes each
// into an engine.Send first. AddSends remains for Sends to several nodes.
// (A method cannot take the type parameter A, hence a function.)
//
// A LangGraph route that returns either Sends or a node's name (a tool
// call loop: one task per tool call, else on to the next node) is a
// fan-out and a conditional edge from the same node: the fan-out returns
// no arguments when the route goes to a node, and the route returns
// engine.End when the fan-out has work (see the toolCalls example).
func AddFanOut[S, A any](g *StateGraph[S], from, to string, args FanOutFunc[S, A]) *StateGraph[S] {
	if args == nil {
		g.b.AddConditionalEdges(from, nil, to)
		return g
	}
	enc := &fanOutEncoder{to: to, scalars: codecFor(reflect.TypeFor[A]()).scalars}
	g.fanOut(from, func(ctx context.Context, s *S) ([]any, error) {
		list, err := args(ctx, s)
		if err != nil {
			return nil, err
		}
		return encodeFanOut(enc, list)
	}, to)
	return g
}

// AddSubgraph adds a node that runs a compiled graph
// (engine.StateGraph.AddSubgraph): the subgraph's final state is the node's
// update, so a `reducer:"append"` field the subgraph's state shares gets
// its whole list appended again (engine.StateGraph.AddSubgraph says why
// and what to do instead), and so is every reducer field: a WithReducer
// sum counts the parent's total a second time. A Messages field is merged
// by id and keeps one copy of each message.
func (g *StateGraph[S]) AddSubgraph(name string, sub *engine.Graph, opts ...engine.NodeOption) *StateGraph[S] {
	g.b.AddSubgraph(name, sub, opts...)
	return g
}

// Compile validates the graph and compiles it to an engine graph, wrapped
// for typed runs. Errors are the schema's (*SchemaError, ErrNotStruct) or
// engine.CompileErrors.
func (g *StateGraph[S]) Compile(opts ...engine.CompileOption) (*Graph[S], error) {
	if g.err != nil {
		return nil, g.err
	}
	// Nodes read their fields by key position (cache.go), so the runs
	// keep the state that way too; the caller's slice is not appended to.
	eg, err := g.b.Compile(append(opts[:len(opts):len(opts)], engine.WithStateByKey())...)
	if err != nil {
		return nil, err
	}
	g.cache.setKeys(g.schema, eg.StateKeys())
	return &Graph[S]{Graph: eg, schema: g.schema, cache: g.cache}, nil
}
