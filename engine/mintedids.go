package engine

import (
	"bytes"
	"encoding/json"
)

// A message's id is a name, not an outcome. add_messages gives a message
// written without one a random id (reducers.go messageList; LangGraph's
// add_messages uses uuid4, langgraph/graph/message.py), and a node may
// mint ids itself, so two runs of one task that wrote the same new
// messages name them differently. A subgraph that returns its whole state
// carries the ids its own add_messages minted into its parent's writes, and
// a replay's later nodes read and write back the ids the replay minted.
//
// A tool call's id is a name too: a model's provider mints one per call
// (LangChain's ToolCall.id, @langchain/core dist/messages/tool.d.ts:93), and the
// tool message with the result refers to it by tool_call_id. Two runs of
// a model that asked for the same calls name them differently, and a
// replay's tools answer the calls by the replay's names.
//
// So two runs' writes compare up to a renaming of these names: one
// one-to-one map per kind of name (message, tool call) from the recorded
// run's names to the run's now, which
//   - pairs the names of the messages and tool calls at the same places in
//     the two runs' inputs (a replay whose earlier supersteps minted other
//     ids reads them where the recording read its own), and
//   - may pair a name neither input holds with another such name: both
//     runs minted it;
//
// any other pair of different names, a name used for two, or a message that
// keeps a name the other run's input gives another message, differs.
// Values other than these names compare exactly.

// InputRenaming is how a task's recorded input names its messages and
// tool calls in another run's input of the task, when the two are the same
// input up to those names (SameInput).
type InputRenaming struct{ r *idRenaming }

// SameInput reports whether got, a task's input in a run now, is its
// recorded input rec up to a one-to-one renaming of minted names (message
// and tool call ids): a replay whose earlier supersteps minted other ids
// for the same messages and calls gives the task the same input. The renaming says how to write the recorded
// run's writes in the run's names (Rename).
func SameInput(rec, got any) (*InputRenaming, bool) {
	r := newRenaming()
	if string(MustEncode(rec)) == string(MustEncode(got)) {
		return &InputRenaming{r}, true
	}
	if !r.same(plainJSON(rec), plainJSON(got)) {
		return nil, false
	}
	return &InputRenaming{r}, true
}

// Rename returns the recorded run's writes ws with the names the input
// holds (its messages' and tool calls' ids) in the run's names, so that a
// reused write edits or removes the message the run's state holds, or
// answers the call it asked. Names the input does not hold (those the
// recorded run minted) are kept. ws is not changed.
func (m *InputRenaming) Rename(ws []Write) []Write {
	if len(m.r.toGot) == 0 {
		return ws
	}
	out := make([]Write, len(ws))
	for i, w := range ws {
		out[i] = w
		if reservedWrite(w.Channel) {
			continue
		}
		v := plainJSON(w.Value)
		if !m.r.rename(v) {
			continue
		}
		if renamed, err := DecodeValue(MustEncode(v)); err == nil {
			out[i].Value = renamed
		}
	}
	return out
}

// rename writes the paired names over the recorded names in v, a plain
// JSON value, and reports whether it changed any.
func (r *idRenaming) rename(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		names := namesIn(x)
		for k, e := range x {
			if kind, isName := names[k]; isName {
				if to, paired := r.toGot[kind.key(e.(string))]; paired && to != e {
					x[k], changed = to, true
				}
				continue
			}
			changed = r.rename(e) || changed
		}
	case []any:
		for _, e := range x {
			changed = r.rename(e) || changed
		}
	}
	return changed
}

// nameKind is what a minted name names. Each kind is renamed on its own:
// a message and a tool call that happen to share an id are not the same.
type nameKind byte

const (
	messageName  nameKind = 'm' // a message's id, and a removal's
	toolCallName nameKind = 'c' // a tool call's id, and a tool result's tool_call_id
)

// key is how a name of the kind is kept in a renaming's maps.
func (k nameKind) key(name string) string { return string(k) + name }

// idRenaming is the one-to-one map from the recorded run's names to the
// run's now, with the names each run's input holds. Names are kept by
// nameKind.key in toGot's and toRec's keys, in their values as they are.
type idRenaming struct {
	toGot, toRec       map[string]string
	recKnown, gotKnown map[string]bool
	paired             []string // recorded keys paired by same, to undo
}

// renamingOf pairs the names of two runs' inputs, place by place.
func renamingOf(recInput, gotInput any) *idRenaming {
	r := newRenaming()
	rec, got := plainJSON(recInput), plainJSON(gotInput)
	collectNames(rec, r.recKnown)
	collectNames(got, r.gotKnown)
	r.pairInputs(rec, got)
	return r
}

func newRenaming() *idRenaming {
	return &idRenaming{toGot: map[string]string{}, toRec: map[string]string{}, recKnown: map[string]bool{}, gotKnown: map[string]bool{}}
}

// pairInputs walks the two inputs together and pairs the names held at
// the same places. Places where the inputs differ in shape pair nothing:
// the inputs are the state each run read, equal up to names when the runs
// agreed so far, and no guess is made where they did not.
func (r *idRenaming) pairInputs(rec, got any) {
	switch a := rec.(type) {
	case map[string]any:
		b, ok := got.(map[string]any)
		if !ok {
			return
		}
		an, bn := namesIn(a), namesIn(b)
		for k, kind := range an {
			if bn[k] != kind {
				continue
			}
			ra, gb := kind.key(a[k].(string)), kind.key(b[k].(string))
			_, recPaired := r.toGot[ra]
			_, gotPaired := r.toRec[gb]
			if !recPaired && !gotPaired {
				r.toGot[ra], r.toRec[gb] = b[k].(string), a[k].(string)
			}
		}
		for k, v := range a {
			if w, ok := b[k]; ok && an[k] == 0 {
				r.pairInputs(v, w)
			}
		}
	case []any:
		b, ok := got.([]any)
		if !ok {
			return
		}
		for i := range min(len(a), len(b)) {
			r.pairInputs(a[i], b[i])
		}
	}
}

