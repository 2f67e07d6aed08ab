package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Graph is a compiled, immutable StateGraph: its channels, its nodes with
// their triggers and writers, and the trigger→nodes index. It is safe for
// concurrent use; each run keeps its own channel state.
type Graph struct {
	name string
	// declaredAs is set on the copy of a declared subgraph (UsesSubgraph)
	// that UpdateState writes its namespace with: the name its checkpoints
	// record (MetaSubgraph).
	declaredAs string
	keys       []KeySpec
	keyIndex   map[string]int
	// managed are the managed values nodes read (managed.go).
	managed []KeySpec
	// channelOrder lists every channel: state keys, __start__, one
	// branch:to:<node> per node, join barriers, then the task topic.
	channelOrder []string
	channelSpec  map[string]channelInfo
	// noValues is the values snapshot in which no channel has a value,
	// by channel id: the parent of sparse bases (channelState.valuesBase).
	noValues *idFrozen[any]
	// noVersions is the versions snapshot in which no channel has a
	// version and no node has seen one (channelState.allIndexed's
	// layout): the parent of sparse bases (channelState.versionsBase).
	noVersions *idFrozen[Version]
	// lastValues and ephemerals count the channels of those kinds (see
	// channelSlab).
	lastValues, ephemerals int
	nodes                  map[string]*node
	nodeOrder              []string // __start__ first, then declaration order
	// triggerToNodes maps a channel to the nodes it triggers, sorted.
	triggerToNodes map[string][]string
	edges          []EdgeInfo
	// finishable lists the after-finish channels (deferred nodes), the
	// only ones finish can change.
	finishable  []string
	stateful    bool // AsStatefulSubgraph
	entrypoint  bool // NewEntrypoint: one node, fed by __start__, writing __end__
	cache       Cache
	limits      Limits // bounds on what runs write (limits.go)
	saver       Saver
	interrupts  interruptConfig
	ids         IDSource
	clock       Clock
	wallClock   bool // clock is time.Now itself (isWallClock)
	fingerprint string

	// chanIDs numbers the channels (their place in channelOrder) and
	// chanMeta says what the superstep needs of each; tasksID and startID
	// are two of them (channel_index.go).
	chanIDs          map[string]chanID
	chanMeta         []chanMeta
	tasksID, startID chanID
	// chanInfo is channelSpec by id, for making a run's channels.
	chanInfo []channelInfo
	// scratchPool keeps applyWrites' working memory between runs
	// (takeScratch); a pointer, as a Graph may be copied.
	scratchPool *sync.Pool
	// keyedState: runs keep the state's values by key position too
	// (WithStateByKey, statekeys.go).
	keyedState bool
	// nameRank is each channel's place among the channels sorted by
	// name, by id: sorting ids by it sorts their names (applyWrites).
	nameRank []int32
	// keysByName are the state keys sorted by name (inputWrites).
	keysByName []string
	// seenSlots counts the nodes' triggers: a run keeps what each node
	// saw of each trigger in that many slots (channelState.seenV).
	seenSlots int
	// trigNodes are the nodes each channel triggers (triggerToNodes by
	// id), nodeList the nodes in nodeOrder.
	trigNodes [][]*node
	nodeList  []*node
}

type channelInfo struct {
	kind     string
	key      *KeySpec // state keys only
	sources  []string // barriers only
	internal bool
}

type interruptConfig struct {
	before, after []string // "*" means every node
}

