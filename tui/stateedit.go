package tui

import (
	"fmt"
	"reflect"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"

	"github.com/superstep/superstep/engine"
)

// stateEdit is a text area holding a checkpoint's state as JSON, and what
// turns the edited state into the update to write (changes): the fork
// form's, and the answer box's state update. It is the one owner of how
// an edit of the state becomes an update.
type stateEdit struct {
	area     textarea.Model
	orig     map[string]any    // the state the editor started from
	start    string            // orig as the area first held it
	reducers map[string]string // state key -> reducer name
}

func newStateEdit(values map[string]any, info engine.GraphInfo) stateEdit {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.CharLimit = 0
	ta.SetValue(toJSON(values))
	ta.Focus()
	cursorToTop(&ta)
	reducers := map[string]string{}
	for _, c := range info.Channels {
		if c.Reducer != "" {
			reducers[c.Name] = c.Reducer
		}
	}
	return stateEdit{area: ta, orig: values, start: ta.Value(), reducers: reducers}
}

// edited reports whether the text was changed from the state it started
// from.
func (e stateEdit) edited() bool { return e.area.Value() != e.start }

// toUpdate reads the edited state (a JSON object of state keys, its
// error naming the line and column) and turns it into the update to write
// (changes); check, when not nil, is the engine's refusal of keys that
// are not state keys (session.CheckStateKeys), which the engine itself
// would drop unseen.
func (e stateEdit) toUpdate(check func(map[string]any) error) (map[string]any, error) {
	edited, err := parseState(e.area.Value())
	if err != nil {
		return nil, err
	}
	out, err := e.changes(edited)
	if err == nil && check != nil {
		err = check(out)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changes turns the edited state into the update to write: only the keys
// that changed, each written so that the key then holds what was typed.
// Every written key goes through its reducer, so an edit is not written
// as it stands there: an appending key ("add") sends just the items added
// at its end; a message key (add_messages, merged by id) sends the edited
// messages and a removal for each one deleted; any other edit of a reducer
// key (a counter's "sum", "concat", "merge", a custom reducer, or an
// appending key's items changed or removed) is written as an Overwrite,
// which replaces the value past the reducer (LangGraph's Overwrite), where
// the plain value would be folded into the old one (a sum edited from 1 to
// 3 became 4).
func (e stateEdit) changes(edited map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range edited {
		old, had := e.orig[k]
		if had && reflect.DeepEqual(engine.Normalize(old), engine.Normalize(v)) {
			continue
		}
		switch e.reducers[k] {
		case "":
			out[k] = v
		case "add":
			oldList, _ := old.([]any)
			newList, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s appends (reducer add): expected a list", k)
			}
			if len(newList) >= len(oldList) && reflect.DeepEqual(engine.Normalize(oldList), engine.Normalize(newList[:len(oldList)])) {
				out[k] = newList[len(oldList):]
			} else {
				out[k] = overwrite(v)
			}
		case "add_messages":
			msgs, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s holds messages: expected a list", k)
			}
			kept := map[string]bool{}
			for _, m := range msgs {
				if mm, ok := m.(map[string]any); ok {
					if id, ok := mm["id"].(string); ok {
						kept[id] = true
					}
				}
			}
			update := append([]any{}, msgs...)
			oldMsgs, _ := old.([]any)
			for _, m := range oldMsgs {
				if mm, ok := m.(map[string]any); ok {
					if id, ok := mm["id"].(string); ok && !kept[id] {
						update = append(update, map[string]any{"remove": id})
					}
				}
			}
			out[k] = update
		default:
			out[k] = overwrite(v)
		}
	}
	for k := range e.orig {
		if _, kept := edited[k]; !kept && e.reducers[k] == "" {
			return nil, fmt.Errorf("%s cannot be removed: set it to null instead", k)
		}
	}
	return out, nil
}

// overwrite is v written to a reducer key so that it replaces the key's
// value (engine.Overwrite in its wire form, which a store keeps as it is).
func overwrite(v any) map[string]any { return map[string]any{engine.OverwriteKey: v} }
