package scenario

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/superstep/superstep/engine"
)

// Expr is a compiled scenario expression. Scenario files are also run by
// the JavaScript reference, so an expression must mean the same in both
// languages: Compile rejects expr-lang constructs that JavaScript lacks (or
// reads differently), and rewrites the rest of the tree so that expr-lang
// evaluates it with JavaScript's rules (all numbers are doubles, missing
// members are null, && || ! and ?: test truthiness).
type Expr struct {
	Src string
	// prog is the VM's program; nil until needed when fast is set (see
	// program).
	prog     *vm.Program
	progOnce sync.Once
	progErr  error
	// literalKeys are the key lists, in source order, of the map literals
	// the expression can yield as its result (the whole expression, or a
	// branch of ?:, && or ||); yieldsState: it can yield its input.
	literalKeys [][]string
	yieldsState bool
	// names are the string literals the expression can yield as its
	// result or as an item of a list it yields (a goto's or a route's
	// node names); sendNodes the literal first arguments of its send and
	// sendEach calls. Lint checks both against the graph's nodes.
	names, sendNodes []string
	// fast is the expression as closures (nil: the VM runs it); reads
	// says which variables it reads (readsState, readsOther).
	fast  fastFn
	reads int
	// arith is set for state.k OP c (a number) as the whole expression
	// with closures.
	arith *stateArith
	// sends is set for sendEach(node, list, key) as the whole expression
	// (with closures for its arguments): a fan-out's route.
	sends *sendEachCall
	// site is where the file has the expression (nil: made by Compile
	// alone); its run errors point there (ExprError).
	site *site
}

// Env holds the variables an expression can read.
type Env struct {
	State   any   // the node's input; nil reads as an empty map
	Resume  any   // the answer to the node's last interrupt
	Resumes []any // the answers to all of the node's interrupts, in order
	Context any   // the run's runtime context; nil reads as an empty map
	// Results are an entrypoint's task results so far, one per item of
	// its calls; Previous what its last run on the thread saved.
	Results  []any
	Previous any
}

// exprVars is what the expr-lang VM sees; the tags are the names in
// expressions.
type exprVars struct {
	State    any   `expr:"state"`
	Resume   any   `expr:"resume"`
	Resumes  []any `expr:"resumes"`
	Context  any   `expr:"context"`
	Results  []any `expr:"results"`
	Previous any   `expr:"previous"`
}

// Compile parses and checks src once, at scenario load time.
func Compile(src string) (*Expr, error) {
	prog, err := compileProgram(src)
	if err != nil {
		return nil, err
	}
	e := &Expr{Src: src, prog: prog}
	e.fast, e.reads = compileFast(prog.Node())
	e.sends = compileSendEach(prog.Node())
	if a, ok := stateArithOf(prog.Node()); ok && e.fast != nil {
		e.arith = &a
	}
	if e.fast == nil {
		e.reads = readsState | readsOther // unknown: give it everything
	} else {
		// The closures do not need the program, which the VM needs only
		// when they fail; it is made again then. A scenario keeps its
		// expressions for as long as its graph lives, and a thousand
		// programs (3 MB, 42,000 objects for chain_1000) were live heap
		// the collector marked on every cycle.
		e.prog = nil
	}
	if tree, err := exprparser.Parse(src); err == nil {
		e.noteResults(tree.Node)
		e.noteNames(tree.Node)
		ast.Walk(&tree.Node, sendVisitor{e})
	}
	return e, nil
}

// compileProgram compiles src for the VM.
func compileProgram(src string) (*vm.Program, error) {
	js := &jsSubset{src: src}
	opts := []expr.Option{
		expr.Env(exprVars{}),
		expr.Patch(js),
		// The optimizer folds literal lists and maps into values shared by
		// every run; scenario expressions are tiny, so the speed is not
		// worth a shared value that one careless caller could mutate.
		expr.Optimize(false),
	}
	opts = append(opts, helperOptions...)
	prog, err := expr.Compile(src, opts...)
	if js.err != nil {
		return nil, js.err
	}
	if err != nil {
		err = oneLine(err)
		if e, ok := err.(*exprError); ok && (strings.Contains(src, "===") || strings.Contains(src, "!==")) {
			e.msg += " (=== and !== are not in the common subset: write == and !=)"
		}
		return nil, err
	}
	return prog, nil
}

