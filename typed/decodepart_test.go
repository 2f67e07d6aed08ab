package typed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// A parent streams its subgraph's chunks with WithSubgraphs: the parent
// leaves their state to Data, the subgraph's DecodePart decodes it into
// the subgraph's type, and a chat message the subgraph streams is decoded
// in the parent's stream as at the root.
func TestDecodePart_SubgraphChunks(t *testing.T) {
	type Child struct {
		Topic string `json:"topic"`
		Draft string `json:"draft"`
	}
	type Parent struct {
		Topic string `json:"topic"`
		Draft string `json:"draft"`
		Done  bool   `json:"done"`
	}
	sub, err := typed.NewGraph[Child]("child").
		AddNode("write", func(ctx context.Context, s *Child) (typed.Update[Child], error) {
			if err := typed.StreamMessage(ctx, typed.Message{ID: "m1", Role: "assistant", Content: "writing"}); err != nil {
				return typed.Update[Child]{}, err
			}
			return typed.Write(s, typed.Set(&s.Draft, "on "+s.Topic)), nil
		}).
		AddEdge(engine.Start, "write").Compile()
	if err != nil {
		t.Fatal(err)
	}
	parent, err := typed.NewGraph[Parent]("parent").
		AddSubgraph("child", sub.Graph).
		AddNode("finish", func(_ context.Context, s *Parent) (typed.Update[Parent], error) {
			return typed.Write(s, typed.Set(&s.Done, true)), nil
		}).
		AddEdge(engine.Start, "child").AddEdge("child", "finish").Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in Parent
	modes := []engine.StreamMode{engine.StreamUpdates, engine.StreamValues, engine.StreamMessages}
	var updates, values, messages int
	for part, err := range parent.Stream(context.Background(), typed.Write(&in, typed.Set(&in.Topic, "go")), modes, engine.WithSubgraphs()) {
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Namespace) == 0 {
			continue
		}
		if !strings.HasPrefix(part.Namespace[0], "child:") {
			t.Fatalf("namespace %v", part.Namespace)
		}
		if part.State != nil || part.Update != nil {
			t.Errorf("the parent decoded a subgraph chunk into its own type: %+v", part)
		}
		if part.Mode == engine.StreamMessages {
			messages++
			if part.Message == nil || part.Message.Content != "writing" {
				t.Errorf("subgraph message not decoded: %#v", part.Data)
			}
			continue
		}
		sp, err := sub.DecodePart(part.StreamPart)
		if err != nil {
			t.Fatal(err)
		}
		switch part.Mode {
		case engine.StreamUpdates:
			updates++
			if sp.Node != "write" || sp.Update == nil || sp.Update.Draft != "on go" || len(sp.Keys) != 1 || sp.Keys[0] != "draft" {
				t.Errorf("subgraph update: node %q keys %v update %+v", sp.Node, sp.Keys, sp.Update)
			}
		case engine.StreamValues:
			values++
			if sp.State == nil || sp.State.Topic != "go" {
				t.Errorf("subgraph values: %+v", sp.State)
			}
		}
	}
	if updates != 1 || values == 0 || messages != 1 {
		t.Errorf("subgraph chunks: %d updates, %d values, %d messages; want 1, some, 1", updates, values, messages)
	}
}

// A subgraph's updates chunk in its parent's stream says which node wrote
// which keys, and a subgraph's interrupt is one, without DecodePart: only
// the values, of the subgraph's type, are left to Data.
func TestStream_SubgraphUpdateNamesItsNode(t *testing.T) {
	type Child struct {
		Topic string   `json:"topic"`
		Draft string   `json:"draft"`
		Notes []string `json:"notes"`
	}
	type Parent struct {
		Topic string `json:"topic"`
		Draft string `json:"draft"`
	}
	sub, err := typed.NewGraph[Child]("child").
		AddNode("write", func(_ context.Context, s *Child) (typed.Update[Child], error) {
			return typed.Write(s, typed.Set(&s.Notes, []string{"n"}), typed.Set(&s.Draft, "on "+s.Topic)), nil
		}).
		AddNode("ask", func(ctx context.Context, s *Child) (typed.Update[Child], error) {
			ok, err := typed.Interrupt[bool](ctx, "publish?")
			if err != nil {
				return typed.Update[Child]{}, err
			}
			_ = ok
			return typed.Update[Child]{}, nil
		}).
		AddEdge(engine.Start, "write").AddEdge("write", "ask").Compile()
	if err != nil {
		t.Fatal(err)
	}
	parent, err := typed.NewGraph[Parent]("parent").
		AddSubgraph("child", sub.Graph).
		AddEdge(engine.Start, "child").Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	var in Parent
	var nodes []string
	var asked int
	for part, err := range parent.Stream(context.Background(), typed.Write(&in, typed.Set(&in.Topic, "go")), []engine.StreamMode{engine.StreamUpdates}, engine.OnThread("t"), engine.WithSubgraphs()) {
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Namespace) == 0 {
			continue
		}
		if part.Update != nil {
			t.Errorf("the parent decoded a subgraph update into its own type: %+v", part.Update)
		}
		if len(part.Interrupts) > 0 {
			asked++
			if part.Interrupts[0].Value != "publish?" {
				t.Errorf("subgraph interrupt: %+v", part.Interrupts)
			}
			continue
		}
		nodes = append(nodes, part.Node+":"+strings.Join(part.Keys, ","))
	}
	if got := strings.Join(nodes, " "); got != "write:draft,notes" || asked != 1 {
		t.Errorf("subgraph updates %q and %d interrupts, want \"write:draft,notes\" and 1", got, asked)
	}
}
