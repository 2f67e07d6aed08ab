package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// publicFiles lists the repository's copies of the public scenarios and
// perf workloads (not traces or summaries). They live in testdata, so the
// tests that read them run on a fresh clone; an empty list is a failure.
func publicFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"../../testdata/conformance/public/*.json", "../../testdata/perf/*.json"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, ".trace.json") && !strings.HasSuffix(f, ".summary.json") {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no scenario files under testdata/conformance/public and testdata/perf")
	}
	return out
}

func TestLoadPublic(t *testing.T) {
	for _, path := range publicFiles(t) {
		f, err := Load(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if f.Name == "" || len(f.Nodes) == 0 || len(f.Ops) == 0 {
			t.Errorf("%s: incomplete model: %+v", path, f)
		}
	}
}

func TestParseModel(t *testing.T) {
	src := `{
  "name": "m",
  "state": {"a": null, "b": "add", "c": {"reducer": "add_messages", "default": [1]}, "d": {"reducer": "add"}},
  "nodes": [
    {"name": "x", "interrupt": ["'q1'", "'q2'"], "update": {"b": "['x']", "a": "1"}, "fail": {"after_ms": 7}, "retry": {}},
    {"name": "y", "interrupt": "'q'", "update": "{a: 2}", "goto": "'x'", "ends": ["x", "__end__"], "sleep_ms": 5},
    {"name": "s", "subgraph": "inner", "retry": {"max_attempts": 2}}
  ],
  "edges": [["__start__", "x"], [["x", "s"], "y"]],
  "branches": [{"from": "y", "route": "'__end__'"}],
  "subgraphs": {"inner": {"state": {"a": null}, "nodes": [{"name": "i"}], "edges": [["__start__", "i"]]}},
  "interrupt_before": ["y"],
  "perf": {"supersteps": 3, "tasks": 2},
  "ops": [
    {"op": "invoke", "input": {"a": 1}, "recursion_limit": 5},
    {"op": "invoke", "thread": "t2", "input": null, "at": {"step": -1}},
    {"op": "resume", "by_node": {"y": "Y", "x": 1}, "from": "fork"},
    {"op": "resume", "value": null, "durability": "exit"},
    {"op": "update_state", "values": null, "as_node": "__input__"},
    {"op": "get_state"},
    {"op": "history"}
  ]
}`
	f, err := Parse("m.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wantState := []StateKey{{"a", "", nil}, {"b", "add", []any{}}, {"c", "add_messages", []any{1.0}}, {"d", "add", []any{}}}
	if !reflect.DeepEqual(f.State, wantState) {
		t.Errorf("state = %#v", f.State)
	}
	x, y, s := f.Nodes[0], f.Nodes[1], f.Nodes[2]
	if len(x.Interrupts) != 2 || x.UpdateKeys[0].Key != "b" || x.UpdateKeys[1].Key != "a" || x.UpdateExpr != nil ||
		*x.Fail != (Fail{Times: 1, Message: "fail", AfterMS: 7}) || !reflect.DeepEqual(*x.Retry, Retry{MaxAttempts: 3, BackoffFactor: 1}) || x.Ends != nil || x.Pos != (Pos{5, 5}) {
		t.Errorf("node x = %+v", x)
	}
	if len(y.Interrupts) != 1 || y.UpdateKeys != nil || y.UpdateExpr.Src != "{a: 2}" || y.Goto.Src != "'x'" ||
		!reflect.DeepEqual(y.Ends, []string{"x", "__end__"}) || y.SleepMS != 5 {
		t.Errorf("node y = %+v", y)
	}
	if s.Subgraph != "inner" || s.Retry.MaxAttempts != 2 {
		t.Errorf("node s = %+v", s)
	}
	wantEdges := []Edge{{[]string{"__start__"}, "x", false, Pos{9, 13}}, {[]string{"x", "s"}, "y", true, Pos{9, 33}}}
	if !reflect.DeepEqual(f.Edges, wantEdges) {
		t.Errorf("edges = %+v", f.Edges)
	}
	if b := f.Branches[0]; b.From != "y" || b.Route.Src != "'__end__'" || b.Ends != nil {
		t.Errorf("branch = %+v", b)
	}
	if g := f.Subgraphs["inner"]; g == nil || g.Nodes[0].Name != "i" {
		t.Errorf("subgraphs = %+v", f.Subgraphs)
	}
	if !reflect.DeepEqual(f.InterruptBefore, []string{"y"}) || f.InterruptAfter != nil || *f.Perf != (Perf{3, 2}) {
		t.Errorf("file = %+v", f)
	}
	step := -1
	want := []Op{
		{Index: 0, Kind: "invoke", Thread: "t1", Input: map[string]any{"a": 1.0}, HasInput: true, RecursionLimit: 5, HasRecursionLimit: true, Pos: Pos{15, 5}},
		{Index: 1, Kind: "invoke", Thread: "t2", HasInput: true, AtStep: &step, Pos: Pos{16, 5}},
		{Index: 2, Kind: "resume", Thread: "t1", From: "fork", ByNode: []KeyValue{{"y", "Y"}, {"x", 1.0}}, Pos: Pos{17, 5}},
		{Index: 3, Kind: "resume", Thread: "t1", HasValue: true, Durability: "exit", Pos: Pos{18, 5}},
		{Index: 4, Kind: "update_state", Thread: "t1", AsNode: "__input__", HasAsNode: true, Pos: Pos{19, 5}},
		{Index: 5, Kind: "get_state", Thread: "t1", Pos: Pos{20, 5}},
		{Index: 6, Kind: "history", Thread: "t1", Pos: Pos{21, 5}},
	}
	if !reflect.DeepEqual(f.Ops, want) {
		t.Errorf("ops =\n%+v\nwant\n%+v", f.Ops, want)
	}
}

func TestParseErrors(t *testing.T) {
	// Each source is a small scenario; want is the whole error message.
	tests := []struct {
		name, src, want string
		graph           bool // wraps ErrInvalidGraph
	}{
		{"syntax", "{\n  \"nodes\": [1,]\n}", `x.json:2:14: invalid JSON: a comma before ']', which JSON does not allow: remove it`, false},
		{"truncated", "{\"nodes\": [", `x.json:1:12: invalid JSON: unexpected end of input`, false},
		{"trailing", "{} {}", `x.json:1:4: unexpected data after the end of the top-level value`, false},
		{"duplicate key", "{\"name\": \"a\",\n \"name\": \"b\"}", `x.json:2:2: duplicate key "name"`, false},
		{"top not object", `[]`, `x.json:1:1: expected an object, got a list`, false},
		{"a trace", `{"trace_version": 1, "scenario": "approve", "ops": []}`, `x.json:1:1: a trace (docs/trace-format.md), not a scenario file: give the scenario it was made from, the file of scenario "approve"`, false},
		{"unknown task", `{"entrypoint": {"calls": [{"task": "nope"}]}, "ops": []}`, `x.json:1:36: entrypoint.calls[0].task: unknown task "nope": the file has no "tasks"; declare it there ("tasks": {"nope": {"result": "state"}})`, true},
		{"misspelt task", `{"tasks": {"fetch": {}, "parse": {}}, "entrypoint": {"calls": [{"task": "fecth"}]}, "ops": []}`, `x.json:1:73: entrypoint.calls[0].task: unknown task "fecth" (did you mean "fetch"?)`, true},
		{"task far from any", `{"tasks": {"fetch": {}, "parse": {}}, "entrypoint": {"calls": [[{"task": "fetch"}, {"task": "summarize"}]]}, "ops": []}`, `x.json:1:93: entrypoint.calls[0][1].task: unknown task "summarize" (tasks: fetch, parse); declare it under "tasks" or call one of those`, true},
		{"unknown task in a node", `{"nodes": [{"name": "a", "calls": [{"task": "t"}]}], "edges": [["__start__", "a"]], "ops": []}`, `x.json:1:45: nodes[0].calls[0].task: unknown task "t": the file has no "tasks"; declare it there ("tasks": {"t": {"result": "state"}})`, true},
		{"tasks as a list", `{"tasks": [{"name": "fetch"}, {"name": "parse"}], "entrypoint": {}}`, `x.json:1:11: tasks: expected an object of tasks by name, got a list: write {"fetch": {…}, "parse": {…}}`, false},
		{"a task with a node's update", `{"tasks": {"fetch": {"update": {"page": "1"}}}, "entrypoint": {}}`, `x.json:1:32: tasks.fetch.update: a task has no update, as a node has: it returns its "result" (an expression), which its caller reads in results`, false},
		{"calls as one object", `{"tasks": {"t": {}}, "entrypoint": {"calls": {"task": "t"}}}`, `x.json:1:46: entrypoint.calls: expected a list, got an object: put it in brackets, [{…}]`, false},
		{"a functional file's question answered by task", `{"tasks": {"ask": {"interrupt": "'ok?'"}}, "entrypoint": {"calls": [{"task": "ask"}]}, "ops": [{"op": "resume", "by_node": {"ask": 1}}]}`, `x.json:1:125: ops[0].by_node.ask: unknown node "ask": the entrypoint asks its tasks' questions, so answer by_node "main"`, false},
		{"state as a list", `{"state": ["messages", "n"]}`, `x.json:1:11: state: expected an object of state keys and their channels, got a list: write {"messages": null, "n": null}`, false},
		{"edge as an object", `{"nodes": [{"name": "a"}], "edges": [{"from": "__start__", "to": "a"}]}`, `x.json:1:38: edges[0]: expected [from, to], got an object: write ["__start__", "a"]`, false},
		{"path_map as a list", `{"nodes": [{"name": "a"}], "branches": [{"from": "a", "route": "'a'", "path_map": ["a", "__end__"]}]}`, `x.json:1:83: branches[0].path_map: expected an object of the route's labels and the nodes they go to, got a list: write {"a": "a", "__end__": "__end__"}, or list the nodes as "ends"`, false},
		{"a string for a list", `{"nodes": [{"name": "a", "retry": {"retry_on": "boom"}}]}`, `x.json:1:48: nodes[0] "a": retry.retry_on: expected a list, got a string: write ["boom"]`, false},
		{"null for a list", `{"edges": null}`, `x.json:1:11: edges: expected a list, got null: write [] for none`, false},
		{"LangGraph.js's field name", `{"nodes": [{"name": "a", "retry": {"maxAttempts": 2}}]}`, `x.json:1:36: nodes[0] "a": retry.maxAttempts: unknown field "maxAttempts" (did you mean "max_attempts"?)`, false},
		{"LangGraph's other field name", `{"nodes": [{"name": "a", "retry": {"max_retries": 2}}]}`, `x.json:1:36: nodes[0] "a": retry.max_retries: unknown field "max_retries" (did you mean "max_attempts"?)`, false},
		{"catch not an expression", `{"tasks": {"t": {}}, "entrypoint": {"calls": [{"task": "t", "catch": 1}]}, "ops": []}`, `x.json:1:70: entrypoint.calls[0].catch: expected an expression (a string), got a number: write "1"`, false},
		{"unknown call field", `{"tasks": {"t": {}}, "entrypoint": {"calls": [{"task": "t", "catchh": "1"}]}, "ops": []}`, `x.json:1:61: entrypoint.calls[0].catchh: unknown field "catchh" (did you mean "catch"?)`, false},
		{"entrypoint beside nodes", `{"entrypoint": {}, "nodes": [], "ops": []}`, `x.json:1:29: nodes: a file with an entrypoint has no nodes`, false},
		{"invoke unknown subgraph", `{"nodes": [{"name": "a", "invoke": "s"}], "edges": [["__start__", "a"]], "ops": []}`, `x.json:1:36: nodes[0] "a": invoke: unknown subgraph "s"`, true},
		{"invoke with fail", `{"subgraphs": {"s": {"nodes": []}}, "nodes": [{"name": "a", "invoke": "s", "sleep_ms": 5, "fail": {}}]}`, `x.json:1:99: nodes[0] "a": fail: a node that invokes a subgraph cannot have fail`, false},
		{"graph input beside a graph", `{"nodes": [], "ops": [{"op": "invoke", "input": 1}]}`, `x.json:1:49: ops[0].input: expected an object or null, got a number`, false},
		{"unknown field", "{\n \"nodes\": [],\n \"edgs\": []}", `x.json:3:2: edgs: unknown field "edgs" (did you mean "edges"?)`, false},
		{"unknown node field", `{"nodes": [{"name": "a", "updat": {}}]}`, `x.json:1:26: nodes[0] "a": updat: unknown field "updat" (did you mean "update"?)`, false},
		{"defer not a bool", `{"nodes": [{"name": "a", "defer": 1}]}`, `x.json:1:35: nodes[0] "a": defer: expected true or false, got a number`, false},
		{"missing name", `{"nodes": [{"update": {}}]}`, `x.json:1:12: nodes[0]: missing node name`, false},
		{"name type", `{"nodes": [{"name": 3}]}`, `x.json:1:21: nodes[0].name: expected a string, got a number`, false},
		{"edge shape", `{"nodes": [{"name": "a"}], "edges": [["__start__", "a"], ["a"]]}`, `x.json:1:58: edges[1]: expected [from, to]`, false},
		{"edge type", `{"nodes": [{"name": "a"}], "edges": [["__start__", 7]]}`, `x.json:1:52: edges[0][1]: expected a string, got a number`, false},
		{"update type", `{"nodes": [{"name": "a", "update": 1}]}`, `x.json:1:36: nodes[0] "a": update: expected a map of expressions or one expression, got a number`, false},
		{"expr", "{\"nodes\": [{\"name\": \"a\"},\n  {\"name\": \"review\", \"update\": {\"total\": \"state.total +\"}}]}", `x.json:2:42: nodes[1] "review": update.total: expression does not compile: unexpected token EOF (column 13)`, false},
		{"expr subset", `{"nodes": [{"name": "a", "goto": "2 ^ 3"}]}`, `x.json:1:34: nodes[0] "a": goto: expression does not compile: operator "^" is not in the common subset of JavaScript and expr-lang (column 3)`, false},
		{"route expr", `{"nodes": [{"name": "a"}], "branches": [{"from": "a", "route": "foo"}]}`, `x.json:1:64: branches[0].route: expression does not compile: unknown name foo (a string goes in quotes: 'foo'; the variables are state, resume, resumes, context, results, previous) (column 1)`, false},
		{"fail times", `{"nodes": [{"name": "a", "fail": {"times": 1.5}}]}`, `x.json:1:44: nodes[0] "a": fail.times: expected an integer, got 1.5`, false},
		{"retry", `{"nodes": [{"name": "a", "retry": {"max_attempts": 0}}]}`, `x.json:1:52: nodes[0] "a": retry.max_attempts: expected an integer of at least 1, got 0`, false},
		{"ends without goto", `{"nodes": [{"name": "a", "ends": ["a"]}]}`, `x.json:1:34: nodes[0] "a": ends: ends is only allowed with goto or on a subgraph or invoke node`, false},
		{"unknown op", `{"ops": [{"op": "invok"}]}`, `x.json:1:17: ops[0].op: unknown op "invok" (expected invoke, resume, get_state, update_state, bulk_update, clear_cache or history)`, false},
		{"op field", `{"ops": [{"op": "get_state", "input": {}}]}`, `x.json:1:30: ops[0].input: unknown field "input" (expected one of op, thread, subgraphs, subgraph, subgraph_task)`, false},
		{"resume", `{"ops": [{"op": "resume"}]}`, `x.json:1:10: ops[0]: a resume needs exactly one of value and by_node`, false},
		{"at", `{"ops": [{"op": "invoke", "at": {"step": "1"}}]}`, `x.json:1:42: ops[0].at.step: expected an integer, got the string "1": write 1 without quotes`, false},
		{"op not an object", `{"ops": [1]}`, `x.json:1:10: ops[0]: expected an object, got a number`, false},
		{"op missing", `{"ops": [{"thread": "t"}]}`, `x.json:1:10: ops[0]: missing op`, false},
		{"op not a string", `{"ops": [{"op": 1}]}`, `x.json:1:17: ops[0].op: expected a string, got a number`, false},
		{"from", `{"ops": [{"op": "invoke", "input": {}, "from": "start"}]}`, `x.json:1:48: ops[0].from: expected "fork", got "start"`, false},
		{"from and at", `{"ops": [{"op": "invoke", "input": {}, "from": "fork", "at": {"step": 1}}]}`, `x.json:1:10: ops[0]: from and at exclude each other`, false},
		{"context", `{"ops": [{"op": "invoke", "input": {}, "context": [1]}]}`, `x.json:1:51: ops[0].context: expected an object, got a list`, false},
		{"subgraph_task without subgraph", `{"ops": [{"op": "get_state", "subgraph_task": 1}]}`, `x.json:1:47: ops[0].subgraph_task: subgraph_task needs subgraph`, false},
		{"command beside values", `{"ops": [{"op": "update_state", "values": {}, "command": {"goto": "a"}}]}`, `x.json:1:58: ops[0].command: command excludes input and values`, false},
		{"bulk_update without supersteps", `{"ops": [{"op": "bulk_update"}]}`, `x.json:1:10: ops[0]: a bulk_update needs supersteps`, false},
		{"first error of several", `{"ops": [{"op": "invoke", "input": 1, "recursion_limit": 0, "from": "x", "context": 1}]}`, `x.json:1:36: ops[0].input: expected an object or null, got a number`, false},
		{"first error of several, from recursion_limit", `{"ops": [{"op": "invoke", "recursion_limit": 1.5, "from": "x", "context": 1}]}`, `x.json:1:46: ops[0].recursion_limit: expected an integer, got 1.5`, false},
		{"first error of several, from from", `{"ops": [{"op": "invoke", "from": "x", "context": 1, "stream": ["z"]}]}`, `x.json:1:35: ops[0].from: expected "fork", got "x"`, false},
		{"first error of several, from context", `{"ops": [{"op": "invoke", "context": 1, "stream": ["z"]}]}`, `x.json:1:38: ops[0].context: expected an object, got a number`, false},
		{"first error of several, from subgraph_task", `{"ops": [{"op": "update_state", "subgraph_task": 1, "command": {"goto": "a"}, "values": {}}]}`, `x.json:1:50: ops[0].subgraph_task: subgraph_task needs subgraph`, false},
		{"input", `{"ops": [{"op": "invoke", "input": [1]}]}`, `x.json:1:36: ops[0].input: expected an object or null, got a list`, false},
		{"reducer", `{"state": {"a": "product"}}`, `x.json:1:17: state.a: unknown reducer "product" (expected add, add_messages, concat, sum, merge or sorted)`, true},
		{"reducer object", `{"state": {"a": {"reducer": "max"}}}`, `x.json:1:29: state.a: unknown reducer "max" (expected add, add_messages, concat, sum, merge or sorted)`, true},
		{"duplicate node", "{\"nodes\": [{\"name\": \"a\"},\n {\"name\": \"a\"}]}", `x.json:2:2: nodes[1]: duplicate node name "a"`, true},
		{"edge from end", `{"nodes": [{"name": "a"}], "edges": [["__end__", "a"]]}`, `x.json:1:39: edges[0][0]: unknown node "__end__"`, true},
		{"join from unknown", `{"nodes": [{"name": "a"}], "edges": [[["a", "c"], "a"]]}`, `x.json:1:45: edges[0][0][1]: unknown node "c"`, true},
		{"branch from", `{"nodes": [{"name": "a"}], "branches": [{"from": "z", "route": "'a'"}]}`, `x.json:1:50: branches[0].from: unknown node "z"`, true},
		{"branch ends", `{"nodes": [{"name": "a"}], "branches": [{"from": "a", "route": "'a'", "ends": ["a", "__start__"]}]}`, `x.json:1:85: branches[0].ends[1]: unknown node "__start__"`, true},
		{"node ends", `{"nodes": [{"name": "a", "goto": "'b'", "ends": ["__start__"]}]}`, `x.json:1:50: nodes[0] "a": ends[0]: unknown node "__start__"`, true},
		{"subgraph", `{"nodes": [{"name": "a", "subgraph": "nope"}]}`, `x.json:1:38: nodes[0] "a": subgraph: unknown subgraph "nope"`, true},
		{"subgraph node", `{"subgraphs": {"s": {"nodes": [{"name": "i", "goto": "x"}]}}}`, `x.json:1:54: subgraphs.s.nodes[0] "i": goto: expression does not compile: unknown name x (a string goes in quotes: 'x'; the variables are state, resume, resumes, context, results, previous) (column 1)`, false},
		{"subgraph cycle", `{"subgraphs": {"s": {"nodes": [{"name": "i", "subgraph": "s"}]}}}`, `x.json:1:32: subgraphs.s: subgraph "s" contains itself through node "i"`, true},
		{"invoke cycle", `{"subgraphs": {"s": {"nodes": [{"name": "i", "invoke": "s"}]}}}`, `x.json:1:32: subgraphs.s: subgraph "s" contains itself through node "i"`, true},
		{"subgraph field", `{"subgraphs": {"s": {"ops": []}}}`, `x.json:1:22: subgraphs.s.ops: unknown field "ops" (expected one of name, description, stateful, interrupt_before, interrupt_after, state, nodes, edges, branches)`, false},
		{"by_node", `{"nodes": [{"name": "a"}], "ops": [{"op": "resume", "by_node": {"b": 1}}]}`, `x.json:1:65: ops[0].by_node.b: unknown node "b"`, false},
		{"stream mode", `{"ops": [{"op": "invoke", "input": {}, "stream": ["debug"]}]}`, `x.json:1:51: ops[0].stream[0]: unknown stream mode "debug" (expected values, updates, custom or tasks)`, false},
		{"durability", `{"ops": [{"op": "invoke", "input": {}, "durability": "later"}]}`, `x.json:1:54: ops[0].durability: expected "sync", "async" or "exit", got "later"`, false},
		{"durability type", `{"ops": [{"op": "resume", "value": 1, "durability": 1}]}`, `x.json:1:53: ops[0].durability: expected a string, got a number`, false},
		{"history limit", `{"ops": [{"op": "history", "limit": 0}]}`, `x.json:1:37: ops[0].limit: expected an integer of at least 1, got 0`, false},
		{"history filter", `{"ops": [{"op": "history", "filter": {"node": "a"}}]}`, `x.json:1:39: ops[0].filter.node: unknown field "node" (expected one of source, step)`, false},
		{"history before in a subgraph", `{"ops": [{"op": "history", "subgraph": "a", "before": {"step": 1}}]}`, `x.json:1:55: ops[0].before: before addresses a root checkpoint: not with subgraph`, false},
		// The mistakes of JSON written by hand, each with its fix.
		{"trailing comma in an object", "{\"name\": \"a\",\n}", `x.json:1:13: invalid JSON: a comma before '}', which JSON does not allow: remove it`, false},
		{"comment", "{\"name\": \"a\", // mine\n \"nodes\": []}", `x.json:1:15: invalid JSON: a comment, which JSON does not have: remove it ("description" can hold a note)`, false},
		{"single quotes", "{'name': 'a'}", `x.json:1:2: invalid JSON: a single quote: JSON strings and keys take double quotes (single quotes go inside expressions)`, false},
		{"other syntax errors keep the decoder's words", "{\"name\" \"a\"}", `x.json:1:9: invalid JSON: invalid character '"' after object key`, false},
		{"empty file", "", `x.json:1:1: the file is empty: a scenario file is a JSON object with state, nodes and edges (docs/scenario-format.md)`, false},
		{"blank file", " \n\t\n", `x.json:1:1: the file is empty: a scenario file is a JSON object with state, nodes and edges (docs/scenario-format.md)`, false},
		{"unknown field far from any", `{"nodes": [{"name": "a", "zzz": 1}]}`, `x.json:1:26: nodes[0] "a": zzz: unknown field "zzz" (expected one of name, interrupt, update, goto, fail, retry, subgraph, ends, sleep_ms, defer, timeout_ms, parent, emit, cache, invoke, calls)`, false},
		{"quoted number", `{"nodes": [{"name": "a", "sleep_ms": "100"}]}`, `x.json:1:38: nodes[0] "a": sleep_ms: expected an integer, got the string "100": write 100 without quotes`, false},
		{"string not a number", `{"nodes": [{"name": "a", "sleep_ms": "long"}]}`, `x.json:1:38: nodes[0] "a": sleep_ms: expected an integer, got a string`, false},
		{"misspelt variable", `{"nodes": [{"name": "a", "update": {"n": "stat.n"}}]}`, `x.json:1:42: nodes[0] "a": update.n: expression does not compile: unknown name stat (did you mean state? the variables are state, resume, resumes, context, results, previous) (column 1)`, false},
		{"bare string", `{"nodes": [{"name": "a", "update": {"status": "done"}}]}`, `x.json:1:47: nodes[0] "a": update.status: expression does not compile: unknown name done (a string goes in quotes: 'done'; the variables are state, resume, resumes, context, results, previous) (column 1)`, false},
		{"unknown function", `{"nodes": [{"name": "a", "update": {"n": "length(state.xs)"}}]}`, `x.json:1:42: nodes[0] "a": update.n: expression does not compile: function length is not in the common subset of JavaScript and expr-lang (did you mean len? the functions are len, str, send, sendEach, join, msg, removeMsg, overwrite) (column 1)`, false},
		{"misspelt function", `{"nodes": [{"name": "a", "goto": "sendeach('b', state.xs, 'x')"}]}`, `x.json:1:34: nodes[0] "a": goto: expression does not compile: function sendeach is not in the common subset of JavaScript and expr-lang (did you mean sendEach? the functions are len, str, send, sendEach, join, msg, removeMsg, overwrite) (column 1)`, false},
		{"strict equality", `{"nodes": [{"name": "a", "goto": "state.n === 1 ? 'b' : 'c'"}]}`, `x.json:1:34: nodes[0] "a": goto: expression does not compile: unexpected token Operator("=") (=== and !== are not in the common subset: write == and !=) (column 11)`, false},
		{"reducer named as elsewhere", `{"state": {"log": "append"}}`, `x.json:1:19: state.log: unknown reducer "append" (did you mean "add"? expected add, add_messages, concat, sum, merge or sorted)`, true},
		{"misspelt reducer", `{"state": {"log": {"reducer": "add_mesages"}}}`, `x.json:1:31: state.log: unknown reducer "add_mesages" (did you mean "add_messages"? expected add, add_messages, concat, sum, merge or sorted)`, true},
		{"reducer a letter long", `{"state": {"log": "addd"}}`, `x.json:1:19: state.log: unknown reducer "addd" (did you mean "add"? expected add, add_messages, concat, sum, merge or sorted)`, true},
		{"reducer far from any", `{"state": {"log": "frobnicate"}}`, `x.json:1:19: state.log: unknown reducer "frobnicate" (expected add, add_messages, concat, sum, merge or sorted)`, true},
		{"LangGraph's START", `{"nodes": [{"name": "a"}], "edges": [["START", "a"]]}`, `x.json:1:39: edges[0][0]: unknown node "START" (did you mean "__start__"?)`, true},
		{"number for an expression", `{"nodes": [{"name": "a", "update": {"n": 1.5}}]}`, `x.json:1:42: nodes[0] "a": update.n: expected an expression (a string), got a number: write "1.5"`, false},
		{"boolean for an expression", `{"nodes": [{"name": "a", "update": {"ok": true}}]}`, `x.json:1:43: nodes[0] "a": update.ok: expected an expression (a string), got a boolean: write "true"`, false},
		{"object for an expression", `{"nodes": [{"name": "a", "interrupt": {"q": "ok?"}}]}`, `x.json:1:39: nodes[0] "a": interrupt: expected an expression (a string), got an object: write it as one, e.g. "{'k': state.k}" or "[1, 2]"`, false},
		{".length", `{"nodes": [{"name": "a", "update": {"n": "state.items.length"}}]}`, `x.json:1:42: nodes[0] "a": update.n: expression does not compile: .length is not in the common subset of JavaScript and expr-lang (use len(x)) (column 13)`, false},
		{"columns count characters", "{\"description\": \"版本\", \"nodes\": 1}", `x.json:1:32: nodes: expected a list, got a number: write [1]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.json", []byte(tt.src))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want an *Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tt.want)
			}
			if got := errors.Is(err, ErrInvalidGraph); got != tt.graph {
				t.Errorf("errors.Is(err, ErrInvalidGraph) = %v", got)
			}
			if (f != nil) != tt.graph {
				t.Errorf("file returned = %v, want %v", f != nil, tt.graph)
			}
		})
	}
}

func TestErrorFields(t *testing.T) {
	_, err := Parse("scenarios/x.json", []byte("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"},\n  {\"name\": \"review\", \"update\": {\"total\": \"1 +\"}}]}"))
	pe := err.(*Error)
	if pe.Path != "scenarios/x.json" || pe.Pos != (Pos{2, 42}) || pe.Field != "nodes[2].update.total" || !strings.HasPrefix(pe.Msg, "expression does not compile: ") {
		t.Errorf("%#v", pe)
	}
	if want := `scenarios/x.json:2:42: nodes[2] "review": update.total: expression does not compile: `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%s", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, path := range publicFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 20000 { // the perf files are large and alike
			f.Add(data)
		}
	}
	f.Add([]byte(`{"nodes": [{"name": "a", "update": "state.x[state.i] + len(null)"}], "edges": [[["a"], "__end__"]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.json", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if pe.Pos.Line < 1 || pe.Pos.Col < 1 {
				t.Fatalf("error %v has no position", err)
			}
			return
		}
		// Whatever parses must evaluate without panicking.
		for _, n := range file.Nodes {
			for _, k := range n.UpdateKeys {
				k.Expr.Eval(Env{State: map[string]any{"x": []any{1.0}, "i": 0.0}})
			}
		}
	})
}

// TestParse_ByteOrderMark: a scenario file saved with a UTF-8 byte order
// mark first parses as without it, and positions count from after it (it
// was refused as "invalid character 'ï'").
func TestParse_ByteOrderMark(t *testing.T) {
	f, err := Parse("x.json", []byte("\xef\xbb\xbf{\"name\": \"bom\", \"nodes\": [{\"name\": \"a\"}], \"edges\": [[\"__start__\", \"a\"]], \"ops\": []}"))
	if err != nil || f.Name != "bom" {
		t.Fatalf("Parse after a byte order mark: %+v, %v", f, err)
	}
	_, err = Parse("x.json", []byte("\xef\xbb\xbf{\"nodes\": [1,]}"))
	if want := `x.json:1:13: invalid JSON: a comma before ']', which JSON does not allow: remove it`; err == nil || err.Error() != want {
		t.Errorf("Parse of a malformed file after a byte order mark: %v, want %s", err, want)
	}
}

// TestParse_LengthKey: .length is refused as JavaScript's length of a
// list (x.items.length), not as a key of state or context.
func TestParse_LengthKey(t *testing.T) {
	f, err := Parse("x.json", []byte(`{"state": {"length": null}, "nodes": [{"name": "a", "update": {"length": "state.length + context.length"}}], "edges": [["__start__", "a"]], "ops": []}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.Nodes[0].UpdateKeys[0].Expr.Eval(Env{State: map[string]any{"length": 2.0}, Context: map[string]any{"length": 3.0}})
	if err != nil || v != 5.0 {
		t.Errorf("state.length + context.length = %v, %v", v, err)
	}
}
