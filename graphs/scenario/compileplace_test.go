package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestBuild_CompileErrorsPointIntoTheFile: a file that parses but whose
// graph does not compile gets one error for each problem, at the place a
// person edits: the node's entry, the edge's end, the route's path_map
// entry, the interrupt list's entry, the edges field (or the graph) for a
// missing entry; a subgraph's inside its definition. Each wraps the
// engine's CompileError and ErrInvalidGraph.
func TestBuild_CompileErrorsPointIntoTheFile(t *testing.T) {
	tests := []struct {
		name string
		src  string
		// edit changes the parsed file before Build, for mistakes Parse
		// refuses by itself but a File changed in Go may have.
		edit func(*File)
		want string // the errors, one a line
		kind string // the engine's Kind of the first
	}{
		{
			name: "unreachable node",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"},
   {"name": "b"}],
 "edges": [["__start__", "a"], ["a", "__end__"]]}`,
			want: `x.json:3:4: nodes[1] "b": node "b" is not reachable: no edge, route or Command end leads to it`,
			kind: "UnreachableNodeError",
		},
		{
			name: "node named like a state key",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"},
   {"name": "x"}],
 "edges": [["__start__", "a"], ["a", "x"]]}`,
			want: `x.json:3:4: nodes[1] "x": node name "x" is already used as a state key: rename the node or the key (a node and a state key cannot share a name)`,
			kind: "NameClash",
		},
		{
			name: "node name the engine refuses",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"},
   {"name": "p:q"}],
 "edges": [["__start__", "a"], ["a", "p:q"]]}`,
			want: `x.json:3:4: nodes[1] "p:q": node name "p:q" must not contain '|' or ':'`,
			kind: "InvalidNode",
		},
		{
			name: "missing entry",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}],
 "edges": [["a", "a"]]}`,
			want: `x.json:3:2: edges: graph must have an entrypoint: add at least one edge from __start__ to another node`,
			kind: "MissingEntry",
		},
		{
			name: "missing entry without edges",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}],
 "branches": [{"from": "a", "route": "'a'", "ends": ["a"]}]}`,
			want: `x.json:1:1: graph must have an entrypoint: add at least one edge from __start__ to another node`,
			kind: "MissingEntry",
		},
		{
			name: "join from __start__",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}, {"name": "b"}],
 "edges": [["__start__", "a"],
   [["a", "__start__"], "b"]]}`,
			want: `x.json:4:11: edges[1][0][1]: join [a __start__] -> b starts at unknown node "__start__"`,
			kind: "UnknownNode",
		},
		{
			name: "state key named like a trigger channel",
			src: `{"state": {"x": null,
   "branch:to:a": null},
 "nodes": [{"name": "a"}],
 "edges": [["__start__", "a"]]}`,
			want: `x.json:2:4: state.branch:to:a: state key "branch:to:a" is named like a node's trigger channel (branch:to:…, join:…)`,
			kind: "InvalidKey",
		},
		{
			name: "several, the entry first",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"},
   {"name": "b"},
   {"name": "c"}],
 "edges": [["a", "b"]]}`,
			want: `x.json:5:2: edges: graph must have an entrypoint: add at least one edge from __start__ to another node
