package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// NodeFunc is a node's body. input is the graph state (a map of the state
// keys that have a value) or, for a task started by a Send, the Send's Arg.
// The state map is read-only: the superstep's other tasks share it, so a
// node builds its update in a map or Update of its own. Values a node
// returns belong to the engine from then on; it must not modify them.
// It returns nil, a map[string]any or Update of state keys, a Command, or a
// Send. ctx carries the task's identity: Interrupt and Emit use it.
type NodeFunc func(ctx context.Context, input any) (any, error)

// RouteFunc decides where a conditional edge goes. state is the graph state
// at the start of the superstep plus the routing node's own update; like a
// node's input it is read-only. It returns
// a node name, End, a Send, or a []any / []string mixing them.
type RouteFunc func(ctx context.Context, state map[string]any) (any, error)

// KeySpec declares one state key and its channel.
type KeySpec struct {
	Name string // the key, as nodes read and write it
	// Reducer folds writes into the value; nil means LastValue (one write
	// per superstep).
	Reducer Reducer
	// Default returns a reducer key's starting value (nil: an empty list).
	Default func() any
	// ReducerName names the reducer for descriptions ("add", "add_messages").
	ReducerName string
	// appendOnly marks AppendReducer, whose superstep of writes is folded in
	// one pass instead of one copy per write.
	appendOnly bool
}

// LastValueKey declares a key that takes one write per superstep.
func LastValueKey(name string) KeySpec { return KeySpec{Name: name} }

// AppendKey declares a list key whose writes are appended (LangGraph's
// Annotated[list, operator.add]).
func AppendKey(name string) KeySpec {
	return KeySpec{Name: name, Reducer: AppendReducer, ReducerName: "add", appendOnly: true}
}

// MessagesKey declares a chat-message list merged by id (add_messages).
func MessagesKey(name string) KeySpec {
	return KeySpec{Name: name, Reducer: AddMessagesReducer, ReducerName: "add_messages"}
}

// ReducerKey declares a key folded by any reducer, starting at dflt().
func ReducerKey(name string, fn Reducer, dflt func() any) KeySpec {
	return KeySpec{Name: name, Reducer: fn, Default: dflt, ReducerName: "custom"}
}

// RetryPolicy retries a failing node. MaxAttempts counts the first attempt.
type RetryPolicy struct {
	MaxAttempts     int           // attempts in all, the first included
	InitialInterval time.Duration // wait before the second attempt
	BackoffFactor   float64       // each later wait is the previous one times this
	MaxInterval     time.Duration // no wait is longer (0: no bound)
	// RetryOn decides whether an error is retried; nil retries every error.
	RetryOn func(error) bool
}

// DefaultRetryPolicy is LangGraph's default policy without jitter.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, InitialInterval: 500 * time.Millisecond, BackoffFactor: 2, MaxInterval: 128 * time.Second}
}

func (p RetryPolicy) delay(attempt int) time.Duration {
	d := float64(p.InitialInterval)
	for i := 1; i < attempt; i++ {
		d *= max(p.BackoffFactor, 1)
	}
	if p.MaxInterval > 0 && d > float64(p.MaxInterval) {
		d = float64(p.MaxInterval)
	}
	return time.Duration(d)
}

// NodeOption configures a node.
type NodeOption func(*nodeSpec)

// WithRetry gives the node a retry policy.
func WithRetry(p RetryPolicy) NodeOption { return func(n *nodeSpec) { n.retry = &p } }

// WithEnds declares where the node's Command goto may go (for reachability
// checks and drawing).
func WithEnds(ends ...string) NodeOption {
	return func(n *nodeSpec) { n.ends = slices.Clone(ends); n.hasEnds = true }
}

// WithDescription documents the node for the debugger.
func WithDescription(d string) NodeOption { return func(n *nodeSpec) { n.description = d } }

type nodeSpec struct {
	name        string
	fn          NodeFunc
	subgraph    *Graph
	retry       *RetryPolicy
	ends        []string
	hasEnds     bool
	description string
}

type edgeSpec struct {
	from []string
	to   string
	join bool
}

type branchSpec struct {
	from  string
	route RouteFunc
	ends  []string // nil: any node
}

// StateGraph builds a graph. Its methods record mistakes and return the
// builder, so calls chain; Compile reports every mistake at once.
type StateGraph struct {
	name     string
	keys     []KeySpec
	keyIndex map[string]int
	nodes    []*nodeSpec
	nodeIdx  map[string]int
	edges    []edgeSpec
	branches []*branchSpec
	errs     CompileErrors
}