type node struct {
	name     string
	triggers []string // branch:to:<name> first, then joins, as LangGraph orders them
	fn       NodeFunc
	subgraph *Graph
	// uses are the subgraphs its function runs (UsesSubgraph).
	uses    []declaredSubgraph
	retry   *RetryPolicy
	timeout *TimeoutPolicy
	cache   *CachePolicy
	// edgeWrites are the static edges' writes: branch:to:T ← nil and
	// join:…:T ← name, in the order LangGraph attaches them.
	edgeWrites []Write
	branches   []*branchSpec
	ends       []string
	start      bool
	deferred   bool
	// entry marks an entrypoint's node: its input is the __start__ value
	// and its return value goes to __end__ and __previous__.
	entry bool
	// call marks the node of a Task call: its return value is its
	// __return__ write.
	call bool
	desc string
	// branch is the node's branch:to:<name> channel, named once here so
	// that routing to the node does not build the name each time.
	branch string
	// trigIDs are the triggers' channel ids (-1: no such channel). ord
	// is the node's place in nodeOrder, and seenAt 1 + its first slot in
	// channelState.seenV (0: none, the node of a Task call).
	trigIDs     []chanID
	ord, seenAt int
	// writeIDs and updateKeys remember the channels of the node's last
	// task's writes and of its last update's keys (writeids.go).
	writeIDs, updateKeys idCache
}

// branchChannel names the branch:to:<node> channel that routes to node.
func (g *Graph) branchChannel(node string) string {
	if n := g.nodes[node]; n != nil && n.branch != "" {
		return n.branch
	}
	return BranchPrefix + node
}

// EdgeInfo describes one edge of the compiled graph for display.
type EdgeInfo struct {
	From        []string // one source, or a join's sources
	To          string   // a node, End, or "*" for a route that may go anywhere
	Conditional bool     // a route's possible destination
	Join        bool     // runs To once every source has run
	// Channel is the channel the edge writes (branch:to:… or join:…); empty
	// for conditional edges and edges into End.
	Channel string
}

// CompileOption configures Compile.
type CompileOption func(*Graph)

// WithSaver makes runs checkpoint to s (needed for interrupts, resume,
// state and history).
func WithSaver(s Saver) CompileOption { return func(g *Graph) { g.saver = s } }

// WithInterruptBefore stops a run before these nodes run ("*": every node).
// A Task call to a task of one of these names is not run while the
// breakpoint applies: it returns nil and the superstep stops when its
// tasks end, before their writes are applied (as LangGraph's acceptPush).
func WithInterruptBefore(nodes ...string) CompileOption {
	return func(g *Graph) { g.interrupts.before = slices.Clone(nodes) }
}

// WithInterruptAfter stops a run after these nodes ran ("*": every node).
// A node named here gets nil from the Task calls it makes, which do not
// run: the superstep stops before its writes are applied, and continuing
// applies them and stops after it again (as LangGraph's acceptPush).
func WithInterruptAfter(nodes ...string) CompileOption {
	return func(g *Graph) { g.interrupts.after = slices.Clone(nodes) }
}

// AsStatefulSubgraph compiles a graph meant to run as a subgraph that keeps
// its state across the parent's invocations on a thread (LangGraph's
// compile(checkpointer=True)): its checkpoints live under the subgraph
// node's namespace without task ids, so each run continues from the last
// one's state instead of starting empty.
func AsStatefulSubgraph() CompileOption { return func(g *Graph) { g.stateful = true } }

// WithIDs makes checkpoint ids come from ids (deterministic tests).
func WithIDs(ids IDSource) CompileOption { return func(g *Graph) { g.ids = ids } }

// WithClock makes checkpoint timestamps come from c.
func WithClock(c Clock) CompileOption { return func(g *Graph) { g.clock = c } }

// newGraph starts a compiled graph with its options applied and default
// ids and clock.
func newGraph(name string, opts []CompileOption) *Graph {
	g := &Graph{
		name:           name,
		keyIndex:       map[string]int{},
		channelSpec:    map[string]channelInfo{},
		nodes:          map[string]*node{},
		triggerToNodes: map[string][]string{},
	}
	for _, o := range opts {
		o(g)
	}
	if g.ids == nil {
		g.ids = NewTimeIDs(nil)
	}
	if g.clock == nil {
		g.clock = SystemClock
	}
	g.wallClock = isWallClock(g.clock)
	return g
}

