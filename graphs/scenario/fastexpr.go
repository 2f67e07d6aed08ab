package scenario

import (
	"errors"
	"reflect"
	"sync"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm/runtime"

	"github.com/superstep/superstep/engine"
)

// The fast path: a compiled expression is also turned into a tree of Go
// closures, one per node of the tree expr-lang checked and the patcher
// rewrote, which compute what expr-lang's VM computes for that tree. The
// VM costs about 1,600 instructions per evaluation (an operand stack, an
// argument buffer made per run, reflection to read a variable, a recover)
// and needs a deep stack (its frame is large), so a Send task evaluating
// an expression grew its goroutine's stack twice; the closures cost a few
// hundred instructions and small frames.
//
// The VM stays the one authority on meaning: the closures call the same
// runtime functions the VM's opcodes call (runtime.Add, runtime.Equal, …)
// and the same helper functions, so a value they compute is the VM's
// value; and whenever they cannot (an error, a panic, a pointer to
// dereference, a construct they do not cover) the expression runs again on
// the VM, which then gives the result or the error exactly as before.
// Expressions have no side effects, so running one twice is safe.

// fastFn evaluates one node. state is the node's input (never nil: runFast
// puts an empty object there); env holds the other variables and is nil
// when the expression reads none of them. It panics where the VM would
// fail, or with errSlowPath where only the VM knows the answer.
type fastFn func(state any, env *Env) any

// errSlowPath sends an evaluation to the VM.
var errSlowPath = errors.New("scenario: expression needs the VM")

// Variables an expression reads, as bits of Expr.reads.
const (
	readsState = 1 << iota
	readsOther // resume, resumes, context, results, previous or $env
)

// fastCompiler turns a checked tree into closures; ok is cleared at the
// first node it does not cover.
type fastCompiler struct {
	ok    bool
	reads int
}

// compileFast returns the closures for tree (expr-lang's checked and
// patched tree of a compiled program) and the variables it reads, or nil
// when the tree holds a construct the closures do not cover.
func compileFast(tree ast.Node) (fastFn, int) {
	c := &fastCompiler{ok: true}
	fn := c.node(tree)
	if !c.ok {
		return nil, c.reads
	}
	return fn, c.reads
}

func (c *fastCompiler) fail() fastFn {
	c.ok = false
	return nil
}

func (c *fastCompiler) node(n ast.Node) fastFn {
	switch x := n.(type) {
	case *ast.NilNode:
		return func(any, *Env) any { return nil }
	case *ast.FloatNode:
		if x.Type() != nil && x.Type().Kind() == reflect.Float32 {
			return c.fail() // the VM would push a float32
		}
		v := any(x.Value)
		return func(any, *Env) any { return v }
	case *ast.BoolNode:
		v := any(x.Value)
		return func(any, *Env) any { return v }
	case *ast.StringNode:
		v := any(intern(x.Value))
		return func(any, *Env) any { return v }
	case *ast.IdentifierNode:
		return c.identifier(x)
	case *ast.UnaryNode:
		return c.unary(x)
	case *ast.BinaryNode:
		return c.binary(x)
	case *ast.ConditionalNode:
		return c.conditional(x)
	case *ast.ArrayNode:
		return c.array(x)
	case *ast.MapNode:
		return c.object(x)
	case *ast.CallNode:
		return c.call(x)
	}
	return c.fail()
}

// identifier reads a variable, as the VM's OpLoadField does from exprVars,
// with the VM's defaults for what the caller left nil (objectOrEmpty,
// listOrEmpty).
func (c *fastCompiler) identifier(x *ast.IdentifierNode) fastFn {
	if x.Value == "state" {
		c.reads |= readsState
		return func(state any, _ *Env) any { return state }
	}
	c.reads |= readsOther
	switch x.Value {
	case "resume":
		return func(_ any, env *Env) any { return env.Resume }
	case "resumes":
		return func(_ any, env *Env) any { return listOrEmpty(env.Resumes) }
	case "context":
		return func(_ any, env *Env) any { return objectOrEmpty(env.Context) }
	case "results":
		return func(_ any, env *Env) any { return listOrEmpty(env.Results) }
	case "previous":
		return func(_ any, env *Env) any { return env.Previous }
	}
	return c.fail() // $env and anything else: the VM's
}