// program is the VM's program, compiled again on first use when Compile
// dropped it (it compiled once, so it compiles again).
func (e *Expr) program() (*vm.Program, error) {
	e.progOnce.Do(func() {
		if e.prog == nil {
			e.prog, e.progErr = compileProgram(e.Src)
		}
	})
	return e.prog, e.progErr
}

// noteResults records what the expression can yield as its result, for
// OrderedKeys: map literals and the input itself.
func (e *Expr) noteResults(n ast.Node) {
	switch x := n.(type) {
	case *ast.MapNode:
		keys := make([]string, 0, len(x.Pairs))
		for _, p := range x.Pairs {
			if pn, ok := p.(*ast.PairNode); ok {
				if k, ok := pn.Key.(*ast.StringNode); ok {
					keys = append(keys, k.Value)
				}
			}
		}
		e.literalKeys = append(e.literalKeys, keys)
	case *ast.ConditionalNode:
		e.noteResults(x.Exp1)
		e.noteResults(x.Exp2)
	case *ast.BinaryNode:
		if x.Operator == "&&" || x.Operator == "||" {
			e.noteResults(x.Left)
			e.noteResults(x.Right)
		}
	case *ast.IdentifierNode:
		if x.Value == "state" {
			e.yieldsState = true
		}
	}
}

// noteNames records the string literals n can yield, alone or as items
// of a list literal it yields.
func (e *Expr) noteNames(n ast.Node) {
	switch x := n.(type) {
	case *ast.StringNode:
		e.names = append(e.names, x.Value)
	case *ast.ArrayNode:
		for _, item := range x.Nodes {
			e.noteNames(item)
		}
	case *ast.ConditionalNode:
		e.noteNames(x.Exp1)
		e.noteNames(x.Exp2)
	case *ast.BinaryNode:
		switch x.Operator {
		case "||", "??":
			e.noteNames(x.Left)
			e.noteNames(x.Right)
		case "&&": // the left operand is yielded only when it is falsy
			e.noteNames(x.Right)
		}
	}
}

// sendVisitor records the literal node names of send and sendEach calls.
type sendVisitor struct{ e *Expr }

func (v sendVisitor) Visit(node *ast.Node) {
	c, ok := (*node).(*ast.CallNode)
	if !ok || len(c.Arguments) == 0 {
		return
	}
	if id, _ := c.Callee.(*ast.IdentifierNode); id == nil || (id.Value != "send" && id.Value != "sendEach") {
		return
	}
	if s, ok := c.Arguments[0].(*ast.StringNode); ok {
		v.e.sendNodes = append(v.e.sendNodes, s.Value)
	}
}