// Compile validates the builder and returns the runnable graph, or
// CompileErrors naming every problem found: first those of the
// declarations (keys, nodes, edges, joins, routes, Command ends, interrupt
// lists), in the order they were declared, then the graph's missing entry,
// then the nodes nothing reaches. A problem that follows only from another
// is not reported: an edge or a route from Start gives the graph its
// entry even when its target is no node, and a node is reached when any
// declared edge, route or Command end names it, even one whose source is
// no node, as LangGraph validates (see checkReachable).
func (b *StateGraph) Compile(opts ...CompileOption) (*Graph, error) {
	c := &compiler{b: b, g: newGraph(b.name, opts), errs: slices.Clone(b.errs)}
	c.addStateChannels()
	c.addNodes()
	// Static edges first, then joins, as LangGraph attaches them.
	c.addStaticEdges()
	c.addJoins()
	c.addBranches()
	c.checkInterruptNodes()
	// Without a node AddNode refused, whether the graph has an entry and
	// what reaches what are not the user's graph's.
	if len(b.refused) == 0 {
		reached := c.reachedNodes()
		if !c.hasEntry {
			c.fail("MissingEntry", "graph must have an entrypoint: add at least one edge from %s to another node", Start)
		}
		c.checkReachable(reached)
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	g := c.g
	g.addChannel(TasksChannel, channelInfo{kind: KindTopic, internal: true})
	g.indexTriggers()
	g.indexChannels()
	g.fingerprint = g.computeFingerprint()
	return g, nil
}

// compiler is one Compile of a builder: the graph it fills in and the
// problems found so far, all reported together.
type compiler struct {
	b    *StateGraph
	g    *Graph
	errs CompileErrors
	// hasEntry: an edge or a route leaves __start__, whatever its
	// target: one to a name that is no node is that name's error, not
	// also a missing entry (LangGraph's entry check reads only the
	// sources of the edges, Python graph/state.py:1131-1145, and
	// LangGraph.js has none).
	hasEntry bool
	// presumed are the nodes a declaration in error still reaches: the
	// target of an edge, the ends of a route or join, whose source is no
	// node (LangGraph counts every declared target, whatever its source:
	// LangGraph.js dist/graph/graph.js:157-166).
	presumed map[string]bool
	// meantBy are, for each node an unknown end is close to (MeantName),
	// the errors of those ends: the node counts as reached, as the "did
	// you mean" of the errors would fix it, so a typo is one error, not
	// also an unreachable node. checkReachable marks the errors when
	// nothing else reaches it (MeantUnreached), which LangGraph reports.
	meantBy map[string][]*CompileError
}

func (c *compiler) fail(kind, format string, args ...any) {
	c.failOn(&CompileError{Kind: kind}, format, args...)
}

// failOn records e, the problem its fields say, with the message format
// and args make.
func (c *compiler) failOn(e *CompileError, format string, args ...any) {
	e.Msg = fmt.Sprintf(format, args...)
	c.errs = append(c.errs, e)
}

func (c *compiler) isNode(n string) bool { _, ok := c.b.nodeIdx[n]; return ok }

// failUnknown fails for an unknown node, whose name is the format's last
// argument, unless AddNode refused that node: its error says why already.
// at says where the name was given: its Edge or its Interrupt, or the
// Node whose declared ends give it; failUnknown sets its Kind, and its
// Node to the name unless at names a node already. The error
// names the node it likely meant, if one is close, and failUnknown
// returns that node ("" for none, or a refused node).
func (c *compiler) failUnknown(at CompileError, format string, args ...any) (meant string) {
	name, _ := args[len(args)-1].(string)
	if c.b.refused[name] {
		return ""
	}
	meant = MeantName(c.nodeNames(), name)
	at.Kind, at.Meant = "UnknownNode", meant
	if at.Node == "" {
		at.Node = name
	}
	c.failOn(&at, format+"%s", append(args, meantHint(meant))...)
	return meant
}

// failUnknownEnd fails for an end that is no node (failUnknown) and
// presumes the node it likely meant reached, as the fix its message
// suggests would: a typo is one error, not also an unreachable node.
func (c *compiler) failUnknownEnd(at CompileError, format string, args ...any) {
	meant := c.failUnknown(at, format, args...)
	if meant == "" {
		return
	}
	if c.meantBy == nil {
		c.meantBy = map[string][]*CompileError{}
	}
	c.meantBy[meant] = append(c.meantBy[meant], c.errs[len(c.errs)-1])
}

// nodeNames are the names of the nodes added.
func (c *compiler) nodeNames() []string {
	names := make([]string, len(c.b.nodes))
	for i, ns := range c.b.nodes {
		names[i] = ns.name
	}
	return names
}

// presume records that to is reached by a declaration in error: one
// whose source is no node.
func (c *compiler) presume(to string) {
	if to == "" || to == End || !c.isNode(to) {
		return
	}
	if c.presumed == nil {
		c.presumed = map[string]bool{}
	}
	c.presumed[to] = true
}

// addStateChannels adds a channel per state key, then __start__'s.
func (c *compiler) addStateChannels() {
	g := c.g
	g.keys, g.managed = slices.Clone(c.b.keys), slices.Clone(c.b.managed)
	for i := range g.keys {
		k := &g.keys[i]
		g.keyIndex[k.Name] = i
		kind := KindLastValue
		if k.Reducer != nil {
			kind = KindReducer
			c.checkDefault(k)
		}
		g.addChannel(k.Name, channelInfo{kind: kind, key: k})
	}
	g.addChannel(Start, channelInfo{kind: KindEphemeral, internal: true})
}

// checkDefault calls reducer key k's Default once, so that one that
// panics is a compile error rather than a panic of every run (runs call
// it where a channel starts, which reports no error).
func (c *compiler) checkDefault(k *KeySpec) {
	if k.Default == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.failOn(&CompileError{Kind: "InvalidDefault", Key: k.Name}, "the default of reducer key %q panicked: %v", k.Name, r)
		}
	}()
	_ = k.Default()
}

