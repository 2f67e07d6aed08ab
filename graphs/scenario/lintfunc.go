package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/superstep/superstep/engine"
)

// lintTasks adds the findings about the file's tasks and the calls of
// them to out: a task's name that makes its calls read as something
// else in traces, streams and interrupts (empty, reserved, the
// entrypoint's or a node's), and a call whose argument lacks what the
// task reads of it.
func (f *File) lintTasks(out *Errors) {
	others := map[string]string{}
	if e := f.Entrypoint; e != nil {
		others[e.Name] = "the entrypoint"
	} else {
		for _, n := range f.Nodes {
			others[n.Name] = fmt.Sprintf("node %q", n.Name)
		}
	}
	for _, t := range f.Tasks {
		field := join2("tasks", t.Name) + keySuffix
		switch {
		case t.Name == "":
			e := f.lintErr(field, Pos{1, 1}, nil, "", `a task named "": name it, as its calls are traced, streamed and asked by its name`)
			e.Field = `tasks[""]`
			*out = append(*out, e)
		case strings.HasPrefix(t.Name, "__"):
			*out = append(*out, f.lintErr(field, Pos{1, 1}, nil, "", "%q is a reserved name (names starting with __ are the graph's own, as %s and %s): name the task otherwise", t.Name, Start, End))
		case others[t.Name] != "" && f.Entrypoint != nil:
			*out = append(*out, f.lintErr(field, Pos{1, 1}, nil, "", "task %q is named like the entrypoint: its calls and the entrypoint then read alike in traces, streams and interrupts; name the task otherwise", t.Name))
		case others[t.Name] != "":
			*out = append(*out, f.lintErr(field, Pos{1, 1}, nil, "", "task %q is named like %s: its calls then read as the node's in traces and streams, and a breakpoint on the node holds them too; name the task otherwise", t.Name, others[t.Name]))
		}
	}
	reads := map[string]taskReads{}
	for _, t := range f.Tasks {
		reads[t.Name] = readsOfTask(t)
	}
	f.eachCall(func(c TaskCall, field string, nd *Node, nodeField string) {
		r, ok := reads[c.Task]
		if !ok || r.whole || len(r.keys) == 0 {
			return // the task reads its argument as a whole (or not at all)
		}
		if c.Arg == nil {
			*out = append(*out, f.lintErr(field, c.Pos, nd, nodeField, "task %q reads state.%s, but the call passes no argument, so state is null: add \"arg\", e.g. \"arg\": \"{'%s': …}\"", c.Task, r.keys[0], r.keys[0]))
			return
		}
		keys, ok := mapLiteralKeys(c.Arg.Src)
		if !ok {
			return // its shape is known only when it runs
		}
		for _, k := range r.keys {
			if !slices.Contains(keys, k) {
				hint := fmt.Sprintf(": add %q to it", k)
				if meant := engine.MeantName(keys, k); meant != "" {
					hint = fmt.Sprintf(": %q and %q are likely one key; spell them alike", meant, k)
				}
				*out = append(*out, f.lintErr(join2(field, "arg"), c.Pos, nd, nodeField, "task %q reads state.%s, which this argument has not (its keys: %s)%s", c.Task, k, strings.Join(keys, ", "), hint))
				return
			}
		}
	})
}

// eachCall calls fn with each task call of the file (the entrypoint's,
// and those of the nodes of the root graph and of the subgraphs), the
// field it is written at and the node it is in (nil for the
// entrypoint's) with that node's field.
func (f *File) eachCall(fn func(c TaskCall, field string, nd *Node, nodeField string)) {
	groups := func(gs []CallGroup, at string, nd *Node, nodeField string) {
		for i, g := range gs {
			for j, c := range g.Calls {
				field := index2(join2(at, "calls"), i)
				if g.Parallel {
					field = index2(field, j)
				}
				fn(c, field, nd, nodeField)
			}
		}
	}
	if e := f.Entrypoint; e != nil {
		groups(e.Calls, "entrypoint", nil, "")
	}
	graphs := []struct {
		g      *Graph
		prefix string
	}{{&f.Graph, ""}}
	for _, name := range sortedKeys(f.Subgraphs) {
		graphs = append(graphs, struct {
			g      *Graph
			prefix string
		}{f.Subgraphs[name], join2("subgraphs", name)})
	}
	for _, gr := range graphs {
		for i, nd := range gr.g.Nodes {
			field := index2(join2(gr.prefix, "nodes"), i)
			groups(nd.Calls, field, nd, field)
		}
	}
}

