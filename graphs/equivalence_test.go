package graphs_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
)

type buildFunc = func(opts ...engine.CompileOption) (*engine.Graph, error)

func ops(list ...scenario.Op) []scenario.Op {
	for i := range list {
		list[i].Index = i
		list[i].HasInput = list[i].Input != nil
		list[i].HasValue = list[i].Value != nil
		list[i].HasAsNode = list[i].AsNode != ""
	}
	return list
}

func step(n int) *int { return &n }

// TestTyped_TracesEqualMapGraphs runs each built-in graph, written in the
// typed API, and its map-API original through the trace writer with the
// same ops (runs, resumes with good and bad answers, state, history, a fork
// by update_state): the traces must be byte-identical, checkpoints, task
// writes and their order included.
func TestTyped_TracesEqualMapGraphs(t *testing.T) {
	cases := []struct {
		name       string
		typed, old buildFunc
		ops        []scenario.Op
	}{
		{"linear", graphs.Linear, mapLinear, ops(
			scenario.Op{Kind: scenario.OpInvoke, Thread: "t", Input: map[string]any{"total": 10.0, "visited": []any{}}},
			scenario.Op{Kind: scenario.OpGetState, Thread: "t"},
			scenario.Op{Kind: scenario.OpUpdateState, Thread: "t", AtStep: step(1), Values: map[string]any{"total": 7.0, "visited": []any{"x"}}, AsNode: "a"},
			scenario.Op{Kind: scenario.OpInvoke, Thread: "t", From: "fork"},
			scenario.Op{Kind: scenario.OpHistory, Thread: "t"},
		)},
		{"router", graphs.Router, mapRouter, ops(
			scenario.Op{Kind: scenario.OpInvoke, Thread: "low", Input: map[string]any{"total": 2.0}},
			scenario.Op{Kind: scenario.OpInvoke, Thread: "high", Input: map[string]any{"total": 3.0}},
			scenario.Op{Kind: scenario.OpHistory, Thread: "high"},
		)},
		{"essay", graphs.Essay, mapEssay, ops(
			scenario.Op{Kind: scenario.OpInvoke, Thread: "t", Input: map[string]any{"topic": "LangGraph Workflow"}},
			scenario.Op{Kind: scenario.OpHistory, Thread: "t"},
		)},
		{"mapreduce", graphs.MapReduce, mapMapReduce, ops(
			scenario.Op{Kind: scenario.OpInvoke, Thread: "given", Input: map[string]any{"items": []any{3.0, 1.0, 2.0}}},
			scenario.Op{Kind: scenario.OpInvoke, Thread: "made", Input: map[string]any{"results": []any{}}},
			scenario.Op{Kind: scenario.OpHistory, Thread: "made"},
		)},
		{"research", graphs.Research, mapResearch, ops(
			scenario.Op{Kind: scenario.OpInvoke, Thread: "t", Input: map[string]any{"question": "Q"}},
			scenario.Op{Kind: scenario.OpResume, Thread: "t", Value: map[string]any{"action": "revise", "revised_question": "Q2"}},
			scenario.Op{Kind: scenario.OpResume, Thread: "t", Value: "approve"},
			scenario.Op{Kind: scenario.OpGetState, Thread: "t"},
			scenario.Op{Kind: scenario.OpHistory, Thread: "t"},
			scenario.Op{Kind: scenario.OpInvoke, Thread: "bad", Input: map[string]any{"question": "Q"}},
			scenario.Op{Kind: scenario.OpResume, Thread: "bad", Value: 5.0},
		)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &scenario.File{Name: tc.name, Ops: tc.ops}
			trace := func(b buildFunc) []byte {
				tr, err := scenario.Trace(context.Background(), f, scenario.RunOptions{Graph: b})
				if err != nil {
					t.Fatal(err)
				}
				return scenario.Canonical(tr, 1)
			}
			typedTrace, mapTrace := trace(tc.typed), trace(tc.old)
			if !bytes.Equal(typedTrace, mapTrace) {
				t.Fatalf("typed and map traces differ:\n--- typed\n%s\n--- map\n%s", typedTrace, mapTrace)
			}
			if bytes.Contains(typedTrace, []byte(`"error"`)) != (tc.name == "research") {
				t.Fatalf("only research's bad answer should fail:\n%s", typedTrace)
			}
		})
	}
}

// TestTyped_ResearchRejectsABadAnswerAsTheMapGraphDid: the error a person
// sees for a reply without a known action is the same, word for word.
func TestTyped_ResearchRejectsABadAnswerAsTheMapGraphDid(t *testing.T) {
	ctx := context.Background()
	errOf := func(b buildFunc, answer any) string {
		g, err := b(engine.WithSaver(engine.NewMemorySaver()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Invoke(ctx, map[string]any{"question": "Q"}, engine.OnThread("t")); err != nil {
			t.Fatal(err)
		}
		_, err = g.Invoke(ctx, engine.Command{Resume: answer}, engine.OnThread("t"))
		if err == nil {
			t.Fatalf("answer %v was accepted", answer)
		}
		return err.Error()
	}
	for _, answer := range []any{5.0, "maybe", map[string]any{"action": 1.0}, []any{"approve"}} {
		if got, want := errOf(graphs.Research, answer), errOf(mapResearch, answer); got != want {
			t.Errorf("answer %v:\n typed: %s\n   map: %s", answer, got, want)
		}
	}
}

// TestTyped_SameTopologyAsMapGraphs: each typed built-in graph compiles to
// the map graph's topology — the same description and fingerprint — so a
// database whose threads were recorded by the map graphs opens with the
// typed ones.
func TestTyped_SameTopologyAsMapGraphs(t *testing.T) {
	for name, pair := range map[string][2]buildFunc{
		"linear": {graphs.Linear, mapLinear}, "router": {graphs.Router, mapRouter}, "essay": {graphs.Essay, mapEssay},
		"mapreduce": {graphs.MapReduce, mapMapReduce}, "research": {graphs.Research, mapResearch},
	} {
		typedG, err := pair[0]()
		if err != nil {
			t.Fatal(err)
		}
		mapG, err := pair[1]()
		if err != nil {
			t.Fatal(err)
		}
		if typedG.Fingerprint() != mapG.Fingerprint() {
			t.Errorf("%s: fingerprints differ", name)
		}
		if a, b := engine.MustEncode(typedG.Describe()), engine.MustEncode(mapG.Describe()); !bytes.Equal(a, b) {
			t.Errorf("%s: descriptions differ:\n typed %s\n   map %s", name, a, b)
		}
	}
}
