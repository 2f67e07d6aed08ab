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
// So two runs' writes compare up to a renaming of message ids: one
// one-to-one map from the recorded run's ids to the run's now, which
//   - pairs the ids of the messages at the same places in the two runs'
//     inputs (a replay whose earlier supersteps minted other ids reads
//     them where the recording read its own), and
//   - may pair an id neither input holds with another such id: both runs
//     minted it;
//
// any other pair of different ids, an id used for two, or a message that
// keeps a name the other run's input gives another message, differs.
// Values other than message ids compare exactly.

// InputRenaming is how a task's recorded input names its messages in
// another run's input of the task, when the two are the same input up to
// those names (SameInput).
type InputRenaming struct{ r *idRenaming }

// SameInput reports whether got, a task's input in a run now, is its
// recorded input rec up to a one-to-one renaming of message ids: a replay
// whose earlier supersteps minted other ids for the same messages gives
// the task the same input. The renaming says how to write the recorded
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

// Rename returns the recorded run's writes ws with the ids of the input's
// messages in the run's names, so that a reused write edits or removes
// the message the run's state holds. Ids the input does not hold (those
// the recorded run minted) are kept. ws is not changed.
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

// rename writes the paired names over the recorded ids in v, a plain JSON
// value, and reports whether it changed any.
func (r *idRenaming) rename(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		_, isMessage := messageIDOf(x)
		_, isRemoval := removalID(x)
		for k, e := range x {
			if id, ok := e.(string); ok && (isMessage && k == "id" || isRemoval && k == "remove") {
				if to, paired := r.toGot[id]; paired && to != id {
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

// idRenaming is the one-to-one map from the recorded run's message ids to
// the run's now, with the ids each run's input holds.
type idRenaming struct {
	toGot, toRec       map[string]string
	recKnown, gotKnown map[string]bool
	paired             []string // recorded ids paired by same, to undo
}

// renamingOf pairs the message ids of two runs' inputs, place by place.
func renamingOf(recInput, gotInput any) *idRenaming {
	r := newRenaming()
	rec, got := plainJSON(recInput), plainJSON(gotInput)
	collectMessageIDs(rec, r.recKnown)
	collectMessageIDs(got, r.gotKnown)
	r.pairInputs(rec, got)
	return r
}

func newRenaming() *idRenaming {
	return &idRenaming{toGot: map[string]string{}, toRec: map[string]string{}, recKnown: map[string]bool{}, gotKnown: map[string]bool{}}
}

// pairInputs walks the two inputs together and pairs the ids of messages
// at the same places. Places where the inputs differ in shape pair nothing:
// the inputs are the state each run read, equal up to names when the runs
// agreed so far, and no guess is made where they did not.
func (r *idRenaming) pairInputs(rec, got any) {
	switch a := rec.(type) {
	case map[string]any:
		b, ok := got.(map[string]any)
		if !ok {
			return
		}
		ra, rok := messageIDOf(a)
		gb, gok := messageIDOf(b)
		if rok && gok && r.toGot[ra] == "" && r.toRec[gb] == "" {
			r.toGot[ra], r.toRec[gb] = gb, ra
		}
		for k, v := range a {
			if w, ok := b[k]; ok {
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
// renaming, pairing ids both runs minted as it meets them.
func (r *idRenaming) same(rec, got any) bool {
	switch a := rec.(type) {
	case map[string]any:
		b, ok := got.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		_, isMessage := messageIDOf(a)
		_, isRemoval := removalID(a)
		for k, v := range a {
			w, ok := b[k]
			if !ok {
				return false
			}
			if isMessage && k == "id" || isRemoval && k == "remove" {
				if !r.sameID(v.(string), w) {
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

// sameID reports whether the recorded id a and the run's got name the same
// message, pairing them when both runs minted them.
func (r *idRenaming) sameID(a string, got any) bool {
	b, ok := got.(string)
	if !ok {
		return false
	}
	if to, paired := r.toGot[a]; paired {
		return to == b
	}
	if from, paired := r.toRec[b]; paired {
		return from == a
	}
	switch {
	case a == b && r.recKnown[a] != r.gotKnown[b]:
		// One run's input has the message and the other's has not.
		return false
	case a != b && (r.recKnown[a] || r.gotKnown[b]):
		// Not minted by both: a message of an input renamed.
		return false
	}
	r.toGot[a], r.toRec[b] = b, a
	r.paired = append(r.paired, a)
	return true
}

// sameValues reports whether two runs' values for one channel are the same
// up to the renaming. Ids it paired stay paired only when they are.
func (r *idRenaming) sameValues(rec, got []any) bool {
	mark := len(r.paired)
	if r.same(plainJSON(rec), plainJSON(got)) {
		return true
	}
	for _, a := range r.paired[mark:] {
		delete(r.toRec, r.toGot[a])
		delete(r.toGot, a)
	}
	r.paired = r.paired[:mark]
	return false
}

// messageIDOf returns the id of m when m is a message: a map with a string
// id and a role, content or type, as add_messages and LangChain's messages
// have. Other maps with an id (a user record, a document) are not renamed.
func messageIDOf(m map[string]any) (string, bool) {
	id, ok := m["id"].(string)
	if !ok || id == "" {
		return "", false
	}
	for _, k := range [...]string{"role", "content", "type"} {
		if _, has := m[k]; has {
			return id, true
		}
	}
	return "", false
}

// collectMessageIDs adds the ids of every message in v to ids.
func collectMessageIDs(v any, ids map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if id, ok := messageIDOf(x); ok {
			ids[id] = true
		}
		for _, e := range x {
			collectMessageIDs(e, ids)
		}
	case []any:
		for _, e := range x {
			collectMessageIDs(e, ids)
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

// WithoutMessageIDs returns v as plain JSON with every message's id, and
// every removal's, made empty: what two runs that minted different ids
// for the same messages agree on. A replay pairs its Sends with the
// recorded ones by their arguments this way (recording.KeyOf).
func WithoutMessageIDs(v any) any { return blankMessageIDs(plainJSON(v)) }

func blankMessageIDs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		_, isMessage := messageIDOf(x)
		_, isRemoval := removalID(x)
		for k, e := range x {
			switch {
			case isMessage && k == "id", isRemoval && k == "remove":
				x[k] = ""
			default:
				x[k] = blankMessageIDs(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = blankMessageIDs(e)
		}
	}
	return v
}
