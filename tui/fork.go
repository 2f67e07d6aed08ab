package tui

import (
	"context"
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
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
	if !key.Matches(msg, k.Back) {
		m.fork.discard = false // any other key goes on with the edit
	}
	switch {
	case key.Matches(msg, k.Back):
		if m.fork.edited() && !m.fork.discard {
			// The edit may be minutes of work and nothing can bring it
			// back: a second esc discards it.
			m.fork.discard = true
			return nil
		}
		m.mode = m.prevMode
		if m.fork.edited() {
			m.note = "fork not written: the edit was discarded"
		}
		return nil
	case key.Matches(msg, k.AsNode):
		m.fork.as = (m.fork.as + 1) % len(m.fork.nodes)
		return nil
	case key.Matches(msg, k.Submit):
		edited, err := m.fork.toUpdate(m.checkStateKeys())
		if err == nil {
			err = m.fork.needsChange(edited)
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
	cpID string
	stateEdit
	nodes []string // "" (let the engine infer), the nodes, __input__
	as    int
	err   string
	// discard: esc was pressed on an edited form, which another esc
	// closes, throwing the edit away; any other key keeps editing.
	discard bool
	// inferred is the node the engine writes as when none is chosen, and
	// inferErr why it cannot choose (an ambiguous update).
	inferred, inferErr string
	keys               forkKeyMap // made by enableKeys
}

func newForkForm(cpID string, values map[string]any, info engine.GraphInfo) forkForm {
	nodes := []string{""}
	for _, n := range info.Nodes {
		nodes = append(nodes, n.Name)
	}
	nodes = append(nodes, engine.AsInput)
	return forkForm{cpID: cpID, stateEdit: newStateEdit(values, info), nodes: nodes}
}

// update is the fork's update of the edited state (stateEdit.changes),
// refused when nothing changed and no node is chosen (needsChange).
func (f forkForm) update(edited map[string]any) (map[string]any, error) {
	out, err := f.changes(edited)
	if err == nil {
		err = f.needsChange(out)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// needsChange refuses a fork of no values unless a node is chosen: with
// one, an update of no values is LangGraph's update_state(config, None,
// as_node), and that node's edges run next.
func (f forkForm) needsChange(update map[string]any) error {
	if len(update) == 0 && f.asNode() == "" {
		return errors.New("nothing changed: edit a value, or ctrl+n picks a node to write as (no values: its edges run next)")
	}
	return nil
}

func (f forkForm) asNode() string { return f.nodes[f.as] }

// chrome is the form's lines above its text area (what it does, the
// node it writes as) and under it (its keys, or its error), wrapped at w
// cells: at 80 columns "what runs next follows it" and an error's way
// on ("ctrl+n picks a node to write as") were cut.
func (f forkForm) chrome(st Styles, w int) (head, tail []string) {
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
	head = append(wrapLines(st.Label.Render("Fork checkpoint "+shortID(f.cpID)+": edit the state, then ctrl+s")+
		st.Dim.Render("  (only the keys you change are written)"), w),
		wrapLines("as node: "+st.Key.Render(as)+st.Dim.Render("  (ctrl+n to change)"), w)...)
	tail = wrapLines(st.Dim.Render("ctrl+s write fork · esc cancel"), w)
	switch {
	case f.discard:
		tail = wrapLines(st.Error.Render("esc again discards your edit of the state · ctrl+s writes it · any other key goes on editing"), w)
	case f.err != "":
		tail = wrapLines(st.Error.Render(glyphFailed+" "+f.err), w)
	}
	return head, tail
}

func (f forkForm) View(st Styles, w, h int) string {
	head, tail := f.chrome(st, w)
	return strings.Join(append(append(head, f.area.View()), tail...), "\n")
}

// setSize gives the text area the room of a w-wide box of body height
// bh that the form's other lines leave.
func (f *forkForm) setSize(st Styles, w, bh int) {
	head, tail := f.chrome(st, w-2)
	sizeArea(&f.area, w, bh, len(head)+len(tail))
}

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
	if f.discard {
		k.Back.SetHelp("esc", "discard the edit")
	}
}
