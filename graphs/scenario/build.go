package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/superstep/superstep/engine"
)

// ScriptedFailure is the error a node's "fail" raises.
type ScriptedFailure struct {
	Node    string
	Message string
}

func (e *ScriptedFailure) Error() string { return fmt.Sprintf("%s: %s", e.Node, e.Message) }

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
// file's interrupt_before/after are added.
func Build(f *File, opts ...engine.CompileOption) (*engine.Graph, *Counters, error) {
	c := newCounters()
	for _, list := range [][]string{f.InterruptBefore, f.InterruptAfter} {
		if slices.Contains(list, "*") {
			// LangGraph takes "*" only as a bare string, never in a list.
			return nil, nil, engine.CompileErrors{{Kind: "UnknownNode", Msg: "interrupt node \"*\" not found: list the nodes"}}
		}
	}
	switch {
	case f.InterruptBeforeAll:
		opts = append(opts, engine.WithInterruptBefore("*"))
	case len(f.InterruptBefore) > 0:
		opts = append(opts, engine.WithInterruptBefore(f.InterruptBefore...))
	}
	switch {
	case f.InterruptAfterAll:
		opts = append(opts, engine.WithInterruptAfter("*"))
	case len(f.InterruptAfter) > 0:
		opts = append(opts, engine.WithInterruptAfter(f.InterruptAfter...))
	}
	g, err := buildGraph(f, &f.Graph, "", c, opts)
	if err != nil {
		return nil, nil, err
	}
	return g, c, nil
}

func buildGraph(f *File, def *Graph, prefix string, c *Counters, opts []engine.CompileOption) (*engine.Graph, error) {
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
	for _, n := range def.Nodes {
		path := n.Name
		if prefix != "" {
			path = prefix + "/" + n.Name
		}
		var nopts []engine.NodeOption
		if n.Retry != nil {
			nopts = append(nopts, engine.WithRetry(engine.RetryPolicy{MaxAttempts: n.Retry.MaxAttempts}))
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
		if n.Subgraph != "" {
			sdef := f.Subgraphs[n.Subgraph]
			if sdef == nil {
				return nil, fmt.Errorf("node %q: unknown subgraph %q", n.Name, n.Subgraph)
			}
			sub, err := buildGraph(f, sdef, path, c, nil)
			if err != nil {
				return nil, fmt.Errorf("subgraph %q: %w", n.Subgraph, err)
			}
			b.AddSubgraph(n.Name, sub, nopts...)
			continue
		}
		b.AddNode(n.Name, nodeFunc(path, n, c, schema), nopts...)
	}
	for _, e := range def.Edges {
		if e.Join {
			b.AddJoin(e.From, e.To)
		} else {
			b.AddEdge(e.From[0], e.To)
		}
	}
	for _, br := range def.Branches {
		route := br.Route
		b.AddConditionalEdges(br.From, func(_ context.Context, state map[string]any) (any, error) {
			return route.Eval(Env{State: state})
		}, br.Ends...)
	}
	return b.Compile(opts...)
}

func keySpec(k StateKey) engine.KeySpec {
	dflt := k.Default
	// A fresh copy for every thread: engine.Normalize rebuilds lists and
	// maps.
	mk := func() any { return engine.Normalize(dflt) }
	switch k.Reducer {
	case ReducerAdd:
		s := engine.AppendKey(k.Name)
		s.Default = mk
		return s
	case ReducerAddMessages:
		s := engine.MessagesKey(k.Name)
		s.Default = mk
		return s
	}
	return engine.LastValueKey(k.Name)
}

// nodeFunc is a scripted node: interrupts first (each returns its answer),
// then the scripted failure, the sleep, and finally update and goto,
// evaluated on the node's input.
// schema lists the state keys in declaration order.
func nodeFunc(path string, n *Node, c *Counters, schema []string) engine.NodeFunc {
	entered := c.entryCounter(path)
	return func(ctx context.Context, input any) (any, error) {
		entered.Add(1)
		var resumes []any
		for _, e := range n.Interrupts {
			payload, err := e.Eval(Env{State: input, Resume: last(resumes), Resumes: slices.Clone(resumes)})
			if err != nil {
				return nil, fmt.Errorf("interrupt expression: %w", err)
			}
			answer, err := engine.Interrupt(ctx, payload)
			if err != nil {
				return nil, err
			}
			resumes = append(resumes, answer)
		}
		if n.Fail != nil && c.failAttempt(path) <= n.Fail.Times {
			if err := work(ctx, n.Fail.AfterMS); err != nil {
				return nil, err
			}
			return nil, &ScriptedFailure{Node: path, Message: n.Fail.Message}
		}
		if err := work(ctx, n.SleepMS); err != nil {
			return nil, err
		}
		env := Env{State: input, Resume: last(resumes), Resumes: resumes}
		var update any
		switch {
		case n.UpdateKeys != nil:
			u := make(engine.Update, 0, len(n.UpdateKeys))
			for _, ke := range n.UpdateKeys {
				v, err := ke.Expr.Eval(env)
				if err != nil {
					return nil, fmt.Errorf("update.%s: %w", ke.Key, err)
				}
				u = append(u, engine.KV{Key: ke.Key, Value: v})
			}
			update = u
		case n.UpdateExpr != nil:
			v, err := n.UpdateExpr.Eval(env)
			if err != nil {
				return nil, fmt.Errorf("update: %w", err)
			}
			update = v
			if m, ok := v.(map[string]any); ok {
				// A map's writes keep the key order the object has in
				// JavaScript, not Go's sorted order.
				u := make(engine.Update, 0, len(m))
				for _, k := range n.UpdateExpr.OrderedKeys(m, schema) {
					u = append(u, engine.KV{Key: k, Value: m[k]})
				}
				update = u
			}
		}
		if n.Goto == nil {
			return update, nil
		}
		g, err := n.Goto.Eval(env)
		if err != nil {
			return nil, fmt.Errorf("goto: %w", err)
		}
		var gotos []any
		switch x := g.(type) {
		case nil:
		case []any:
			gotos = x
		default:
			gotos = []any{x}
		}
		return engine.Command{Update: update, Goto: gotos}, nil
	}
}

func last(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[len(l)-1]
}

// ErrorKind names an error the way traces do: InvalidUpdateError,
// GraphRecursionError, NodeError (a scripted failure), EmptyInputError, or
// Error:<detail>.
func ErrorKind(err error) string {
	var iu *engine.InvalidUpdateError
	var gr *engine.GraphRecursionError
	var sf *ScriptedFailure
	switch {
	case errors.As(err, &gr):
		return "GraphRecursionError"
	case errors.As(err, &sf):
		return "NodeError"
	case errors.As(err, &iu):
		return "InvalidUpdateError"
	case errors.Is(err, engine.ErrEmptyInput):
		return "EmptyInputError"
	}
	return "Error:Error"
}

// work stands for ms milliseconds of a node's work; it stops early, with
// the reason, when the node's context is cancelled (a sibling failed).
func work(ctx context.Context, ms int) error {
	if ms <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
