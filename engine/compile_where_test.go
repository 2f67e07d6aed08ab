package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// whereLines renders each CompileError by what its fields say it is
// about, not by its message.
func whereLines(t *testing.T, err error) []string {
	t.Helper()
	var got []string
	for _, ce := range compileErrors(t, err) {
		s := ce.Kind
		if ce.Node != "" {
			s += fmt.Sprintf(" node=%q", ce.Node)
		}
		if ce.Key != "" {
			s += fmt.Sprintf(" key=%q", ce.Key)
		}
		if e := ce.Edge; e != nil {
			kind := "edge"
			switch {
			case e.Join:
				kind = "join"
			case e.Route:
				kind = "route"
			}
			s += fmt.Sprintf(" %s#%d=%v->%q", kind, e.Index, e.From, e.To)
		}
		if ce.Interrupt != "" {
			s += " interrupt=" + ce.Interrupt
		}
		got = append(got, s)
	}
	return got
}

// TestCompileError_SaysWhatItIsAbout: every problem Compile reports says
// in fields which declaration it is about: the node, the key, the edge,
// join or route (by its ends and its place among the builder's calls, the
// refused ones counted), the interrupt list; the missing entry, the
// graph's own problem, none of them.
func TestCompileError_SaysWhatItIsAbout(t *testing.T) {
	nop := update()
	route := func(context.Context, map[string]any) (any, error) { return engine.End, nil }
	b := engine.NewStateGraph(engine.KeySpec{Name: "k"}, engine.KeySpec{Name: "k"}, engine.KeySpec{Name: "branch:to:x"}).
		AddNode("a", nop).AddNode("b", nop, engine.WithEnds("ghost-end", engine.End)).AddNode("lost", nop).
		AddNode("k", nop).AddNode("a", nop).AddNode("p|q", nop).AddNode("nofn", nil).
		AddEdge(engine.End, "a").                       // edge 0
		AddEdge("a", engine.Start).                     // edge 1
		AddEdge("nowhere", "a").                        // edge 2
		AddJoin(nil, "b").                              // edge 3, refused
		AddEdge("a", "nobody").                         // edge 4
		AddJoin([]string{"a", engine.Start}, "b").      // edge 5
		AddJoin([]string{"a"}, engine.End).             // edge 6
		AddConditionalEdges("a", nil).                  // route 0, refused
		AddConditionalEdges("phantom", route, "b").     // route 1
		AddConditionalEdgesMap("a", route, nil).        // route 2, refused
		AddConditionalEdges("a", route, "b", "spectre") // route 3
	_, err := b.Compile(engine.WithInterruptBefore("ghost-int"), engine.WithInterruptAfter("b", "ghost-after"))
	got := whereLines(t, err)
	want := []string{
		`DuplicateKey key="k"`,
		`InvalidKey key="branch:to:x"`,
		`NameClash node="k"`,
		`DuplicateNode node="a"`,
		`InvalidNode node="p|q"`,
		`InvalidNode node="nofn"`,
		`InvalidEdge join#3=[]->"b"`,
		`InvalidEdge route#0=[a]->""`,
		`InvalidEdge route#2=[a]->""`,
		`InvalidEdge node="__end__" edge#0=[__end__]->"a"`,
		`InvalidEdge node="__start__" edge#1=[a]->"__start__"`,
		`UnknownNode node="nowhere" edge#2=[nowhere]->"a"`,
		`UnknownNode node="nobody" edge#4=[a]->"nobody"`,
		`UnknownNode node="__start__" join#5=[a __start__]->"b"`,
		`UnknownNode node="__end__" join#6=[a]->"__end__"`,
		`UnknownNode node="phantom" route#1=[phantom]->""`,
		`UnknownNode node="spectre" route#3=[a]->""`,
		`UnknownNode node="ghost-int" interrupt=before`,
		`UnknownNode node="ghost-after" interrupt=after`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// Without a refused node the entry and reachability are checked.
	b = engine.NewStateGraph().
		AddNode("a", nop).AddNode("b", nop, engine.WithEnds("ghost-end", engine.End)).AddNode("lost", nop).
		AddEdge("a", "b")
	_, err = b.Compile()
	got = whereLines(t, err)
	want = []string{
		`UnknownNode node="b"`,
		`MissingEntry`,
		`UnreachableNodeError node="a"`,
		`UnreachableNodeError node="lost"`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// A reducer key whose default panics is the key's problem.
	_, err = engine.NewStateGraph(engine.KeySpec{Name: "log", Reducer: engine.AppendReducer, Default: func() any { panic("no") }}).
		AddNode("a", nop).AddEdge(engine.Start, "a").Compile()
	if got := whereLines(t, err); !slices.Equal(got, []string{`InvalidDefault key="log"`}) {
		t.Fatalf("errors %q", got)
	}

	// An entrypoint's problem is its node's.
	_, err = engine.NewEntrypoint("", nil)
	if got := whereLines(t, err); len(got) != 1 || got[0] != `InvalidNode` {
		t.Fatalf("errors %q", got)
	}
	_, err = engine.NewEntrypoint("main", nil)
	if got := whereLines(t, err); !slices.Equal(got, []string{`InvalidNode node="main"`}) {
		t.Fatalf("errors %q", got)
	}
}
