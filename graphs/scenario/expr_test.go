package scenario

import (
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// The expected values are what the JavaScript reference (build.mjs's
// evalExpr) gives for the same expression and variables.
func TestEval(t *testing.T) {
	st := map[string]any{
		"n": 2.0, "total": 10.0, "half": 2.5, "s": "ab", "t": true, "f": false, "zero": 0.0,
		"items": []any{"x", "y", "z"}, "i": 1.0, "nums": []any{3.0, 1.0, 2.0},
		"m": map[string]any{"k": "v"}, "empty": "", "nul": nil,
		"topic": "LangGraph", "outline": "o", "drafts": []any{"d1", "d2", "d3", "d4"},
		"final": "d4", "approved": true, "round": 1.0, "r": 1.0, "x": 3.0, "sub_query": "q",
		"question": "Q", "findings": []any{"f1", "f2"}, "sub_queries": []any{"a", "b"},
		"results": []any{9.0, 1.0, 4.0}, "mode": "break", "answer": "yes",
		"messages": []any{map[string]any{"id": "m1"}}, "out": []any{"a"},
	}
	send := func(node string, arg any) engine.Send { return engine.Send{Node: node, Arg: arg} }
	tests := []struct {
		src  string
		env  Env
		want any
	}{
		// numbers are always float64
		{"1", Env{}, 1.0},
		{"state.n + 1", Env{State: st}, 3.0},
		{"state.total * 2", Env{State: st}, 20.0},
		{"state.half * 2", Env{State: st}, 5.0},
		{"7 / 2", Env{}, 3.5},
		{"1 / 0 > 1000", Env{}, true},
		{"7 % 3", Env{}, 1.0},
		{"-7 % 2", Env{}, -1.0},
		{"5.5 % 2", Env{}, 1.5},
		{"-state.n", Env{State: st}, -2.0},
		{"state.n == 2", Env{State: st}, true},
		{"state.n != 2.0", Env{State: st}, false},
		{"state.n < 2500", Env{State: st}, true},
		{"len(state.items) >= 3", Env{State: st}, true},
		{"[1, 2.5, [3]]", Env{}, []any{1.0, 2.5, []any{3.0}}},
		{"{a: 1, 'b': {c: [2]}}", Env{}, map[string]any{"a": 1.0, "b": map[string]any{"c": []any{2.0}}}},
		{`{"a": 1}`, Env{}, map[string]any{"a": 1.0}},
		// strings
		{"'a' + 'b'", Env{}, "ab"},
		{`'x\ny'`, Env{}, "x\ny"},
		{"state.s < 'b'", Env{State: st}, true},
		// null and missing keys
		{"state.missing", Env{State: st}, nil},
		{"state.missing", Env{}, nil},
		{"state.missing == null", Env{}, true},
		{"null", Env{}, nil},
		{"state.m.k", Env{State: st}, "v"},
		{"state.m['k']", Env{State: st}, "v"},
		{"state.m.nope", Env{State: st}, nil},
		{"resume", Env{}, nil},
		{"resumes", Env{}, []any{}},
		{"resumes[0]", Env{}, nil},
		{"resumes[1]", Env{Resumes: []any{"A", "B"}}, "B"},
		{"resume.action == 'approve'", Env{Resume: map[string]any{"action": "approve"}}, true},
		// indexing
		{"state.items[state.i]", Env{State: st}, "y"},
		{"state.items[0]", Env{State: st}, "x"},
		{"state.items[len(state.items) - 1]", Env{State: st}, "z"},
		{"state.items[3]", Env{State: st}, nil},
		{"state.items[-1]", Env{State: st}, nil},
		{"state.items[0.5]", Env{State: st}, nil},
		{"state.s[1]", Env{State: st}, "b"},
		{"[10, 20][state.i]", Env{State: st}, 20.0},
		// state that is not a map (a Send's arg)
		{"state", Env{State: 5.0}, 5.0},
		{"state[1]", Env{State: []any{"a", "b"}}, "b"},
		// truthiness, as in JavaScript
		{"state.t && state.f", Env{State: st}, false},
		{"state.t || state.f", Env{State: st}, true},
		{"state.zero && 'x'", Env{State: st}, 0.0},
		{"state.nul || 'dflt'", Env{State: st}, "dflt"},
		{"state.empty || 'dflt'", Env{State: st}, "dflt"},
		{"state.s && 'yes'", Env{State: st}, "yes"},
		{"!state.t", Env{State: st}, false},
		{"!state.missing", Env{State: st}, true},
		{"!!state.items", Env{State: st}, true},
		{"state.missing ? 1 : 2", Env{State: st}, 2.0},
		{"state.nul ?? 'd'", Env{State: st}, "d"},
		{"state.f && state.missing.x", Env{State: st}, false},
		// len
		{"len(null)", Env{}, 0.0},
		{"len(state.missing)", Env{}, 0.0},
		{"len('版本')", Env{}, 2.0},
		{"len('😀')", Env{}, 2.0}, // UTF-16 units
		{"len(state.items)", Env{State: st}, 3.0},
		{"len(state.m)", Env{State: st}, 1.0},
		// str
		{"str(null)", Env{}, ""},
		{"str(state.missing)", Env{}, ""},
		{"str(20)", Env{}, "20"},
		{"str(2.5)", Env{}, "2.5"},
		{"str(0.1 + 0.2)", Env{}, "0.30000000000000004"},
		{"str(-0)", Env{}, "0"},
		{"str(1e21)", Env{}, "1e+21"},
		{"str(1 / 0)", Env{}, "Infinity"},
		{"str(true)", Env{}, "true"},
		{"str(false)", Env{}, "false"},
		{"str('s')", Env{}, "s"},
		{"str([1, null, 'a'])", Env{}, "1,,a"},
		{"str({a: 1})", Env{}, "[object Object]"},
		// send, sendEach
		{"send('w', {x: 1})", Env{}, send("w", map[string]any{"x": 1.0})},
		{"sendEach('w', null, 'x')", Env{}, []any{}},
		{"sendEach('w', state.missing, 'x')", Env{}, []any{}},
		{"sendEach('w', [1, 'b'], 'x')", Env{}, []any{send("w", map[string]any{"x": 1.0}), send("w", map[string]any{"x": "b"})}},
		{"[send('a', 1), 'b']", Env{}, []any{send("a", 1.0), "b"}},
		// join
		{"join(['a', 'b'], ', ')", Env{}, "a, b"},
		{"join([1, 2.5, true], '-')", Env{}, "1-2.5-true"},
		{"join([null, 'a'], '-')", Env{}, "null-a"}, // String(null), unlike str
		{"join(null, '-')", Env{}, ""},
		{"join([], '-')", Env{}, ""},
		// msg, removeMsg
		{"msg('m1', 'user', 'hi')", Env{}, map[string]any{"id": "m1", "role": "user", "content": "hi"}},
		{"removeMsg('m2')", Env{}, map[string]any{"remove": "m2"}},
		{"overwrite([1, 'a'])", Env{}, map[string]any{"__overwrite__": []any{1.0, "a"}}},

		// The expressions of the public scenarios and perf workloads.
		{"['a']", Env{State: st}, []any{"a"}},
		{"state.topic + '：定义、实现、执行'", Env{State: st}, "LangGraph：定义、实现、执行"},
		{"['版本 A：' + state.outline]", Env{State: st}, []any{"版本 A：o"}},
		{"state.drafts[len(state.drafts) - 1]", Env{State: st}, "d4"},
		{"len(state.drafts) >= 4", Env{State: st}, true},
		{"['修订稿：' + state.final]", Env{State: st}, []any{"修订稿：d4"}},
		{"state.approved ? '__end__' : 'revise'", Env{State: st}, "__end__"},
		{"['answer=' + resume]", Env{Resume: "yes"}, []any{"answer=yes"}},
		{"'approve?'", Env{}, "approve?"},
		{"state.total > 0 ? 'u' : []", Env{State: map[string]any{"total": 0.0}}, []any{}},
		{"state.total > 0 ? 'u' : []", Env{State: map[string]any{"total": 6.0}}, "u"},
		{"[msg('m1', 'user', 'hi'), msg('m2', 'assistant', 'hello')]", Env{}, []any{
			map[string]any{"id": "m1", "role": "user", "content": "hi"},
			map[string]any{"id": "m2", "role": "assistant", "content": "hello"}}},
		{"[removeMsg('m2')]", Env{}, []any{map[string]any{"remove": "m2"}}},
		{"msg('m4', 'system', 'turns=' + str(len(state.messages)))", Env{State: st}, map[string]any{"id": "m4", "role": "system", "content": "turns=1"}},
		{"state.n == 2 ? ['z', 'x'] : (state.n > 2 ? ['x', 'y', 'z'] : ['__end__'])", Env{State: st}, []any{"z", "x"}},
		{"state.n == 2 ? ['z', 'x'] : (state.n > 2 ? ['x', 'y', 'z'] : ['__end__'])", Env{State: map[string]any{"n": 1.0}}, []any{"__end__"}},
		{"['ask:' + resume]", Env{Resume: "yes"}, []any{"ask:yes"}},
		{"['done:' + state.answer]", Env{State: st}, []any{"done:yes"}},
		{"state.n < 100 ? 'inc' : '__end__'", Env{State: st}, "inc"},
		{"[state.question + ' - 架构设计', state.question + ' - 性能瓶颈与基准']", Env{State: st}, []any{"Q - 架构设计", "Q - 性能瓶颈与基准"}},
		{"['[证据] 针对《' + state.sub_query + '》的调研结论摘要']", Env{State: st}, []any{"[证据] 针对《q》的调研结论摘要"}},
		{"{question: state.question, collected_findings: state.findings, prompt: '是否批准？（approve / revise）'}", Env{State: st},
			map[string]any{"question": "Q", "collected_findings": []any{"f1", "f2"}, "prompt": "是否批准？（approve / revise）"}},
		{"resume.action == 'approve' ? {approved: true} : {approved: false, question: resume.revised_question != null ? resume.revised_question : state.question}",
			Env{State: st, Resume: map[string]any{"action": "approve"}}, map[string]any{"approved": true}},
		{"resume.action == 'approve' ? {approved: true} : {approved: false, question: resume.revised_question != null ? resume.revised_question : state.question}",
			Env{State: st, Resume: map[string]any{"action": "revise", "revised_question": "R"}}, map[string]any{"approved": false, "question": "R"}},
		{"resume.action == 'approve' ? {approved: true} : {approved: false, question: resume.revised_question != null ? resume.revised_question : state.question}",
			Env{State: st, Resume: map[string]any{"action": "revise"}}, map[string]any{"approved": false, "question": "Q"}},
		{"resume.action == 'approve' ? 'synthesize' : 'plan_queries'", Env{Resume: map[string]any{"action": "x"}}, "plan_queries"},
		{"'综合报告：\\n' + join(state.findings, '\\n')", Env{State: st}, "综合报告：\nf1\nf2"},
		{"sendEach('investigate', state.sub_queries, 'sub_query')", Env{State: st},
			[]any{send("investigate", map[string]any{"sub_query": "a"}), send("investigate", map[string]any{"sub_query": "b"})}},
		{"state.mode == 'break' ? 'broken' : '__end__'", Env{State: st}, "broken"},
		{"state.mode == 'break' ? 'broken' : '__end__'", Env{State: map[string]any{}}, "__end__"},
		{"state.total > 5 ? 'b' : 'c'", Env{State: st}, "b"},
		{"['split' + str(state.round + 1)]", Env{State: st}, []any{"split2"}},
		{"['w' + str(state.r) + '.' + str(state.x)]", Env{State: st}, []any{"w1.3"}},
		{"state.round <= 3 ? [send('work', {r: state.round, x: 1}), send('work', {r: state.round, x: 2})] : '__end__'", Env{State: st},
			[]any{send("work", map[string]any{"r": 1.0, "x": 1.0}), send("work", map[string]any{"r": 1.0, "x": 2.0})}},
		{"[3, 1, 2]", Env{}, []any{3.0, 1.0, 2.0}},
		{"[state.n * state.n]", Env{State: map[string]any{"n": 3.0}}, []any{9.0}},
		{"'n=' + str(len(state.results)) + ' first=' + str(state.results[0]) + ' last=' + str(state.results[2])", Env{State: st}, "n=3 first=9 last=4"},
		{"state.total + len(state.out)", Env{State: st}, 11.0},
		{"['post:' + str(state.total)]", Env{State: st}, []any{"post:10"}},
		{"['ask:' + resumes[0] + '+' + resumes[1]]", Env{Resumes: []any{"A", "B"}}, []any{"ask:A+B"}},
		{"'second, after ' + resumes[0] + '?'", Env{Resumes: []any{"A"}}, "second, after A?"},
		{"state.k7 + 3", Env{State: map[string]any{"k7": 4.0}}, 7.0},
		{"[state.x * 2]", Env{State: map[string]any{"x": 21.0}}, []any{42.0}},
		{"state.n", Env{State: st}, 2.0},
	}
	for _, tt := range tests {
		e, err := Compile(tt.src)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := e.Eval(tt.env)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q = %#v, want %#v", tt.src, got, tt.want)
		}
	}
}

