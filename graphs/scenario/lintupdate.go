package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// lintUpdates adds to out what the ops' state updates (update_state's
// values and command.update, bulk_update's, an invoke's command.update)
// get wrong that LangGraph either refuses when the op runs or runs with
// and loses:
//
//   - a key that is no state key of the graph updated. LangGraph.js keeps
//     only the state keys of what a node's writers are given (1.7.3 dist
//     graph/state.js:615 for a Command's update, :626 for a map; the
//     start node's, for __start__ and __input__, the same filter) and
//     drops the rest without a word: checked by running the oracle on an
//     update_state as a node, as __start__, as __input__ and with no
//     as_node, a bulk_update, and a Command's update, each with a
//     misspelt key and with a node's name as a key: every op succeeds and
//     the key's value is nowhere in the state;
//   - an as_node that is no node of the graph (nor __start__, __input__
//     or __copy__; __end__ only with null values, which finishes the
//     pending tasks): LangGraph.js refuses the update with
//     InvalidUpdateError (1.7.3 dist pregel/index.js:876, "Node … does
//     not exist"), after the ops before it;
//   - an update without as_node in a bulk_update superstep of several:
//     LangGraph.js refuses the superstep (dist pregel/index.js:867).
//
// An update of a subgraph's state ("subgraph") is checked against the
// subgraph's keys and nodes; one whose node runs no subgraph of the file
// fails when it runs and is not checked. Values that are no map (null,
// a copy's pairs aside) are the op's to refuse.
func (f *File) lintUpdates(out *Errors) {
	if f.Entrypoint != nil {
		return // an entrypoint's update is its output: anything goes
	}
	for _, op := range f.Ops {
		at := index2("ops", op.Index)
		switch op.Kind {
		case OpInvoke:
			if op.Command != nil {
				f.lintUpdateKeys(&f.Graph, op.Command.Update, join2(join2(at, "command"), "update"), out)
			}
		case OpUpdateState:
			g := f.updatedGraph(op)
			if g == nil {
				continue
			}
			values, field := op.Values, join2(at, "values")
			if op.Command != nil {
				values, field = op.Command.Update, join2(join2(at, "command"), "update")
			}
			f.lintUpdate(g, Update{values, op.AsNode, op.HasAsNode}, field, join2(at, "as_node"), out)
		case OpBulkUpdate:
			for s, step := range op.Supersteps {
				for u, up := range step {
					uf := index2(index2(join2(at, "supersteps"), s), u)
					if len(step) > 1 && !up.HasAsNode {
						*out = append(*out, f.ErrorAt(uf, "an update of a superstep of %d names no as_node: LangGraph needs each update's node when a superstep has several; add \"as_node\"", len(step)))
						continue
					}
					f.lintUpdate(&f.Graph, up, join2(uf, "values"), join2(uf, "as_node"), out)
				}
			}
		}
	}
}

// updatedGraph is the graph op's update writes to: the root graph, or
// the subgraph its "subgraph" node runs; nil when that node runs none
// (the op fails when it runs).
func (f *File) updatedGraph(op Op) *Graph {
	if op.SubgraphOf == "" {
		return &f.Graph
	}
	for _, n := range f.Nodes {
		if n.Name == op.SubgraphOf {
			return f.Subgraphs[cmp.Or(n.Subgraph, n.Invoke)]
		}
	}
	return nil
}

// lintUpdate checks up, an update of g whose values are written at
// field and its as_node at nodeField.
func (f *File) lintUpdate(g *Graph, up Update, field, nodeField string, out *Errors) {
	if !up.HasAsNode {
		f.lintUpdateKeys(g, up.Values, field, out)
		return
	}
	nodes := g.nodeNames()
	switch name := up.AsNode; {
	case name == Copy:
		// A copy's values are null or [values, as_node] pairs, applied to
		// the copy as one superstep.
		pairs, _ := up.Values.([]any)
		for i, p := range pairs {
			pair, ok := p.([]any)
			if !ok || len(pair) != 2 {
				continue
			}
			node, ok := pair[1].(string)
			if !ok {
				continue
			}
			pf := index2(field, i)
			f.lintUpdate(g, Update{pair[0], node, true}, index2(pf, 0), index2(pf, 1), out)
		}
	case name == End && up.Values != nil:
		*out = append(*out, f.ErrorAt(nodeField, "as_node %s takes null values (it finishes the pending tasks); with values it is no node, and LangGraph refuses the update: write the values as the node they come from", End))
	case name == End:
	case name == Start || name == Input || slices.Contains(nodes, name):
		f.lintUpdateKeys(g, up.Values, field, out)
	default:
		*out = append(*out, f.ErrorAt(nodeField, "%q is no node of the graph%s: LangGraph refuses the update when it runs", name, asNodeHint(nodes, name)))
		// Its keys too: mending the node leaves them to drop.
		f.lintUpdateKeys(g, up.Values, field, out)
	}
}

// asNodeHint is the end of a message about as_node name, no node of
// the graph whose nodes are nodes: the likely one, or what as_node takes.
func asNodeHint(nodes []string, name string) string {
	specials := []string{Start, Input, Copy, End}
	if hint := nodeHint(append(slices.Clone(nodes), specials...), name, ""); hint != "" {
		return hint
	}
	return fmt.Sprintf(" (nodes: %s; or %s)", strings.Join(nodes, ", "), strings.Join(specials, ", "))
}

// lintUpdateKeys adds to out each key of values, an update of g written
// at field, that is no state key of g: LangGraph drops its value.
func (f *File) lintUpdateKeys(g *Graph, values any, field string, out *Errors) {
	m, ok := values.(map[string]any)
	if !ok {
		return
	}
	keys := g.stateNames()
	nodes := g.nodeNames()
	for _, k := range sortedKeys(m) {
		if slices.Contains(keys, k) {
			continue
		}
		msg := unknownKey(k, keys)
		if slices.Contains(nodes, k) {
			// A node's name is no channel: what is written under it goes
			// nowhere (LangGraph.js 1.7.3, by running it).
			msg = fmt.Sprintf("%q is a node, not a state key: an update writes state keys (%s)", k, strings.Join(keys, ", "))
		}
		*out = append(*out, f.ErrorAt(join2(field, k)+keySuffix, "%s; LangGraph drops its value", msg))
	}
}

// nodeNames lists g's node names, in file order.
func (g *Graph) nodeNames() []string {
	out := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		out[i] = n.Name
	}
	return out
}
