package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestUpdateState_RefusesWhatItCannotApply: each way an update is refused
// says why, and writes no checkpoint.
func TestUpdateState_RefusesWhatItCannotApply(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("a", update("x", 1.0)).AddEdge(engine.Start, "a"),
		engine.WithLimits(engine.Limits{MaxWriteBytes: 16}))
	if _, err := g.Invoke(ctx, map[string]any{"x": 0.0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	on := engine.Config{ThreadID: "t"}
	bulk := func(cfg engine.Config, us ...engine.StateUpdate) error {
		_, err := g.BulkUpdateState(ctx, cfg, [][]engine.StateUpdate{us})
		return err
	}
	one := func(cfg engine.Config, values any, asNode string) error {
		_, err := g.UpdateState(ctx, cfg, values, asNode)
		return err
	}
	tests := []struct {
		name string
		err  error
		want string // the message, or "" for ErrNoCheckpoint
	}{
		{"input among several", bulk(on, engine.StateUpdate{Values: map[string]any{"x": 2.0}, AsNode: engine.AsInput}, engine.StateUpdate{Values: map[string]any{}, AsNode: "a"}), "__input__ takes a single update, not 2"},
		{"unsaved checkpoint id", one(engine.Config{ThreadID: "t", CheckpointID: "no-such-id"}, map[string]any{"x": 2.0}, "a"), ""},
		{"copy of nothing", one(engine.Config{ThreadID: "empty"}, nil, engine.AsCopy), "cannot copy a checkpoint that does not exist"},
		{"clear with values", one(on, map[string]any{"x": 2.0}, engine.AsClear), `node "__end__" does not exist`},
		{"input not a map", one(on, "x", engine.AsInput), "update as __input__ needs a map of state keys"},
		{"input over the write limit", one(on, map[string]any{"x": strings.Repeat("y", 64)}, engine.AsInput), `the run input wrote a value to key "x" larger than 16 bytes`},
		{"unknown node", one(on, map[string]any{"x": 2.0}, "ghost"), `node "ghost" does not exist`},
		{"node write over the limit", one(on, map[string]any{"x": strings.Repeat("y", 64)}, "a"), "larger than 16 bytes"},
		{"no supersteps", bulkOf(g, on), "no supersteps"},
		// The good first superstep is not written either: every superstep
		// is checked first, as LangGraph.js does.
		{"an empty superstep after a good one", bulkOf(g, on, []engine.StateUpdate{{Values: map[string]any{"x": 2.0}, AsNode: "a"}}, nil), "superstep 1 has no updates"},
	}
	before, _ := g.Saver().List(ctx, on, engine.ListOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				if !errors.Is(tt.err, engine.ErrNoCheckpoint) {
					t.Fatalf("err %v, want ErrNoCheckpoint", tt.err)
				}
				return
			}
			if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
				t.Fatalf("err %v, want one saying %q", tt.err, tt.want)
			}
		})
	}
	if err := bulkOf(g, on); !errors.Is(err, engine.ErrNoUpdates) {
		t.Fatalf("no supersteps: %v, want ErrNoUpdates", err)
	}
	after, _ := g.Saver().List(ctx, on, engine.ListOptions{})
	if len(after) != len(before) {
		t.Fatalf("refused updates wrote %d checkpoints", len(after)-len(before))
	}
}

// bulkOf is BulkUpdateState's error for these supersteps.
func bulkOf(g *engine.Graph, cfg engine.Config, supersteps ...[]engine.StateUpdate) error {
	_, err := g.BulkUpdateState(ctx, cfg, supersteps)
	return err
}

// An update without a node on a thread whose only seen versions are the
// interrupt's (a Command's goto on a new thread, stopped at an interrupt
// before any node saw a channel) names no node: it is refused as
// ambiguous, as LangGraph's update_state means to (index.ts counts the
// interrupt's entry as "not a new thread", then finds no node; 1.7.3
// fails there with a TypeError). It was written as __start__.
func TestUpdateState_OnlyTheInterruptHasSeenIsAmbiguous(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.Interrupt(ctx, "a?"); err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{"a"}), nil
		}).
		AddNode("b", update("log", []any{"b"})).
		AddEdge(engine.Start, "a").AddEdge("a", "b"),
		engine.WithSaver(engine.NewMemorySaver()))
	res, err := g.Invoke(ctx, engine.Command{Update: map[string]any{"log": []any{"in"}}, Goto: []any{"a"}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("invoke: %v %v", res, err)
	}
	before, _ := g.Saver().List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	_, err = g.UpdateState(ctx, engine.Config{ThreadID: "t"}, map[string]any{"log": []any{"u"}}, "")
	var iu *engine.InvalidUpdateError
	if !errors.As(err, &iu) || !strings.Contains(err.Error(), "ambiguous update") {
		t.Fatalf("err %v, want an ambiguous InvalidUpdateError", err)
	}
	after, _ := g.Saver().List(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if len(after) != len(before) {
		t.Fatalf("%d checkpoints after the refusal, %d before", len(after), len(before))
	}
}
