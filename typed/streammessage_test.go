package typed_test

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// A node streams its reply as it makes it, then returns it in its update:
// the typed stream decodes the streamed message into Part.Message, and the
// update does not stream it a second time.
func TestStreamMessage_DecodedOnceInTheTypedStream(t *testing.T) {
	type State struct {
		Messages typed.Messages `json:"messages"`
	}
	reply := typed.Message{ID: "ai-1", Role: "assistant", Content: "on it", ToolCalls: []typed.ToolCall{
		{ID: "c1", Name: "lookup", Args: map[string]any{"order": "A-17"}},
	}}
	g, err := typed.NewGraph[State]("chat").
		AddNode("agent", func(ctx context.Context, s *State) (typed.Update[State], error) {
			if err := typed.StreamMessage(ctx, reply); err != nil {
				return typed.Update[State]{}, err
			}
			return typed.Write(s, typed.Set(&s.Messages, typed.Messages{reply})), nil
		}).
		AddEdge(engine.Start, "agent").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	var in State
	input := typed.Write(&in, typed.Set(&in.Messages, typed.Messages{{ID: "u1", Role: "user", Content: "refund?"}}))
	var got []*typed.Message
	for part, err := range g.Stream(context.Background(), input, []engine.StreamMode{engine.StreamMessages}) {
		if err != nil {
			t.Fatal(err)
		}
		if part.Message == nil {
			t.Fatalf("a messages part without Message: %#v", part.Data)
		}
		if part.Metadata.Node != "agent" {
			t.Errorf("message from node %q, want agent", part.Metadata.Node)
		}
		got = append(got, part.Message)
	}
	if len(got) != 1 {
		t.Fatalf("got %d messages, want the streamed one once: %+v", len(got), got)
	}
	m := got[0]
	if m.ID != "ai-1" || m.Content != "on it" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Args["order"] != "A-17" {
		t.Errorf("streamed %+v, want %+v", *m, reply)
	}
}

// Outside a node, as engine.StreamMessage, it does nothing.
func TestStreamMessage_OutsideANode(t *testing.T) {
	if err := typed.StreamMessage(context.Background(), typed.Message{Role: "assistant"}); err != nil {
		t.Fatal(err)
	}
}
