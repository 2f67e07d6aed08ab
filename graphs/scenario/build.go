package scenario

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/superstep/superstep/engine"
)

// ScriptedFailure is the error a node's "fail" raises.
type ScriptedFailure struct {
	Node    string // the node's path (a subgraph's "sub/node", a task's "task:name")
	Message string
}

// Error is the scripted message alone, as a node's own error is its
// exception's message: the engine's NodeError around it names the node
// (and each subgraph node it failed in), so naming it here too printed
// it twice ("fetch: fetch: upstream 503").
func (e *ScriptedFailure) Error() string { return e.Message }

// Counters count node entries (per op, for traces) and scripted failures
// (per scenario). Safe for concurrent use: nodes of a superstep run at once.
type Counters struct {
	mu sync.Mutex
	// entries has one counter per node path, made when the node is built,
	// so a thousand tasks entering at once add atomically instead of
	// queueing for mu.
	entries map[string]*atomic.Int64
	fails   map[string]int
}

func newCounters() *Counters {
	return &Counters{entries: map[string]*atomic.Int64{}, fails: map[string]int{}}
}

// entryCounter returns path's entry counter, made on first use.
func (c *Counters) entryCounter(path string) *atomic.Int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.entries[path]
	if n == nil {
		n = new(atomic.Int64)
		c.entries[path] = n
	}
	return n
}

func (c *Counters) failAttempt(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fails[path]++
	return c.fails[path]
}

// TakeEntries returns the entry counts since the last call and resets them.
func (c *Counters) TakeEntries() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for path, n := range c.entries {
		if v := n.Swap(0); v > 0 {
			out[path] = int(v)
		}
	}
	return out
}

// Build compiles the scenario's root graph (with its subgraphs) into an
// engine graph. opts are passed to Compile (a saver, id source, …); the
// file's interrupt_before/after are added. A graph that does not compile
// is an Errors, one *Error for each engine.CompileError (which it wraps,
// with ErrInvalidGraph), at the place in the file to edit: a subgraph's
// inside its definition.
func Build(f *File, opts ...engine.CompileOption) (*engine.Graph, *Counters, error) {
	if f.Entrypoint != nil {
		if f.usesCache() {
			opts = append(opts, engine.WithCache(engine.NewMemoryCache()))
		}
		g, c, err := buildEntrypoint(f, opts)
		if err != nil {
			return nil, nil, f.entrypointErrors(err)
		}
		return g, c, nil
	}
	c := newCounters()
	root := Graph{InterruptBefore: f.InterruptBefore, InterruptAfter: f.InterruptAfter, InterruptBeforeAll: f.InterruptBeforeAll, InterruptAfterAll: f.InterruptAfterAll}
	if err := root.starInList(); err != nil {
		return nil, nil, f.compileErrors(&f.Graph, "", err)
	}
	for _, name := range sortedKeys(f.Subgraphs) {
		if err := f.Subgraphs[name].starInList(); err != nil {
			return nil, nil, f.compileErrors(f.Subgraphs[name], join2("subgraphs", name), err)
		}
	}
	opts = append(opts, root.breakpointOptions()...)
	if f.usesCache() {
		opts = append(opts, engine.WithCache(engine.NewMemoryCache()))
	}
	g, err := buildGraph(f, &f.Graph, "", "", c, newTaskSet(f, c), opts)
	if err != nil {
		return nil, nil, err
	}
	return g, c, nil
}