// addNodes adds the hidden __start__ node, then each declared node with
// its trigger channel branch:to:<node>.
func (c *compiler) addNodes() {
	g := c.g
	g.nodes[Start] = &node{name: Start, triggers: []string{Start}, start: true}
	g.nodeOrder = append(g.nodeOrder, Start)
	for _, ns := range c.b.nodes {
		n := &node{name: ns.name, fn: ns.fn, subgraph: ns.subgraph, uses: slices.Clone(ns.uses), retry: ns.retry, timeout: ns.timeout, cache: ns.cache, deferred: ns.deferred, desc: ns.description}
		if ns.hasEnds {
			n.ends = ns.ends
		}
		branch := BranchPrefix + ns.name
		n.branch = branch
		n.triggers = []string{branch}
		// A deferred node's trigger holds its value until finish
		// (LangGraph.js graph/state.ts:1935, Python graph/state.py attach_node).
		kind := KindEphemeral
		if ns.deferred {
			kind = KindLastValueAfterFinish
		}
		g.addChannel(branch, channelInfo{kind: kind, internal: true})
		g.nodes[ns.name] = n
		g.nodeOrder = append(g.nodeOrder, ns.name)
	}
}

// addStaticEdges makes each valid edge's source write its target's
// trigger (once, however many edges repeat it).
func (c *compiler) addStaticEdges() {
	g := c.g
	for _, e := range c.b.edges {
		if e.join || !c.validEdge(e) {
			continue
		}
		from, to := e.from[0], e.to
		info := EdgeInfo{From: []string{from}, To: to}
		if to != End {
			// An edge declared twice writes its channel twice, as
			// LangGraph.js attaches a writer per declared edge (its edges
			// are a Set of fresh arrays, graph/graph.js:97, so nothing is
			// deduplicated; graph/state.js:501, 676).
			info.Channel = BranchPrefix + to
			src := g.nodes[from]
			src.edgeWrites = append(src.edgeWrites, Write{Channel: info.Channel})
		}
		g.addEdgeInfo(info)
	}
}

