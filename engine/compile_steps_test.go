package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestCompile_ReportsEveryProblemInOrder: a builder with one of each
// problem Compile finds gets all of them, in the order Compile checks:
// static edges, joins, conditional edges, the entry, interrupt nodes,
// declared ends, reachability.
func TestCompile_ReportsEveryProblemInOrder(t *testing.T) {
	nop := update()
	route := func(context.Context, map[string]any) (any, error) { return engine.End, nil }
	b := engine.NewStateGraph().
		AddNode("a", nop).AddNode("b", nop, engine.WithEnds("ghost-end", engine.End)).AddNode("lost", nop).
		AddEdge(engine.End, "a").
		AddEdge("a", engine.Start).
		AddEdge("nowhere", "a").
		AddEdge("a", "nobody").
		AddJoin([]string{"a", engine.Start}, "b").
		AddJoin([]string{"a"}, engine.End).
		AddConditionalEdges("phantom", route, "b").
		AddConditionalEdges("a", route, "b", "spectre")
	_, err := b.Compile(engine.WithInterruptBefore("ghost-int"), engine.WithInterruptAfter("*"))
	got := compileErrorLines(t, err)
	want := []string{
		`InvalidEdge: edge __end__ -> a starts at __end__`,
		`InvalidEdge: edge a -> __start__ ends at __start__`,
		`UnknownNode: edge nowhere -> a starts at unknown node "nowhere"`,
		`UnknownNode: edge a -> nobody ends at unknown node "nobody"`,
		`UnknownNode: join [a __start__] -> b starts at unknown node "__start__"`,
		`UnknownNode: join [a] -> __end__ ends at unknown node "__end__"`,
		`UnknownNode: conditional edge starts at unknown node "phantom"`,
		`UnknownNode: conditional edge from "a" may go to unknown node "spectre"`,
		`UnknownNode: interrupt node "ghost-int" not found`,
		`UnknownNode: node "b" declares unknown end "ghost-end"`,
		`MissingEntry: graph must have an entrypoint: add at least one edge from __start__ to another node`,
		// "a" is reached: the edge from "nowhere" names it.
		`UnreachableNodeError: node "lost" is not reachable: no edge, route or Command end leads to it`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestCompile_SameJoinTwiceIsOneBarrier: a join added twice makes one
// barrier channel and one edge, so its target runs once.
func TestCompile_SameJoinTwiceIsOneBarrier(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendLog("a")).AddNode("b", appendLog("b")).AddNode("j", appendLog("j")).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
		AddJoin([]string{"a", "b"}, "j").AddJoin([]string{"a", "b"}, "j"))
	info := g.Describe()
	joins := 0
	for _, e := range info.Edges {
		if e.Join {
			joins++
		}
	}
	barriers := 0
	for _, c := range info.Channels {
		if strings.HasPrefix(c.Name, engine.JoinPrefix) {
			barriers++
		}
	}
	if joins != 1 || barriers != 1 {
		t.Fatalf("%d join edges and %d barrier channels, want one of each", joins, barriers)
	}
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["log"].([]any); !slices.Equal(got, []any{"a", "b", "j"}) {
		t.Fatalf("log %v, want j once after a and b", got)
	}
}

// TestCompile_JoinSourceNamedTwice: a join that names a source twice waits
// for that source once (LangGraph.js makes the barrier from a Set of its
// sources); it used to wait for a second name that never came.
func TestCompile_JoinSourceNamedTwice(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendLog("a")).AddNode("j", appendLog("j")).
		AddEdge(engine.Start, "a").
		AddJoin([]string{"a", "a"}, "j"))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["log"].([]any); !slices.Equal(got, []any{"a", "j"}) {
		t.Fatalf("log %v, want j after a", got)
	}
}

