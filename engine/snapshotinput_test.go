package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A snapshot's PULL task carries the state it reads, as its SnapshotTask
// doc says and as a live run's task view shows it: at a checkpoint where
// one task waits for an answer and its sibling finished, the waiting
// task's input is the checkpoint's state, not the state with the
// sibling's saved writes applied (GetState of the head shows those in
// Values). It was nil for every task but a Send's.
func TestGetState_PullTaskInputIsTheStateItReads(t *testing.T) {
	ctx := context.Background()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			ans, err := engine.Interrupt(ctx, "ok?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("log", []any{ans}), nil
		}).
		AddNode("note", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"note"}), nil }).
		AddEdge(engine.Start, "ask").AddEdge(engine.Start, "note").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{"in", "note"}; !reflect.DeepEqual(snap.Values["log"], want) {
		t.Fatalf("values %v, want log %v (the sibling's saved write applied)", snap.Values, want)
	}
	read := map[string]any{"log": []any{"in"}}
	for _, tk := range snap.Tasks {
		if !reflect.DeepEqual(tk.Input, read) {
			t.Errorf("task %s input %v, want %v", tk.Name, tk.Input, read)
		}
	}
	at, err := g.GetState(ctx, engine.Config{ThreadID: "t", CheckpointID: snap.Config.CheckpointID})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range at.Tasks {
		if !reflect.DeepEqual(tk.Input, read) {
			t.Errorf("by id: task %s input %v, want %v", tk.Name, tk.Input, read)
		}
	}
}