// OrderedKeys returns the keys of m, a map the expression yielded, in the
// order a JavaScript object built the same way has them: the source order
// of the map literal it came from; for anything else (the node's input
// returned as is) the order of schema — LangGraph builds a node's input
// from the channels in schema order — then the remaining keys sorted.
func (e *Expr) OrderedKeys(m map[string]any, schema []string) []string {
	if !e.yieldsState {
		for _, keys := range e.literalKeys {
			if sameKeys(keys, m) {
				return slices.Clone(keys)
			}
		}
	}
	out := make([]string, 0, len(m))
	for _, k := range schema {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	var rest []string
	for k := range m {
		if !slices.Contains(schema, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func sameKeys(keys []string, m map[string]any) bool {
	if len(keys) != len(m) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// Eval evaluates the expression. The result is an engine value: nil, bool,
// float64, string, []any, map[string]any or engine.Send, never shared with
// the expression or the environment.
func (e *Expr) Eval(env Env) (any, error) {
	var other *Env // made only for an expression that reads it
	if e.reads&readsOther != 0 {
		other = new(Env)
		*other = env
	}
	return e.eval(env.State, other)
}

// eval is Eval with the state apart from the other variables; env nil
// means they are all unset. Nodes and routes call it so that their frames
// stay small and an Env is made at most once per call (see runFast).
func (e *Expr) eval(state any, env *Env) (any, error) {
	if e.sends != nil {
		if v, ok := e.sends.run(state, env); ok {
			return v, nil
		}
	}
	if e.fast != nil {
		if v, ok := e.runFast(state, env); ok {
			return toValue(v)
		}
	}
	return e.evalVM(state, env)
}

// evalVM is eval on the VM, in a frame of its own.
//
//go:noinline
func (e *Expr) evalVM(state any, env *Env) (any, error) {
	var vars Env
	if env != nil {
		vars = *env
	}
	vars.State = state
	return e.runVM(vars)
}

// sendEachCall is sendEach(node, list, key) as the whole expression,
// its arguments as closures.
type sendEachCall struct {
	node, list, key fastFn
}

// compileSendEach is the sendEachCall of tree (expr-lang's checked and
// patched tree), or nil when tree is not such a call or an argument has
// no closures.
func compileSendEach(tree ast.Node) *sendEachCall {
	call, ok := tree.(*ast.CallNode)
	if !ok || len(call.Arguments) != 3 {
		return nil
	}
	if id, _ := call.Callee.(*ast.IdentifierNode); id == nil || id.Value != "sendEach" {
		return nil
	}
	var args [3]fastFn
	for i, a := range call.Arguments {
		if args[i], _ = compileFast(a); args[i] == nil {
			return nil
		}
	}
	return &sendEachCall{node: args[0], list: args[1], key: args[2]}
}

// run is the call's result when it is in engine form as sendEach makes
// it, which toValue would return as it is: a list of Sends, each with the
// object {key: item} as its argument, every item a scalar. It tests the
// items before the call, so that a fan-out reads no Send's object again;
// ok is false for anything else (a list or a Go int among the items, an
// error), which the ordinary evaluation then gives.
func (c *sendEachCall) run(state any, env *Env) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	state = objectOrEmpty(state)
	node, list, key := c.node(state, env), c.list(state, env), c.key(state, env)
	if _, isName := node.(string); !isName || list != nil && !isFlatList(list) {
		return nil, false
	}
	out, err := sendEach(node, list, key)
	return out, err == nil
}

// readsOnlyState reports whether the expression reads no variable but
// state, so that eval(state, nil) is Eval(Env{State: state}) at no cost.
func (e *Expr) readsOnlyState() bool { return e == nil || e.reads&readsOther == 0 }

// runFast evaluates the closures; ok is false when the VM must run the
// expression instead. Its frames are small on purpose: a Send task's
// goroutine starts with a small stack, and an evaluation that outgrows it
// costs a copy of the whole stack.
func (e *Expr) runFast(state any, env *Env) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	return e.fast(objectOrEmpty(state), env), true
}

// runVM evaluates the expression on expr-lang's VM.
func (e *Expr) runVM(env Env) (any, error) {
	prog, err := e.program()
	if err != nil {
		return nil, err
	}
	ev := evaluators.Get().(*evaluator)
	ev.vars = exprVars{State: objectOrEmpty(env.State), Resume: env.Resume, Resumes: listOrEmpty(env.Resumes),
		Context: objectOrEmpty(env.Context), Results: listOrEmpty(env.Results), Previous: env.Previous}
	out, err := ev.vm.Run(prog, &ev.vars)
	ev.vars = exprVars{} // keep no run's values alive in the pool
	evaluators.Put(ev)
	if err != nil {
		return nil, oneLine(err)
	}
	return toValue(out)
}

// emptyObject is what a missing state or context reads as. Expressions
// cannot change a map, and Eval's result is a copy, so one is shared.
var emptyObject = map[string]any{}

// objectOrEmpty is what state or context reads as: an empty object when
// the caller left it nil. The VM's variables and the closures both take
// it from here (and listOrEmpty), so that they read the same.
func objectOrEmpty(v any) any {
	if v == nil {
		return emptyObject
	}
	return v
}

// listOrEmpty is what resumes or results reads as: an empty list when the
// caller left it nil.
func listOrEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// evaluator is an expression VM with room for its variables: nodes
// evaluate expressions on every superstep, and a VM and a boxed set of
// variables per evaluation were most of their garbage.
type evaluator struct {
	vm   vm.VM
	vars exprVars
}

var evaluators = sync.Pool{New: func() any { return new(evaluator) }}

// oneLine drops the source snippet expr-lang appends to its errors: callers
// put the message on one line after the file position of the expression.
func oneLine(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		msg := fe.Message
		if name, ok := strings.CutPrefix(msg, "unknown name "); ok {
			// expr-lang names the identifier; say what can be read.
			hint := "the variables are " + strings.Join(userVariables, ", ")
			if m := engine.MeantName(userVariables, name); m != "" {
				hint = "did you mean " + m + "? " + hint
			} else {
				// Most often a string written bare: "update": {"status": "done"}.
				hint = "a string goes in quotes: '" + name + "'; " + hint
			}
			msg += " (" + hint + ")"
		}
		return &exprError{msg: msg, col: fe.Column + 1}
	}
	return err
}

// exprError is an error inside an expression, at a character column of it.
type exprError struct {
	msg string
	col int
}

func (e *exprError) Error() string { return fmt.Sprintf("%s (column %d)", e.msg, e.col) }

// String returns the source text.
func (e *Expr) String() string { return e.Src }

// toValue turns an expression result into engine form. Numbers should
// already be float64 (integer literals are rewritten), but values from the
// environment may carry other Go numbers. A list or object whose elements
// are all in engine form already is returned as it is, not copied: values
// are immutable once written (and the engine copies its state map before
// changing it if a result holds it), so only a conversion needs a new one.
func toValue(v any) (any, error) {
	if isScalar(v) {
		return v, nil
	}
	if l, ok := v.([]any); ok {
		return listValue(v, l) // one frame less (see Expr.runFast)
	}
	out, _, err := engineForm(v)
	return out, err
}

// isScalar reports a value in engine form that holds no other value.
func isScalar(v any) bool {
	switch v.(type) {
	case nil, bool, float64, string:
		return true
	}
	return false
}

// engineForm is toValue, and reports whether the result is a new value
// rather than v itself. Lists and objects are walked by functions of their
// own, each with a small frame (see Expr.runFast).
func engineForm(v any) (out any, changed bool, err error) {
	switch x := v.(type) {
	case nil, bool, float64, string:
		return v, false, nil
	case int, int64, int32, uint64, float32:
		return engine.Normalize(x), true, nil
	case []any:
		list, err := listForm(x)
		if list == nil || err != nil {
			return v, false, err
		}
		return list, true, nil
	case map[string]any:
		return objectForm(x)
	case engine.Send:
		arg, changed, err := engineForm(x.Arg)
		if err != nil || !changed {
			return v, false, err
		}
		return engine.Send{Node: x.Node, Arg: arg}, true, nil
	default:
		return nil, false, fmt.Errorf("expression yields a %T, which is not a scenario value", v)
	}
}

// listValue is toValue of v, the list x: v itself (not x boxed again,
// which would allocate) when no element changes.
func listValue(v any, x []any) (any, error) {
	list, err := listForm(x)
	if list == nil || err != nil {
		return v, err
	}
	return list, nil
}

// listForm converts the elements of x; nil when none changes.
func listForm(x []any) ([]any, error) {
	var list []any // made at the first element that changes
	for i, e := range x {
		if isScalar(e) {
			continue // list, when made, is a clone: it holds e already
		}
		c, changed, err := engineForm(e)
		if err != nil {
			return nil, err
		}
		if changed && list == nil {
			list = slices.Clone(x)
		}
		if list != nil {
			list[i] = c
		}
	}
	return list, nil
}

func objectForm(x map[string]any) (any, bool, error) {
	var obj map[string]any // made at the first element that changes
	for k, e := range x {
		if isScalar(e) {
			continue // obj, when made, is a clone: it holds e already
		}
		c, changed, err := engineForm(e)
		if err != nil {
			return nil, false, err
		}
		if changed && obj == nil {
			obj = maps.Clone(x)
		}
		if obj != nil {
			obj[k] = c
		}
	}
	if obj == nil {
		return x, false, nil
	}
	return obj, true, nil
}

// jsSubset is an AST patcher: it records the first construct outside the
// common subset, and rewrites the rest for JavaScript semantics.
type jsSubset struct {
	src string
	err error
}

func (p *jsSubset) reject(n ast.Node, format string, args ...any) {
	if p.err == nil {
		p.err = &exprError{
			msg: fmt.Sprintf(format, args...) + " is not in the common subset of JavaScript and expr-lang",
			col: p.column(n.Location().From),
		}
	}
}

// column turns a rune offset into a 1-based column of the line it is on.
func (p *jsSubset) column(from int) int {
	col := 1
	for i, r := range []rune(p.src) {
		if i == from {
			break
		}
		col++
		if r == '\n' {
			col = 1
		}
	}
	return col
}

// JavaScript operators whose meaning expr-lang shares for the values
// scenarios compare and add. "%" is rewritten (expr-lang's is integer-only).
var subsetBinary = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"&&": true, "||": true, "??": true,
}

func call(name string, args ...ast.Node) ast.Node {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: args}
}