// buildGraph compiles def, the root graph of f or one of its subgraphs
// (prefix: the path of the node that runs it, "" at the root; field:
// where it is written, "" or subgraphs.NAME), with its subgraphs built
// first. Its compile errors are placed in the file (compileErrors).
func buildGraph(f *File, def *Graph, prefix, field string, c *Counters, tasks *taskSet, opts []engine.CompileOption) (*engine.Graph, error) {
	keys := make([]engine.KeySpec, 0, len(def.State))
	schema := make([]string, 0, len(def.State))
	for _, k := range def.State {
		keys = append(keys, keySpec(k))
		schema = append(schema, k.Name)
	}
	b := engine.NewStateGraph(keys...).Named(f.Name)
	names := make([]string, 0, len(def.Nodes))
	for _, n := range def.Nodes {
		names = append(names, n.Name)
	}
	nodeSet := def.nodeSet()
	for _, n := range def.Nodes {
		path := n.Name
		if prefix != "" {
			path = prefix + "/" + n.Name
		}
		nopts := nodeOptions(n, names)
		if name := cmp.Or(n.Subgraph, n.Invoke); name != "" {
			sdef := f.Subgraphs[name]
			if sdef == nil {
				return nil, fmt.Errorf("node %q: unknown subgraph %q", n.Name, name)
			}
			var sopts []engine.CompileOption
			if sdef.Stateful {
				sopts = append(sopts, engine.AsStatefulSubgraph())
			}
			sopts = append(sopts, sdef.breakpointOptions()...)
			sub, err := buildGraph(f, sdef, path, join2("subgraphs", name), c, tasks, sopts)
			var placed Errors
			if errors.As(err, &placed) {
				return nil, err // each error says where in the subgraph
			}
			if err != nil {
				return nil, fmt.Errorf("subgraph %q: %w", name, err)
			}
			if n.Invoke != "" {
				// Declared, as the oracle passes LangGraph.js addNode
				// the subgraph in its `subgraphs` option: its state is
				// then read and updated by namespace.
				nopts = append(nopts, engine.UsesSubgraph(name, sub))
				b.AddNode(intern(n.Name), invokeFunc(path, sub, sdef, n.SleepMS, c), nopts...)
				continue
			}
			b.AddSubgraph(n.Name, sub, nopts...)
			continue
		}
		b.AddNode(intern(n.Name), nodeFunc(path, n, c, tasks, schema, f.sites, nodeSet), nopts...)
	}
	addEdges(b, def, f.sites)
	g, err := b.Compile(opts...)
	if err != nil {
		return nil, f.compileErrors(def, field, err)
	}
	return g, nil
}

// nodeOptions are the engine's options for node n of a graph whose nodes
// are names: its policies, and where it may go.
func nodeOptions(n *Node, names []string) []engine.NodeOption {
	var nopts []engine.NodeOption
	if n.Retry != nil {
		nopts = append(nopts, engine.WithRetry(retryPolicy(n.Retry)))
	}
	if n.TimeoutMS > 0 {
		nopts = append(nopts, engine.WithTimeout(engine.TimeoutPolicy{Run: time.Duration(n.TimeoutMS) * time.Millisecond}))
	}
	if n.Cache != nil {
		nopts = append(nopts, engine.WithCachePolicy(cachePolicy(n.Cache)))
	}
	if n.Defer {
		nopts = append(nopts, engine.WithDefer())
	}
	if n.Goto != nil {
		ends := n.Ends
		if ends == nil {
			for _, other := range names {
				if other != n.Name {
					ends = append(ends, other)
				}
			}
			ends = append(ends, engine.End)
		}
		nopts = append(nopts, engine.WithEnds(ends...))
	}
	if (n.Subgraph != "" || n.Invoke != "") && n.Ends != nil {
		// The nodes a Command.PARENT from inside may go to
		// (LangGraph's destinations).
		nopts = append(nopts, engine.WithEnds(n.Ends...))
	}
	return nopts
}

// addEdges adds def's edges and branches to b; a route that returns a
// destination the engine refuses or drops is noted in sites.
func addEdges(b *engine.StateGraph, def *Graph, sites *siteLog) {
	nodes := def.nodeSet()
	for _, e := range def.Edges {
		if e.Join {
			b.AddJoin(e.From, e.To)
		} else {
			b.AddEdge(e.From[0], e.To)
		}
	}
	for _, br := range def.Branches {
		route := br.Route
		dest := &destinations{nodes: nodes, ends: br.Ends}
		if br.PathMap != nil {
			dest.pathMap = map[string]bool{}
			for _, kv := range br.PathMap {
				dest.pathMap[kv.Key] = true
			}
		}
		fn := func(ctx context.Context, state map[string]any) (v any, err error) {
			if route.readsOnlyState() {
				v, err = route.eval(state, nil)
			} else {
				v, err = route.Eval(Env{State: state, Context: engine.RuntimeContext(ctx)})
			}
			if err != nil {
				return nil, route.placed(err)
			}
			if dest.doubtful(v) {
				sites.note(ctx, route.site)
			}
			return v, nil
		}
		if br.PathMap != nil {
			m := make(map[string]string, len(br.PathMap))
			for _, kv := range br.PathMap {
				m[kv.Key] = kv.Value.(string)
			}
			b.AddConditionalEdgesMap(br.From, fn, m)
			continue
		}
		b.AddConditionalEdges(br.From, fn, br.Ends...)
	}
}

