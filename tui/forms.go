package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// parseAnswer reads what a person typed as an interrupt answer: JSON when
// it parses, otherwise the text itself as a string. Text that is plainly
// meant as JSON (it starts with { or [) but does not parse is an error,
// not a string: sending it would answer with garbage.
func parseAnswer(s string) (any, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, errors.New("type an answer: JSON, or plain text taken as a string")
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, `"`) {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		return t, nil
	}
	return engine.FromJSON(v), nil
}

// parseState reads a JSON object of state keys (fork and new-thread forms).
func parseState(s string) (map[string]any, error) {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("invalid JSON object: %v", err)
	}
	if v == nil {
		return nil, errors.New("expected a JSON object of state keys")
	}
	m, _ := engine.FromJSON(v).(map[string]any)
	return m, nil
}

func toJSON(v any) string {
	b, err := json.MarshalIndent(jsonable(v), "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// answerForm is the inline interrupt answer box: one answer line per
// pending interrupt (parallel nodes, Send copies, subgraphs each raise
// their own), answered together by interrupt id.
type answerForm struct {
	ints    []engine.PendingInterrupt
	paths   map[string]string // interrupt id → mid › deep › b1
	sel     int
	inputs  []textinput.Model
	err     string
	payload inspector
}

func newAnswerForm(ints []engine.PendingInterrupt, paths map[string]string, suggestion string) answerForm {
	f := answerForm{ints: ints, paths: paths}
	for range ints {
		ti := textinput.New()
		ti.Prompt = "answer › "
		ti.Placeholder = suggestion
		ti.Cursor.SetMode(cursor.CursorStatic)
		f.inputs = append(f.inputs, ti)
	}
	f.pick(0)
	return f
}

// input is the answer line of the selected interrupt.
func (f *answerForm) input() *textinput.Model { return &f.inputs[f.sel] }

func (f *answerForm) pick(i int) {
	if len(f.ints) == 0 {
		return
	}
	if f.sel < len(f.inputs) {
		f.inputs[f.sel].Blur()
	}
	f.sel = (i + len(f.ints)) % len(f.ints)
	f.inputs[f.sel].Focus()
	in := f.ints[f.sel]
	f.payload = newInspector(f.where(f.sel)+" asks", in.Value)
}

// where names the node that raised interrupt i, through its subgraphs.
func (f answerForm) where(i int) string {
	in := f.ints[i]
	if p := f.paths[in.ID]; p != "" {
		return p
	}
	return in.Node
}

// answer builds the resume value: the bare value for a single interrupt;
// with several, a ResumeMap by interrupt id of every line filled in (the
// ones left empty stay pending, as LangGraph keeps unanswered ids).
func (f answerForm) answer() (any, error) {
	if len(f.ints) == 1 {
		return parseAnswer(f.inputs[0].Value())
	}
	rm := engine.ResumeMap{}
	for i, in := range f.ints {
		if strings.TrimSpace(f.inputs[i].Value()) == "" {
			continue
		}
		v, err := parseAnswer(f.inputs[i].Value())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.where(i), err)
		}
		rm[in.ID] = v
	}
	if len(rm) == 0 {
		return nil, errors.New("type at least one answer: JSON, or plain text taken as a string")
	}
	return rm, nil
}

// unanswered counts the interrupts whose line is empty.
func (f answerForm) unanswered() int {
	n := 0
	for i := range f.ints {
		if strings.TrimSpace(f.inputs[i].Value()) == "" {
			n++
		}
	}
	return n
}

