package tui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// openFork opens the fork form on a checkpoint and asks the engine which
// node the update would be written as if none is chosen, so the form can
// name it before anything is written.
func (m *Model) openFork(cpID string, values map[string]any) tea.Cmd {
	m.fork = newForkForm(cpID, values, m.info)
	m.prevMode, m.mode = m.mode, modeFork
	return m.do(opInfer, func(ctx context.Context, s session) opDoneMsg {
		n, err := s.InferAsNode(ctx, cpID)
		return opDoneMsg{text: n, err: err}
	})
}

func (m *Model) forkKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.fork.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = m.prevMode
		return nil
	case key.Matches(msg, k.AsNode):
		m.fork.as = (m.fork.as + 1) % len(m.fork.nodes)
		return nil
	case key.Matches(msg, k.Submit):
		edited, err := parseState(m.fork.area.Value())
		if err == nil {
			edited, err = m.fork.update(edited)
		}
		if err != nil {
			m.fork.err = err.Error()
			return nil
		}
		vals := edited
		id, as := m.fork.cpID, m.fork.asNode()
		return m.do(opUpdate, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.UpdateState(ctx, id, vals, as)
			return opDoneMsg{view: v, err: err}
		})
	}
	var cmd tea.Cmd
	m.fork.area, cmd = m.fork.area.Update(msg)
	m.fork.err = ""
	return cmd
}

// forkForm edits a checkpoint's state as JSON and writes it as a new
// checkpoint with UpdateState.
type forkForm struct {
	cpID     string
	area     textarea.Model
	nodes    []string // "" (let the engine infer), the nodes, __input__
	as       int
	err      string
	orig     map[string]any    // the state the form started from
	reducers map[string]string // state key -> reducer name
	// inferred is the node the engine writes as when none is chosen, and
	// inferErr why it cannot choose (an ambiguous update).
	inferred, inferErr string
	keys               forkKeyMap // made by enableKeys
}

func newForkForm(cpID string, values map[string]any, info engine.GraphInfo) forkForm {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.CharLimit = 0
	ta.SetValue(toJSON(values))
	ta.Focus()
	cursorToTop(&ta)
	nodes := []string{""}
	for _, n := range info.Nodes {
		nodes = append(nodes, n.Name)
	}
	nodes = append(nodes, engine.AsInput)
	reducers := map[string]string{}
	for _, c := range info.Channels {
		if c.Reducer != "" {
			reducers[c.Name] = c.Reducer
		}
	}
	return forkForm{cpID: cpID, area: ta, nodes: nodes, orig: values, reducers: reducers}
}

// update turns the edited state into the update to write: only the keys
// that changed, since every written key goes through its reducer. An
// appending key ("add") sends just the items added at its end; a message
// key (add_messages, merged by id) sends the edited messages and a removal
// for each one deleted.
func (f forkForm) update(edited map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range edited {
		old, had := f.orig[k]
		if had && reflect.DeepEqual(engine.Normalize(old), engine.Normalize(v)) {
			continue
		}
		switch f.reducers[k] {
		case "add":
			oldList, _ := old.([]any)
			newList, ok := v.([]any)
			if !ok || len(newList) < len(oldList) || !reflect.DeepEqual(engine.Normalize(oldList), engine.Normalize(newList[:len(oldList)])) {
				return nil, fmt.Errorf("%s appends (reducer add): keep its items and add new ones at the end", k)
			}
			out[k] = newList[len(oldList):]
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
			out[k] = v
		}
	}
	for k := range f.orig {
		if _, kept := edited[k]; !kept && f.reducers[k] == "" {
			return nil, fmt.Errorf("%s cannot be removed: set it to null instead", k)
		}
	}
	if len(out) == 0 && f.asNode() == "" {
		// With a node chosen an update of no values is LangGraph's
		// update_state(config, None, as_node): that node's edges run next.
		return nil, errors.New("nothing changed: edit a value, or ctrl+n picks a node to write as (no values: its edges run next)")
	}
	return out, nil
}

func (f forkForm) asNode() string { return f.nodes[f.as] }

func (f forkForm) View(st Styles, w, h int) string {
	as := f.asNode()
	if as == "" {
		switch {
		case f.inferred != "":
			// LangGraph's rule (engine.InferAsNode; langgraph
			// pregel/main.py:1922-1933): not the node that wrote last (a
			// Send's task sees no channel), and what runs next follows
			// this node's edges.
			as = f.inferred + " (inferred: it saw the newest channel version; what runs next follows it)"
		case f.inferErr != "":
			as = "(the engine cannot infer it: " + f.inferErr + "; ctrl+n picks one)"
		default:
			as = "(inferred by the engine)"
		}
	}
	head := []string{
		st.Label.Render("Fork checkpoint "+shortID(f.cpID)+": edit the state, then ctrl+s") +
			st.Dim.Render("  (changed keys are written through their reducers)"),
		"as node: " + st.Key.Render(as) + st.Dim.Render("  (ctrl+n to change)"),
	}
	tail := st.Dim.Render("ctrl+s write fork · esc cancel")
	if f.err != "" {
		tail = st.Error.Render(glyphFailed + " " + f.err)
	}
	return strings.Join(append(head, f.area.View(), tail), "\n")
}

// setSize gives the text area the box's room.
func (f *forkForm) setSize(w, bh int) { sizeArea(&f.area, w, bh) }

// forkKeyMap is the fork form's keys: write the fork, choose the node it
// is written as, cancel.
type forkKeyMap struct {
	Submit, AsNode, Back key.Binding
}

func newForkKeyMap() forkKeyMap {
	return forkKeyMap{Submit: keySubmit(), AsNode: bind("ctrl+n", "as node", "ctrl+n"), Back: keyBack()}
}

func (k forkKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Submit, k.AsNode, k.Back} }

func (k forkKeyMap) FullHelp() [][]key.Binding {
	return helpColumns(colForms, k.Submit, k.AsNode, k.Back)
}

// enableKeys enables the fork form's keys.
func (f *forkForm) enableKeys(hasSess bool) {
	k := &f.keys
	*k = made(newForkKeyMap)
	disableAll(k)
	k.Submit.SetEnabled(hasSess)
	k.Submit.SetHelp("ctrl+s", "write fork")
	k.AsNode.SetEnabled(true)
	k.Back.SetEnabled(true)
	k.Back.SetHelp("esc", "cancel")
}