// retryPolicy is a node's retry policy: every error is retried unless
// retry_on names what is (a scripted fail's message, or NodeTimeoutError).
func retryPolicy(r *Retry) engine.RetryPolicy {
	p := engine.RetryPolicy{
		MaxAttempts:     r.MaxAttempts,
		InitialInterval: time.Duration(r.InitialIntervalMS) * time.Millisecond,
		BackoffFactor:   r.BackoffFactor,
		MaxInterval:     time.Duration(r.MaxIntervalMS) * time.Millisecond,
		Jitter:          r.Jitter,
		RetryOn:         func(error) bool { return true },
	}
	if r.RetryOn != nil {
		p.RetryOn = func(err error) bool {
			var sf *ScriptedFailure
			var te *engine.NodeTimeoutError
			switch {
			case errors.As(err, &sf):
				return slices.Contains(r.RetryOn, sf.Message)
			case errors.As(err, &te):
				return slices.Contains(r.RetryOn, "NodeTimeoutError")
			}
			return false
		}
	}
	return p
}

// cachePolicy keys the node's cache by its key expression's value (or the
// whole input) in canonical JSON.
func cachePolicy(c *Cache) engine.CachePolicy {
	p := engine.CachePolicy{TTL: time.Duration(c.TTLSeconds) * time.Second}
	if c.Key != nil {
		key := c.Key
		p.Key = func(input any) (string, error) {
			v, err := key.Eval(Env{State: input})
			if err != nil {
				return "", key.placed(err)
			}
			return string(Canonical(plain(v), 0)), nil
		}
	}
	return p
}

// usesCache reports whether a root node or a task has a cache policy.
func (f *File) usesCache() bool {
	for _, n := range f.Nodes {
		if n.Cache != nil {
			return true
		}
	}
	for _, t := range f.Tasks {
		if t.Cache != nil {
			return true
		}
	}
	return false
}

func keySpec(k StateKey) engine.KeySpec {
	dflt := k.Default
	// A fresh copy for every thread: engine.Normalize rebuilds lists and
	// maps.
	mk := func() any { return engine.Normalize(dflt) }
	var s engine.KeySpec
	switch k.Reducer {
	case "":
		return engine.LastValueKey(k.Name)
	case ReducerAdd:
		s = engine.AppendKey(k.Name)
	case ReducerAddMessages:
		s = engine.MessagesKey(k.Name)
	default:
		fn, _, _ := engine.NamedReducer(k.Reducer) // known: Parse checked it
		s = engine.ReducerKey(k.Name, fn, nil)
		s.ReducerName = k.Reducer
	}
	s.Default = mk
	return s
}

