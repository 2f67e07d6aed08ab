package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// forkedSubgraphBreakpoint builds root(s → z) with a breakpoint before z,
// s running sub(i1) whose i1 asks an interrupt; runs it until i1 asks,
// and updates the subgraph's checkpoint as i1. It returns the graph and
// the update's config, which carries LangGraph's checkpoint map.
func forkedSubgraphBreakpoint(t *testing.T, thread string) (*engine.Graph, engine.Config) {
	t.Helper()
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("i1", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "i1?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{fmt.Sprint("i1:", v)}}, nil
		}).
		AddEdge(engine.Start, "i1"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("s", sub).
		AddNode("z", func(context.Context, any) (any, error) { return map[string]any{"log": []any{"z"}}, nil }).
		AddEdge(engine.Start, "s").AddEdge("s", "z"),
		engine.WithSaver(engine.NewMemorySaver()), engine.WithInterruptBefore("z"))
	if res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread(thread)); err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: thread}, engine.WithSubgraphState())
	if err != nil || len(snap.Tasks) != 1 || snap.Tasks[0].State == nil {
		t.Fatalf("state: %+v, %v", snap, err)
	}
	cfg, err := g.UpdateState(ctx, snap.Tasks[0].State.Config, map[string]any{"log": []any{"su"}}, "i1")
	if err != nil || cfg.CheckpointNS == "" {
		t.Fatalf("update: %+v, %v", cfg, err)
	}
	return g, cfg
}

// breakpointNamespaces runs g from cfg with streaming and returns the
// namespaces the values and updates chunks of the empty interrupt came
// under.
func breakpointNamespaces(t *testing.T, g *engine.Graph, cfg engine.Config, opts ...engine.RunOption) [][]string {
	t.Helper()
	var out [][]string
	modes := []engine.StreamMode{engine.StreamValues, engine.StreamUpdates}
	for p, err := range g.StreamModes(ctx, nil, modes, append(opts, engine.FromConfig(cfg))...) {
		if err != nil {
			t.Fatal(err)
		}
		var ints any
		switch d := p.Data.(type) {
		case engine.ValuesChunk:
			ints = d[engine.InterruptChannel]
		case engine.UpdatesChunk:
			ints = d[engine.InterruptChannel]
		}
		if list, ok := ints.([]engine.Interruption); ok && len(list) == 0 {
			out = append(out, p.Namespace)
		}
	}
	return out
}

// A root run continued from an update_state in a subgraph's namespace has
// a checkpoint map; stopped at a root breakpoint while streaming its
// subgraphs, it streams the breakpoint's empty interrupt under the map's
// deepest namespace, the subgraph's, as LangGraph.js does (1.7.3 dist
// pregel/loop.js:726, 959-964). Without subgraph streaming it streams at
// the root. The run is interrupted either way.
func TestStreamModes_ForkedSubgraphBreakpointNamespace(t *testing.T) {
	g, cfg := forkedSubgraphBreakpoint(t, "bpns-subs")
	got := breakpointNamespaces(t, g, cfg, engine.WithSubgraphs())
	want := [][]string{{cfg.CheckpointNS}, {cfg.CheckpointNS}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("with subgraphs the empty interrupt streamed under %q, want %q (the checkpoint map's deepest namespace)", got, want)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "bpns-subs"})
	if err != nil || !slices.Equal(snap.Next, []string{"z"}) {
		t.Fatalf("the run did not stop before z: %+v, %v", snap, err)
	}

	g, cfg = forkedSubgraphBreakpoint(t, "bpns-root")
	if got := breakpointNamespaces(t, g, cfg); !slices.EqualFunc(got, [][]string{nil, nil}, slices.Equal) {
		t.Fatalf("without subgraphs the empty interrupt streamed under %q, want the root's", got)
	}
}