// deref is the VM's OpDeref (deref.Interface) for scenario values, which
// hold no pointers: the value itself. A pointer goes to the VM.
func deref(v any) any {
	switch v.(type) {
	case nil, bool, float64, string, []any, map[string]any, engine.Send:
		return v
	}
	if k := reflect.TypeOf(v).Kind(); k == reflect.Pointer || k == reflect.Interface {
		panic(errSlowPath)
	}
	return v
}

func (c *fastCompiler) unary(x *ast.UnaryNode) fastFn {
	operand := c.node(x.Node)
	switch x.Operator {
	case "!": // the patcher made the operand _truthy(…), a bool
		return func(state any, env *Env) any { return !deref(operand(state, env)).(bool) }
	case "-":
		return func(state any, env *Env) any {
			v := operand(state, env)
			if f, ok := v.(float64); ok {
				return -f
			}
			return runtime.Negate(deref(v))
		}
	case "+":
		return func(state any, env *Env) any { return deref(operand(state, env)) }
	}
	return c.fail()
}

// binary covers the operators the patcher leaves as binary nodes; the VM
// evaluates the left operand first, then the right (both dereferenced).
// Two float64s are computed inline, as runtime's functions compute them;
// anything else goes through those functions (binOp.slow). An operand
// state.k is read inline, and one closure serves every operator: each
// closure call is a frame on the path (see Expr.runFast).
func (c *fastCompiler) binary(x *ast.BinaryNode) fastFn {
	l, r := c.operand(x.Left), c.operand(x.Right)
	if !c.ok {
		return nil
	}
	if x.Operator == "??" {
		return func(state any, env *Env) any {
			if v := deref(l.value(state, env)); !runtime.IsNil(v) {
				return v
			}
			return deref(r.value(state, env))
		}
	}
	op, ok := binOps[x.Operator]
	if !ok {
		return c.fail()
	}
	if k, ok := x.Right.(*ast.FloatNode); ok {
		y := k.Value
		b := any(y)
		return func(state any, env *Env) any {
			var a any
			if m, ok := state.(map[string]any); ok && l.stateKey {
				a = m[l.key]
			} else {
				a = l.value(state, env)
			}
			if x, ok := a.(float64); ok {
				return op.floats(x, y)
			}
			return op.slow(a, b)
		}
	}
	return func(state any, env *Env) any {
		var a, b any
		if m, ok := state.(map[string]any); ok && l.stateKey {
			a = m[l.key]
		} else {
			a = l.value(state, env)
		}
		if m, ok := state.(map[string]any); ok && r.stateKey {
			b = m[r.key]
		} else {
			b = r.value(state, env)
		}
		if x, ok := a.(float64); ok {
			if y, ok := b.(float64); ok {
				return op.floats(x, y)
			}
		}
		return op.slow(a, b)
	}
}

// stateArith is an expression state.k OP c, c a number literal: a plain
// node computes it inline, without the closure's call, when state.k is a
// number (see plainNodeFunc), as binary's closure does.
type stateArith struct {
	key string
	op  binOp
	y   float64
}

// stateArithOf is tree's stateArith; ok is false when tree is not one or
// has no closures.
func stateArithOf(tree ast.Node) (a stateArith, ok bool) {
	x, isBinary := tree.(*ast.BinaryNode)
	if !isBinary {
		return a, false
	}
	op, isOp := binOps[x.Operator]
	k, isConst := x.Right.(*ast.FloatNode)
	if !isOp || !isConst {
		return a, false
	}
	c := &fastCompiler{ok: true}
	l := c.operand(x.Left)
	if !l.stateKey || c.node(x.Right) == nil {
		return a, false // not state.k, or a constant the closures leave to the VM
	}
	return stateArith{key: l.key, op: op, y: k.Value}, true
}

// binOp is an arithmetic or comparison operator.
type binOp uint8

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
	opLess
	opMore
	opLessEq
	opMoreEq
	opEq
	opNotEq
)