func (p *jsSubset) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IntegerNode:
		// JavaScript has only doubles; keeping integer literals as Go ints
		// would make 1/0 panic, % integer-only and results mixed-typed.
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	case *ast.FloatNode, *ast.BoolNode, *ast.StringNode, *ast.ArrayNode, *ast.MapNode, *ast.ChainNode:
	case *ast.NilNode:
		p.reject(n, "nil (write null)")
	case *ast.IdentifierNode:
		if n.Value == "null" {
			ast.Patch(node, &ast.NilNode{})
		}
	case *ast.PairNode:
		if _, ok := n.Key.(*ast.StringNode); !ok {
			p.reject(n, "a computed map key")
		}
	case *ast.UnaryNode:
		switch n.Operator {
		case "!":
			n.Node = call("_truthy", n.Node)
		case "-", "+":
		default:
			p.reject(n, "operator %q", n.Operator)
		}
	case *ast.BinaryNode:
		if !subsetBinary[n.Operator] {
			p.reject(n, "operator %q", n.Operator)
			return
		}
		switch n.Operator {
		case "&&": // JavaScript yields an operand, not a boolean
			ast.Patch(node, &ast.ConditionalNode{Ternary: true, Cond: call("_truthy", n.Left), Exp1: n.Right, Exp2: n.Left})
		case "||":
			ast.Patch(node, &ast.ConditionalNode{Ternary: true, Cond: call("_truthy", n.Left), Exp1: n.Left, Exp2: n.Right})
		case "%":
			ast.Patch(node, call("_mod", n.Left, n.Right))
		}
	case *ast.ConditionalNode:
		if !n.Ternary {
			p.reject(n, "if/else")
			return
		}
		n.Cond = call("_truthy", n.Cond)
	case *ast.MemberNode:
		if n.Method {
			p.reject(n, "a method call")
			return
		}
		if n.Optional {
			p.reject(n, "optional chaining")
			return
		}
		if prop, ok := n.Property.(*ast.StringNode); ok && prop.Value == "length" {
			if _, top := n.Node.(*ast.IdentifierNode); !top {
				// x.length: JavaScript's length of a list or string,
				// which expr-lang reads as a key (state.length, a state
				// key, stays a key: the doc lists .length as not in the
				// subset, and refusing it here, not when it runs, says
				// so before the graph has run half its steps).
				p.reject(n, ".length")
				if e, _ := p.err.(*exprError); e != nil {
					e.msg += " (use len(x))"
				}
				return
			}
		}
		ast.Patch(node, call("_get", n.Node, n.Property))
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		switch {
		case ok && !userHelper(id.Value) && !strings.HasPrefix(id.Value, "_"):
			// A name the author meant as a function: say which exist.
			p.reject(n, "function %s", id.Value)
			if e, _ := p.err.(*exprError); e != nil {
				e.msg += " (" + functionsHint(id.Value) + ")"
			}
		case !ok || !userHelper(id.Value):
			p.reject(n, "this call")
		}
	case *ast.BuiltinNode:
		p.reject(n, "function %s", n.Name)
	default:
		p.reject(*node, "this construct")
	}
}

