package engine

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
)

// AppendReducer concatenates lists: a list write appends its items, any other
// write appends itself (JavaScript's Array.concat).
func AppendReducer(current, write any) (any, error) {
	cur, err := asList(current)
	if err != nil {
		return nil, err
	}
	if l, ok := write.([]any); ok {
		return append(slices.Clip(cur), l...), nil
	}
	return append(slices.Clip(cur), write), nil
}

func asList(v any) ([]any, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return l, nil
	}
	return nil, fmt.Errorf("reducer expects a list, the key holds %T", v)
}

// RemoveAll is the message id that, written to an AddMessages key, drops every
// message before it.
const RemoveAll = "__remove_all__"

// AddMessagesReducer merges chat messages by id, as LangGraph's add_messages:
// a message whose id exists replaces it in place, a new id appends, and
// {"remove": id} deletes (an unknown id is an error). Messages are maps with
// "id", "role" and "content"; a message without an id gets a random one, and
// the roles "human" and "ai" become "user" and "assistant".
func AddMessagesReducer(current, write any) (any, error) {
	left, err := messageList(current)
	if err != nil {
		return nil, err
	}
	right, err := messageList(write)
	if err != nil {
		return nil, err
	}
	for i := len(right) - 1; i >= 0; i-- {
		if id, ok := removalID(right[i]); ok && id == RemoveAll {
			return right[i+1:], nil
		}
	}
	out := slices.Clone(left)
	index := make(map[string]int, len(out))
	for i, m := range out {
		index[messageID(m)] = i
	}
	removed := map[string]bool{}
	for _, m := range right {
		if id, ok := removalID(m); ok {
			if _, exists := index[id]; !exists {
				return nil, fmt.Errorf("attempting to delete a message with an ID that doesn't exist ('%s')", id) // message.py:229
			}
			removed[id] = true
			continue
		}
		id := messageID(m)
		if i, exists := index[id]; exists {
			out[i] = m
			delete(removed, id)
			continue
		}
		index[id] = len(out)
		out = append(out, m)
	}
	if len(removed) == 0 {
		return out, nil
	}
	kept := out[:0:0]
	for _, m := range out {
		if !removed[messageID(m)] {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

func messageList(v any) ([]any, error) {
	var l []any
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		l = x
	default:
		l = []any{x}
	}
	out := make([]any, len(l))
	for i, m := range l {
		mm, ok := m.(map[string]any)
		if !ok {
			if s, isStr := m.(string); isStr {
				mm = map[string]any{"role": "user", "content": s}
			} else {
				return nil, fmt.Errorf("a message must be a map with id, role and content, got %T", m)
			}
		}
		if _, isRemoval := removalID(mm); !isRemoval {
			if id, _ := mm["id"].(string); id == "" {
				mm = cloneMap(mm)
				mm["id"] = randomID()
			}
			if role, ok := mm["role"].(string); ok && roleAliases[role] != "" {
				mm = cloneMap(mm)
				mm["role"] = roleAliases[role]
			}
		}
		out[i] = mm
	}
	return out, nil
}

// roleAliases are the roles add_messages reads as others: LangChain's
// message coercion makes a "human" message a user's and an "ai" one the
// assistant's (@langchain/core messages/utils.js:53-54), so a message
// written with either reads back with the role it stands for.
var roleAliases = map[string]string{"human": "user", "ai": "assistant"}

func removalID(m any) (string, bool) {
	mm, ok := m.(map[string]any)
	if !ok || len(mm) != 1 {
		return "", false
	}
	id, ok := mm["remove"].(string)
	return id, ok
}

func messageID(m any) string {
	id, _ := m.(map[string]any)["id"].(string)
	return id
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