// nodeFunc is a scripted node: its task calls first, then interrupts (each
// returns its answer), the scripted failure, the sleep, and finally update
// and goto, evaluated on the node's input and the calls' results.
// schema lists the state keys in declaration order, nodes the nodes of
// its graph; a goto to one it lacks is noted in sites.
func nodeFunc(path string, n *Node, c *Counters, tasks *taskSet, schema []string, sites *siteLog, nodes map[string]bool) engine.NodeFunc {
	entered := c.entryCounter(path)
	gotos := &destinations{nodes: nodes}
	upd := updateOf(n, schema)
	if n.onlyUpdatesState() {
		return plainNodeFunc(upd, entered, sites)
	}
	return func(ctx context.Context, input any) (any, error) {
		entered.Add(1)
		rc := engine.RuntimeContext(ctx)
		var results []any
		if n.Calls != nil {
			var err error
			if results, err = tasks.run(ctx, n.Calls, Env{State: input, Context: rc}); err != nil {
				return nil, err
			}
		}
		resumes, err := prelude(ctx, path, n.Interrupts, n.Fail, n.SleepMS, Env{State: input, Context: rc, Results: results}, c)
		if err != nil {
			return nil, err
		}
		env := &Env{State: input, Resume: last(resumes), Resumes: resumes, Context: rc, Results: results}
		if n.Emit != nil {
			v, err := n.Emit.eval(input, env)
			if err != nil {
				return nil, n.Emit.placed(fmt.Errorf("emit: %w", err))
			}
			engine.Emit(ctx, v)
		}
		update, err := upd.eval(input, env)
		if err != nil {
			return nil, err
		}
		if upd.notAnUpdate(update, n.Goto == nil && !n.Parent) {
			sites.note(ctx, upd.expr.site)
		}
		if n.Goto == nil && !n.Parent {
			return update, nil
		}
		if n.Goto == nil {
			return engine.Command{Update: update, Graph: engine.Parent}, nil
		}
		g, err := n.Goto.eval(input, env)
		if err != nil {
			return nil, n.Goto.placed(fmt.Errorf("goto: %w", err))
		}
		if g != nil && gotos.doubtful(g) {
			sites.note(ctx, n.Goto.site)
		}
		var gotos []any
		switch x := g.(type) {
		case nil:
		case []any:
			gotos = x
		default:
			gotos = []any{x}
		}
		cmd := engine.Command{Update: update, Goto: gotos}
		if n.Parent {
			cmd.Graph = engine.Parent
		}
		return cmd, nil
	}
}

// plainNodeFunc is a node that only updates state (onlyUpdatesState), the
// common one. A Send task runs it on its goroutine's first, small stack,
// so its path has as few frames as it can (see Expr.runFast): with its
// update as a map of expressions that all have closures, the node calls
// them itself, with one recover for all; when one of them needs the VM,
// the recover evaluates the whole update again (expressions have no side
// effects).
//
// An update expression that yields no update (notAnUpdate) is noted in
// sites: the engine refuses it.
func plainNodeFunc(spec update, entered *atomic.Int64, sites *siteLog) engine.NodeFunc {
	upd := &spec // by pointer: the deferred closures stay small
	keys := upd.keys
	for _, ke := range keys {
		if ke.Expr.fast == nil {
			keys = nil
		}
	}
	switch len(keys) {
	case 0:
		return func(ctx context.Context, input any) (any, error) {
			entered.Add(1)
			v, err := upd.eval(input, nil)
			if err == nil && upd.notAnUpdate(v, true) {
				sites.note(ctx, upd.expr.site)
			}
			return v, err
		}
	case 1:
		key, fn := keys[0].Key, keys[0].Expr.fast
		return func(_ context.Context, input any) (out any, err error) {
			entered.Add(1)
			defer func() {
				if recover() != nil {
					out, err = upd.eval(input, nil)
				}
			}()
			v := fn(objectOrEmpty(input), nil)
			if !isScalar(v) && !isFlatList(v) {
				v = mustValue(v)
			}
			return oneWrite(key, v), nil
		}
	}
	// The keys and closures side by side, the keys the schema's own
	// strings: a run touches each node's data once, often just after a
	// collection has evicted it from the caches, and one array beats an
	// Expr and a key string per write.
	writes := make([]fastWrite, len(keys))
	for i, ke := range keys {
		writes[i] = fastWrite{key: schemaName(upd.schema, ke.Key), fn: ke.Expr.fast}
		if a := ke.Expr.arith; a != nil {
			writes[i].arith, writes[i].stateArith = true, *a
		}
	}
	return func(_ context.Context, input any) (out any, err error) {
		entered.Add(1)
		defer func() {
			if recover() != nil {
				out, err = upd.eval(input, nil)
			}
		}()
		state := objectOrEmpty(input)
		m, _ := state.(map[string]any)
		u := make(engine.Update, len(writes))
		for i := range writes {
			w := &writes[i]
			if w.arith {
				if x, ok := m[w.stateArith.key].(float64); ok {
					u[i] = engine.KV{Key: w.key, Value: w.op.floats(x, w.y)}
					continue
				}
			}
			v := w.fn(state, nil)
			if !isScalar(v) {
				v = mustValue(v)
			}
			u[i] = engine.KV{Key: w.key, Value: v}
		}
		return u, nil
	}
}