// TestCompile_TypoIsOneError: a name close to one node (engine.MeantName)
// says which one it likely meant, and the checks after it read the graph
// as that fix would make it: a misspelt entry edge is not also a missing
// entry, and the node it meant is not also unreachable. A name close to
// no node is not a missing entry either (an edge from __start__ is the
// entry, whatever its target), but the node nothing names stays
// unreachable, as LangGraph.js reports it.
func TestCompile_TypoIsOneError(t *testing.T) {
	nop := update()
	route := func(context.Context, map[string]any) (any, error) { return engine.End, nil }
	for _, tt := range []struct {
		name  string
		build func(b *engine.StateGraph) *engine.StateGraph
		want  []string
	}{
		{"edges", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "reserch").AddEdge("research", "wirte").AddEdge("write", engine.End)
		}, []string{
			`UnknownNode: edge __start__ -> reserch ends at unknown node "reserch" (did you mean "research"?)`,
			`UnknownNode: edge research -> wirte ends at unknown node "wirte" (did you mean "write"?)`,
		}},
		{"edge source", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddEdge("Research", "write")
		}, []string{
			`UnknownNode: edge Research -> write starts at unknown node "Research" (did you mean "research"?)`,
		}},
		{"join", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddJoin([]string{"research", "rsearch"}, "writ")
		}, []string{
			`UnknownNode: join [research rsearch] -> writ starts at unknown node "rsearch" (did you mean "research"?)`,
			`UnknownNode: join [research rsearch] -> writ ends at unknown node "writ" (did you mean "write"?)`,
		}},
		{"route ends", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddConditionalEdges(engine.Start, route, "reseach", engine.End).AddEdge("research", "write")
		}, []string{
			`UnknownNode: conditional edge from "__start__" may go to unknown node "reseach" (did you mean "research"?)`,
		}},
		{"route source", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddConditionalEdges("reserch", route, "write")
		}, []string{
			`UnknownNode: conditional edge starts at unknown node "reserch" (did you mean "research"?)`,
		}},
		{"interrupt", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddEdge("research", "write")
		}, []string{
			`UnknownNode: interrupt node "wrte" not found (did you mean "write"?)`,
		}},
		{"close to none", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "summary").AddEdge("research", "write")
		}, []string{
			// The edge from __start__ is the entry, summary or not;
			// research is unreachable whatever summary is, as
			// LangGraph.js reports it.
			`UnknownNode: edge __start__ -> summary ends at unknown node "summary"`,
			`UnreachableNodeError: node "research" is not reachable: no edge, route or Command end leads to it`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.build(engine.NewStateGraph().AddNode("research", nop).AddNode("write", nop))
			var opts []engine.CompileOption
			if tt.name == "interrupt" {
				opts = append(opts, engine.WithInterruptBefore("wrte"))
			}
			_, err := b.Compile(opts...)
			if got := compileErrorLines(t, err); !slices.Equal(got, tt.want) {
				t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
	// A Command end close to a node: the node it meant is reached.
	_, err := engine.NewStateGraph().AddNode("research", nop, engine.WithEnds("wirte")).AddNode("write", nop).
		AddEdge(engine.Start, "research").Compile()
	if want := `node "research" declares unknown end "wirte" (did you mean "write"?)`; err == nil || err.Error() != "graph does not compile: "+want {
		t.Fatalf("a Command end's typo: %v, want only %s", err, want)
	}
	// Two nodes equally close: no guess, and each unreached one is named.
	_, err = engine.NewStateGraph().AddNode("tool_a", nop).AddNode("tool_b", nop).
		AddEdge(engine.Start, "tool_c").Compile()
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), `node "tool_b" is not reachable`) {
		t.Fatalf("a name two nodes are equally close to: %v", err)
	}
}

// TestCompile_TypoSaysWhatLangGraphWouldReport: an unknown end's error
// names the node it likely meant (Meant), and says when nothing else
// reaches that node (MeantUnreached), which LangGraph.js, checking
// reachability over the ends as written before it checks that they are
// nodes (dist/graph/graph.js:165-172), reports as UnreachableNodeError. A
// Command end's error names the end as well as its node.
func TestCompile_TypoSaysWhatLangGraphWouldReport(t *testing.T) {
	nop := update()
	route := func(context.Context, map[string]any) (any, error) { return engine.End, nil }
	for _, tt := range []struct {
		name           string
		build          func(b *engine.StateGraph) *engine.StateGraph
		meantUnreached bool
	}{
		{"edge, only the typo", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddEdge("research", "wirte")
		}, true},
		{"edge, another edge reaches it", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddEdge("research", "wirte").AddEdge("research", "write")
		}, false},
		{"join, only the typo", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddJoin([]string{"research"}, "wirte")
		}, true},
		{"route, only the typo", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "research").AddConditionalEdges("research", route, "wirte", engine.End)
		}, true},
		{"route, an edge from no node reaches it", func(b *engine.StateGraph) *engine.StateGraph {
			// LangGraph.js counts the target of an edge whatever its
			// source (graph.js:157-166).
			return b.AddEdge(engine.Start, "research").AddConditionalEdges("research", route, "wirte").AddEdge("xyz", "write")
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.build(engine.NewStateGraph().AddNode("research", nop).AddNode("write", nop))
			_, err := b.Compile()
			var typo *engine.CompileError
			for _, ce := range compileErrors(t, err) {
				if ce.Kind == "UnreachableNodeError" {
					t.Errorf("reported unreachable besides the typo: %v", ce)
				}
				if ce.Node == "wirte" {
					typo = ce
				}
			}
			if typo == nil || typo.Meant != "write" || typo.MeantUnreached != tt.meantUnreached {
				t.Fatalf("typo's error %+v, want Meant write, MeantUnreached %v", typo, tt.meantUnreached)
			}
		})
	}
	_, err := engine.NewStateGraph().AddNode("research", nop, engine.WithEnds("wirte", engine.End)).AddNode("write", nop).
		AddEdge(engine.Start, "research").Compile()
	ces := compileErrors(t, err)
	if ce := ces[0]; len(ces) != 1 || ce.Node != "research" || ce.End != "wirte" || ce.Meant != "write" || !ce.MeantUnreached {
		t.Fatalf("a Command end's typo: %+v, want Node research, End wirte, Meant write, MeantUnreached", ces)
	}
	_, err = engine.NewStateGraph().AddNode("research", nop).AddEdge(engine.Start, "zzz").AddEdge("research", engine.End).Compile()
	if ce := compileErrors(t, err)[0]; ce.Meant != "" || ce.MeantUnreached {
		t.Fatalf("a name close to no node: %+v, want no Meant", ce)
	}
}