// same reports whether rec and got, plain JSON values, are equal up to the
// renaming, pairing names both runs minted as it meets them.
func (r *idRenaming) same(rec, got any) bool {
	switch a := rec.(type) {
	case map[string]any:
		b, ok := got.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		names := namesIn(a)
		for k, v := range a {
			w, ok := b[k]
			if !ok {
				return false
			}
			if kind, isName := names[k]; isName {
				if !r.sameName(kind, v.(string), w) {
					return false
				}
				continue
			}
			if !r.same(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := got.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !r.same(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := got.(json.Number)
		return ok && a == b
	default:
		return rec == got
	}
}

// sameName reports whether the recorded name a and the run's got name the
// same message or tool call, pairing them when both runs minted them.
func (r *idRenaming) sameName(kind nameKind, a string, got any) bool {
	b, ok := got.(string)
	if !ok {
		return false
	}
	ka, kb := kind.key(a), kind.key(b)
	if to, paired := r.toGot[ka]; paired {
		return to == b
	}
	if from, paired := r.toRec[kb]; paired {
		return from == a
	}
	switch {
	case a == b && r.recKnown[ka] != r.gotKnown[kb]:
		// One run's input has the name and the other's has not.
		return false
	case a != b && (r.recKnown[ka] || r.gotKnown[kb]):
		// Not minted by both: a name of an input renamed.
		return false
	}
	r.toGot[ka], r.toRec[kb] = b, a
	r.paired = append(r.paired, ka)
	return true
}

// sameValues reports whether two runs' values for one channel are the same
// up to the renaming. Names it paired stay paired only when they are.
func (r *idRenaming) sameValues(rec, got []any) bool {
	mark := len(r.paired)
	if r.same(plainJSON(rec), plainJSON(got)) {
		return true
	}
	for _, ka := range r.paired[mark:] {
		delete(r.toRec, ka[:1]+r.toGot[ka])
		delete(r.toGot, ka)
	}
	r.paired = r.paired[:mark]
	return false
}

// namesIn returns the keys of m that hold minted names, with their kind:
//   - a tool call (LangChain's ToolCall: a string id with a name and args,
//     @langchain/core dist/messages/tool.d.ts:93; or the provider's form,
//     an id with a "function"): its id;
//   - a message (a map with a role, content or type, as add_messages and
//     LangChain's messages have): its id, and a tool result's tool_call_id
//     (tool.d.ts:40), which a message written without an id has too;
//   - a removal ({"remove": id}): the id.
//
// A tool call is told first: LangChain's carries type "tool_call", which
// would make it a message. Other maps with an id (a user record, a
// document) hold no names. It returns nil when m holds none.
func namesIn(m map[string]any) map[string]nameKind {
	id, _ := m["id"].(string)
	if id != "" {
		_, name := m["name"].(string)
		_, args := m["args"]
		_, function := m["function"].(map[string]any)
		if name && args || function {
			return map[string]nameKind{"id": toolCallName}
		}
	}
	if removed, ok := removalID(m); ok && removed != "" {
		return map[string]nameKind{"remove": messageName}
	}
	var names map[string]nameKind
	for _, k := range [...]string{"role", "content", "type"} {
		if _, has := m[k]; !has {
			continue
		}
		// A message; one written without an id still names its call.
		names = map[string]nameKind{}
		if id != "" {
			names["id"] = messageName
		}
		if call, _ := m["tool_call_id"].(string); call != "" {
			names["tool_call_id"] = toolCallName
		}
		break
	}
	if len(names) == 0 {
		return nil
	}
	return names
}

// collectNames adds the names held anywhere in v to names, by
// nameKind.key.
func collectNames(v any, names map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, kind := range namesIn(x) {
			names[kind.key(x[k].(string))] = true
		}
		for _, e := range x {
			collectNames(e, names)
		}
	case []any:
		for _, e := range x {
			collectNames(e, names)
		}
	}
}

// plainJSON is v as encoding/json decodes its encoding: maps, lists,
// strings, json.Number, booleans and nil, so two values compare by what
// they store.
func plainJSON(v any) any {
	dec := json.NewDecoder(bytes.NewReader(MustEncode(v)))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// WithoutMintedNames returns v as plain JSON with every minted name made
// empty: messages' ids, removals', tool calls' and tool results'
// tool_call_id. It is what two runs that minted different names for the
// same messages and calls agree on. A replay pairs its Sends with the
// recorded ones by their arguments this way (recording.KeyOf): a Send of
// one tool call each, the model's calls named anew by the replay, pairs
// with the recorded Send of the same call.
func WithoutMintedNames(v any) any { return blankNames(plainJSON(v)) }

func blankNames(v any) any {
	switch x := v.(type) {
	case map[string]any:
		names := namesIn(x)
		for k, e := range x {
			if _, isName := names[k]; isName {
				x[k] = ""
				continue
			}
			x[k] = blankNames(e)
		}
	case []any:
		for i, e := range x {
			x[i] = blankNames(e)
		}
	}
	return v
}