// taskReads is what a task's expressions read of its argument (state):
// the keys of state.key, in order of first reading, and whether one
// reads state as a whole (then what its argument holds is its business).
type taskReads struct {
	keys  []string
	whole bool
}

// readsOfTask is what t's expressions (interrupts, result, cache key)
// read of its argument.
func readsOfTask(t *TaskDef) taskReads {
	var r taskReads
	exprs := append([]*Expr{t.Result}, t.Interrupts...)
	if t.Cache != nil {
		exprs = append(exprs, t.Cache.Key)
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		tree, err := exprparser.Parse(e.Src)
		if err != nil {
			r.whole = true
			continue
		}
		v := &stateReader{}
		ast.Walk(&tree.Node, v)
		if v.idents > len(v.keys) {
			r.whole = true
		}
		for _, k := range v.keys {
			if !slices.Contains(r.keys, k) {
				r.keys = append(r.keys, k)
			}
		}
	}
	return r
}

// stateReader counts the state identifiers of an expression, and the
// keys read of it with a literal name (state.k, state['k']).
type stateReader struct {
	idents int
	keys   []string
}

// Visit counts n.
func (v *stateReader) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IdentifierNode:
		if x.Value == "state" {
			v.idents++
		}
	case *ast.MemberNode:
		id, ok := x.Node.(*ast.IdentifierNode)
		if k, isStr := x.Property.(*ast.StringNode); ok && isStr && id.Value == "state" {
			v.keys = append(v.keys, k.Value)
		}
	}
}

// mapLiteralKeys is the keys of the map src yields when src is a map
// literal whose keys are all written out, or a ?: between such; false
// when what it yields is known only when it runs.
func mapLiteralKeys(src string) ([]string, bool) {
	tree, err := exprparser.Parse(src)
	if err != nil {
		return nil, false
	}
	var keys []string
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.MapNode:
			for _, p := range x.Pairs {
				pn, ok := p.(*ast.PairNode)
				if !ok {
					return false
				}
				k, ok := pn.Key.(*ast.StringNode)
				if !ok {
					return false
				}
				if !slices.Contains(keys, k.Value) {
					keys = append(keys, k.Value)
				}
			}
			return true
		case *ast.ConditionalNode:
			return walk(x.Exp1) && walk(x.Exp2)
		}
		return false
	}
	if !walk(tree.Node) {
		return nil, false
	}
	return keys, true
}

// lintAnswers adds to out each resume op's by_node answer to a node that
// never asks: a node with no interrupt, no task calls and no subgraph
// (the entrypoint, when neither it nor a task has an interrupt). The op
// would fail when it runs (the node has no pending interrupt), after the
// ops before it.
func (f *File) lintAnswers(out *Errors) {
	asks := func(name string) bool {
		if e := f.Entrypoint; e != nil {
			if len(e.Interrupts) > 0 {
				return true
			}
			for _, t := range f.Tasks {
				if len(t.Interrupts) > 0 {
					return true
				}
			}
			return false
		}
		for _, n := range f.Nodes {
			if n.Name == name {
				return len(n.Interrupts) > 0 || n.Calls != nil || n.Subgraph != "" || n.Invoke != ""
			}
		}
		return true // no node of the root graph: check() said so
	}
	for _, op := range f.Ops {
		for _, kv := range op.ByNode {
			if asks(kv.Key) {
				continue
			}
			field := join2(join2(index2("ops", op.Index), "by_node"), kv.Key)
			what := `no "interrupt", no task calls, no subgraph`
			if f.Entrypoint != nil {
				what = `no "interrupt" in it or in a task`
			}
			e := f.lintErr(field, op.Pos, nil, "", "%q never asks (%s), so it has no question to answer: answer a node that interrupts", kv.Key, what)
			if pos, ok := f.namePos[field]; ok {
				e.Pos = pos
			}
			*out = append(*out, e)
		}
	}
}