var binOps = map[string]binOp{
	"+": opAdd, "-": opSub, "*": opMul, "/": opDiv, "<": opLess, ">": opMore,
	"<=": opLessEq, ">=": opMoreEq, "==": opEq, "!=": opNotEq,
}

// floats is op on two float64s: what runtime's function for op returns
// for them.
func (op binOp) floats(x, y float64) any {
	switch op {
	case opAdd:
		return x + y
	case opSub:
		return x - y
	case opMul:
		return x * y
	case opDiv:
		return x / y
	case opLess:
		return x < y
	case opMore:
		return x > y
	case opLessEq:
		return x <= y
	case opMoreEq:
		return x >= y
	case opEq:
		return x == y
	}
	return x != y
}

// slow is op through runtime's function, as the VM's opcode computes it.
//
//go:noinline
func (op binOp) slow(a, b any) any { return runtimeOps[op](deref(a), deref(b)) }

// runtimeOps are the runtime functions the VM's opcodes call, by binOp.
var runtimeOps = [...]func(a, b any) any{
	opAdd:    runtime.Add,
	opSub:    runtime.Subtract,
	opMul:    runtime.Multiply,
	opDiv:    func(a, b any) any { return runtime.Divide(a, b) },
	opLess:   func(a, b any) any { return runtime.Less(a, b) },
	opMore:   func(a, b any) any { return runtime.More(a, b) },
	opLessEq: func(a, b any) any { return runtime.LessOrEqual(a, b) },
	opMoreEq: func(a, b any) any { return runtime.MoreOrEqual(a, b) },
	opEq:     func(a, b any) any { return runtime.Equal(a, b) },
	opNotEq:  func(a, b any) any { return !runtime.Equal(a, b) },
}

// operand is an operand of a binary operator, with state.k, the
// commonest, marked for reading inline.
type operand struct {
	fn       fastFn // nil for state.key
	key      string
	stateKey bool
}

func (c *fastCompiler) operand(n ast.Node) operand {
	fn := c.node(n)
	if call, ok := n.(*ast.CallNode); ok && len(call.Arguments) == 2 {
		id, _ := call.Callee.(*ast.IdentifierNode)
		obj, _ := call.Arguments[0].(*ast.IdentifierNode)
		key, _ := call.Arguments[1].(*ast.StringNode)
		if id != nil && id.Value == "_get" && obj != nil && obj.Value == "state" && key != nil {
			// No closure kept: the expressions of a scenario live as
			// long as its graph, and the collector marks them all.
			return operand{key: intern(key.Value), stateKey: true}
		}
	}
	return operand{fn: fn}
}

// value is the operand's value, for the paths that do not read it inline
// (out of line: the closures' frames stay small).
//
//go:noinline
func (o *operand) value(state any, env *Env) any {
	if o.fn == nil {
		return slowMember(state, o.key)
	}
	return o.fn(state, env)
}

// conditional is ?: (and the patched && and ||): the condition, a bool
// from _truthy, picks a branch; the branches are not dereferenced.
func (c *fastCompiler) conditional(x *ast.ConditionalNode) fastFn {
	cond, yes, no := c.node(x.Cond), c.node(x.Exp1), c.node(x.Exp2)
	if !c.ok {
		return nil
	}
	return func(state any, env *Env) any {
		if deref(cond(state, env)).(bool) {
			return yes(state, env)
		}
		return no(state, env)
	}
}

func (c *fastCompiler) array(x *ast.ArrayNode) fastFn {
	elems := make([]fastFn, len(x.Nodes))
	for i, n := range x.Nodes {
		elems[i] = c.node(n)
	}
	if !c.ok {
		return nil
	}
	if len(elems) == 1 {
		e := elems[0]
		return func(state any, env *Env) any { return []any{e(state, env)} }
	}
	return func(state any, env *Env) any {
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = e(state, env)
		}
		return out
	}
}

