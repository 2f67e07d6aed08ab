package engine_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A node whose output differs every run (a model call, a clock) and a
// deterministic node after it; an interrupt answered in between.
func rerunGraph(t *testing.T, calls *atomic.Int64) *engine.Graph {
	return mustCompile(t, engine.NewStateGraph(engine.LastValueKey("draft"), engine.AppendKey("log")).
		AddNode("model", func(context.Context, any) (any, error) {
			return engine.Pairs("draft", float64(calls.Add(1))), nil
		}).
		AddNode("review", func(ctx context.Context, s any) (any, error) {
			ans, err := engine.Interrupt(ctx, "ok?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{ans}), nil
		}).
		AddEdge(engine.Start, "model").AddEdge("model", "review"))
}

func TestGraph_RerunTask_RunsOneTaskWritesNothing(t *testing.T) {
	var calls atomic.Int64
	g := rerunGraph(t, &calls)
	cfg := engine.Config{ThreadID: "r"}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("r")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("r")); err != nil {
		t.Fatal(err)
	}
	hist, err := g.Saver().List(ctx, cfg, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(hist)
	find := func(node string) (*engine.CheckpointTuple, string) { return plannedTask(t, g, "r", node) }

	cp, id := find("model")
	r, err := g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "model" || len(r.Diff) != 1 || r.Diff[0].Channel != "draft" {
		t.Fatalf("rerun of model: %+v, want a diff on draft", r)
	}
	if calls.Load() != 2 {
		t.Fatalf("model ran %d times, want 2 (once recorded, once again)", calls.Load())
	}

	// review gets its recorded answer and writes the same.
	cp, id = find("review")
	r, err = g.RerunTask(ctx, cp, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Interrupts) != 0 || r.Diff != nil || len(r.Writes) == 0 {
		t.Fatalf("rerun of review: %+v, want the recorded writes again", r)
	}
	if calls.Load() != 2 {
		t.Fatalf("rerunning review ran model too (%d calls)", calls.Load())
	}
	after, _ := g.Saver().List(ctx, cfg, engine.ListOptions{})
	if len(after) != before {
		t.Fatalf("RerunTask wrote %d checkpoints to the saver", len(after)-before)
	}
	if _, err := g.RerunTask(ctx, cp, "no-such-task"); err == nil {
		t.Fatal("RerunTask of an unplanned task succeeded")
	}
}

func TestDiffWrites_ChannelByChannel(t *testing.T) {
	rec := []engine.Write{{Channel: "a", Value: 1.0}, {Channel: "log", Value: "x"}, {Channel: "log", Value: "y"}, {Channel: engine.InterruptChannel, Value: 1}}
	got := []engine.Write{{Channel: "log", Value: "x"}, {Channel: "log", Value: "y"}, {Channel: "a", Value: 1.0}}
	if d := engine.DiffWrites(rec, got); d != nil {
		t.Fatalf("equal writes differ: %+v", d)
	}
	got = append(got[:2:2], engine.Write{Channel: "b", Value: true})
	d := engine.DiffWrites(rec, got)
	if len(d) != 2 || d[0].Channel != "a" || d[0].HasGot || d[1].Channel != "b" || d[1].HasRecorded {
		t.Fatalf("diff %+v, want a missing and b added", d)
	}
}
