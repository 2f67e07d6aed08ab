package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// chat is an agent loop in miniature: the model asks for a tool, the tool
// answers, the model replies.
func chat(t testing.TB) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.MessagesKey("messages")).
		AddNode("agent", func(_ context.Context, s any) (any, error) {
			n := len(s.(map[string]any)["messages"].([]any))
			if n == 1 {
				return engine.Pairs("messages", []any{map[string]any{"id": "m2", "role": "assistant", "content": "",
					"tool_calls": []any{map[string]any{"id": "call_1", "name": "search", "args": map[string]any{"q": "sky colour"}}}}}), nil
			}
			return engine.Pairs("messages", []any{map[string]any{"id": "m4", "role": "assistant", "content": "Rayleigh scattering:\nshort wavelengths scatter more."}}), nil
		}).
		AddNode("tool", func(context.Context, any) (any, error) {
			return engine.Pairs("messages", []any{map[string]any{"id": "m3", "role": "tool", "tool_call_id": "call_1", "content": "blue light scatters most"}}), nil
		}).
		AddEdge(engine.Start, "agent").
		AddConditionalEdges("agent", func(_ context.Context, s map[string]any) (any, error) {
			if len(s["messages"].([]any)) == 2 {
				return "tool", nil
			}
			return engine.End, nil
		}, "tool", engine.End).
		AddEdge("tool", "agent").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g, saver
}

func chatModel(t testing.TB, w, h int) Model {
	g, saver := chat(t)
	opts := Options{Thread: "chat", Input: map[string]any{"messages": []any{map[string]any{"id": "m1", "role": "user", "content": "Why is the sky blue?"}}}, Saver: saver}
	return newTestModel(t, newEngineSession(g, opts), opts, w, h)
}

// A messages channel reads as a conversation: in the channels pane, in
// the inspector (roles, content, tool calls and results; v for the JSON, I
// for ids) and in diffs.
func TestModel_Conversation(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := chatModel(t, sz.w, sz.h)
			m = press(t, m, "c")
			if m.view.Status != engine.StatusDone {
				t.Fatalf("status %v err %v", m.view.Status, m.err)
			}
			if !strings.Contains(m.View(), "4 messages · assistan") {
				t.Fatalf("channels pane:\n%s", m.View())
			}
			m = press(t, m, "tab", "enter")
			if m.mode != modeInspect || !m.insp.convo {
				t.Fatalf("mode %v convo %v", m.mode, m.insp.convo)
			}
			v := m.View()
			for _, want := range []string{"── 1 · user", "Why is the sky blue?", "ƒ search({q: \"sky colour\"})", "── 3 · tool · answers call_1", "short wavelengths"} {
				if !strings.Contains(v, want) {
					t.Fatalf("conversation lacks %q:\n%s", want, v)
				}
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("conversation-%dx%d.golden", sz.w, sz.h), v)
			m = press(t, m, "I")
			if !strings.Contains(m.View(), "· id m2") {
				t.Fatalf("I should show ids:\n%s", m.View())
			}
			m = press(t, m, "v")
			if m.insp.convo || !strings.Contains(strings.Join(m.insp.lines, "\n"), `"tool_call_id": "call_1"`) {
				t.Fatalf("v should show the JSON:\n%s", m.View())
			}
			// The diff of the last step names the message by role.
			m = press(t, m, "esc", "d")
			if !strings.Contains(m.View(), "+ assistant [id=m4]:") {
				t.Fatalf("diff:\n%s", m.View())
			}
		})
	}
}
