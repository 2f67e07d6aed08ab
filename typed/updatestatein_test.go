package typed_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// A subgraph asks a person; before answering, the draft it asks about is
// edited in the subgraph's own checkpoint, typed, through the parent that
// keeps it (LangGraph's update_state with the subgraph's config), and the
// resumed run reads the edit.
func TestUpdateStateIn_EditsASubgraphsStateThroughItsParent(t *testing.T) {
	type Parent struct {
		Q      string `json:"q"`
		Answer string `json:"answer"`
	}
	type Child struct {
		Q      string `json:"q"`
		Answer string `json:"answer"`
		Draft  string `json:"draft"`
	}
	sub, err := typed.NewGraph[Child]("child").
		AddNode("write", func(_ context.Context, s *Child) (typed.Update[Child], error) {
			return typed.Write(s, typed.Set(&s.Draft, "draft for "+s.Q)), nil
		}).
		AddNode("review", func(ctx context.Context, s *Child) (typed.Update[Child], error) {
			ok, err := typed.Interrupt[bool](ctx, s.Draft)
			if err != nil || !ok {
				return typed.Update[Child]{}, err
			}
			return typed.Write(s, typed.Set(&s.Answer, s.Draft)), nil
		}).
		AddEdge(engine.Start, "write").AddEdge("write", "review").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	parent, err := typed.NewGraph[Parent]("parent").
		AddSubgraph("child", sub.Graph).AddEdge(engine.Start, "child").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t")
	var in Parent
	res, err := parent.Run(ctx, typed.Write(&in, typed.Set(&in.Q, "why")), thread)
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("run: %v, %v", res.Status, err)
	}
	_, snap, err := parent.State(ctx, engine.Config{ThreadID: "t"})
	if err != nil || len(snap.Tasks) != 1 || snap.Tasks[0].Subgraph == "" {
		t.Fatalf("parent state: %v %+v", err, snap)
	}
	at := engine.Config{ThreadID: "t", CheckpointNS: snap.Tasks[0].Subgraph}

	// The subgraph has no saver of its own: its own methods say where to
	// go instead of only that there is no saver.
	var fix Child
	edit := typed.Write(&fix, typed.Set(&fix.Draft, "edited"))
	_, err = sub.UpdateState(ctx, at, edit, "write")
	if !errors.Is(err, engine.ErrNoCheckpointer) || !strings.Contains(err.Error(), "UpdateStateIn") || !strings.Contains(err.Error(), `"child"`) {
		t.Errorf("sub.UpdateState: %v, want ErrNoCheckpointer pointing at UpdateStateIn", err)
	}
	if _, _, err := sub.State(ctx, at); !errors.Is(err, engine.ErrNoCheckpointer) || !strings.Contains(err.Error(), "StateIn") {
		t.Errorf("sub.State: %v, want ErrNoCheckpointer pointing at StateIn", err)
	}
	if _, err := sub.UpdateStateIn(ctx, nil, at, edit, "write"); !errors.Is(err, engine.ErrNoCheckpointer) {
		t.Errorf("nil owner: %v, want ErrNoCheckpointer", err)
	}

	if _, err := sub.UpdateStateIn(ctx, parent.Graph, at, edit, "write"); err != nil {
		t.Fatal(err)
	}
	child, _, err := sub.StateIn(ctx, parent.Graph, at)
	if err != nil || child.Draft != "edited" {
		t.Fatalf("subgraph state after the edit: %+v, %v", child, err)
	}
	res, err = parent.Resume(ctx, true, thread)
	if err != nil || res.Status != engine.StatusDone || res.State.Answer != "edited" {
		t.Fatalf("resume: %v %+v %v, want the edited draft as the answer", res.Status, res.State, err)
	}
}
