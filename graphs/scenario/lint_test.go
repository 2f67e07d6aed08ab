package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestFile_Lint_Mistakes: each file parses (LangGraph would run it) but
// holds a mistake Lint names, with where it is and the likely fix.
func TestFile_Lint_Mistakes(t *testing.T) {
	const edges = `"edges": [["__start__", "a"]]`
	tests := []struct{ name, src, at, want string }{
		{"misspelt update key", `{"state": {"messages": "add_messages"}, "nodes": [{"name": "a", "update": {"mesages": "[]"}}], ` + edges + `}`, `"mesages"`,
			`nodes[0] "a": update.mesages: "mesages" is no state key (did you mean "messages"?)`},
		{"update key far from any", `{"state": {"n": null}, "nodes": [{"name": "a", "update": {"total": "1"}}], ` + edges + `}`, `"total"`,
			`nodes[0] "a": update.total: "total" is no state key (state keys: n); declare it under "state" or write one of those`},
		{"no state at all", `{"nodes": [{"name": "a", "update": {"n": "1"}}], ` + edges + `}`, `"n": "1"`,
			`nodes[0] "a": update.n: "n" is no state key: the graph has none; declare it under "state" ("n": null)`},
		{"update expression's map literal", `{"state": {"n": null}, "nodes": [{"name": "a", "update": "state.n > 1 ? {'m': 1} : {'n': 2}"}], ` + edges + `}`, `"state.n > 1`,
			`nodes[0] "a": update: the map it yields writes "m" is no state key (state keys: n); declare it under "state" or write one of those`},
		{"send to a misspelt node", `{"state": {"n": null}, "nodes": [{"name": "a", "goto": "[send('worker', 1)]"}, {"name": "workers"}], ` + edges + `}`, `"[send(`,
			`nodes[0] "a": goto: Send to "worker", which is no node of the graph (did you mean "workers"?)`},
		{"sendEach in a route", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "branches": [{"from": "a", "route": "sendEach('b', [1], 'x')"}]}`, `"sendEach(`,
			`branches[0].route: Send to "b", which is no node of the graph`},
		{"send to end", `{"state": {"n": null}, "nodes": [{"name": "a", "goto": "send('__end__', 1)"}], ` + edges + `}`, `"send(`,
			`nodes[0] "a": goto: a Send cannot go to __end__: send to a node of the graph`},
		{"goto a name in a ternary", `{"state": {"n": null}, "nodes": [{"name": "a", "goto": "state.n ? '__end__' : 'b'"}], ` + edges + `}`, `"state.n ?`,
			`nodes[0] "a": goto: "b" is no node of the graph`},
		{"goto a name outside its ends", `{"state": {"n": null}, "nodes": [{"name": "a", "goto": "['b']", "ends": ["c"]}, {"name": "b"}, {"name": "c"}], ` + edges + `}`, `"['b']"`,
			`nodes[0] "a": goto: "b" is not in its ends (c): add it there`},
		{"route to a misspelt node", `{"state": {"n": null}, "nodes": [{"name": "a"}, {"name": "tools"}], ` + edges + `, "branches": [{"from": "a", "route": "state.n || 'tool'"}]}`, `"state.n ||`,
			`branches[0].route: "tool" is no node of the graph (did you mean "tools"?)`},
		{"route to END", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "branches": [{"from": "a", "route": "state.n ? 'a' : 'END'"}]}`, `"state.n ?`,
			`branches[0].route: "END" is no node of the graph (did you mean "__end__"?)`},
		{"route to a label the path_map lacks", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "branches": [{"from": "a", "route": "'ends'", "path_map": {"end": "__end__"}}]}`, `"'ends'"`,
			`branches[0].route: "ends" is no label of its path_map (end) (did you mean "end"?)`},
		{"route outside its ends", `{"state": {"n": null}, "nodes": [{"name": "a"}, {"name": "b"}], ` + edges + `, "branches": [{"from": "a", "route": "'b'", "ends": ["__end__"]}]}`, `"'b'", "ends"`,
			`branches[0].route: "b" is not in its ends (__end__): add it there`},
		{"subgraph's own keys and nodes", `{"state": {"n": null}, "nodes": [{"name": "a", "subgraph": "s"}], ` + edges + `, "subgraphs": {"s": {"state": {"m": null}, "nodes": [{"name": "i", "update": {"n": "1"}}], "edges": [["__start__", "i"]]}}}`, `"n": "1"`,
			`subgraphs.s.nodes[0] "i": update.n: "n" is no state key (state keys: m); declare it under "state" or write one of those`},
		{"misspelt input key", `{"state": {"question": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "invoke", "input": {"qestion": "why?"}}]}`, `"qestion"`,
			`ops[0].input.qestion: "qestion" is no state key (did you mean "question"?)`},
		{"input the reducer refuses", `{"state": {"n": "sum"}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "invoke", "input": {"n": "3"}}]}`, `"n": "3"`,
			`ops[0].input.n: the sum reducer of "n" refuses "3": sum expects numbers, got a number and a string`},
		{"misspelt key of an update_state", `{"state": {"messages": "add_messages"}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": {"mesages": []}, "as_node": "a"}]}`, `"mesages"`,
			`ops[0].values.mesages: "mesages" is no state key (did you mean "messages"?); LangGraph drops its value`},
		{"update_state without as_node", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": {"n": 1, "total": 2}}]}`, `"total"`,
			`ops[0].values.total: "total" is no state key (state keys: n); declare it under "state" or write one of those; LangGraph drops its value`},
		{"update_state writing a node", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": {"a": 1}, "as_node": "__input__"}]}`, `"a": 1`,
			`ops[0].values.a: "a" is a node, not a state key: an update writes state keys (n); LangGraph drops its value`},
		{"update_state's command", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "command": {"update": {"m": 1}, "goto": "a"}, "as_node": "a"}]}`, `"m": 1`,
			`ops[0].command.update.m: "m" is no state key (state keys: n); declare it under "state" or write one of those; LangGraph drops its value`},
		{"invoke's command", `{"state": {"count": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "invoke", "command": {"update": {"cout": 1}, "goto": "a"}}]}`, `"cout"`,
			`ops[0].command.update.cout: "cout" is no state key (did you mean "count"?); LangGraph drops its value`},
		{"as_node no node", `{"state": {"n": null}, "nodes": [{"name": "agent"}], "edges": [["__start__", "agent"]], "ops": [{"op": "update_state", "values": {"n": 1}, "as_node": "agnet"}]}`, `"agnet"`,
			`ops[0].as_node: "agnet" is no node of the graph (did you mean "agent"?): LangGraph refuses the update when it runs`},
		{"as_node far from any", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": {"n": 1}, "as_node": "zzzz"}]}`, `"zzzz"`,
			`ops[0].as_node: "zzzz" is no node of the graph (nodes: a; or __start__, __input__, __copy__, __end__): LangGraph refuses the update when it runs`},
		{"as_node __end__ with values", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": {"n": 1}, "as_node": "__end__"}]}`, `"__end__"}`,
			`ops[0].as_node: as_node __end__ takes null values (it finishes the pending tasks); with values it is no node, and LangGraph refuses the update: write the values as the node they come from`},
		{"a copy's pair", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": [[{"n": 1}, "b"]], "as_node": "__copy__"}]}`, `"b"]`,
			`ops[0].values[0][1]: "b" is no node of the graph (nodes: a; or __start__, __input__, __copy__, __end__): LangGraph refuses the update when it runs`},
		{"a copy's pair's key", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "update_state", "values": [[{"nn": 1}, "a"]], "as_node": "__copy__"}]}`, `"nn"`,
			`ops[0].values[0][0].nn: "nn" is no state key (did you mean "n"?); LangGraph drops its value`},
		{"bulk_update's key", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "bulk_update", "supersteps": [[{"values": {"n": 1}, "as_node": "a"}], [{"values": {"N": 2}, "as_node": "a"}]]}]}`, `"N"`,
			`ops[0].supersteps[1][0].values.N: "N" is no state key (did you mean "n"?); LangGraph drops its value`},
		{"bulk_update's as_node", `{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "bulk_update", "supersteps": [[{"values": {"n": 1}, "as_node": "A"}]]}]}`, `"A"`,
			`ops[0].supersteps[0][0].as_node: "A" is no node of the graph (did you mean "a"?): LangGraph refuses the update when it runs`},
		{"bulk_update superstep without as_node", `{"state": {"n": null}, "nodes": [{"name": "a"}, {"name": "b"}], ` + edges + `, "ops": [{"op": "bulk_update", "supersteps": [[{"values": {"n": 1}, "as_node": "a"}, {"values": {"n": 2}}]]}]}`, `{"values": {"n": 2}}`,
			`ops[0].supersteps[0][1]: an update of a superstep of 2 names no as_node: LangGraph needs each update's node when a superstep has several; add "as_node"`},
		{"a subgraph's update", `{"state": {"n": null}, "nodes": [{"name": "a", "subgraph": "s"}], ` + edges + `, "subgraphs": {"s": {"state": {"m": null}, "nodes": [{"name": "i"}], "edges": [["__start__", "i"]]}}, "ops": [{"op": "update_state", "subgraph": "a", "values": {"n": 1}, "as_node": "i"}]}`, `"n": 1`,
			`ops[0].values.n: "n" is no state key (state keys: m); declare it under "state" or write one of those; LangGraph drops its value`},
		{"a later invoke's input", `{"state": {"log": "concat"}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "invoke", "input": {"log": "x"}}, {"op": "invoke", "thread": "t2", "input": {"log": ["x"]}}]}`, `"log": ["x"]`,
			`ops[1].input.log: the concat reducer of "log" refuses ["x"]: concat expects strings, got a string and a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.json", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v (the file must parse: LangGraph runs it)", err)
			}
			err = f.Lint()
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Lint: %v (%T), want an *Error", err, err)
			}
			// The position is that of at, the key or the expression
			// the message is about (the sources are one line of ASCII).
			i := strings.Index(tt.src, tt.at)
			if i < 0 {
				t.Fatalf("%q is not in the source", tt.at)
			}
			if want := fmt.Sprintf("x.json:1:%d: %s", i+1, tt.want); err.Error() != want {
				t.Errorf("Lint\n  %s\nwant\n  %s", err, want)
			}
		})
	}
}

// TestFile_Lint_EveryMistake: a file with several mistakes gets one
// *Error for each, in the order of their places in the file, each
// expression or key once (its first mistake), so one reading fixes them
// all.
func TestFile_Lint_EveryMistake(t *testing.T) {
	src := `{"state": {"n": null},
 "subgraphs": {"s": {"state": {"m": null}, "nodes": [{"name": "i", "update": {"n": "1"}}], "edges": [["__start__", "i"]]}},
 "nodes": [{"name": "a", "update": {"total": "1", "n": "send('c', 1)"}, "goto": "['x', 'y']"},
   {"name": "b", "subgraph": "s"}],
 "edges": [["__start__", "a"]],
 "branches": [{"from": "b", "route": "'ends'", "path_map": {"end": "__end__"}}],
 "ops": [{"op": "invoke", "input": {"n": 1, "q": 2, "r": 3}}]}`
	f, err := Parse("x.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Lint()
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Lint: %v (%T), want Errors", err, err)
	}
	want := `x.json:2:79: subgraphs.s.nodes[0] "i": update.n: "n" is no state key (state keys: m); declare it under "state" or write one of those
x.json:3:37: nodes[0] "a": update.total: "total" is no state key (state keys: n); declare it under "state" or write one of those
x.json:3:56: nodes[0] "a": update.n: Send to "c", which is no node of the graph
x.json:3:81: nodes[0] "a": goto: "x" is no node of the graph
x.json:6:38: branches[0].route: "ends" is no label of its path_map (end) (did you mean "end"?)
x.json:7:45: ops[0].input.q: "q" is no state key (state keys: n); declare it under "state" or write one of those
x.json:7:53: ops[0].input.r: "r" is no state key (state keys: n); declare it under "state" or write one of those`
	if err.Error() != want {
		t.Errorf("Lint\n%s\nwant\n%s", err, want)
	}
}

// TestFile_Lint_Clean: what Lint must let through — names computed at
// run time, labels of a path_map, __end__, a parent Command's keys and
// gotos, Overwrites and valid inputs — and every public scenario.
func TestFile_Lint_Clean(t *testing.T) {
	const edges = `"edges": [["__start__", "a"]]`
	for _, src := range []string{
		`{"state": {"n": null, "next": null}, "nodes": [{"name": "a", "goto": "state.next"}, {"name": "b"}], ` + edges + `}`,
		`{"state": {"n": null}, "nodes": [{"name": "a", "goto": "state.n == 'x' ? 'b' : '__end__'"}, {"name": "b"}], ` + edges + `}`,
		`{"state": {"n": null}, "nodes": [{"name": "a", "goto": "[send('b', state), 'b']"}, {"name": "b"}], ` + edges + `}`,
		`{"state": {"n": null}, "nodes": [{"name": "a"}], ` + edges + `, "branches": [{"from": "a", "route": "state.n ? 'go' : 'stop'", "path_map": {"go": "a", "stop": "__end__"}}]}`,
		`{"state": {"n": null}, "nodes": [{"name": "a", "update": "state"}], ` + edges + `}`,
		`{"state": {"n": null}, "nodes": [{"name": "a", "subgraph": "s"}], ` + edges + `, "subgraphs": {"s": {"state": {"m": null}, "nodes": [{"name": "i", "parent": true, "update": {"n": "1"}, "goto": "'elsewhere'"}], "edges": [["__start__", "i"]]}}}`,
		`{"state": {"n": "sum", "log": "add"}, "nodes": [{"name": "a"}], ` + edges + `, "ops": [{"op": "invoke", "input": {"n": 2, "log": {"__overwrite__": ["x"]}}}, {"op": "invoke", "input": null}]}`,
		// Updates LangGraph takes as they are: every kind of as_node, a
		// subgraph's own keys and nodes, a Command's keys, bulk supersteps.
		`{"state": {"n": null}, "nodes": [{"name": "a"}, {"name": "b"}], ` + edges + `, "ops": [{"op": "invoke", "input": {"n": 1}}, {"op": "update_state", "values": {"n": 2}, "as_node": "b"}, {"op": "update_state", "values": {"n": 3}}, {"op": "update_state", "values": {"n": 4}, "as_node": "__start__"}, {"op": "update_state", "values": {"n": 5}, "as_node": "__input__"}, {"op": "update_state", "values": null, "as_node": "__end__"}, {"op": "update_state", "values": null, "as_node": "__copy__"}, {"op": "update_state", "values": [[{"n": 6}, "a"]], "as_node": "__copy__"}, {"op": "update_state", "values": null}]}`,
		`{"state": {"n": null}, "nodes": [{"name": "a"}, {"name": "b"}], ` + edges + `, "ops": [{"op": "invoke", "command": {"update": {"n": 1}, "goto": "b"}}, {"op": "update_state", "command": {"update": {"n": 2}, "goto": "b"}, "as_node": "a"}, {"op": "bulk_update", "supersteps": [[{"values": {"n": 1}}], [{"values": {"n": 2}, "as_node": "a"}, {"values": {"n": 3}, "as_node": "b"}]]}]}`,
		`{"state": {"n": null}, "nodes": [{"name": "a", "subgraph": "s"}], ` + edges + `, "subgraphs": {"s": {"state": {"m": null}, "nodes": [{"name": "i"}], "edges": [["__start__", "i"]]}}, "ops": [{"op": "update_state", "subgraph": "a", "values": {"m": 1}, "as_node": "i"}, {"op": "update_state", "subgraph": "nope", "values": {"zz": 1}}]}`,
	} {
		f, err := Parse("x.json", []byte(src))
		if err != nil {
			t.Fatalf("Parse %s: %v", src, err)
		}
		if err := f.Lint(); err != nil {
			t.Errorf("Lint %s: %v", src, err)
		}
	}
	for _, path := range publicFiles(t) {
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Lint(); err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}
}

// TestParse_DoesNotLint: Parse (and so trace, which must show what
// LangGraph does) accepts what Lint refuses.
func TestParse_DoesNotLint(t *testing.T) {
	f, err := Parse("x.json", []byte(`{"state": {"n": null}, "nodes": [{"name": "a", "update": {"m": "1"}, "goto": "send('zz', 1)"}], "edges": [["__start__", "a"]]}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if err := f.Lint(); err == nil || !strings.Contains(err.Error(), `"m" is no state key`) {
		t.Errorf("Lint: %v", err)
	}
}

