package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// NodeFunc is a node's body. input is the graph state (a map of the state
// keys that have a value) or, for a task started by a Send, the Send's Arg.
// It returns nil, a map[string]any or Update of state keys, a Command, or a
// Send. ctx carries the task's identity: Interrupt and Emit use it. Values
// a node returns belong to the engine from then on; it must not modify
// them.
//
// The state map is read-only: the superstep's other tasks share it, so a
// node builds its update in a map or Update of its own. It is valid until
// the node returns, like bufio.Scanner's Bytes: the engine then changes
// the same map for later supersteps instead of copying the state for each.
// A node that keeps the map past its return (in a variable, or in a
// goroutine that outlives it) keeps a copy (maps.Clone; the values in it
// never change, so a shallow copy is enough). Handing the map back to the
// engine is safe: when a state update, a Send, an interrupt, an event, a
// Task argument, a subgraph's input or an UpdateState from the node holds
// it, the engine keeps that map unchanged.
type NodeFunc func(ctx context.Context, input any) (any, error)

// RouteFunc decides where a conditional edge goes. state is the graph state
// at the start of the superstep plus the routing node's own update; like a
// node's input it is read-only and valid until the route returns. It returns
// a node name, End, a Send, a []string or []Send of them, or a []any
// mixing them.
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
	// managed marks a managed value (RemainingStepsKey, IsLastStepKey):
	// computed for each task, never a channel.
	managed string
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

// NodeOption configures a node.
type NodeOption func(*nodeSpec)

// WithRetry gives the node a retry policy.
func WithRetry(p RetryPolicy) NodeOption { return func(n *nodeSpec) { n.retry = &p } }

// WithEnds declares where the node's Command goto may go (for reachability
// checks and drawing).
func WithEnds(ends ...string) NodeOption {
	return func(n *nodeSpec) { n.ends = slices.Clone(ends); n.hasEnds = true }
}

// WithDefer defers the node: once triggered it waits until the run has
// nothing else to do, then runs (LangGraph's add_node(defer=True); its
// trigger and joins become after-finish channels, state.py attach_node).
// Typical use: a summary after fan-outs of unequal length.
func WithDefer() NodeOption { return func(n *nodeSpec) { n.deferred = true } }

// WithDescription documents the node for the debugger.
func WithDescription(d string) NodeOption { return func(n *nodeSpec) { n.description = d } }

// UsesSubgraph declares that the node's function runs sub through
// InvokeSubgraph, under name. LangGraph finds such a subgraph by inspecting
// the node function (Python pregel/_read.py:187-197 with
// _utils.py:45-75 find_subgraph_pregel); Go cannot see into a closure, so
// the node says so, as LangGraph.js's addNode option `subgraphs` does
// (graph/state.ts:1226-1229, read by pregel/index.ts:805 getSubgraphs).
// A declared subgraph is then found by its namespace exactly as a subgraph
// node's: GetState WithSubgraphState fills the task's State (and Runs),
// History and GetState read a namespace it ran in, UpdateState on its
// config writes its checkpoint, and the debugger enters it. The name tells
// several subgraphs of one node apart: each checkpoint a declared
// subgraph's run writes records it (Metadata.Extra[MetaSubgraph]), because
// a namespace ("<node>:<task id>", "<node>:<task id>|1", …) says which run
// of the task it is, not which graph ran. Declaring a subgraph node's own
// graph, an empty name, a name twice or a graph twice is refused at
// Compile.
func UsesSubgraph(name string, sub *Graph) NodeOption {
	return func(n *nodeSpec) { n.uses = append(n.uses, declaredSubgraph{name: name, g: sub}) }
}

// declaredSubgraph is a subgraph a node's function runs (UsesSubgraph).
type declaredSubgraph struct {
	name string
	g    *Graph
}

type nodeSpec struct {
	name        string
	fn          NodeFunc
	subgraph    *Graph
	uses        []declaredSubgraph
	retry       *RetryPolicy
	timeout     *TimeoutPolicy
	cache       *CachePolicy
	ends        []string
	hasEnds     bool
	deferred    bool
	description string
}

