package typed

import (
	"context"
	"errors"
	"reflect"

	"github.com/superstep/superstep/engine"
)

// Message is one chat message of a Messages field, in the shape LangGraph's
// add_messages merges: by ID, replacing a message with the same ID in place
// and appending a new one. A message written without an ID gets a random
// one.
//
// A tool-calling agent (ReAct) keeps its model's tool calls and their
// results in the history: an assistant message lists the calls it asks for
// in ToolCalls, and each result is a "tool" message whose ToolCallID names
// the call it answers, as LangChain's AIMessage.tool_calls and
// ToolMessage.tool_call_id (the same keys, which the debugger's
// conversation view reads). Fields left empty are not stored.
//
// A write may also remove messages: RemoveMessage(id) deletes the message
// with that ID, and RemoveAllMessages() everything before it (LangGraph's
// RemoveMessage and REMOVE_ALL_MESSAGES).
type Message struct {
	ID      string `json:"id,omitempty"` // "" gets a random id when merged
	Role    string `json:"role"`         // "user", "assistant", "system", "tool"
	Content string `json:"content"`      // the text
	// Name is the author's name (a tool's, on a tool message).
	Name string `json:"name,omitempty"`
	// ToolCalls are the tools an assistant message asks to call.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, on a tool message, the ID of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Remove makes the message a removal of the message with ID: it is
	// written as {"remove": ID} and never stored. Use RemoveMessage.
	Remove bool `json:"-"`
}

// ToolCall is one call of a tool that an assistant message asks for
// (LangChain's ToolCall): the tool's name and its arguments, and an ID
// that the tool message with its result names in ToolCallID. Args hold
// JSON's values once read back from a checkpoint: a number is a float64.
type ToolCall struct {
	ID   string         `json:"id"`   // what the result's ToolCallID names
	Name string         `json:"name"` // the tool
	Args map[string]any `json:"args"` // its arguments by name
}

// Messages is a chat history. A state field of this type is an add_messages
// channel without a tag; a node's write to it is the messages to merge.
type Messages []Message

// RemoveMessage is a write to a Messages field that deletes the message
// with id (an id the field does not hold fails the node, as in LangGraph:
// libs/langgraph/langgraph/graph/message.py:229).
func RemoveMessage(id string) Message { return Message{ID: id, Remove: true} }

// RemoveAllMessages is a write to a Messages field that deletes every
// message before it; the messages after it in the same write are kept
// (REMOVE_ALL_MESSAGES: libs/langgraph/langgraph/graph/message.py:38, :209).
func RemoveAllMessages() Message { return RemoveMessage(engine.RemoveAll) }

// StreamMessage streams m from a running node to the "messages" stream
// mode (engine.StreamMessage) as the engine's value of a message, the form
// Graph.Stream decodes into Part.Message. A message with an ID that the
// node then returns in its update is not streamed a second time; give
// the message its ID before streaming it (one without gets a random ID
// when merged, which the stream cannot know). engine.StreamMessage given
// the Message itself streams the Go value as it is: Part.Message stays nil
// and the update streams the message again.
//
// The error is m's encoding's (an *EncodeError for a tool call argument
// with no JSON form); nothing is streamed then.
func StreamMessage(ctx context.Context, m Message) error {
	v, err := Encode(m)
	if err != nil {
		return err
	}
	engine.StreamMessage(ctx, v)
	return nil
}

var messageType = reflect.TypeFor[Message]()

// messageCodec writes a removal in the reducer's form, {"remove": id}, and
// anything else as the plain struct; it reads both forms back.
func messageCodec() codec {
	plain := structCodec(messageType)
	return codec{
		enc: func(v reflect.Value, depth int) (any, error) {
			m := v.Interface().(Message)
			if !m.Remove {
				return plain.enc(v, depth)
			}
			if m.ID == "" {
				return nil, errors.New("a message removal needs the id of the message to remove")
			}
			return map[string]any{"remove": m.ID}, nil
		},
		dec: func(dst reflect.Value, v any) error {
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				if id, ok := m["remove"].(string); ok {
					dst.Set(reflect.ValueOf(RemoveMessage(id)))
					return nil
				}
			}
			return plain.dec(dst, v)
		},
	}
}
