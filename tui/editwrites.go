package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// editForm edits one finished task's writes at the Execute pause, as a
// JSON list of [channel, value] pairs: every write, routing included, in
// order, so what Update applies is exactly what is on screen.
type editForm struct {
	taskID, name string
	area         textarea.Model
	err          string
	keys         editKeyMap // made by enableKeys
}

func newEditForm(t engine.TaskView) editForm {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.CharLimit = 0
	var b strings.Builder
	b.WriteString("[\n")
	for i, w := range t.Writes {
		// The engine's codec, not the display form: a Send is written
		// {"$send": {"node", "arg"}} and reads back as a Send.
		v := engine.MustEncode(w.Value)
		ch, _ := json.Marshal(w.Channel)
		fmt.Fprintf(&b, "  [%s, %s]", ch, v)
		if i < len(t.Writes)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]")
	ta.SetValue(b.String())
	ta.Focus()
	cursorToTop(&ta)
	return editForm{taskID: t.ID, name: t.Name, area: ta}
}

// parse reads the pairs back; check is the engine's rule for what writes
// may stand for a task's (engine.Graph.CheckWrites), applied here so that
// bad input keeps the form open with its error.
func (f editForm) parse(check func([]engine.Write) error) ([]engine.Write, error) {
	var pairs [][]json.RawMessage
	if err := json.Unmarshal([]byte(f.area.Value()), &pairs); err != nil {
		return nil, fmt.Errorf("expected a JSON list of [channel, value] pairs: %v", err)
	}
	out := make([]engine.Write, 0, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("write %d: expected [channel, value], got %s", i+1, plural(len(p), "item"))
		}
		var ch string
		if err := json.Unmarshal(p[0], &ch); err != nil || ch == "" {
			return nil, fmt.Errorf("write %d: the channel must be a string", i+1)
		}
		v, err := engine.DecodeValue(p[1])
		if err != nil {
			return nil, fmt.Errorf("write %d (%s): %v", i+1, ch, err)
		}
		out = append(out, engine.Write{Channel: ch, Value: v})
	}
	if err := check(out); err != nil {
		return nil, err
	}
	return out, nil
}

// editor names who edits writes, for the checkpoint's metadata.
func editor() string {
	if u := os.Getenv("USER"); u != "" {
		return u + " (superstep debugger)"
	}
	return "superstep debugger"
}

// openEdit starts editing the selected task's writes, when the run is
// paused after Execute and the task finished.
func (m *Model) openEdit() {
	r, _ := m.tasks.selected()
	for _, t := range m.view.Tasks {
		if t.Name == r.node && t.State == engine.TaskDone && (r.taskID == "" || r.taskID == t.ID) {
			m.edit = newEditForm(t)
			m.prevMode, m.mode = m.mode, modeEdit
			return
		}
	}
	m.note = "only a task that finished has writes to edit"
}

func (m *Model) editKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.edit.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = m.prevMode
		return nil
	case key.Matches(msg, k.Submit):
		ws, err := m.edit.parse(m.sess.CheckWrites)
		if err != nil {
			m.edit.err = err.Error()
			return nil
		}
		id, name, by := m.edit.taskID, m.edit.name, editor()
		m.edited = append(m.edited, id)
		return m.do(opEdit, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.EditWrites(ctx, id, ws, by)
			if err != nil {
				return opDoneMsg{err: fmt.Errorf("editing %s's writes: %w", name, err)}
			}
			return opDoneMsg{view: v}
		})
	}
	var cmd tea.Cmd
	m.edit.area, cmd = m.edit.area.Update(msg)
	m.edit.err = ""
	return cmd
}

// chrome is the form's lines above its text area (what it does) and
// under it (its keys, or its error), wrapped at w cells.
func (f editForm) chrome(st Styles, w int) (head, tail []string) {
	head = append(wrapLines(st.Label.Render("Edit the writes of "+f.name+" before Update applies them: [channel, value] pairs, in order"), w),
		wrapLines(st.Dim.Render("The checkpoint will say the writes were edited and by whom (source update); what the task really wrote stays saved."), w)...)
	tail = wrapLines(st.Dim.Render("ctrl+s use these writes · esc cancel"), w)
	if f.err != "" {
		tail = wrapLines(st.Error.Render(glyphFailed+" "+f.err), w)
	}
	return head, tail
}

func (f editForm) View(st Styles, w, h int) string {
	head, tail := f.chrome(st, w)
	return strings.Join(append(append(head, f.area.View()), tail...), "\n")
}

var errNoStepper = errors.New("no run is paused after Execute")

// setSize gives the text area the room of a w-wide box of body height
// bh that the form's other lines leave.
func (f *editForm) setSize(st Styles, w, bh int) {
	head, tail := f.chrome(st, w-2)
	sizeArea(&f.area, w, bh, len(head)+len(tail))
}

// editKeyMap is the edit form's keys: use the writes typed, or cancel.
type editKeyMap struct {
	Submit, Back key.Binding
}

func newEditKeyMap() editKeyMap { return editKeyMap{Submit: keySubmit(), Back: keyBack()} }

func (k editKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Submit, k.Back} }

func (k editKeyMap) FullHelp() [][]key.Binding { return helpColumns(colForms, k.Submit, k.Back) }

// enableKeys enables the edit form's keys.
func (f *editForm) enableKeys(hasSess bool) {
	k := &f.keys
	*k = made(newEditKeyMap)
	disableAll(k)
	k.Submit.SetEnabled(hasSess)
	k.Submit.SetHelp("ctrl+s", "use these writes")
	k.Back.SetEnabled(true)
	k.Back.SetHelp("esc", "cancel")
}