type edgeSpec struct {
	from  []string
	to    string
	join  bool
	index int // its place among AddEdge and AddJoin calls (EdgeRef.Index)
}

// ref names the edge in a CompileError.
func (e edgeSpec) ref() *EdgeRef {
	return &EdgeRef{From: slices.Clone(e.from), To: e.to, Join: e.join, Index: e.index}
}

type branchSpec struct {
	from  string
	route RouteFunc
	index int      // its place among AddConditionalEdges… calls (EdgeRef.Index)
	ends  []string // nil: any node
	// pathMap maps the labels route returns to nodes (nil: route returns
	// node names).
	pathMap map[string]string
	// fromValue is from as the value of a route's write, boxed once.
	fromValue any
}

// StateGraph builds a graph. Its methods record mistakes and return the
// builder, so calls chain; Compile reports every mistake at once.
type StateGraph struct {
	name     string
	keys     []KeySpec
	keyIndex map[string]int
	managed  []KeySpec
	nodes    []*nodeSpec
	nodeIdx  map[string]int
	edges    []edgeSpec
	branches []*branchSpec
	errs     CompileErrors
	// edgeCalls and routeCalls count the AddEdge and AddJoin calls, and
	// the AddConditionalEdges… calls, refused ones too (EdgeRef.Index).
	edgeCalls, routeCalls int
	// refused are the names of nodes AddNode refused (a bad or clashing
	// name, bad options): the compiler does not report what follows from
	// their absence (an edge to an unknown node, no entrypoint, a node
	// nothing reaches), which would bury the one error that matters.
	refused map[string]bool
}

// NewStateGraph starts a graph over the given state keys.
func NewStateGraph(keys ...KeySpec) *StateGraph {
	g := &StateGraph{keyIndex: map[string]int{}, nodeIdx: map[string]int{}}
	for _, k := range keys {
		switch {
		case k.Name == "":
			g.failOn(&CompileError{Kind: "InvalidKey"}, "a state key has an empty name")
		case !utf8.ValidString(k.Name):
			// Checkpoints store names as JSON strings, which would turn the
			// bad bytes into U+FFFD: the key could never be read back.
			g.failOn(&CompileError{Kind: "InvalidKey", Key: k.Name}, "state key %q is not valid UTF-8", k.Name)
		case isReservedName(k.Name):
			g.failOn(&CompileError{Kind: "InvalidKey", Key: k.Name}, "state key %q is a reserved name", k.Name)
		case strings.HasPrefix(k.Name, BranchPrefix) || strings.HasPrefix(k.Name, JoinPrefix):
			// The names of the channels that trigger nodes: a state key
			// there would be the same channel as a node's trigger.
			g.failOn(&CompileError{Kind: "InvalidKey", Key: k.Name}, "state key %q is named like a node's trigger channel (%s…, %s…)", k.Name, BranchPrefix, JoinPrefix)
		case g.hasKey(k.Name) || slices.ContainsFunc(g.managed, func(m KeySpec) bool { return m.Name == k.Name }):
			g.failOn(&CompileError{Kind: "DuplicateKey", Key: k.Name}, "state key %q is declared twice", k.Name)
		case k.managed != "":
			g.managed = append(g.managed, k)
		default:
			g.keyIndex[k.Name] = len(g.keys)
			g.keys = append(g.keys, k)
		}
	}
	return g
}

func (g *StateGraph) hasKey(k string) bool { _, ok := g.keyIndex[k]; return ok }

// failOn records e, the problem its fields say, with the message
// format and args make.
func (g *StateGraph) failOn(e *CompileError, format string, args ...any) {
	e.Msg = fmt.Sprintf(format, args...)
	g.errs = append(g.errs, e)
}

func isReservedName(n string) bool {
	return n == Start || n == End || strings.HasPrefix(n, "__pregel") || reservedWrite(n) || n == InputTask
}

