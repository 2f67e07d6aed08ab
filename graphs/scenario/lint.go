package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/superstep/superstep/engine"
)

// keySuffix marks a lintPos entry that is where a key was written, not
// its value.
const keySuffix = "#key"

// Lint returns the mistakes in f that LangGraph lets a graph run with but
// that a scenario written by hand cannot mean, as Errors, one *Error for
// each, naming the file, the position and the field, in the order of
// their places in the file; nil when it finds none. What it finds:
//
//   - an update key (of a node's update map, or of a map literal its
//     update expression yields) that is no state key of the node's graph:
//     LangGraph drops such a write (state.py _get_updates), so a misspelt
//     key loses its value without a word;
//   - a send or sendEach whose literal node is no node of the graph:
//     LangGraph fails the sending task when it runs (InvalidUpdateError),
//     after the supersteps before it were checkpointed;
//   - a literal name a goto or a route yields that is no node of the graph
//     (nor __end__), not in the route's path_map, or outside the ends the
//     branch or node lists: LangGraph drops an unknown name with a warning
//     (_algo.py:310-313), or fails the routing node;
//   - an invoke op's input key that is no state key, or whose value the
//     key's reducer refuses (a string for a sum): the run would write its
//     input checkpoint and then fail;
//   - a key of a state update (update_state's values or command.update,
//     a bulk_update's values, an invoke's command.update) that is no
//     state key of the graph it updates: LangGraph drops its value; an
//     update's as_node that is no node of that graph (nor __start__,
//     __input__, __copy__, or __end__ with null values), or an update
//     without as_node in a bulk_update superstep of several: LangGraph
//     refuses the op when it runs (lintUpdates);
//   - a task (functional API) named "", with a reserved name (__start__),
//     or like the entrypoint or a node: LangGraph runs it, and its calls
//     then read as something else in traces, streams and interrupts;
//   - a task call whose argument lacks a key the task reads (state.k of a
//     map literal without k, or of no argument at all, which is null);
//   - a resume's by_node answer to a node that never asks (no interrupt,
//     task call or subgraph; for an entrypoint, no interrupt in it or a
//     task): the op fails when it runs, after the ops before it.
//
// Each expression, update key and input key is reported once, for its
// first mistake. Parse does not apply these rules: the conformance
// scenarios exercise exactly those runtime behaviours, and a trace must
// show what LangGraph does with them. The command line lints every
// scenario file it runs (its --lint says whether a finding refuses the
// file or is a warning). Nodes with "parent" are skipped (their update and
// goto address the parent graph).
func (f *File) Lint() error {
	var out Errors
	if f.Entrypoint == nil {
		f.lintGraph(&f.Graph, "", &out)
	}
	for _, name := range sortedKeys(f.Subgraphs) {
		f.lintGraph(f.Subgraphs[name], join2("subgraphs", name), &out)
	}
	if f.Entrypoint == nil {
		f.lintInputs(&out)
	}
	f.lintUpdates(&out)
	f.lintTasks(&out)
	f.lintAnswers(&out)
	if len(out) == 0 {
		return nil
	}
	slices.SortStableFunc(out, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return out
}

// lintErr is an *Error at field (or, when field has no recorded
// position, at fallback), inside node nd when nd is not nil.
func (f *File) lintErr(field string, fallback Pos, nd *Node, nodeField, format string, args ...any) *Error {
	pos, ok := f.lintPos[field]
	if !ok {
		pos = fallback
	}
	e := &Error{Path: f.Path, Pos: pos, Field: strings.TrimSuffix(field, keySuffix), Msg: fmt.Sprintf(format, args...)}
	if nd != nil {
		e.node, e.nodeField = nd.Name, nodeField
	}
	return e
}

// ErrorAt is an *Error at field, written as Error's fields are
// (ops[0].recursion_limit), where the file has it: at the field's value
// when the parser kept its place (expressions, names, update and input
// keys, recursion limits), else at the op the field is in, else at the
// start of the file. A caller that refuses what the file says, for a
// reason of its own, points at it with this.
func (f *File) ErrorAt(field, format string, args ...any) *Error {
	pos, ok := f.lintPos[field]
	if !ok {
		pos, ok = f.namePos[field]
	}
	if !ok {
		for _, op := range f.Ops {
			if strings.HasPrefix(field, index2("ops", op.Index)) {
				pos, ok = op.Pos, true
			}
		}
	}
	if !ok || pos == (Pos{}) {
		pos = Pos{1, 1}
	}
	return &Error{Path: f.Path, Pos: pos, Field: strings.TrimSuffix(field, keySuffix), Msg: fmt.Sprintf(format, args...)}
}

// stateNames lists g's state keys, in file order.
func (g *Graph) stateNames() []string {
	out := make([]string, len(g.State))
	for i, k := range g.State {
		out[i] = k.Name
	}
	return out
}

// unknownKey says that key is none of keys, with the likely one or the
// list, and how to declare it.
func unknownKey(key string, keys []string) string {
	if len(keys) == 0 {
		return fmt.Sprintf("%q is no state key: the graph has none; declare it under \"state\" (\"%s\": null)", key, key)
	}
	if hint := engine.DidYouMean(keys, key); hint != "" {
		return fmt.Sprintf("%q is no state key%s", key, hint)
	}
	return fmt.Sprintf("%q is no state key (state keys: %s); declare it under \"state\" or write one of those", key, strings.Join(keys, ", "))
}

// lintGraph adds g's findings (g written at prefix) to out.
func (f *File) lintGraph(g *Graph, prefix string, out *Errors) {
	keys := g.stateNames()
	nodes := make([]string, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		nodes = append(nodes, n.Name)
	}
	isNode := func(s string) bool { return slices.Contains(nodes, s) }
	add := func(e *Error) bool {
		if e != nil {
			*out = append(*out, e)
		}
		return e != nil
	}
	// target checks a literal name a goto or route yields.
	target := func(name string, ends []string, field string, pos Pos, nd *Node, nodeField string) *Error {
		switch {
		case name != End && !isNode(name):
			return f.lintErr(field, pos, nd, nodeField, "%q is no node of the graph%s", name, nodeHint(append(slices.Clone(nodes), End), name, End))
		case ends != nil && !slices.Contains(ends, name):
			return f.lintErr(field, pos, nd, nodeField, "%q is not in its ends (%s): add it there", name, strings.Join(ends, ", "))
		}
		return nil
	}
	// sends checks the literal nodes of e's Sends.
	sends := func(e *Expr, field string, pos Pos, nd *Node, nodeField string) *Error {
		if e == nil {
			return nil
		}
		for _, s := range e.sendNodes {
			switch {
			case s == Start || s == End:
				return f.lintErr(field, pos, nd, nodeField, "a Send cannot go to %s: send to a node of the graph", s)
			case !isNode(s):
				return f.lintErr(field, pos, nd, nodeField, "Send to %q, which is no node of the graph%s", s, engine.DidYouMean(nodes, s))
			}
		}
		return nil
	}
	for i, nd := range g.Nodes {
		field := index2(join2(prefix, "nodes"), i)
		if nd.Parent {
			continue
		}
		for _, k := range nd.UpdateKeys {
			if !slices.Contains(keys, k.Key) {
				add(f.lintErr(join2(join2(field, "update"), k.Key)+keySuffix, nd.Pos, nd, field, "%s", unknownKey(k.Key, keys)))
				continue
			}
			add(sends(k.Expr, join2(join2(field, "update"), k.Key), nd.Pos, nd, field))
		}
		if e := nd.UpdateExpr; e != nil && !add(f.lintLiteralKeys(e, keys, join2(field, "update"), nd, field)) {
			add(sends(e, join2(field, "update"), nd.Pos, nd, field))
		}
		if nd.Goto == nil {
			continue
		}
		gotoField := join2(field, "goto")
		if add(sends(nd.Goto, gotoField, nd.Pos, nd, field)) {
			continue
		}
		for _, name := range nd.Goto.names {
			if add(target(name, nd.Ends, gotoField, nd.Pos, nd, field)) {
				break
			}
		}
	}
	for i, b := range g.Branches {
		field := join2(index2(join2(prefix, "branches"), i), "route")
		if b.Route == nil || add(sends(b.Route, field, b.Pos, nil, "")) {
			continue
		}
		for _, name := range b.Route.names {
			if add(f.lintRoute(b, name, field, target)) {
				break
			}
		}
	}
}

// lintLiteralKeys is the first key of a map literal update expression e
// yields that is none of keys, as an *Error at field; nil when none is.
func (f *File) lintLiteralKeys(e *Expr, keys []string, field string, nd *Node, nodeField string) *Error {
	for _, lit := range e.literalKeys {
		for _, k := range lit {
			if !slices.Contains(keys, k) {
				return f.lintErr(field, nd.Pos, nd, nodeField, "the map it yields writes %s", unknownKey(k, keys))
			}
		}
	}
	return nil
}

// lintRoute checks name, a literal that branch b's route yields, written
// at field: a label of its path_map, or a target (a node in its ends).
func (f *File) lintRoute(b *Branch, name, field string, target func(string, []string, string, Pos, *Node, string) *Error) *Error {
	if b.PathMap == nil {
		return target(name, b.Ends, field, b.Pos, nil, "")
	}
	labels := make([]string, len(b.PathMap))
	for j, kv := range b.PathMap {
		labels[j] = kv.Key
	}
	if !slices.Contains(labels, name) {
		return f.lintErr(field, b.Pos, nil, "", "%q is no label of its path_map (%s)%s", name, strings.Join(labels, ", "), engine.DidYouMean(labels, name))
	}
	return nil
}

// lintInputs checks the input maps of the invoke ops against the root
// graph's state keys and their reducers.
func (f *File) lintInputs(out *Errors) {
	for _, op := range f.Ops {
		in, ok := op.Input.(map[string]any)
		if op.Kind != OpInvoke || !ok {
			continue
		}
		field := join2(index2("ops", op.Index), "input")
		for _, bad := range f.checkInput(in, true) {
			*out = append(*out, f.lintErr(join2(field, bad.key)+keySuffix, op.Pos, nil, "", "%s", bad.msg))
		}
	}
}

// CheckInput checks in, a run's input for the root graph (the command
// line's --input), as Lint checks the invoke ops' inputs: an error naming
// the first state key, in sorted order, whose value its reducer refuses
// (the run would write its input checkpoint and then fail); nil for a
// functional file, whose input may be anything. Keys that are no state
// key are left to the caller, which may warn of them: LangGraph drops
// them.
func (f *File) CheckInput(in map[string]any) error {
	if f.Entrypoint != nil {
		return nil
	}
	if bad := f.checkInput(in, false); len(bad) > 0 {
		return fmt.Errorf("%s: %s", bad[0].key, bad[0].msg)
	}
	return nil
}

// refusedKey is a key of an input the root graph refuses, and why.
type refusedKey struct{ key, msg string }

// checkInput is the keys of in that the root graph refuses, in sorted
// order, and why (none when it takes them all); a key that is no state
// key is refused only when unknown is set.
func (f *File) checkInput(in map[string]any, unknown bool) []refusedKey {
	keys := f.Graph.stateNames()
	var out []refusedKey
	for _, k := range sortedKeys(in) {
		i := slices.Index(keys, k)
		switch {
		case i < 0 && unknown:
			out = append(out, refusedKey{k, unknownKey(k, keys)})
			continue
		case i < 0:
			continue
		}
		sk := f.Graph.State[i]
		fn, _, known := engine.NamedReducer(sk.Reducer)
		v := engine.Normalize(in[k])
		if !known || isOverwrite(v) {
			continue // LastValue takes anything; an Overwrite replaces
		}
		if _, err := fn(sk.Default, v); err != nil {
			out = append(out, refusedKey{k, fmt.Sprintf("the %s reducer of %q refuses %s: %v", sk.Reducer, k, engine.MustEncode(v), err)})
		}
	}
	return out
}

// isOverwrite reports whether v is an Overwrite in its wire form.
func isOverwrite(v any) bool {
	m, ok := v.(map[string]any)
	_, has := m[engine.OverwriteKey]
	return ok && len(m) == 1 && has
}
