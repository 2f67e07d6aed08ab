package tui

import (
	"fmt"

	"github.com/superstep/superstep/termtext"
)

// conversationLines renders a list of chat messages (maps with role or
// type, content, tool_calls, tool_call_id, id; the add_messages shape) as
// a conversation: a header per message with its role, the content, each
// tool call with its arguments, a tool result marked with the call it
// answers. Ids are shown when withIDs. It returns false when v is not a
// list of messages.
func conversationLines(v any, withIDs bool) ([]string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	var out []string
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		role := str(m["role"])
		if role == "" {
			role = str(m["type"])
		}
		if role == "" {
			return nil, false
		}
		head := fmt.Sprintf("── %d · %s", i+1, termtext.Name(role))
		if name := str(m["name"]); name != "" {
			head += " (" + termtext.Name(name) + ")"
		}
		if id := str(m["tool_call_id"]); id != "" {
			head += " · answers " + termtext.Name(id)
		}
		if withIDs {
			if id := str(m["id"]); id != "" {
				head += " · id " + termtext.Name(id)
			}
		}
		out = append(out, head)
		out = append(out, contentLines(m["content"])...)
		if calls, ok := m["tool_calls"].([]any); ok {
			for _, c := range calls {
				cm, _ := c.(map[string]any)
				call := "  " + glyphToolCall + " " + termtext.Name(str(cm["name"])) + "(" + preview(cm["args"], previewBudget) + ")"
				if id := str(cm["id"]); id != "" {
					call += " · call " + termtext.Name(id)
				}
				out = append(out, call)
			}
		}
	}
	return out, true
}

// contentLines is a message's content, indented: text as its lines, a
// list of content blocks by their text or type, anything else previewed.
func contentLines(c any) []string {
	switch x := c.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		var out []string
		for _, l := range textLines(x) {
			out = append(out, "  "+l)
		}
		return out
	case []any:
		var out []string
		for _, b := range x {
			bm, _ := b.(map[string]any)
			if t := str(bm["text"]); t != "" {
				out = append(out, contentLines(t)...)
			} else {
				out = append(out, "  ["+termtext.Name(str(bm["type"]))+"] "+preview(b, previewBudget))
			}
		}
		return out
	}
	return []string{"  " + preview(c, previewBudget)}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