// validEdge reports whether static edge e joins known ends, failing for
// each end that does not.
func (c *compiler) validEdge(e edgeSpec) bool {
	from, to, ok := e.from[0], e.to, true
	at := CompileError{Edge: e.ref()}
	if from == Start {
		c.hasEntry = true // even when to is no node
	}
	if from == End {
		c.failOn(&CompileError{Kind: "InvalidEdge", Node: from, Edge: e.ref()}, "edge %s -> %s starts at %s", from, to, End)
		ok = false
	} else if from != Start && !c.isNode(from) {
		c.failUnknown(at, "edge %s -> %s starts at unknown node %q", from, to, from)
		c.presume(to)
		ok = false
	}
	if to == Start {
		c.failOn(&CompileError{Kind: "InvalidEdge", Node: to, Edge: e.ref()}, "edge %s -> %s ends at %s", from, to, Start)
		ok = false
	} else if to != End && !c.isNode(to) {
		c.failUnknownEnd(at, "edge %s -> %s ends at unknown node %q", from, to, to)
		ok = false
	}
	return ok
}

// addJoins gives each valid join a barrier channel that triggers its
// target once every source wrote it.
//
// Joins are attached as LangGraph.js attaches them (graph/state.js:679-688),
// each declared one in turn: its channel, named by its sources and target,
// is made anew with its sources, and each source gets a writer. A join
// declared twice is one barrier whose sources write it twice; two joins
// whose names coincide (node names with "+") share the channel of the last
// one, and a source of the first that is not one of the last one's fails
// the step with an InvalidUpdateError when it writes.
func (c *compiler) addJoins() {
	g := c.g
	for _, e := range c.b.edges {
		if !e.join || !c.validJoin(e) {
			continue
		}
		ch := JoinPrefix + strings.Join(e.from, "+") + ":" + e.to
		target := g.nodes[e.to]
		kind := KindBarrier
		if target.deferred {
			kind = KindBarrierAfterFinish // LangGraph.js graph/state.ts:1980
		}
		info := channelInfo{kind: kind, sources: slices.Clone(e.from), internal: true}
		if _, again := g.channelSpec[ch]; again {
			g.channelSpec[ch] = info // the target's trigger is there
		} else {
			g.addChannel(ch, info)
			target.triggers = append(target.triggers, ch)
		}
		for _, f := range e.from {
			g.nodes[f].edgeWrites = append(g.nodes[f].edgeWrites, Write{Channel: ch, Value: f})
		}
		g.addEdgeInfo(EdgeInfo{From: slices.Clone(e.from), To: e.to, Join: true, Channel: ch})
	}
}

// addEdgeInfo adds e to the edges Describe draws, unless it is there: an
// edge declared twice is drawn once.
func (g *Graph) addEdgeInfo(e EdgeInfo) {
	same := func(x EdgeInfo) bool {
		return x.To == e.To && x.Join == e.Join && x.Channel == e.Channel && slices.Equal(x.From, e.From)
	}
	if !slices.ContainsFunc(g.edges, same) {
		g.edges = append(g.edges, e)
	}
}

// validJoin reports whether a join's sources and target are all declared
// nodes, failing for each that is not.
func (c *compiler) validJoin(e edgeSpec) bool {
	ok := true
	at := CompileError{Edge: e.ref()}
	for _, f := range e.from {
		if f == Start || f == End || !c.isNode(f) {
			c.failUnknown(at, "join %v -> %s starts at unknown node %q", e.from, e.to, f)
			ok = false
		}
	}
	if e.to == End || e.to == Start || !c.isNode(e.to) {
		c.failUnknownEnd(at, "join %v -> %s ends at unknown node %q", e.from, e.to, e.to)
		return false
	}
	if !ok {
		c.presume(e.to)
	}
	return ok
}