// object is a map literal. The VM evaluates the pairs in order and then
// stores them last to first, so of two equal keys the first one stays.
func (c *fastCompiler) object(x *ast.MapNode) fastFn {
	keys := make([]string, len(x.Pairs))
	values := make([]fastFn, len(x.Pairs))
	for i, p := range x.Pairs {
		pair, ok := p.(*ast.PairNode)
		if !ok {
			return c.fail()
		}
		key, ok := pair.Key.(*ast.StringNode)
		if !ok {
			return c.fail()
		}
		keys[i], values[i] = intern(key.Value), c.node(pair.Value)
	}
	if !c.ok {
		return nil
	}
	return func(state any, env *Env) any {
		vals := make([]any, len(values))
		for i, v := range values {
			vals[i] = v(state, env)
		}
		m := make(map[string]any)
		for i := len(keys) - 1; i >= 0; i-- {
			m[keys[i]] = vals[i]
		}
		return m
	}
}

// call is a helper call: the helper itself, on the arguments as they are
// (the VM dereferences no argument of type any).
func (c *fastCompiler) call(x *ast.CallNode) fastFn {
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok {
		return c.fail()
	}
	h, ok := helpers[id.Value]
	if !ok {
		return c.fail()
	}
	args := make([]fastFn, len(x.Arguments))
	for i, a := range x.Arguments {
		args[i] = c.node(a)
	}
	if !c.ok {
		return nil
	}
	switch {
	case id.Value == "_get" && len(args) == 2:
		return c.member(x, args[0], args[1])
	case id.Value == "_truthy" && len(args) == 1:
		a := args[0]
		return func(state any, env *Env) any { return truthy(a(state, env)) }
	case h.fn1 != nil && len(args) == 1:
		f, a := h.fn1, args[0]
		return func(state any, env *Env) any { return must(f(a(state, env))) }
	case h.fn2 != nil && len(args) == 2:
		f, a, b := h.fn2, args[0], args[1]
		return func(state any, env *Env) any { return must(f(a(state, env), b(state, env))) }
	case h.fn3 != nil && len(args) == 3:
		f, a, b, d := h.fn3, args[0], args[1], args[2]
		return func(state any, env *Env) any { return must(f(a(state, env), b(state, env), d(state, env))) }
	}
	return c.fail()
}

// member is _get (x.k, x[k]); an object read by a constant key is looked
// up inline.
func (c *fastCompiler) member(x *ast.CallNode, obj, key fastFn) fastFn {
	if k, ok := x.Arguments[1].(*ast.StringNode); ok {
		name := intern(k.Value)
		if id, ok := x.Arguments[0].(*ast.IdentifierNode); ok && id.Value == "state" {
			// state.k: the node's input read in place.
			return func(state any, _ *Env) any {
				if m, ok := state.(map[string]any); ok {
					return m[name]
				}
				return slowMember(state, name)
			}
		}
		return func(state any, env *Env) any {
			o := obj(state, env)
			if m, ok := o.(map[string]any); ok {
				return m[name]
			}
			return slowMember(o, name)
		}
	}
	return func(state any, env *Env) any { return must(member(obj(state, env), key(state, env))) }
}

//go:noinline
func slowMember(obj, key any) any { return must(member(obj, key)) }

// must is a helper's result; its error ends the fast path (the VM then
// reports it with its position).
func must(v any, err error) any {
	if err != nil {
		panic(err)
	}
	return v
}

// interned keeps one copy of each short string an expression holds as a
// constant (a Send's node, an object's key, a member read) and of each
// node name (buildGraph), so that equal strings share their bytes: a map
// lookup or a comparison of two such strings then finds them equal by
// address, without reading the bytes (a fan-out's Sends name their node
// by an expression's 'work', which the engine looks up among the node
// names the file gave, and its tasks read state.x from objects made with
// the key 'x': ~70 instructions a Send of byte comparisons otherwise).
// It holds at most internMax strings, of at most internLen bytes: a
// process that loads scenarios without end keeps no more.
var interned struct {
	sync.Mutex
	m map[string]string
}

const (
	internMax = 1 << 12
	internLen = 64
)

// intern returns the kept copy of s, keeping s if there is none and room.
func intern(s string) string {
	if len(s) > internLen {
		return s
	}
	interned.Lock()
	defer interned.Unlock()
	if k, ok := interned.m[s]; ok {
		return k
	}
	if interned.m == nil {
		interned.m = map[string]string{}
	}
	if len(interned.m) < internMax {
		interned.m[s] = s
	}
	return s
}