// IsInternalName reports whether name is one no state key may have: a
// name the engine reserves for its own channels and writes (__start__,
// __interrupt__, …) or the name of a channel that triggers a node
// (branch:to:…, join:…), as NewStateGraph refuses them. A checkpoint read
// without its graph tells its state keys from the engine's channels by
// it; with the graph, ChannelInfo.Internal says so.
func IsInternalName(name string) bool {
	return isReservedName(name) || strings.HasPrefix(name, BranchPrefix) || strings.HasPrefix(name, JoinPrefix)
}

// Named sets the graph's name (shown by the debugger).
func (g *StateGraph) Named(name string) *StateGraph { g.name = name; return g }

// AddNode adds a node running fn.
func (g *StateGraph) AddNode(name string, fn NodeFunc, opts ...NodeOption) *StateGraph {
	if fn == nil {
		g.failOn(&CompileError{Kind: "InvalidNode", Node: name}, "node %q has no function", name)
		return g
	}
	return g.addNode(&nodeSpec{name: name, fn: fn}, opts)
}

// AddSubgraph adds a node that runs a compiled graph: the subgraph gets the
// node's input and its final state is the node's update. That update holds
// every key of the parent's that the subgraph has a value for, the keys it
// only read included, as LangGraph writes a subgraph node's output (its
// output channels are all its state keys, graph/state.py:1270-1279, and the
// parent keeps those it knows, :1456-1462). A key the parent reduces gets
// that value as one more write: a list the parent appends to (AppendKey),
// which the subgraph was given and hands back whole, is appended to itself.
// Share with the parent only the keys the subgraph should hand back, or run
// the subgraph from a node of your own (InvokeSubgraph, with UsesSubgraph)
// that returns what it chooses.
func (g *StateGraph) AddSubgraph(name string, sub *Graph, opts ...NodeOption) *StateGraph {
	if sub == nil {
		g.failOn(&CompileError{Kind: "InvalidNode", Node: name}, "subgraph node %q has no graph", name)
		return g
	}
	return g.addNode(&nodeSpec{name: name, subgraph: sub}, opts)
}

func (g *StateGraph) addNode(n *nodeSpec, opts []NodeOption) *StateGraph {
	if !g.admitNode(n, opts) && n.name != "" && n.name != Start && n.name != End {
		if _, added := g.nodeIdx[n.name]; !added {
			if g.refused == nil {
				g.refused = map[string]bool{}
			}
			g.refused[n.name] = true
		}
	}
	return g
}

// admitNode adds node n with its options, or fails saying why it cannot,
// and reports whether it added it.
func (g *StateGraph) admitNode(n *nodeSpec, opts []NodeOption) bool {
	fail := func(kind, format string, args ...any) {
		g.failOn(&CompileError{Kind: kind, Node: n.name}, format, args...)
	}
	switch {
	case n.name == "":
		fail("InvalidNode", "a node has an empty name")
		return false
	case n.name == Start || n.name == End:
		fail("InvalidNode", "node name %q is reserved", n.name)
		return false
	case !utf8.ValidString(n.name):
		fail("InvalidNode", "node name %q is not valid UTF-8", n.name)
		return false
	case strings.ContainsAny(n.name, "|:"):
		fail("InvalidNode", "node name %q must not contain '|' or ':'", n.name)
		return false
	case isReservedName(n.name):
		fail("InvalidNode", "node name %q is reserved", n.name)
		return false
	case g.hasKey(n.name):
		// LangGraph.js refuses it too (dist/graph/state.js:350 in
		// 1.7.3); Python LangGraph has allowed it since June 2025.
		fail("NameClash", "node name %q is already used as a state key: rename the node or the key (a node and a state key cannot share a name)", n.name)
		return false
	}
	if _, dup := g.nodeIdx[n.name]; dup {
		fail("DuplicateNode", "node %q is added twice", n.name)
		return false
	}
	for _, o := range opts {
		o(n)
	}
	if msg := checkUses(n); msg != "" {
		fail("InvalidNode", "%s", msg)
		return false
	}
	g.nodeIdx[n.name] = len(g.nodes)
	g.nodes = append(g.nodes, n)
	return true
}