// userFunctions are the functions an expression may call, as the format
// lists them.
var userFunctions = []string{"len", "str", "send", "sendEach", "join", "msg", "removeMsg", "overwrite"}

// userVariables are the variables an expression may read (exprVars).
var userVariables = []string{"state", "resume", "resumes", "context", "results", "previous"}

// functionsHint names the function meant by name, when one is close, and
// the ones there are.
func functionsHint(name string) string {
	hint := "the functions are " + strings.Join(userFunctions, ", ")
	if m := engine.MeantName(slices.Concat(userFunctions, []string{"length", "size", "count"}), name); m != "" && m != name {
		if !slices.Contains(userFunctions, m) {
			m = "len" // length, size and count are len's other names
		}
		return fmt.Sprintf("did you mean %s? %s", m, hint)
	}
	if name == "length" || name == "size" || name == "count" {
		return "did you mean len? " + hint
	}
	return hint
}

// userHelper reports whether scenario expressions may call name: one of
// the helpers, but none of the internal ones ("_" names) the patcher
// inserts.
func userHelper(name string) bool {
	_, ok := helpers[name]
	return ok && !strings.HasPrefix(name, "_")
}

// helper is a function scenario expressions may call (or one the patcher
// inserts), with its fixed number of arguments.
type helper struct {
	fn1 func(any) (any, error)
	fn2 func(any, any) (any, error)
	fn3 func(any, any, any) (any, error)
	sig any // its type for expr-lang's checker: new(func(…) …)
}