// addBranches attaches each conditional edge to its source node, with an
// edge per declared end ("*" when it may go anywhere).
func (c *compiler) addBranches() {
	g := c.g
	for _, br := range c.b.branches {
		at := CompileError{Edge: routeRef(br.from, br.index)}
		if br.from != Start && !c.isNode(br.from) {
			c.failUnknown(at, "conditional edge starts at unknown node %q", br.from)
			c.presumeRoute(br)
			continue
		}
		if br.from == Start {
			c.hasEntry = true
		}
		for _, t := range br.ends {
			if t != End && !c.isNode(t) {
				c.failUnknownEnd(at, "conditional edge from %q may go to unknown node %q", br.from, t)
			}
		}
		g.nodes[br.from].branches = append(g.nodes[br.from].branches, br)
		targets := br.ends
		if targets == nil {
			targets = []string{"*"}
		}
		for _, t := range targets {
			g.edges = append(g.edges, EdgeInfo{From: []string{br.from}, To: t, Conditional: true})
		}
	}
}

// presumeRoute presumes the ends of a route whose source is unknown
// reached, every node for a route without declared ends.
func (c *compiler) presumeRoute(br *branchSpec) {
	if br.ends == nil {
		for _, n := range c.nodeNames() {
			c.presume(n)
		}
	}
	for _, t := range br.ends {
		c.presume(t)
	}
}

// checkInterruptNodes fails for each interrupt_before/after node that is
// not a node ("*" stands for all).
func (c *compiler) checkInterruptNodes() {
	for _, phase := range []struct {
		when  string
		nodes []string
	}{{"before", c.g.interrupts.before}, {"after", c.g.interrupts.after}} {
		for _, n := range phase.nodes {
			if n != "*" && !c.isNode(n) {
				c.failUnknown(CompileError{Interrupt: phase.when}, "interrupt node %q not found", n)
			}
		}
	}
}

// checkReachable fails for each node nothing leads to: every node must be
// the target of an edge, a route (a route without ends reaches
// everything) or a Command's ends, as LangGraph.js checks
// (dist/graph/graph.js:157-174: every declared target counts, whatever
// its source; Python LangGraph has no such check). reached are the
// targets of the valid declarations (reachedNodes); presumed adds those
// of the declarations whose source is no node, and meantBy the nodes the
// ends that are no node likely meant.
func (c *compiler) checkReachable(reached map[string]bool) {
	for _, ns := range c.b.nodes {
		if reached[ns.name] || c.presumed[ns.name] {
			continue
		}
		if meant := c.meantBy[ns.name]; len(meant) > 0 {
			for _, e := range meant {
				e.MeantUnreached = true
			}
			continue
		}
		c.failOn(&CompileError{Kind: "UnreachableNodeError", Node: ns.name}, "node %q is not reachable: no edge, route or Command end leads to it", ns.name)
	}
}

// reachedNodes are the targets of the edges, routes and Command ends,
// failing for each declared end that is not a node.
func (c *compiler) reachedNodes() map[string]bool {
	reached := map[string]bool{}
	for _, e := range c.g.edges {
		reached[e.To] = true
	}
	for _, br := range c.b.branches {
		if br.ends == nil {
			for _, ns := range c.b.nodes {
				if ns.name != br.from {
					reached[ns.name] = true
				}
			}
		}
	}
	for _, ns := range c.b.nodes {
		if !ns.hasEnds {
			continue
		}
		for _, t := range ns.ends {
			if t != End && !c.isNode(t) {
				c.failUnknownEnd(CompileError{Node: ns.name, End: t}, "node %q declares unknown end %q", ns.name, t)
			}
			reached[t] = true
		}
	}
	return reached
}

// indexTriggers lists, for each trigger channel, the nodes it triggers,
// sorted.
func (g *Graph) indexTriggers() {
	for _, name := range g.nodeOrder {
		for _, t := range g.nodes[name].triggers {
			g.triggerToNodes[t] = append(g.triggerToNodes[t], name)
		}
	}
	for _, l := range g.triggerToNodes {
		sort.Strings(l)
	}
}

