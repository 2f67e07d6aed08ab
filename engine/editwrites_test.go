package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

func twoSteps(t *testing.T) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("log")).
		AddNode("tool", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", 1.0, "log", []any{"tool"}), nil
		}).
		AddNode("use", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", s.(map[string]any)["total"].(float64)*10), nil
		}).
		AddEdge(engine.Start, "tool").AddEdge("tool", "use").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g, saver
}

// Edited writes are applied by the Update, and the checkpoint says they
// were edited and by whom; the next step runs on them.
func TestStepper_EditWrites(t *testing.T) {
	ctx := context.Background()
	g, _ := twoSteps(t)
	s, err := g.Start(ctx, map[string]any{"total": 0.0}, engine.OnThread("e"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Superstep(ctx); err != nil { // step 0
		t.Fatal(err)
	}
	if err := s.EditWrites("x", nil, "me"); !errors.Is(err, engine.ErrNotExecuted) {
		t.Fatalf("before Execute: %v", err)
	}
	for s.Phase() != engine.PhaseExecuted {
		if err := s.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tool := s.View().Tasks[0]
	if err := s.EditWrites("nope", nil, "me"); !errors.Is(err, engine.ErrNoTask) {
		t.Fatalf("unknown task: %v", err)
	}
	var iu *engine.InvalidUpdateError
	if err := s.EditWrites(tool.ID, []engine.Write{{Channel: "no_such_key", Value: 1.0}}, "me"); !errors.As(err, &iu) {
		t.Fatalf("unknown channel: %v", err)
	}
	// The tasks channel takes Sends to the graph's nodes only: anything
	// else would be dropped without a word and the fan-out would vanish.
	for _, bad := range []any{map[string]any{"node": "use", "arg": 1.0}, engine.Send{Node: "nosuch", Arg: 1.0}} {
		err := s.EditWrites(tool.ID, []engine.Write{{Channel: "total", Value: 1.0}, {Channel: engine.TasksChannel, Value: bad}}, "me")
		if !errors.As(err, &iu) || iu.Channel != engine.TasksChannel || !strings.Contains(iu.Msg, "write 2") {
			t.Fatalf("a tasks write %v: %v", bad, err)
		}
	}
	if err := g.CheckWrites([]engine.Write{{Channel: engine.TasksChannel, Value: engine.Send{Node: "use", Arg: 1.0}}}); err != nil {
		t.Fatalf("a Send to a node refused: %v", err)
	}
	edited := []engine.Write{{Channel: "total", Value: 7.0}, {Channel: "log", Value: []any{"edited"}}}
	for _, w := range tool.Writes {
		if w.Channel != "total" && w.Channel != "log" {
			edited = append(edited, w) // keep the routing
		}
	}
	if err := s.EditWrites(tool.ID, edited, "alice in superstep tui"); err != nil {
		t.Fatal(err)
	}
	if err := s.Next(ctx); err != nil { // Update
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "e"})
	if err != nil {
		t.Fatal(err)
	}
	md := snap.Metadata
	if md.Source != engine.SourceUpdate || md.Extra[engine.MetaEditedWrites] != "tool" || md.Extra[engine.MetaEditedBy] != "alice in superstep tui" {
		t.Fatalf("metadata %+v", md)
	}
	if snap.Values["total"] != 7.0 {
		t.Fatalf("values %v", snap.Values)
	}
	// What the task really wrote stays saved where it ran.
	parent, err := g.GetState(ctx, engine.Config{ThreadID: "e", CheckpointID: snap.ParentID})
	if err != nil {
		t.Fatal(err)
	}
	if parent.Tasks[0].Result["total"] != 1.0 {
		t.Fatalf("the original writes are gone: %+v", parent.Tasks[0])
	}
	// The graph goes on with the edited value, as a loop step again.
	if err := s.Superstep(ctx); err != nil {
		t.Fatal(err)
	}
	last, _ := g.GetState(ctx, engine.Config{ThreadID: "e"})
	if last.Values["total"] != 70.0 || last.Metadata.Source != engine.SourceLoop || last.Metadata.Extra[engine.MetaEditedWrites] != nil {
		t.Fatalf("next step: %v %+v", last.Values, last.Metadata)
	}
}