// helpers are the functions the VM and the fast path both call, and the
// one list of those scenario expressions may call (userHelper). They
// override expr-lang's builtins of the same name, whose null handling and
// number types differ; signatures fix the number of arguments at compile
// time.
var helpers = map[string]helper{
	"len":      {fn1: jsLen, sig: new(func(any) float64)},
	"str":      {fn1: func(a any) (any, error) { return jsStr(a), nil }, sig: new(func(any) string)},
	"send":     {fn2: makeSend, sig: new(func(any, any) any)},
	"sendEach": {fn3: sendEach, sig: new(func(any, any, any) []any)},
	"join":     {fn2: join, sig: new(func(any, any) string)},
	"msg": {fn3: func(id, role, content any) (any, error) {
		return map[string]any{"id": id, "role": role, "content": content}, nil
	}, sig: new(func(any, any, any) map[string]any)},
	"removeMsg": {fn1: func(id any) (any, error) { return map[string]any{"remove": id}, nil }, sig: new(func(any) map[string]any)},
	// overwrite(v) is LangGraph's Overwrite in its wire form, which the
	// engine's reducer keys recognise (engine.Overwrite).
	"overwrite": {fn1: func(v any) (any, error) { return map[string]any{engine.OverwriteKey: v}, nil }, sig: new(func(any) map[string]any)},
	"_truthy":   {fn1: func(v any) (any, error) { return truthy(v), nil }, sig: new(func(any) bool)},
	"_get":      {fn2: member, sig: new(func(any, any) any)},
	"_mod":      {fn2: mod, sig: new(func(any, any) float64)},
}

// helperOptions defines the helpers for expr-lang, in a fixed order.
var helperOptions = func() []expr.Option {
	var opts []expr.Option
	for _, name := range slices.Sorted(maps.Keys(helpers)) {
		h := helpers[name]
		var fn func(a ...any) (any, error)
		switch {
		case h.fn1 != nil:
			fn = func(a ...any) (any, error) { return h.fn1(a[0]) }
		case h.fn2 != nil:
			fn = func(a ...any) (any, error) { return h.fn2(a[0], a[1]) }
		default:
			fn = func(a ...any) (any, error) { return h.fn3(a[0], a[1], a[2]) }
		}
		opts = append(opts, expr.Function(name, fn, h.sig))
	}
	return opts
}()

