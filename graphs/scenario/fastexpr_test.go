package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// fastEnvs are the variables the differential tests evaluate every
// expression with: the value kinds scenarios hold, and some they never do
// (Go ints, a pointer, a state that is not a map), where the fast path must
// still agree with the VM or leave the expression to it.
func fastEnvs() []Env {
	n := 7.0
	st := map[string]any{
		"n": 2.0, "x": 3.0, "s": "ab", "t": true, "f": false, "zero": 0.0, "neg": -1.5,
		"items": []any{"x", "y", "z"}, "nums": []any{3.0, 1.0, 2.0}, "i": 1.0,
		"m": map[string]any{"k": "v", "n": 1.0}, "empty": "", "nul": nil, "emptyList": []any{},
		"messages": []any{map[string]any{"id": "m1"}}, "send": engine.Send{Node: "w", Arg: 1.0},
	}
	odd := map[string]any{
		"n": 7, "x": int64(2), "s": "é😀", "items": []any{1, nil, "a"}, "p": &n,
		"nilList": []any(nil), "nilMap": map[string]any(nil), "i": float32(1),
	}
	return []Env{
		{},
		{State: st},
		{State: st, Resume: "yes", Resumes: []any{"A", "B"}, Context: map[string]any{"user": "u", "n": 4.0}},
		{State: st, Resume: map[string]any{"action": "approve", "n": 2.0}, Results: []any{1.0, "r"}, Previous: 3.0},
		{State: odd, Resume: 5, Context: map[string]any{"n": 9}},
		{State: 5.0},
		{State: "str"},
		{State: []any{"a", 2.0}},
		{State: map[string]any{"x": 21.0}},
		{State: &n, Resume: &n},
	}
}

// checkFastAgrees evaluates e on the fast path and on the VM and fails
// when the fast path has a value the VM does not give.
func checkFastAgrees(t *testing.T, e *Expr, env Env) (fast bool) {
	t.Helper()
	var other *Env
	if e.reads&readsOther != 0 {
		other = &env
	}
	fv, ok := e.runFast(env.State, other)
	vv, verr := e.runVM(env)
	// What nodes and routes call (with its shortcuts) gives the VM's
	// result or error.
	if ev, err := e.eval(env.State, other); (err == nil) != (verr == nil) || verr == nil && sameValue(ev, vv) != nil {
		t.Errorf("%q with %v: eval gives %#v (%v), the VM %#v (%v)", e.Src, envString(env), ev, err, vv, verr)
	}
	if !ok {
		return false
	}
	got, err := toValue(fv)
	if verr != nil {
		if err == nil {
			t.Errorf("%q with %v: fast path gives %#v, the VM fails: %v", e.Src, envString(env), got, verr)
		}
		return true
	}
	if err != nil || sameValue(got, vv) != nil {
		t.Errorf("%q with %v: fast path gives %#v (%v), the VM %#v", e.Src, envString(env), got, err, vv)
	}
	return true
}

func envString(env Env) string {
	return fmt.Sprintf("state=%v resume=%v resumes=%v context=%v", env.State, env.Resume, env.Resumes, env.Context)
}

// sameValue compares two results, NaN equal to NaN and -0 unlike 0.
func sameValue(a, b any) error {
	if typedString(a) != typedString(b) {
		return fmt.Errorf("%s != %s", typedString(a), typedString(b))
	}
	return nil
}

// typedString prints v with the Go type of every value in it (%#v prints
// a float64 2 and an int 2 alike), maps in sorted key order.
func typedString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = typedString(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, fmt.Sprintf("%q:%s", k, typedString(x[k])))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case engine.Send:
		return fmt.Sprintf("Send(%q, %s)", x.Node, typedString(x.Arg))
	}
	return fmt.Sprintf("%T(%#v)", v, v)
}