// NewStateGraph starts a graph over the given state keys.
func NewStateGraph(keys ...KeySpec) *StateGraph {
	g := &StateGraph{keyIndex: map[string]int{}, nodeIdx: map[string]int{}}
	for _, k := range keys {
		switch {
		case k.Name == "":
			g.fail("InvalidKey", "a state key has an empty name")
		case isReservedName(k.Name):
			g.fail("InvalidKey", fmt.Sprintf("state key %q is a reserved name", k.Name))
		case g.hasKey(k.Name):
			g.fail("DuplicateKey", fmt.Sprintf("state key %q is declared twice", k.Name))
		default:
			g.keyIndex[k.Name] = len(g.keys)
			g.keys = append(g.keys, k)
		}
	}
	return g
}

func (g *StateGraph) hasKey(k string) bool { _, ok := g.keyIndex[k]; return ok }

func (g *StateGraph) fail(kind, msg string) {
	g.errs = append(g.errs, &CompileError{Kind: kind, Msg: msg})
}

func isReservedName(n string) bool {
	return n == Start || n == End || strings.HasPrefix(n, "__pregel") || reservedWrite(n) || n == InputTask
}

// Named sets the graph's name (shown by the debugger).
func (g *StateGraph) Named(name string) *StateGraph { g.name = name; return g }

// AddNode adds a node running fn.
func (g *StateGraph) AddNode(name string, fn NodeFunc, opts ...NodeOption) *StateGraph {
	if fn == nil {
		g.fail("InvalidNode", fmt.Sprintf("node %q has no function", name))
		return g
	}
	return g.addNode(&nodeSpec{name: name, fn: fn}, opts)
}

// AddSubgraph adds a node that runs a compiled graph: the subgraph gets the
// node's input and its final state is the node's update.
func (g *StateGraph) AddSubgraph(name string, sub *Graph, opts ...NodeOption) *StateGraph {
	if sub == nil {
		g.fail("InvalidNode", fmt.Sprintf("subgraph node %q has no graph", name))
		return g
	}
	return g.addNode(&nodeSpec{name: name, subgraph: sub}, opts)
}

func (g *StateGraph) addNode(n *nodeSpec, opts []NodeOption) *StateGraph {
	switch {
	case n.name == "":
		g.fail("InvalidNode", "a node has an empty name")
		return g
	case n.name == Start || n.name == End:
		g.fail("InvalidNode", fmt.Sprintf("node name %q is reserved", n.name))
		return g
	case strings.ContainsAny(n.name, "|:"):
		g.fail("InvalidNode", fmt.Sprintf("node name %q must not contain '|' or ':'", n.name))
		return g
	case isReservedName(n.name):
		g.fail("InvalidNode", fmt.Sprintf("node name %q is reserved", n.name))
		return g
	case g.hasKey(n.name):
		g.fail("NameClash", fmt.Sprintf("node name %q is already used as a state key", n.name))
		return g
	}
	if _, dup := g.nodeIdx[n.name]; dup {
		g.fail("DuplicateNode", fmt.Sprintf("node %q is added twice", n.name))
		return g
	}
	for _, o := range opts {
		o(n)
	}
	g.nodeIdx[n.name] = len(g.nodes)
	g.nodes = append(g.nodes, n)
	return g
}

// AddEdge runs to after from, in the next superstep.
func (g *StateGraph) AddEdge(from, to string) *StateGraph {
	g.edges = append(g.edges, edgeSpec{from: []string{from}, to: to})
	return g
}

// AddJoin runs to once every node of from has run (a barrier; the sources may
// finish in different supersteps).
func (g *StateGraph) AddJoin(from []string, to string) *StateGraph {
	if len(from) == 0 {
		g.fail("InvalidEdge", fmt.Sprintf("join into %q has no sources", to))
		return g
	}
	g.edges = append(g.edges, edgeSpec{from: slices.Clone(from), to: to, join: true})
	return g
}

// AddConditionalEdges routes from a node by calling route after the node
// ran. ends lists every name route may return (End included); leave it empty
// to allow any node.
func (g *StateGraph) AddConditionalEdges(from string, route RouteFunc, ends ...string) *StateGraph {
	if route == nil {
		g.fail("InvalidEdge", fmt.Sprintf("conditional edge from %q has no route function", from))
		return g
	}
	var e []string
	if len(ends) > 0 {
		e = slices.Clone(ends)
	}
	g.branches = append(g.branches, &branchSpec{from: from, route: route, ends: e})
	return g
}
