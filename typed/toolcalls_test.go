package typed_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/typed"
)

// A Message carries an assistant's tool calls and a tool result's call id
// under LangChain's keys (tool_calls with id, name and args; tool_call_id;
// name), through a bbolt checkpoint and back; a plain message keeps only
// id, role and content. Message had no place for them, so a typed ReAct
// agent could not keep its tool calls, and a []struct field of its own
// tagged add_messages was refused.
func TestMessage_ToolCallsRoundTrip(t *testing.T) {
	type state struct {
		Chat typed.Messages `json:"chat"`
	}
	store, err := persist.Open(filepath.Join(t.TempDir(), "db"), persist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	call := typed.ToolCall{ID: "c1", Name: "search", Args: map[string]any{"q": "go", "n": 2}}
	g, err := typed.NewGraph[state]("tools").
		AddNode("agent", func(_ context.Context, s *state) (typed.Update[state], error) {
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{
				{ID: "a1", Role: "assistant", ToolCalls: []typed.ToolCall{call}},
			})), nil
		}).
		AddNode("tools", func(_ context.Context, s *state) (typed.Update[state], error) {
			c := s.Chat[len(s.Chat)-1].ToolCalls[0]
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{
				{ID: "t1", Role: "tool", Name: c.Name, ToolCallID: c.ID, Content: "found"},
			})), nil
		}).
		AddEdge(engine.Start, "agent").AddEdge("agent", "tools").
		Compile(engine.WithSaver(store))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var in state
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Chat, typed.Messages{{ID: "u1", Role: "user", Content: "hi"}})), engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	s, snap, err := g.State(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := typed.Messages{
		{ID: "u1", Role: "user", Content: "hi"},
		{ID: "a1", Role: "assistant", ToolCalls: []typed.ToolCall{{ID: "c1", Name: "search", Args: map[string]any{"q": "go", "n": 2.0}}}},
		{ID: "t1", Role: "tool", Name: "search", ToolCallID: "c1", Content: "found"},
	}
	if !reflect.DeepEqual(s.Chat, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", s.Chat, want)
	}
	stored := []any{
		map[string]any{"id": "u1", "role": "user", "content": "hi"},
		map[string]any{"id": "a1", "role": "assistant", "content": "", "tool_calls": []any{
			map[string]any{"id": "c1", "name": "search", "args": map[string]any{"q": "go", "n": 2.0}},
		}},
		map[string]any{"id": "t1", "role": "tool", "content": "found", "name": "search", "tool_call_id": "c1"},
	}
	if got := snap.Values["chat"]; !reflect.DeepEqual(got, stored) {
		t.Fatalf("stored\n%#v\nwant\n%#v", got, stored)
	}
}