func (g *Graph) addChannel(name string, info channelInfo) {
	g.channelOrder = append(g.channelOrder, name)
	g.channelSpec[name] = info
	switch info.kind {
	case KindLastValue:
		g.lastValues++
	case KindEphemeral:
		g.ephemerals++
	case KindLastValueAfterFinish, KindBarrierAfterFinish:
		g.finishable = append(g.finishable, name)
	}
}

// channelSlab hands out a run's LastValue and ephemeral channels from two
// allocations instead of one per channel: a graph of a thousand nodes has
// a thousand branch channels, and every run makes them all.
type channelSlab struct {
	lastValues []lastValue
	ephemerals []ephemeral
}

func (g *Graph) newChannelSlab() *channelSlab {
	return &channelSlab{lastValues: make([]lastValue, g.lastValues), ephemerals: make([]ephemeral, g.ephemerals)}
}

// newChannel builds an empty channel of the graph by id, from slab if
// given.
func (g *Graph) newChannel(id chanID, slab *channelSlab) channel {
	name, info := g.channelOrder[id], &g.chanInfo[id]
	switch info.kind {
	case KindLastValue:
		if slab != nil && len(slab.lastValues) > 0 {
			c := &slab.lastValues[0]
			slab.lastValues = slab.lastValues[1:]
			*c = lastValue{name: name}
			return c
		}
		return newLastValue(name)
	case KindReducer:
		c := &reducerChannel{name: name, fn: info.key.Reducer, appendOnly: info.key.appendOnly, appended: -1}
		if info.key.Default != nil {
			c.val = info.key.Default()
		} else {
			c.val = []any{}
		}
		c.has = true
		return c
	case KindEphemeral:
		if slab != nil && len(slab.ephemerals) > 0 {
			c := &slab.ephemerals[0]
			slab.ephemerals = slab.ephemerals[1:]
			*c = ephemeral{name: name, guard: name == Start}
			return c
		}
		return &ephemeral{name: name, guard: name == Start}
	case KindBarrier:
		return newBarrier(name, info.sources)
	case KindLastValueAfterFinish:
		return &lastValueAfterFinish{name: name}
	case KindBarrierAfterFinish:
		return newBarrierAfterFinish(name, info.sources)
	case KindTopic:
		return newTopic(name)
	}
	panic("engine: unknown channel kind " + info.kind)
}

// Name returns the graph's name ("" if unnamed).
func (g *Graph) Name() string { return g.name }

// Saver returns the graph's checkpoint store, or nil.
func (g *Graph) Saver() Saver { return g.saver }

// StateKeys returns the state keys in declaration order.
func (g *Graph) StateKeys() []string {
	out := make([]string, len(g.keys))
	for i, k := range g.keys {
		out[i] = k.Name
	}
	return out
}

// IsStateKey reports whether name is a state key.
func (g *Graph) IsStateKey(name string) bool { _, ok := g.keyIndex[name]; return ok }

// CheckStateKeys refuses values with keys that are not state keys of the
// graph, naming them (*UnknownKeysError). The engine itself ignores such
// keys in an input, an update or a Command's update, as LangGraph does;
// a person's update is checked first so that a typo is not dropped unseen.
func (g *Graph) CheckStateKeys(values map[string]any) error {
	var unknown []string
	for k := range values {
		if !g.IsStateKey(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return &UnknownKeysError{Graph: g.Name(), Keys: unknown, StateKeys: g.StateKeys()}
}

// NodeNames returns the user nodes in declaration order.
func (g *Graph) NodeNames() []string { return slices.Clone(g.userNodes()) }

// userNodes are the nodes in declaration order without the hidden
// __start__ node (an entrypoint has none).
func (g *Graph) userNodes() []string {
	if g.entrypoint {
		return g.nodeOrder
	}
	return g.nodeOrder[1:]
}