// compileErrorLines are err's CompileErrors as "Kind: message" lines.
func compileErrorLines(t *testing.T, err error) []string {
	t.Helper()
	var got []string
	for _, ce := range compileErrors(t, err) {
		got = append(got, ce.Kind+": "+ce.Msg)
	}
	return got
}

// compileErrors is err as the CompileErrors Compile returns, failing the
// test when it is not.
func compileErrors(t *testing.T, err error) engine.CompileErrors {
	t.Helper()
	ces, ok := err.(engine.CompileErrors)
	if !ok {
		t.Fatalf("err %v (%T), want CompileErrors", err, err)
	}
	return ces
}

// TestCompile_FollowOnsOfAnUnknownNameAreNotReported: an edge or a route
// naming a node that does not exist is reported first, and nothing that
// follows only from it: an edge from __start__ gives the graph its entry
// whatever its target (Python LangGraph's entry check reads only the
// edges' sources, and LangGraph.js has none), and a node an edge or a
// route names is reached even when that edge's source is no node
// (LangGraph.js counts every declared target). Errors that do not follow
// from the unknown name are all kept.
func TestCompile_FollowOnsOfAnUnknownNameAreNotReported(t *testing.T) {
	nop := update()
	route := func(context.Context, map[string]any) (any, error) { return engine.End, nil }
	unreachable := func(n string) string {
		return `UnreachableNodeError: node "` + n + `" is not reachable: no edge, route or Command end leads to it`
	}
	for _, tt := range []struct {
		name  string
		build func(*engine.StateGraph) *engine.StateGraph
		want  []string
	}{
		{"entry edge to no node", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "respond").AddEdge("answer", "check").AddEdge("check", engine.End)
		}, []string{
			`UnknownNode: edge __start__ -> respond ends at unknown node "respond"`,
			unreachable("answer"), // whatever respond is: LangGraph.js reports it
		}},
		{"entry edge to no node, and an independent unreachable node", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "respond").AddEdge("answer", engine.End)
		}, []string{
			`UnknownNode: edge __start__ -> respond ends at unknown node "respond"`,
			unreachable("answer"),
			unreachable("check"),
		}},
		{"edge from no node", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "answer").AddEdge("xyz", "check")
		}, []string{
			`UnknownNode: edge xyz -> check starts at unknown node "xyz"`,
		}},
		{"route from no node", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "answer").AddConditionalEdges("xyz", route, "check", engine.End)
		}, []string{
			`UnknownNode: conditional edge starts at unknown node "xyz"`,
		}},
		{"route from no node, without ends", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge(engine.Start, "answer").AddConditionalEdges("xyz", route)
		}, []string{
			`UnknownNode: conditional edge starts at unknown node "xyz"`,
		}},
		{"entry route to no node", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddConditionalEdges(engine.Start, route, "respond", "answer").AddEdge("answer", "check")
		}, []string{
			`UnknownNode: conditional edge from "__start__" may go to unknown node "respond"`,
		}},
		{"no entry at all, and an edge from no node", func(b *engine.StateGraph) *engine.StateGraph {
			return b.AddEdge("xyz", "answer").AddEdge("answer", "check")
		}, []string{
			`UnknownNode: edge xyz -> answer starts at unknown node "xyz"`,
			`MissingEntry: graph must have an entrypoint: add at least one edge from __start__ to another node`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.build(engine.NewStateGraph().AddNode("answer", nop).AddNode("check", nop)).Compile()
			if got := compileErrorLines(t, err); !slices.Equal(got, tt.want) {
				t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