// A result is a new value only where it needed converting: written values
// are immutable (the engine never changes one, and copies its state map
// before changing it when a result holds it), so a list read from the state
// is passed on as it is, and a list holding a Go int from the environment
// is converted into a new list, leaving the original as it was.
func TestEval_CopiesOnlyToConvert(t *testing.T) {
	e, _ := Compile("state.items")
	items := []any{1.0, "a", map[string]any{"k": []any{true}}}
	got, err := e.Eval(Env{State: map[string]any{"items": items}})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.([]any); &g[0] != &items[0] || len(g) != len(items) {
		t.Fatal("a list in engine form was copied")
	}
	raw := []any{1.0, map[string]any{"n": 7}}
	got, err = e.Eval(Env{State: map[string]any{"items": raw}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{1.0, map[string]any{"n": 7.0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	if raw[1].(map[string]any)["n"] != 7 {
		t.Fatal("converting changed the original")
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"state.missing.x", "cannot read x of null"},
		{"resume.action", "cannot read action of null"},
		{"len(5)", "len() of number"},
		{"len(true)", "len() of boolean"},
		{"state.s + 1", "invalid operation"},                                  // JavaScript would concatenate: outside the subset
		{"state.items['len' + 'gth']", ".length is not in the common subset"}, // a computed key: known when it runs
		{"sendEach('w', 'abc', 'k')", "sendEach: expected a list"},
		{"send(1, 2)", "send: node must be a string"},
		{"join('abc', ',')", "join: expected a list"},
	}
	for _, tt := range tests {
		e, err := Compile(tt.src)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		_, err = e.Eval(Env{State: map[string]any{"s": "x", "items": []any{}}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want it to contain %q", tt.src, err, tt.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"state.", "unexpected"},
		{"foo", "unknown name foo"},
		{"nil", "nil (write null) is not in the common subset"},
		{"2 ^ 3", `operator "^" is not in the common subset`}, // XOR in JavaScript
		{"2 ** 3", `operator "**"`},
		{"'a' in ['a']", `operator "in"`},
		{"not true", `operator "not"`},
		{"true and false", `operator "and"`},
		{"state.a?.b", "optional chaining"},
		{"state.s.upper()", "method call"},
		{"state.items.length", ".length is not in the common subset of JavaScript and expr-lang (use len(x))"},
		{"upper('a')", "function upper"},
		{"filter([1], # > 0)", "not in the common subset"},
		{"[1, 2][0:1]", "not in the common subset"},
		{"let x = 1; x", "not in the common subset"},
		{"len()", "not enough arguments"},
		{"msg('a', 'b')", "not enough arguments"},
		{"'a' + 1", "mismatched types"},
		// The functions the patcher inserts are not the user's to call.
		{"_get(state, 'a')", "this call is not in the common subset"},
		{"_truthy(1)", "this call is not in the common subset"},
		{"_mod(3, 2)", "this call is not in the common subset"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%q): error %v, want it to contain %q", tt.src, err, tt.want)
		}
	}
}
