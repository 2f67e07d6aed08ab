package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// liveChanges are the channels a stepper stopped at an interrupt holds at
// other versions than its checkpoint: the writes it applied in memory.
func liveChanges(t *testing.T, saver *engine.MemorySaver, v *engine.StepView) []engine.PendingChannel {
	t.Helper()
	tup, err := saver.GetTuple(context.Background(), engine.Config{ThreadID: v.Thread, CheckpointID: v.CheckpointID})
	if err != nil || tup == nil {
		t.Fatalf("checkpoint %s: %v", v.CheckpointID, err)
	}
	var out []engine.PendingChannel
	for _, c := range v.Channels {
		saved, ok := tup.Checkpoint.ChannelVersions[c.Name]
		if ok == c.HasVer && saved == c.Version {
			continue
		}
		p := engine.PendingChannel{Name: c.Name, Version: c.Version, Available: c.Available}
		if c.Available {
			p.Value = c.Value
		}
		out = append(out, p)
	}
	return out
}

// The channels a checkpoint's saved writes change are those whose
// version applying them bumps, a write of an equal value included, with
// the values and versions the live run that stopped there holds: at the
// first interrupt, and again when a resume with an update stops at the
// second.
func TestGraph_PendingChannels_AsTheLiveRunHoldsThem(t *testing.T) {
	ctx := context.Background()
	saver := engine.NewMemorySaver()
	g := enginetest.WriteBesideInterrupt(t, saver)
	st, err := g.Start(ctx, map[string]any{"x": "kept", "log": []any{"in"}}, engine.OnThread("p"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Run(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(v *engine.StepView, want map[string]any) {
		t.Helper()
		if v.Status != engine.StatusInterrupted {
			t.Fatalf("status %v", v.Status)
		}
		tup, err := saver.GetTuple(ctx, engine.Config{ThreadID: "p", CheckpointID: v.CheckpointID})
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.PendingChannels(tup)
		if err != nil {
			t.Fatal(err)
		}
		if live := liveChanges(t, saver, v); !reflect.DeepEqual(got, live) {
			t.Errorf("PendingChannels:\n%+v\nthe live run holds:\n%+v", got, live)
		}
		values := map[string]any{}
		for _, p := range got {
			if p.Name == "x" || p.Name == "log" || p.Name == "y" {
				values[p.Name] = p.Value
			}
		}
		if !reflect.DeepEqual(values, want) {
			t.Errorf("state keys changed: %v, want %v", values, want)
		}
	}
	check(st.View(), map[string]any{"x": "kept", "log": []any{"in", "same"}})

	st, err = g.Start(ctx, engine.Command{Resume: "yes", Update: engine.Pairs("x", "kept")}, engine.OnThread("p"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Run(ctx); err != nil {
		t.Fatal(err)
	}
	check(st.View(), map[string]any{"x": "kept", "log": []any{"in", "same"}})
}

// A checkpoint with no pending writes changes nothing.
func TestGraph_PendingChannels_NoWrites(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := enginetest.WriteBesideInterrupt(t, saver)
	ctx := context.Background()
	if _, err := g.Invoke(ctx, map[string]any{"x": "kept"}, engine.OnThread("n")); err != nil {
		t.Fatal(err)
	}
	hist, err := saver.List(ctx, engine.Config{ThreadID: "n"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	head := *hist[0]
	if len(head.PendingWrites) == 0 {
		t.Fatal("the interrupted head saved no writes")
	}
	head.PendingWrites = nil
	if got, err := g.PendingChannels(&head); got != nil || err != nil {
		t.Fatalf("no writes: %v, %v", got, err)
	}
}