func (f answerForm) View(st Styles, w, h int) string {
	var head []string
	multi := len(f.ints) > 1
	for i, in := range f.ints {
		if !multi {
			break
		}
		mark := "  "
		if i == f.sel {
			mark = "› "
		}
		label := cut(fmt.Sprintf("%s%s (%s)", mark, f.where(i), shortID(in.ID)), max(10, w/3))
		line := pad(label, max(10, w/3)) + " " + f.inputs[i].View()
		if i == f.sel {
			line = st.Key.Render(pad(label, max(10, w/3))) + " " + f.inputs[i].View()
		}
		head = append(head, line)
	}
	if len(f.ints) > 0 {
		head = append(head, st.Label.Render(fmt.Sprintf("%s is waiting (interrupt %s):", f.where(f.sel), shortID(f.ints[f.sel].ID))))
	}
	var tail []string
	if !multi && len(f.inputs) == 1 {
		tail = append(tail, f.inputs[0].View())
	}
	switch {
	case f.err != "":
		tail = append(tail, st.Error.Render("✗ "+f.err))
	case multi:
		tail = append(tail, st.Dim.Render(fmt.Sprintf("↑↓ choose · enter or ctrl+s resumes with every answer typed (%d of %d) · esc close", len(f.ints)-f.unanswered(), len(f.ints))))
	default:
		tail = append(tail, st.Dim.Render("enter resume · esc close (r reopens) · JSON or plain text"))
	}
	ph := max(1, h-len(head)-len(tail))
	f.payload.prepare(w, ph)
	body := f.payload.View(st, w, ph+1)
	// Drop the inspector's own status line: the box has its own hints.
	if i := strings.LastIndex(body, "\n"); i >= 0 {
		body = body[:i]
	}
	return strings.Join(append(append(head, body), tail...), "\n")
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
}

func newForkForm(cpID string, values map[string]any, info engine.GraphInfo) forkForm {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.CharLimit = 0
	ta.SetValue(toJSON(values))
	ta.Focus()
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
	if len(out) == 0 {
		return nil, errors.New("nothing changed: edit a value first")
	}
	return out, nil
}

func (f forkForm) asNode() string { return f.nodes[f.as] }

func (f forkForm) View(st Styles, w, h int) string {
	as := f.asNode()
	if as == "" {
		switch {
		case f.inferred != "":
			as = f.inferred + " (inferred by the engine: the node that wrote last)"
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
		tail = st.Error.Render("✗ " + f.err)
	}
	return strings.Join(append(head, f.area.View(), tail), "\n")
}

// threadsPane lists the database's threads and starts new ones.
type threadsPane struct {
	list     []ThreadSummary
	nav      listNav
	err      string
	creating bool
	area     textarea.Model
	newErr   string
	current  string
}

func newThreadsPane(input map[string]any, current string) threadsPane {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.CharLimit = 0
	if input == nil {
		input = map[string]any{}
	}
	ta.SetValue(toJSON(input))
	return threadsPane{area: ta, current: current}
}

func (p threadsPane) selected() (ThreadSummary, bool) {
	if p.nav.cur < len(p.list) && len(p.list) > 0 {
		return p.list[p.nav.cur], true
	}
	return ThreadSummary{}, false
}

func (p threadsPane) View(st Styles, w, h int) string {
	if p.creating {
		tail := st.Dim.Render("ctrl+s start the thread · esc cancel")
		if p.newErr != "" {
			tail = st.Error.Render("✗ " + p.newErr)
		}
		return st.Label.Render("New thread: input (JSON object of state keys)") + "\n" + p.area.View() + "\n" + tail
	}
	var out []string
	if p.err != "" {
		out = append(out, st.Dim.Render(p.err))
	}
	out = append(out, st.Dim.Render(fmt.Sprintf("%-24s %-14s %-12s %-8s %-6s %s", "THREAD", "GRAPH", "STATUS", "STEP", "SOURCE", "UPDATED")))
	from, to := p.nav.window(h-len(out)-2, len(p.list))
	for i := from; i < to; i++ {
		t := p.list[i]
		graph := t.Graph
		if graph == "" {
			graph = "?"
		}
		status := t.Status
		if t.Refused != "" {
			status = "other graph"
		}
		line := fmt.Sprintf("%-24s %-14s %-12s step %-3d %-6s", cut(termtext.Name(t.ID), 24), cut(termtext.Name(graph), 14), status, t.Step, termtext.Name(t.Source))
		if !t.Updated.IsZero() {
			line += " " + t.Updated.Format("2006-01-02 15:04:05")
		}
		if t.ID == p.current {
			line += " ← open"
		}
		switch {
		case i == p.nav.cur:
			line = st.Cursor.Render(pad(line, w))
		case t.Refused != "":
			line = st.Dim.Render(line)
		}
		out = append(out, line)
	}
	if t, ok := p.selected(); ok && t.Refused != "" {
		out = append(out, st.Error.Render(cut("✗ "+termtext.Name(firstLine(t.Refused)), w)))
	}
	if len(p.list) == 0 && p.err == "" {
		out = append(out, st.Dim.Render("no threads yet"))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = append(out, st.Dim.Render("enter open · n new thread · esc back"))
	return strings.Join(out, "\n")
}
