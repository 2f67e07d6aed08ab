package typed_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

type counter struct {
	N int `json:"n"`
}

// TestAddSubgraph_RunsAMapGraphOnTheSameKeys: a typed graph's subgraph
// node runs a compiled map-API graph on the keys they share, and the
// result decodes into the struct's field types; Decode reads a state map
// the same way and names the field a value does not fit.
func TestAddSubgraph_RunsAMapGraphOnTheSameKeys(t *testing.T) {
	sub, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("double", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) * 2}}, nil
		}).
		AddEdge(engine.Start, "double").AddEdge("double", engine.End).Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := typed.NewGraph[counter]("outer").
		AddNode("inc", func(_ context.Context, s *counter) (typed.Update[counter], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).
		AddSubgraph("sub", sub).
		AddEdge(engine.Start, "inc").AddEdge("inc", "sub").AddEdge("sub", engine.End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in counter
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.State.N != 4 {
		t.Fatalf("(1 + 1) doubled by the subgraph: n = %d, want 4", res.State.N)
	}
	s, err := g.Decode(res.Values)
	if err != nil || s.N != 4 {
		t.Fatalf("Decode of the result's values: %+v, %v", s, err)
	}
	_, err = g.Decode(map[string]any{"n": "four"})
	var de *typed.DecodeError
	if !errors.As(err, &de) || !strings.Contains(de.Where, `"n"`) {
		t.Fatalf("Decode of a string into an int field: %v, want a *DecodeError naming n", err)
	}
}

type drafts struct {
	Sections []string `json:"sections" reducer:"append"`
	Summary  string   `json:"summary"`
	Approved bool     `json:"approved"`
}

type review struct {
	Sections []string `json:"sections"`
	Summary  string   `json:"summary"`
	OK       bool     `json:"ok"`
}

// TestGraph_InvokeSubgraph: a node runs a typed subgraph with a typed
// input and hands back only the fields it chooses, where a subgraph node
// would append the shared list to itself; the subgraph's interrupt stops
// the parent, the resume reaches it, and its state is read by namespace.
func TestGraph_InvokeSubgraph(t *testing.T) {
	sub, err := typed.NewGraph[review]("review").
		AddNode("read", func(ctx context.Context, s *review) (typed.Update[review], error) {
			ok, err := typed.Interrupt[bool](ctx, len(s.Sections))
			if err != nil {
				return typed.Update[review]{}, err
			}
			return typed.Write(s, typed.Set(&s.Summary, strings.Join(s.Sections, "+")), typed.Set(&s.OK, ok)), nil
		}).
		AddEdge(engine.Start, "read").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := typed.NewGraph[drafts]("outer").
		AddNode("write", func(_ context.Context, s *drafts) (typed.Update[drafts], error) {
			return typed.Write(s, typed.Set(&s.Sections, []string{"a", "b"})), nil
		}).
		AddNode("review", func(ctx context.Context, s *drafts) (typed.Update[drafts], error) {
			var in review
			r, err := sub.InvokeSubgraph(ctx, typed.Write(&in, typed.Set(&in.Sections, s.Sections)))
			if err != nil {
				return typed.Update[drafts]{}, err
			}
			return typed.Write(s, typed.Set(&s.Summary, r.Summary), typed.Set(&s.Approved, r.OK)), nil
		}, engine.UsesSubgraph("review", sub.Graph)).
		AddEdge(engine.Start, "write").AddEdge("write", "review").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	thread := engine.OnThread("t")
	var in drafts
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Summary, "")), thread)
	if err != nil || res.Status != engine.StatusInterrupted || len(res.Interrupts) != 1 || res.Interrupts[0].Value != 2.0 {
		t.Fatalf("the subgraph's interrupt: %v %+v", err, res)
	}
	res, err = g.Resume(context.Background(), true, thread)
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: %v %+v", err, res)
	}
	if want := (drafts{Sections: []string{"a", "b"}, Summary: "a+b", Approved: true}); !reflect.DeepEqual(res.State, want) {
		t.Fatalf("state %+v, want %+v", res.State, want)
	}
	hs, err := g.History(context.Background(), engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ns string
	for _, h := range hs {
		for _, tk := range h.Tasks {
			if tk.Name == "review" && tk.Subgraph != "" {
				ns = tk.Subgraph
			}
		}
	}
	if ns == "" {
		t.Fatal("no task of review names its subgraph's namespace")
	}
	// The subgraph has no saver of its own: its state is read through the
	// graph that ran it, and decoded by the subgraph.
	cfg := engine.Config{ThreadID: "t", CheckpointNS: ns}
	if _, _, err := sub.State(context.Background(), cfg); !errors.Is(err, engine.ErrNoCheckpointer) {
		t.Fatalf("State of a subgraph without a saver: %v, want ErrNoCheckpointer", err)
	}
	if _, _, err := sub.StateIn(context.Background(), nil, cfg); !errors.Is(err, engine.ErrNoCheckpointer) {
		t.Fatalf("StateIn through no graph: %v, want ErrNoCheckpointer", err)
	}
	r, snap, err := sub.StateIn(context.Background(), g.Graph, cfg)
	if err != nil || r.Summary != "a+b" || !r.OK || snap.Config.CheckpointNS != ns {
		t.Fatalf("the subgraph's state in %s: %+v, %v", ns, r, err)
	}
}