x.json:2:12: nodes[0] "a": node "a" is not reachable: no edge, route or Command end leads to it
x.json:4:4: nodes[2] "c": node "c" is not reachable: no edge, route or Command end leads to it`,
			kind: "MissingEntry",
		},
		{
			name: "subgraph",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a", "subgraph": "inner"}],
 "edges": [["__start__", "a"]],
 "subgraphs": {"inner": {"state": {"x": null},
   "nodes": [{"name": "i"},
     {"name": "lost"}],
   "edges": [["__start__", "i"]]}}}`,
			want: `x.json:6:6: subgraphs.inner.nodes[1] "lost": node "lost" is not reachable: no edge, route or Command end leads to it`,
			kind: "UnreachableNodeError",
		},
		{
			name: "subgraph missing entry",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a", "invoke": "inner"}],
 "edges": [["__start__", "a"]],
 "subgraphs": {"inner": {"state": {"x": null},
   "nodes": [{"name": "i", "goto": "'i'", "ends": ["i"]}]}}}`,
			want: `x.json:4:25: subgraphs.inner: graph must have an entrypoint: add at least one edge from __start__ to another node`,
			kind: "MissingEntry",
		},
		{
			name: "edge to an unknown node",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}],
 "edges": [["__start__", "a"],
   ["a", "__end__"]]}`,
			edit: func(f *File) { f.Edges[1].To = "nobody" },
			want: `x.json:4:10: edges[1][1]: edge a -> nobody ends at unknown node "nobody"`,
			kind: "UnknownNode",
		},
		{
			name: "edge from an unknown node",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}],
 "edges": [["__start__", "a"],
   ["a", "__end__"]]}`,
			edit: func(f *File) { f.Edges[1].From[0] = "nowhere" },
			want: `x.json:4:5: edges[1][0]: edge nowhere -> __end__ starts at unknown node "nowhere"`,
			kind: "UnknownNode",
		},
		{
			name: "route's path_map to an unknown node",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}, {"name": "b"}],
 "edges": [["__start__", "a"]],
 "branches": [{"from": "a", "route": "'go'",
   "path_map": {"go": "b",
     "stop": "__end__"}}]}`,
			edit: func(f *File) { f.Branches[0].PathMap[1].Value = "sotp" },
			want: `x.json:6:14: branches[0].path_map.stop: conditional edge from "a" may go to unknown node "sotp"`,
			kind: "UnknownNode",
		},
		{
			name: "interrupt_before naming no node",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a"}],
 "edges": [["__start__", "a"]],
 "interrupt_before": ["a",
   "a"]}`,
			edit: func(f *File) { f.InterruptBefore[1] = "ghost" },
			want: `x.json:5:4: interrupt_before[1]: interrupt node "ghost" not found`,
			kind: "UnknownNode",
		},
		{
			name: "subgraph interrupt_after listing *",
			src: `{"state": {"x": null},
 "nodes": [{"name": "a", "subgraph": "s"}],
 "edges": [["__start__", "a"]],
 "subgraphs": {"s": {"state": {"x": null}, "nodes": [{"name": "i"}], "edges": [["__start__", "i"]],
   "interrupt_after": ["i"]}}}`,
			edit: func(f *File) { f.Subgraphs["s"].InterruptAfter[0] = "*" },
			want: `x.json:5:24: subgraphs.s.interrupt_after[0]: interrupt node "*" not found: list the nodes`,
			kind: "UnknownNode",
		},
		{
			name: "entrypoint name the engine refuses",
			src: `{"tasks": {"t": {"result": "1"}},
 "entrypoint": {"calls": [{"task": "t"}],
   "name": "__start__"}}`,
			want: `x.json:3:12: entrypoint.name: entrypoint name "__start__" is empty or reserved: name it otherwise, or leave "name" out for "main"`,
			kind: "InvalidNode",
		},
		{
			name: "entrypoint refused, its name not written",
			src: `{"tasks": {"t": {"result": "1"}},
 "entrypoint": {"calls": [{"task": "t"}]}}`,
			edit: func(f *File) { f.Entrypoint.Name = "__previous__" },
			want: `x.json:2:16: entrypoint: entrypoint name "__previous__" is empty or reserved: name it otherwise, or leave "name" out for "main"`,
			kind: "InvalidNode",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.json", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.edit != nil {
				tt.edit(f)
			}
			_, _, err = Build(f)
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("Build: %v (%T), want Errors", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("errors\n%s\nwant\n%s", err, tt.want)
			}
			if n := strings.Count(tt.want, "\n") + 1; len(es) != n {
				t.Errorf("%d errors, want %d", len(es), n)
			}
			var ce *engine.CompileError
			if !errors.As(err, &ce) || ce.Kind != tt.kind {
				t.Errorf("errors.As CompileError: %v, want Kind %s", ce, tt.kind)
			}
			if !errors.Is(err, ErrInvalidGraph) {
				t.Errorf("errors.Is(err, ErrInvalidGraph) is false")
			}
		})
	}
}

// TestBuild_UnknownEndIsTheEngines: an edge's or a route's end, or an
// interrupt list's name, that is no node parses, and Build refuses it
// with the engine's compile error at the place the loader pointed at,
// beside the engine's other findings (a node nothing reaches), as
// LangGraph.js reports an unreachable node before such an end. A
// spelling of END gets the hint the engine has not.
func TestBuild_UnknownEndIsTheEngines(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"edge to unknown", "{\"nodes\": [{\"name\": \"a\"}],\n \"edges\": [[\"__start__\", \"b\"]]}",
			"x.json:2:26: edges[0][1]: edge __start__ -> b ends at unknown node \"b\"\n" +
				`x.json:1:12: nodes[0] "a": node "a" is not reachable: no edge, route or Command end leads to it`},
		{"edge to a typo", `{"nodes": [{"name": "research"}], "edges": [["__start__", "reserch"]]}`,
			`x.json:1:59: edges[0][1]: edge __start__ -> reserch ends at unknown node "reserch" (did you mean "research"?)`},
		{"interrupt at a typo", `{"nodes": [{"name": "research"}], "edges": [["__start__", "research"]], "interrupt_before": ["Research"]}`,
			`x.json:1:94: interrupt_before[0]: interrupt node "Research" not found (did you mean "research"?)`},
		{"end for __end__", `{"nodes": [{"name": "a"}], "edges": [["__start__", "a"], ["a", "end"]]}`,
			`x.json:1:64: edges[1][1]: edge a -> end ends at unknown node "end" (did you mean "__end__"?)`},
		{"START is no end", `{"nodes": [{"name": "a"}], "edges": [["__start__", "a"], ["a", "START"]]}`,
			`x.json:1:64: edges[1][1]: edge a -> START ends at unknown node "START"`},
		{"route's end", `{"nodes": [{"name": "a"}], "edges": [["__start__", "a"]], "branches": [{"from": "a", "route": "'x'", "ends": ["__end__", "ghost"]}]}`,
			`x.json:1:122: branches[0].ends[1]: conditional edge from "a" may go to unknown node "ghost"`},
		{"Command end", `{"nodes": [{"name": "a", "goto": "'b'", "ends": ["b", "ghost"]}, {"name": "b"}], "edges": [["__start__", "a"]]}`,
			`x.json:1:55: nodes[0] "a": ends[1]: node "a" declares unknown end "ghost"`},
		{"Command end for __end__", `{"nodes": [{"name": "a", "goto": "'b'", "ends": ["b", "END"]}, {"name": "b"}], "edges": [["__start__", "a"]]}`,
			`x.json:1:55: nodes[0] "a": ends[1]: node "a" declares unknown end "END" (did you mean "__end__"?)`},
		{"subgraph edge", `{"nodes": [{"name": "a", "subgraph": "s"}], "edges": [["__start__", "a"]], "subgraphs": {"s": {"nodes": [{"name": "i"}], "edges": [["__start__", "i"], ["i", "j"]]}}}`,
			`x.json:1:158: subgraphs.s.edges[1][1]: edge i -> j ends at unknown node "j"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.json", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v (an unknown end is the engine's to refuse)", err)
			}
			_, _, err = Build(f)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Build:\n%v\nwant\n%s", err, tt.want)
			}
			var ce *engine.CompileError
			if !errors.As(err, &ce) || ce.Kind != "UnknownNode" || !errors.Is(err, ErrInvalidGraph) {
				t.Errorf("errors.As CompileError: %v; errors.Is ErrInvalidGraph: %v", ce, errors.Is(err, ErrInvalidGraph))
			}
		})
	}
}