// Truthy is the language's truth, JavaScript's: false, 0, NaN, "" and
// null are false, every other value true. A condition (a breakpoint's, a
// route's ?:) holds when its value is truthy.
func Truthy(v any) bool { return truthy(v) }

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	default:
		if f, ok := number(v); ok {
			return f != 0 && !math.IsNaN(f)
		}
		return true
	}
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int, int64, int32, uint64, float32:
		return engine.Normalize(x).(float64), true
	}
	return 0, false
}

// member is JavaScript's x[k] and x.k: a missing key or an index out of
// range is null (JavaScript's undefined), reading from null is an error.
func member(obj, key any) (any, error) {
	switch x := obj.(type) {
	case nil:
		return nil, fmt.Errorf("cannot read %s of null", keyString(key))
	case map[string]any:
		return x[keyString(key)], nil
	case []any:
		if i, ok := index(key, len(x)); ok {
			return x[i], nil
		}
		return nil, noLength(key)
	case string:
		units := utf16.Encode([]rune(x))
		if i, ok := index(key, len(units)); ok {
			return string(utf16.Decode(units[i : i+1])), nil
		}
		return nil, noLength(key)
	case engine.Send: // LangGraph.js's Send has node and args
		switch key {
		case "node":
			return x.Node, nil
		case "args":
			return x.Arg, nil
		}
	}
	return nil, nil
}

func index(key any, n int) (int, bool) {
	f, ok := number(key)
	if !ok || f != math.Trunc(f) || f < 0 || f >= float64(n) {
		return 0, false
	}
	return int(f), true
}

// noLength turns x.length, which JavaScript answers and expr-lang cannot, into
// an error instead of a silent null.
func noLength(key any) error {
	if key == "length" {
		return errors.New(".length is not in the common subset (use len(x))")
	}
	return nil
}

func keyString(key any) string {
	if s, ok := key.(string); ok {
		return s
	}
	return jsString(key)
}

func mod(a, b any) (any, error) {
	x, ok1 := number(a)
	y, ok2 := number(b)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("invalid operation: %s %% %s", typeName(a), typeName(b))
	}
	return math.Mod(x, y), nil
}

func jsLen(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return 0.0, nil
	case string:
		return float64(len(utf16.Encode([]rune(x)))), nil // JavaScript counts UTF-16 units
	case []any:
		return float64(len(x)), nil
	case map[string]any:
		return float64(len(x)), nil
	}
	return nil, fmt.Errorf("len() of %s", typeName(v))
}

// jsStr is the str helper: String(x), except that null is "".
func jsStr(v any) string {
	if v == nil {
		return ""
	}
	return jsString(v)
}

// jsString is JavaScript's String(x) for scenario values.
func jsString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case string:
		return x
	case []any: // Array.prototype.toString: null items print as ""
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	}
	if f, ok := number(v); ok {
		if f == 0 {
			return "0" // also -0
		}
		return engine.FormatNumber(f) // JavaScript's: also Infinity and NaN
	}
	return "[object Object]"
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	case engine.Send:
		return "Send"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func makeSend(node, arg any) (any, error) {
	name, ok := node.(string)
	if !ok {
		return nil, fmt.Errorf("send: node must be a string, got %s", typeName(node))
	}
	return engine.Send{Node: name, Arg: arg}, nil
}

func sendEach(node, list, key any) (any, error) {
	name, ok := node.(string)
	if !ok {
		return nil, fmt.Errorf("sendEach: node must be a string, got %s", typeName(node))
	}
	if list == nil {
		return []any{}, nil
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("sendEach: expected a list, got %s", typeName(list))
	}
	k := keyString(key)
	out := make([]any, len(items))
	for i, item := range items {
		out[i] = engine.Send{Node: name, Arg: map[string]any{k: item}}
	}
	return out, nil
}

// join follows the JavaScript reference, list.map(String).join(sep): unlike
// str, a null item prints as "null".
func join(list, sep any) (any, error) {
	if list == nil {
		return "", nil
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("join: expected a list, got %s", typeName(list))
	}
	parts := make([]string, len(items))
	for i, e := range items {
		parts[i] = jsString(e)
	}
	return strings.Join(parts, jsString(sep)), nil
}