// Every expression of every scenario file in the repository (the public
// and own conformance scenarios, the perf workloads) is compiled to
// closures, and the closures agree with the VM on each of them with every
// environment. Expressions are found as the strings of the files that
// compile.
func TestFastPath_ScenarioExpressionsAgreeWithVM(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../testdata/conformance/*/*.json", "../../testdata/perf/*.json"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	srcs := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".trace.json") || strings.HasSuffix(f, ".summary.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		eachString(doc, func(s string) { srcs[s] = true })
	}
	var exprs []*Expr
	for src := range srcs {
		e, err := Compile(src)
		if err != nil || e.fast == nil && bareName.MatchString(src) {
			continue // not an expression ("values", a reducer's name, …)
		}
		exprs = append(exprs, e)
	}
	if len(exprs) < 100 {
		t.Fatalf("found only %d expressions in %d files", len(exprs), len(files))
	}
	for _, e := range exprs {
		if e.fast == nil {
			t.Errorf("%q: no fast path", e.Src)
			continue
		}
		for _, env := range fastEnvs() {
			checkFastAgrees(t, e, env)
		}
	}
}

// bareName is a string that expr-lang reads as one of its builtins (a
// function as a value), such as a stream mode in an op.
var bareName = regexp.MustCompile(`^[a-z]+$`)

func eachString(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []any:
		for _, e := range x {
			eachString(e, fn)
		}
	case map[string]any:
		for _, e := range x {
			eachString(e, fn)
		}
	}
}

// Random expressions of the subset: whatever the fast path computes, the
// VM computes the same, on every environment; and it computes most of them.
func TestFastPath_RandomExpressionsAgreeWithVM(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	var compiled, evaluated, fast int
	for range 6000 {
		src := randomExpr(r, 4)
		e, err := Compile(src)
		if err != nil {
			continue // outside the subset, or a type error expr-lang finds
		}
		compiled++
		if e.fast == nil {
			t.Errorf("%q: no fast path", src)
			continue
		}
		for _, env := range fastEnvs() {
			evaluated++
			if checkFastAgrees(t, e, env) {
				fast++
			}
		}
	}
	t.Logf("%d expressions compiled, %d evaluations, %d on the fast path", compiled, evaluated, fast)
	if compiled < 3000 || fast < evaluated/3 {
		t.Fatalf("too few checked: %d compiled, %d of %d evaluations on the fast path", compiled, fast, evaluated)
	}
}

var (
	randomLeaves = []string{
		"0", "1", "2", "-1", "2.5", "1e21", "0.1", "'a'", "''", "'版'", "true", "false", "null",
		"state", "state.n", "state.x", "state.s", "state.t", "state.f", "state.zero", "state.neg",
		"state.items", "state.nums", "state.m", "state.m.k", "state.nul", "state.missing", "state.empty",
		"state.emptyList", "state.p", "state.nilList", "state.nilMap", "state.send", "state.send.node",
		"state.items[state.i]", "state.items[0]", "state[0]", "state['n']", "resume", "resumes", "resumes[0]",
		"resume.action", "context", "context.n", "context.user", "results", "results[1]", "previous",
		"[]", "{}", "[1, 'a']", "{a: 1, b: 'x'}", "{a: 1, a: 2}",
	}
	randomBinary = []string{"+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "??"}
	randomCalls  = []string{"len(%s)", "str(%s)", "send('w', %s)", "sendEach('w', %s, 'k')", "join(%s, '-')",
		"msg('i', 'user', %s)", "removeMsg(%s)", "overwrite(%s)", "[%s]", "{k: %s}", "{k: %s, j: 1}", "!%s", "-%s", "+%s", "(%s)"}
)

func randomExpr(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(4) == 0 {
		return randomLeaves[r.IntN(len(randomLeaves))]
	}
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf(randomCalls[r.IntN(len(randomCalls))], randomExpr(r, depth-1))
	case 1:
		return fmt.Sprintf("%s ? %s : %s", randomExpr(r, depth-1), randomExpr(r, depth-1), randomExpr(r, depth-1))
	case 2:
		return fmt.Sprintf("(%s)[%s]", randomExpr(r, depth-1), randomExpr(r, depth-1))
	}
	return fmt.Sprintf("(%s %s %s)", randomExpr(r, depth-1), randomBinary[r.IntN(len(randomBinary))], randomExpr(r, depth-1))
}

// sendEach as a whole expression skips toValue's walk only when the walk
// would change nothing: a Go int or a list among the items is converted.
func TestEval_SendEachShortcutConvertsWhatNeedsIt(t *testing.T) {
	e, err := Compile("sendEach('w', state.items, 'x')")
	if err != nil || e.sends == nil {
		t.Fatalf("compile: %v, sends %v", err, e.sends)
	}
	send := func(arg any) engine.Send { return engine.Send{Node: "w", Arg: map[string]any{"x": arg}} }
	for _, tt := range []struct {
		items []any
		want  any
	}{
		{[]any{1.0, "a", nil, true}, []any{send(1.0), send("a"), send(nil), send(true)}},
		{[]any{1.0, 2}, []any{send(1.0), send(2.0)}},
		{[]any{[]any{int64(3)}}, []any{send([]any{3.0})}},
		{[]any{}, []any{}},
	} {
		got, err := e.Eval(Env{State: map[string]any{"items": tt.items}})
		if err != nil || sameValue(got, tt.want) != nil {
			t.Errorf("items %#v: got %#v (%v), want %#v", tt.items, got, err, tt.want)
		}
	}
}

// A node that only updates state runs its closures itself (plainNodeFunc);
// whatever they compute or fail with, it returns what the update's
// ordinary evaluation (checked against the VM above) returns, for one key
// and for several.
func TestPlainNode_ReturnsWhatTheUpdateDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 2))
	var exprs []*Expr
	for len(exprs) < 600 {
		if e, err := Compile(randomExpr(r, 3)); err == nil && e.readsOnlyState() {
			exprs = append(exprs, e)
		}
	}
	schema := []string{"a", "b"}
	var entered atomic.Int64
	for i, e := range exprs {
		specs := []update{
			{keys: []KeyExpr{{Key: "a", Expr: e}}, schema: schema},
			{keys: []KeyExpr{{Key: "a", Expr: exprs[(i+1)%len(exprs)]}, {Key: "b", Expr: e}}, schema: schema},
		}
		for _, spec := range specs {
			node := plainNodeFunc(spec, &entered, nil)
			for _, env := range fastEnvs() {
				got, err := node(context.Background(), env.State)
				want, werr := spec.eval(env.State, nil)
				if fmt.Sprint(err) != fmt.Sprint(werr) || err == nil && sameValue(got, want) != nil {
					t.Fatalf("%q with %v: node gives %#v (%v), the update %#v (%v)", e.Src, envString(env), got, err, want, werr)
				}
			}
		}
	}
	if entered.Load() == 0 {
		t.Fatal("the nodes counted no entries")
	}
}

// A plain node with several writes computes state.k OP c inline (without
// the expression's closure); whatever the input, it returns what the
// update's ordinary evaluation returns.
func TestPlainNode_InlineArithmeticIsTheUpdate(t *testing.T) {
	inputs := []any{nil, map[string]any{}, map[string]any{"a": 7.0, "b": -2.5}, map[string]any{"a": "s", "b": nil},
		map[string]any{"a": 0.0, "b": true}, map[string]any{"a": []any{1.0}}, "not an object"}
	var entered atomic.Int64
	for op := range binOps {
		for _, c := range []string{"3", "0", "2.5"} {
			e, err := Compile("state.a " + op + " " + c)
			if err != nil {
				t.Fatal(err)
			}
			if e.arith == nil {
				t.Fatalf("%q: not inline", e.Src)
			}
			other, err := Compile(c + " " + op + " state.b")
			if err != nil {
				t.Fatal(err)
			}
			spec := update{keys: []KeyExpr{{Key: "a", Expr: e}, {Key: "b", Expr: other}}, schema: []string{"a", "b"}}
			node := plainNodeFunc(spec, &entered, nil)
			for _, in := range inputs {
				got, err := node(context.Background(), in)
				want, werr := spec.eval(in, nil)
				if fmt.Sprint(err) != fmt.Sprint(werr) || err == nil && sameValue(got, want) != nil {
					t.Errorf("%q on %#v: node gives %#v (%v), the update %#v (%v)", e.Src, in, got, err, want, werr)
				}
			}
		}
	}
}