// fastWrite is one write of a plain node: its key and its closure, and,
// for state.k OP c, that expression to compute inline (arith).
type fastWrite struct {
	key string
	fn  fastFn
	stateArith
	arith bool
}

// schemaName is name as the schema holds it (the same bytes), or name
// when the schema lacks it.
func schemaName(schema []string, name string) string {
	for _, s := range schema {
		if s == name {
			return s
		}
	}
	return name
}

// oneWrite is the update of one write, out of line (see plainNodeFunc).
//
//go:noinline
func oneWrite(key string, v any) any { return engine.Update{{Key: key, Value: v}} }

// isFlatList reports a list of scalars: in engine form already, as the
// list an append key's write often is.
func isFlatList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if !isScalar(e) {
			return false
		}
	}
	return true
}

// mustValue is toValue for the fast path: an error goes to the VM, which
// reports it.
//
//go:noinline
func mustValue(v any) any { return must(toValue(v)) }

// onlyUpdatesState reports a node that does nothing but evaluate its
// update on its input: no calls, interrupts, failure, sleep, emit, goto or
// Command, and no expression reading more than state.
func (n *Node) onlyUpdatesState() bool {
	if n.Calls != nil || n.Interrupts != nil || n.Fail != nil || n.SleepMS != 0 || n.Emit != nil || n.Goto != nil || n.Parent {
		return false
	}
	for _, ke := range n.UpdateKeys {
		if !ke.Expr.readsOnlyState() {
			return false
		}
	}
	return n.UpdateExpr.readsOnlyState()
}

// update is a node's update: a map of expressions (keys) or one
// expression (expr); schema lists the state keys in declaration order.
// Nodes keep this much of their Node, not all of it: a scenario's nodes
// live as long as its graph, and the collector marks them all.
type update struct {
	keys   []KeyExpr
	expr   *Expr
	schema []string
}

func updateOf(n *Node, schema []string) update {
	return update{keys: n.UpdateKeys, expr: n.UpdateExpr, schema: schema}
}

// eval is the update (nil when there is none), evaluated on input and env
// (nil: no variable but state is set).
func (u update) eval(input any, env *Env) (any, error) {
	if u.keys != nil {
		return u.evalKeys(input, env)
	}
	if u.expr != nil {
		return u.evalExpr(input, env)
	}
	return nil, nil
}

// notAnUpdate reports whether v, what u's expression yielded, is none of
// what a node may return as its update (a map, null, or a Send when
// sendOK: a node that returns a Send), which the engine refuses.
func (u update) notAnUpdate(v any, sendOK bool) bool {
	if u.expr == nil {
		return false
	}
	switch v.(type) {
	case nil, engine.Update:
		return false
	case engine.Send:
		return !sendOK
	}
	return true
}

// evalKeys is an update given as a map of expressions, one write each.
func (u update) evalKeys(input any, env *Env) (any, error) {
	out := make(engine.Update, len(u.keys))
	for i, ke := range u.keys {
		v, err := ke.Expr.eval(input, env)
		if err != nil {
			return nil, ke.Expr.placed(updateKeyError(ke.Key, err))
		}
		out[i] = engine.KV{Key: ke.Key, Value: v}
	}
	return out, nil
}