// TestFormatDoc_SmallestFile: the complete file docs/scenario-format.md
// starts a reader with parses, lints clean and runs to its end.
func TestFormatDoc_SmallestFile(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scenario-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "A smallest complete file")
	if !ok {
		t.Fatal(`docs/scenario-format.md has no "A smallest complete file"`)
	}
	_, rest, _ = strings.Cut(rest, "```json\n")
	src, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no JSON block after it")
	}
	f, err := Parse("count.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Lint(); err != nil {
		t.Fatal(err)
	}
	tr, err := Trace(context.Background(), f, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op := tr["ops"].([]any)[0].(map[string]any)
	if got := engine.MustEncode(op["result"]); string(got) != `{"status":"done","values":{"n":1}}` {
		t.Errorf("its invoke: %s", got)
	}
}

// TestFile_CheckInput: a --input's values are checked against their
// keys' reducers; keys that are no state key are left to the caller, and
// an entrypoint takes anything.
func TestFile_CheckInput(t *testing.T) {
	f, err := Parse("x.json", []byte(`{"state": {"n": "sum", "s": "concat", "v": null}, "nodes": [{"name": "a"}], "edges": [["__start__", "a"]]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"n": 1, "s": "x", "v": []any{1}, "other": "y"}, ""},
		{map[string]any{"n": "1"}, `n: the sum reducer of "n" refuses "1": sum expects numbers, got a number and a string`},
		{map[string]any{"s": 2, "n": "1"}, `n: the sum reducer of "n" refuses "1": sum expects numbers, got a number and a string`},
		{map[string]any{"s": map[string]any{"__overwrite__": "z"}}, ""},
	} {
		err := f.CheckInput(tt.in)
		if got := fmt.Sprint(err); (err == nil) != (tt.want == "") || err != nil && got != tt.want {
			t.Errorf("CheckInput(%v) = %v, want %q", tt.in, err, tt.want)
		}
	}
	e, err := Parse("x.json", []byte(`{"entrypoint": {"return": "state"}, "ops": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CheckInput(map[string]any{"n": "1"}); err != nil {
		t.Errorf("an entrypoint's input: %v", err)
	}
}

// TestFile_Lint_Functional: a functional file's tasks and calls get the
// same care as a graph's nodes: a task named so that its calls read as
// something else, a call whose argument lacks what the task reads, a
// by_node answer to what never asks; each at its place, with the fix.
// What the file cannot be sure of (an argument known only when it runs,
// a task that reads its argument whole) is not a finding.
func TestFile_Lint_Functional(t *testing.T) {
	const ep = `"entrypoint": {"calls": [{"task": "t", "arg": "state"}], "return": "{'r': results[0]}"}`
	tests := []struct{ name, src, at, want string }{
		{"task named like the entrypoint", `{"tasks": {"main": {"result": "1"}, "t": {"result": "state"}}, ` + ep + `}`, `"main"`,
			`tasks.main: task "main" is named like the entrypoint: its calls and the entrypoint then read alike in traces, streams and interrupts; name the task otherwise`},
		{"task with a reserved name", `{"tasks": {"__start__": {"result": "1"}, "t": {"result": "state"}}, ` + ep + `}`, `"__start__"`,
			`tasks.__start__: "__start__" is a reserved name (names starting with __ are the graph's own, as __start__ and __end__): name the task otherwise`},
		{"task named empty", `{"tasks": {"": {"result": "1"}, "t": {"result": "state"}}, ` + ep + `}`, `""`,
			`tasks[""]: a task named "": name it, as its calls are traced, streamed and asked by its name`},
		{"task named like a node", `{"state": {"n": null}, "tasks": {"a": {"result": "1"}}, "nodes": [{"name": "a", "calls": [{"task": "a"}]}], "edges": [["__start__", "a"]]}`, `"a": {"result"`,
			`tasks.a: task "a" is named like node "a": its calls then read as the node's in traces and streams, and a breakpoint on the node holds them too; name the task otherwise`},
		{"argument with a misspelt key", `{"tasks": {"t": {"result": "state.item * 2"}}, "entrypoint": {"calls": [{"task": "t", "arg": "{'itme': 1}"}]}}`, `"{'itme'`,
			`entrypoint.calls[0].arg: task "t" reads state.item, which this argument has not (its keys: itme): "itme" and "item" are likely one key; spell them alike`},
		{"argument lacking a key, in a list of calls", `{"tasks": {"t": {"interrupt": "state.q", "result": "state.n"}}, "entrypoint": {"calls": [[{"task": "t", "arg": "{'q': 1, 'n': 2}"}, {"task": "t", "arg": "state.x ? {'q': 1} : {'q': 2}"}]]}}`, `"state.x ?`,
			`entrypoint.calls[0][1].arg: task "t" reads state.n, which this argument has not (its keys: q): add "n" to it`},
		{"no argument for a task that reads one", `{"tasks": {"t": {"result": "state.url"}}, "entrypoint": {"calls": [{"task": "t"}]}}`, `{"task": "t"}`,
			`entrypoint.calls[0]: task "t" reads state.url, but the call passes no argument, so state is null: add "arg", e.g. "arg": "{'url': …}"`},
		{"a node's call", `{"state": {"n": null}, "tasks": {"t": {"result": "state.k"}}, "nodes": [{"name": "a", "calls": [{"task": "t", "arg": "{'j': 1}"}]}], "edges": [["__start__", "a"]]}`, `"{'j': 1}"`,
			`nodes[0] "a": calls[0].arg: task "t" reads state.k, which this argument has not (its keys: j): add "k" to it`},
		{"by_node to a node that never asks", `{"state": {"n": null}, "nodes": [{"name": "a"}, {"name": "b", "interrupt": "1"}], "edges": [["__start__", "a"], ["a", "b"]], "ops": [{"op": "resume", "by_node": {"a": 1}}]}`, `"a": 1}`,
			`ops[0].by_node.a: "a" never asks (no "interrupt", no task calls, no subgraph), so it has no question to answer: answer a node that interrupts`},
		{"by_node to an entrypoint that never asks", `{"tasks": {"t": {"result": "state"}}, ` + ep + `, "ops": [{"op": "resume", "by_node": {"main": 1}}]}`, `"main": 1`,
			`ops[0].by_node.main: "main" never asks (no "interrupt" in it or in a task), so it has no question to answer: answer a node that interrupts`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.json", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v (the file must parse: LangGraph runs it)", err)
			}
			err = f.Lint()
			i := strings.Index(tt.src, tt.at)
			if i < 0 {
				t.Fatalf("%q is not in the source", tt.at)
			}
			if want := fmt.Sprintf("x.json:1:%d: %s", i+1, tt.want); err == nil || err.Error() != want {
				t.Errorf("Lint\n  %v\nwant\n  %s", err, want)
			}
		})
	}
	for _, ok := range []string{
		// The argument is known only when it runs; the task reads it whole.
		`{"tasks": {"t": {"result": "state.a"}, "u": {"result": "state == null ? 0 : state.a"}}, "entrypoint": {"calls": [{"task": "t", "arg": "state.x"}, {"task": "u"}]}}`,
		// A task that interrupts answers to the entrypoint.
		`{"tasks": {"t": {"interrupt": "1", "result": "state"}}, ` + ep + `, "ops": [{"op": "resume", "by_node": {"main": 1}}]}`,
	} {
		f, err := Parse("x.json", []byte(ok))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Lint(); err != nil {
			t.Errorf("Lint of a file without a mistake: %v", err)
		}
	}
}
