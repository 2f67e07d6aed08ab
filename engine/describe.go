package engine

import (
	"fmt"
	"slices"
	"strings"
)

// GraphInfo describes a compiled graph for display: its nodes, edges and
// channels, in declaration order.
type GraphInfo struct {
	Name  string     // the graph's name
	Nodes []NodeInfo // the nodes as declared (not __start__)
	// Entrypoint: compiled by NewEntrypoint. Its one node is triggered by
	// the __start__ channel and there is no __start__ node (LangGraph.js
	// func/index.ts builds a Pregel with the entrypoint's node alone).
	Entrypoint bool
	Edges      []EdgeInfo    // static edges, joins, then conditional edges
	Channels   []ChannelInfo // state keys first, then the internal channels
	// InterruptBefore and InterruptAfter are the compiled breakpoints.
	InterruptBefore, InterruptAfter []string
}

// NodeInfo describes one node.
type NodeInfo struct {
	Name        string         // the node's name
	Triggers    []string       // the channels whose update makes it run
	Subgraph    bool           // it runs a compiled graph: a subgraph node, or its function runs declared ones
	Declared    []string       // the subgraphs its function runs, by the names UsesSubgraph gave them
	Deferred    bool           // it waits until nothing else is left to run (WithDefer)
	Retry       *RetryPolicy   // nil: no retries
	Timeout     *TimeoutPolicy // nil: no timeout
	Ends        []string       // Command goto destinations, if declared
	Description string         // WithDescription's text
}

// ChannelInfo describes one channel.
type ChannelInfo struct {
	Name     string // the channel's name (a state key's is the key)
	Kind     string // LastValue, BinaryOperatorAggregate, EphemeralValue, Topic, NamedBarrierValue
	Reducer  string // a reducer key's ReducerName ("add", "add_messages", "custom")
	Internal bool   // not a state key: __start__, branch:to:…, join:…, the task topic
}

// Describe returns the graph's structure. The caller owns the result.
func (g *Graph) Describe() GraphInfo {
	info := GraphInfo{
		Name:            g.name,
		Entrypoint:      g.entrypoint,
		Edges:           slices.Clone(g.edges),
		InterruptBefore: slices.Clone(g.interrupts.before),
		InterruptAfter:  slices.Clone(g.interrupts.after),
	}
	for _, name := range g.userNodes() {
		n := g.nodes[name]
		ni := NodeInfo{
			Name: name, Triggers: slices.Clone(n.triggers), Subgraph: n.runsSubgraphs(), Deferred: n.deferred,
			Retry: n.retry, Timeout: n.timeout, Ends: slices.Clone(n.ends), Description: n.desc,
		}
		for _, u := range n.uses {
			ni.Declared = append(ni.Declared, u.name)
		}
		info.Nodes = append(info.Nodes, ni)
	}
	for _, c := range g.channelOrder {
		ci := g.channelSpec[c]
		ch := ChannelInfo{Name: c, Kind: ci.kind, Internal: ci.internal}
		if ci.key != nil {
			ch.Reducer = ci.key.ReducerName
		}
		info.Channels = append(info.Channels, ch)
	}
	return info
}

// Subgraph returns the compiled graph run by subgraph node node, or nil. A
// node may instead declare the subgraphs its function runs (UsesSubgraph):
// SubgraphAt finds which one ran in a namespace.
func (g *Graph) Subgraph(node string) *Graph {
	if n := g.nodes[node]; n != nil {
		return n.subgraph
	}
	return nil
}

// Mermaid renders the graph as a Mermaid flowchart: solid arrows for edges,
// dotted ones for conditional edges and Command destinations, and a join
// point for multi-source edges. Node ids are generated, names are labels,
// so any node name renders.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.WriteString("graph TD;\n")
	ids := map[string]string{Start: "__start__", End: "__end__"}
	for i, n := range g.userNodes() {
		ids[n] = fmt.Sprintf("n%d", i)
	}
	ref := func(n string) string { return ids[n] }
	label := func(n string) string { return strings.ReplaceAll(n, `"`, "#quot;") }
	b.WriteString("\t__start__([<p>__start__</p>]):::first\n")
	for _, n := range g.userNodes() {
		fmt.Fprintf(&b, "\t%s(\"%s\")\n", ids[n], label(n))
	}
	b.WriteString("\t__end__([<p>__end__</p>]):::last\n")
	for i, e := range g.edges {
		switch {
		case e.Join:
			j := fmt.Sprintf("join%d", i)
			fmt.Fprintf(&b, "\t%s(( ))\n", j)
			for _, f := range e.From {
				fmt.Fprintf(&b, "\t%s --> %s;\n", ref(f), j)
			}
			fmt.Fprintf(&b, "\t%s --> %s;\n", j, ref(e.To))
		case e.Conditional:
			if e.To == "*" {
				fmt.Fprintf(&b, "\t%s -.->|any node| %s;\n", ref(e.From[0]), ref(End))
				continue
			}
			fmt.Fprintf(&b, "\t%s -.-> %s;\n", ref(e.From[0]), ref(e.To))
		default:
			fmt.Fprintf(&b, "\t%s --> %s;\n", ref(e.From[0]), ref(e.To))
		}
	}
	for _, name := range g.userNodes() {
		for _, t := range g.nodes[name].ends {
			fmt.Fprintf(&b, "\t%s -.->|goto| %s;\n", ref(name), ref(t))
		}
	}
	b.WriteString("\tclassDef default fill:#f2f0ff,line-height:1.2;\n\tclassDef first fill-opacity:0;\n\tclassDef last fill:#bfb6fc;\n")
	return b.String()
}