// AddEdge runs to after from, in the next superstep.
func (g *StateGraph) AddEdge(from, to string) *StateGraph {
	g.edges = append(g.edges, edgeSpec{from: []string{from}, to: to, index: g.edgeCalls})
	g.edgeCalls++
	return g
}

// AddJoin runs to once every node of from has run (a barrier; the sources may
// finish in different supersteps).
func (g *StateGraph) AddJoin(from []string, to string) *StateGraph {
	e := edgeSpec{from: slices.Clone(from), to: to, join: true, index: g.edgeCalls}
	g.edgeCalls++
	if len(from) == 0 {
		g.failOn(&CompileError{Kind: "InvalidEdge", Edge: e.ref()}, "join into %q has no sources", to)
		return g
	}
	g.edges = append(g.edges, e)
	return g
}

// AddConditionalEdges routes from a node by calling route after the node
// ran. ends lists every name route may return (End included); leave it empty
// to allow any node.
func (g *StateGraph) AddConditionalEdges(from string, route RouteFunc, ends ...string) *StateGraph {
	index := g.routeCalls
	g.routeCalls++
	if route == nil {
		g.failOn(&CompileError{Kind: "InvalidEdge", Edge: routeRef(from, index)}, "conditional edge from %q has no route function", from)
		return g
	}
	var e []string
	if len(ends) > 0 {
		e = slices.Clone(ends)
	}
	g.branches = append(g.branches, &branchSpec{from: from, route: route, ends: e, fromValue: from, index: index})
	return g
}

// routeRef names the route from source declared by the index-th
// AddConditionalEdges… call in a CompileError.
func routeRef(from string, index int) *EdgeRef {
	return &EdgeRef{From: []string{from}, Route: true, Index: index}
}

// AddConditionalEdgesMap routes from a node through a path map: route
// returns labels (or Sends), and pathMap says which node (or End) each label
// goes to (LangGraph's add_conditional_edges(source, path, path_map)). A
// label outside the map is an error of the routing task.
func (g *StateGraph) AddConditionalEdgesMap(from string, route RouteFunc, pathMap map[string]string) *StateGraph {
	index := g.routeCalls
	g.routeCalls++
	if route == nil || len(pathMap) == 0 {
		g.failOn(&CompileError{Kind: "InvalidEdge", Edge: routeRef(from, index)}, "conditional edge from %q needs a route function and a non-empty path map", from)
		return g
	}
	ends := make([]string, 0, len(pathMap))
	for _, n := range pathMap {
		if !slices.Contains(ends, n) {
			ends = append(ends, n)
		}
	}
	slices.Sort(ends)
	g.branches = append(g.branches, &branchSpec{from: from, route: route, ends: ends, pathMap: maps.Clone(pathMap), fromValue: from, index: index})
	return g
}

// checkUses says what is wrong with n's declared subgraphs, or "".
func checkUses(n *nodeSpec) string {
	for i, u := range n.uses {
		switch {
		case n.subgraph != nil:
			return fmt.Sprintf("subgraph node %q runs its graph itself: it declares no subgraph with UsesSubgraph", n.name)
		case u.name == "" || !utf8.ValidString(u.name):
			return fmt.Sprintf("node %q declares a subgraph with an empty or invalid name %q", n.name, u.name)
		case u.g == nil:
			return fmt.Sprintf("node %q declares subgraph %q without a graph", n.name, u.name)
		}
		for _, v := range n.uses[:i] {
			switch {
			case v.name == u.name:
				return fmt.Sprintf("node %q declares subgraph %q twice", n.name, u.name)
			case v.g == u.g:
				return fmt.Sprintf("node %q declares one graph as both %q and %q", n.name, v.name, u.name)
			}
		}
	}
	return ""
}