// evalExpr is an update given as one expression: an object's keys are the
// writes, in the order the object has them in JavaScript (not Go's sorted
// order).
func (u update) evalExpr(input any, env *Env) (any, error) {
	v, err := u.expr.eval(input, env)
	if err != nil {
		return nil, u.expr.placed(fmt.Errorf("update: %w", err))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	out := make(engine.Update, 0, len(m))
	for _, k := range u.expr.OrderedKeys(m, u.schema) {
		out = append(out, engine.KV{Key: k, Value: m[k]})
	}
	return out, nil
}

// updateKeyError is in a function of its own to keep update's frame
// small.
//
//go:noinline
func updateKeyError(key string, err error) error { return fmt.Errorf("update.%s: %w", key, err) }

// invokeFunc is a node whose function works sleepMS, then invokes sub with
// its input and returns sub's final state as its update (a subgraph called
// from a node function; a Command.PARENT from inside is applied by this
// node).
func invokeFunc(path string, sub *engine.Graph, def *Graph, sleepMS int, c *Counters) engine.NodeFunc {
	entered := c.entryCounter(path)
	return func(ctx context.Context, input any) (any, error) {
		entered.Add(1)
		if err := work(ctx, sleepMS); err != nil {
			return nil, err
		}
		out, err := engine.InvokeSubgraph(ctx, sub, input)
		if err != nil {
			return nil, err
		}
		// The subgraph's output object has its keys in schema order.
		u := make(engine.Update, 0, len(out))
		for _, k := range def.State {
			if v, ok := out[k.Name]; ok {
				u = append(u, engine.KV{Key: k.Name, Value: v})
			}
		}
		return u, nil
	}
}

func last(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[len(l)-1]
}

// ErrorKind names an error the way traces do: InvalidUpdateError,
// GraphRecursionError, NodeError (a scripted failure), EmptyInputError,
// Error:ParentCommand (a Command.PARENT no task took, raised as a node
// error: LangGraph.js names it ParentCommand, errors.ts), Error:AbortError
// (a task cancelled by a sibling's failure), or Error:Error; a superstep's
// several failures (engine.StepErrors, LangGraph.js's AggregateError) are
// their kinds, sorted and joined by "+", each once.
func ErrorKind(err error) string {
	var iu *engine.InvalidUpdateError
	var gr *engine.GraphRecursionError
	var sf *ScriptedFailure
	var te *engine.NodeTimeoutError
	var pc *engine.ParentCommandError
	var se *engine.StepErrors
	var ce *engine.CancelledError
	switch {
	case errors.As(err, &se):
		var kinds []string
		for _, e := range se.Errs {
			kinds = append(kinds, ErrorKind(e))
		}
		slices.Sort(kinds)
		return strings.Join(slices.Compact(kinds), "+")
	case errors.As(err, &te):
		return "NodeTimeoutError"
	case errors.As(err, &gr):
		return "GraphRecursionError"
	case errors.As(err, &sf):
		return "NodeError"
	case errors.As(err, &iu):
		return "InvalidUpdateError"
	case errors.Is(err, engine.ErrEmptyInput):
		return "EmptyInputError"
	case errors.As(err, &pc):
		return "Error:ParentCommand"
	case errors.As(err, &ce):
		return "Error:AbortError"
	}
	return "Error:Error"
}

// work stands for ms milliseconds of a node's work: a wait on a timer, as
// the oracle's nodes await one (engine.Sleep says so to the subgraph
// turns of a trace). It stops early, with the reason, when the node's
// context is cancelled (a sibling failed).
func work(ctx context.Context, ms int) error {
	if ms <= 0 {
		return nil
	}
	return engine.Sleep(ctx, time.Duration(ms)*time.Millisecond)
}

// engineCommand is the Command as engine input. A resume of null is a
// resume with a null answer.
func (c *Command) engineCommand() engine.Command {
	cmd := engine.Command{Update: c.Update, Goto: c.Goto}
	if c.HasResume {
		cmd.Resume = c.Resume
	}
	return cmd
}

// starInList rejects "*" inside a breakpoint list: LangGraph takes "*" only
// as a bare string, never in a list.
func (g *Graph) starInList() error {
	for _, list := range []struct {
		when  string
		nodes []string
	}{{"before", g.InterruptBefore}, {"after", g.InterruptAfter}} {
		if slices.Contains(list.nodes, "*") {
			return engine.CompileErrors{{Kind: "UnknownNode", Node: "*", Interrupt: list.when, Msg: "interrupt node \"*\" not found: list the nodes"}}
		}
	}
	return nil
}

// breakpointOptions compiles the graph's interrupt_before / interrupt_after.
func (g *Graph) breakpointOptions() []engine.CompileOption {
	var opts []engine.CompileOption
	switch {
	case g.InterruptBeforeAll:
		opts = append(opts, engine.WithInterruptBefore("*"))
	case len(g.InterruptBefore) > 0:
		opts = append(opts, engine.WithInterruptBefore(g.InterruptBefore...))
	}
	switch {
	case g.InterruptAfterAll:
		opts = append(opts, engine.WithInterruptAfter("*"))
	case len(g.InterruptAfter) > 0:
		opts = append(opts, engine.WithInterruptAfter(g.InterruptAfter...))
	}
	return opts
}
