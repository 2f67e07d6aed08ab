package scenario

import (
	"errors"
	"slices"

	"github.com/superstep/superstep/engine"
)

// compileErrors places the engine's compile errors of def, the graph
// written at field ("" the root, subgraphs.NAME a subgraph), in the file:
// each becomes an *Error at what a person edits to fix it, by what the
// engine.CompileError says it is about. err is returned as it is when it
// holds no compile errors.
func (f *File) compileErrors(def *Graph, field string, err error) error {
	var ces engine.CompileErrors
	if !errors.As(err, &ces) {
		return err
	}
	out := make(Errors, 0, len(ces))
	for _, ce := range ces {
		e := &Error{Path: f.Path, Msg: ce.Msg + endHint(ce), graph: true, cause: ce}
		f.place(e, def, field, ce)
		out = append(out, e)
	}
	return out
}

// endHint is " (did you mean "__end__"?)" for ce, an end of an edge, a
// route or a node's declared ends that is no node, when it is LangGraph's END spelt as
// Python and JavaScript spell the constant or a person shortens it
// (END, end) and the engine found no node it likely meant; "" else.
func endHint(ce *engine.CompileError) string {
	name := ce.End
	if ce.Edge != nil && !slices.Contains(ce.Edge.From, ce.Node) {
		name = ce.Node
	}
	if ce.Kind != "UnknownNode" || name == "" || ce.Meant != "" {
		return "" // not an end; or the engine's message says which node
	}
	return nodeHint(nil, name, End)
}

// entrypointErrors places the engine's compile errors of the file's
// entrypoint (a name it refuses) at its name, or at the entrypoint when
// the name was left out, each with the likely fix. err is returned as it
// is when it holds no compile errors.
func (f *File) entrypointErrors(err error) error {
	var ces engine.CompileErrors
	if !errors.As(err, &ces) {
		return err
	}
	out := make(Errors, 0, len(ces))
	for _, ce := range ces {
		e := &Error{Path: f.Path, Msg: ce.Msg, graph: true, cause: ce}
		if ce.Kind == "InvalidNode" {
			e.Msg += `: name it otherwise, or leave "name" out for "main"`
		}
		if !f.placeAt(e, "entrypoint.name", f.namePos) {
			e.Field, e.Pos = "entrypoint", f.Entrypoint.Pos
		}
		if e.Pos == (Pos{}) {
			e.Pos = Pos{1, 1} // a File built in Go, not parsed
		}
		out = append(out, e)
	}
	return out
}

// place sets e's position and field to where ce's problem is in def, the
// graph at field: the edge or route (at its end that is at fault), the
// interrupt list's entry, the node's entry, the state key, and for the
// graph's own problem (no entry) its edges field, or the graph.
func (f *File) place(e *Error, def *Graph, field string, ce *engine.CompileError) {
	switch {
	case ce.Edge != nil && ce.Edge.Route && ce.Edge.Index < len(def.Branches):
		f.placeRoute(e, def.Branches[ce.Edge.Index], index2(join2(field, "branches"), ce.Edge.Index), ce.Node)
	case ce.Edge != nil && !ce.Edge.Route && ce.Edge.Index < len(def.Edges):
		f.placeEdge(e, def.Edges[ce.Edge.Index], index2(join2(field, "edges"), ce.Edge.Index), ce.Node)
	case ce.Interrupt != "" && f.placeInterrupt(e, def, field, ce):
	case ce.Node != "" && f.placeNode(e, def, field, ce.Node, ce.End):
	case ce.Key != "" && f.placeAt(e, join2(join2(field, "state"), ce.Key), f.graphPos):
	case f.placeAt(e, join2(field, "edges"), f.graphPos):
	default:
		e.Field, e.Pos = field, f.graphPos[field]
	}
	if e.Pos == (Pos{}) {
		e.Pos = Pos{1, 1} // a File built in Go, not parsed
	}
}

// placeAt points e at field if positions has it, and reports whether it
// does.
func (f *File) placeAt(e *Error, field string, positions map[string]Pos) bool {
	pos, ok := positions[field]
	if ok {
		e.Field, e.Pos = field, pos
	}
	return ok
}

// placeRoute points e at route b, written at field: at its from, end or
// path_map entry that is name, else at the route.
func (f *File) placeRoute(e *Error, b *Branch, field, name string) {
	e.Field, e.Pos = field, b.Pos
	if name == "" {
		return
	}
	if b.From == name && f.placeAt(e, join2(field, "from"), f.namePos) {
		return
	}
	if j := slices.Index(b.Ends, name); j >= 0 && f.placeAt(e, index2(join2(field, "ends"), j), f.namePos) {
		return
	}
	for _, kv := range b.PathMap {
		if kv.Value == name && f.placeAt(e, join2(join2(field, "path_map"), kv.Key), f.namePos) {
			return
		}
	}
}

// placeEdge points e at edge or join ed, written at field: at its source
// or target that is name, else at the edge.
func (f *File) placeEdge(e *Error, ed Edge, field, name string) {
	e.Field, e.Pos = field, ed.Pos
	if name == "" {
		return
	}
	if j := slices.Index(ed.From, name); j >= 0 {
		from := index2(field, 0)
		if ed.Join {
			from = index2(from, j)
		}
		if f.placeAt(e, from, f.namePos) {
			return
		}
	}
	if ed.To == name {
		f.placeAt(e, index2(field, 1), f.namePos)
	}
}

// placeInterrupt points e at the entry of def's interrupt_before or
// interrupt_after list (the root's are the file's) that names ce's node,
// and reports whether it found it.
func (f *File) placeInterrupt(e *Error, def *Graph, field string, ce *engine.CompileError) bool {
	list, name := def.InterruptBefore, "interrupt_before"
	if ce.Interrupt == "after" {
		list, name = def.InterruptAfter, "interrupt_after"
	}
	if field == "" {
		list = f.InterruptBefore
		if ce.Interrupt == "after" {
			list = f.InterruptAfter
		}
	}
	j := slices.Index(list, ce.Node)
	if j < 0 {
		return false
	}
	at := index2(join2(field, name), j)
	if !f.placeAt(e, at, f.namePos) {
		e.Field, e.Pos = at, f.graphPos[field]
	}
	return true
}

// placeNode points e at the entry of def's node named name, at the entry
// of its ends that is end when end is set, and reports whether def has
// that node.
func (f *File) placeNode(e *Error, def *Graph, field, name, end string) bool {
	i := slices.IndexFunc(def.Nodes, func(n *Node) bool { return n.Name == name })
	if i < 0 {
		return false
	}
	e.Field, e.Pos = index2(join2(field, "nodes"), i), def.Nodes[i].Pos
	e.node, e.nodeField = name, e.Field
	if j := slices.Index(def.Nodes[i].Ends, end); end != "" && j >= 0 {
		f.placeAt(e, index2(join2(e.Field, "ends"), j), f.namePos)
	}
	return true
}
