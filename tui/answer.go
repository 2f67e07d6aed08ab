package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// answerSuggestion is the answer box's placeholder: the graph's example
// answers, or what it accepts.
func (m *Model) answerSuggestion() string {
	if len(m.opts.Answers) > 0 {
		return strings.Join(m.opts.Answers, "  or  ")
	}
	return "JSON, or plain text taken as a string"
}

// newAnswer is an answer box on ints whose state update starts from the
// view's state: the root graph's, as the run resumed is the root's even
// when a subgraph asked (LangGraph's Command.update goes to the graph
// invoked).
func (m *Model) newAnswer(ints []engine.PendingInterrupt) answerForm {
	f := newAnswerForm(ints, m.paths, m.answerSuggestion())
	f.stateAt, f.stateCP, f.info = m.view.Values, m.view.CheckpointID, m.info
	return f
}

// checkStateKeys is the engine's refusal of keys that are not state keys
// (session.CheckStateKeys), nil without a session.
func (m *Model) checkStateKeys() func(map[string]any) error {
	if m.sess == nil {
		return nil
	}
	return m.sess.CheckStateKeys
}

// openAnswer opens the answer box on every pending interrupt of the run.
func (m *Model) openAnswer() {
	if len(m.view.Interrupts) == 0 {
		return
	}
	m.answer = m.newAnswer(m.view.Interrupts)
	recordingEnds, diverged := false, ""
	if m.replay != nil {
		// A replay answers as the recording did: offer its answer.
		var answers map[string]string
		answers, recordingEnds, diverged = m.replay.recordedAnswers(m.view)
		for i, in := range m.answer.ints {
			if a, ok := answers[in.ID]; ok {
				m.answer.inputs[i].SetValue(a)
			}
		}
	}
	m.restoreDrafts()
	m.mode = modeAnswer
	ints := m.view.Interrupts
	m.note = m.answer.where(0) + " interrupted: type an answer, enter resumes"
	if len(ints) > 1 {
		m.note = fmt.Sprintf("%d interrupts are waiting: one answer line each (↑↓), enter resumes with every answer typed", len(ints))
	}
	switch {
	case diverged != "":
		m.note = "replay DIVERGED at " + diverged
	case recordingEnds && m.replay.diverged == "":
		// As the command line's replay ends here: nothing recorded is
		// left to compare an answer's run with.
		m.note = fmt.Sprintf("the recording ends here, at this same question (%s before it matched): what you answer runs uncompared", plural(m.replay.compared, "superstep"))
	}
}

func (m *Model) answerKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.answer.keys
	if m.isBusy {
		// The answers are on their way: what is typed meanwhile is not
		// more answer. n, s, c wait for the run as in the main view.
		if isStepKey(&m.mainKeys, msg) {
			m.queueStep(msg.String())
		}
		return nil
	}
	if m.answer.editing {
		return m.stateUpdateKey(msg)
	}
	first := m.answer.byItself
	m.answer.byItself = false
	switch {
	case first && key.Matches(msg, keyAnswer()) && m.answer.input().Value() == "":
		m.note = "the answer box is open already: type the answer here (that r was not typed)"
		return nil
	case key.Matches(msg, k.Back):
		m.keepDrafts()
		m.mode = m.answer.prev
		m.note = "answer box closed: r reopens it"
		if len(m.drafts.lines) > 0 || m.drafts.state != "" {
			m.note += " as you left it" // typed, or offered by a replay
		}
		return nil
	case msg.Type == tea.KeyEnter || key.Matches(msg, k.Submit):
		return m.submitAnswer()
	case key.Matches(msg, k.State):
		m.answer.editState()
		// The note said "enter resumes", which here types a new line.
		m.note = "state update: ctrl+s resumes with it and the answers (enter is a new line here)"
		return nil
	case pressed(msg, k.State):
		m.answer.err = "an entrypoint has no state keys: its answer goes without a state update"
		return nil
	case key.Matches(msg, k.Up):
		m.answer.pick(m.answer.nav.cur - 1)
		return nil
	case key.Matches(msg, k.Down):
		m.answer.pick(m.answer.nav.cur + 1)
		return nil
	case key.Matches(msg, k.PageUp):
		m.answer.scrollQuestion(-1)
		return nil
	case key.Matches(msg, k.PageDown):
		m.answer.scrollQuestion(1)
		return nil
	}
	var cmd tea.Cmd
	in := m.answer.input()
	*in, cmd = in.Update(msg)
	m.answer.err = ""
	return cmd
}

// stateUpdateKey handles a key while the state update is edited: ctrl+s
// resumes with the answers and the update, tab or esc go back to the
// answer lines (the edit is kept), pgup and pgdn scroll the question, and
// every other key, enter and the arrows included, edits the JSON.
func (m *Model) stateUpdateKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.answer.keys
	switch {
	case key.Matches(msg, k.Submit):
		return m.submitAnswer()
	case key.Matches(msg, k.State), key.Matches(msg, k.Back):
		m.answer.editAnswers()
		m.note = "back to the answers: enter resumes, with the state update if you changed it"
		return nil
	case key.Matches(msg, k.PageUp):
		m.answer.scrollQuestion(-1)
		return nil
	case key.Matches(msg, k.PageDown):
		m.answer.scrollQuestion(1)
		return nil
	}
	var cmd tea.Cmd
	m.answer.state.area, cmd = m.answer.state.area.Update(msg)
	m.answer.err = ""
	return cmd
}

// submitAnswer resumes the run with the answers typed and the state
// update, if the state was changed; either refused keeps the box open
// with the error, the update's naming where it is wrong.
func (m *Model) submitAnswer() tea.Cmd {
	m.keepDrafts() // until the answer is taken: a refused resume keeps them
	v, err := m.answer.answer()
	if err != nil {
		m.answer.err = err.Error()
		return nil
	}
	update, err := m.answer.update(m.checkStateKeys())
	if err != nil {
		// parseState names the JSON "state": here it is the update's.
		m.answer.err = "state update: " + strings.TrimPrefix(err.Error(), "state: ")
		m.answer.editState() // where it is wrong
		return nil
	}
	if m.sess == nil {
		return nil
	}
	with := ""
	if len(update) > 0 {
		with = strings.Join(sortedKeys(update), ", ")
	}
	return m.do(opResume, func(ctx context.Context, s session) opDoneMsg {
		view, err := s.Resume(ctx, v, update)
		return opDoneMsg{view: view, err: err, text: with}
	})
}

// answerDrafts are answer lines typed and not sent yet, by interrupt id,
// at checkpoint at. Closing the box must not throw away what was typed
// (esc says r reopens it); the drafts are forgotten once the answers are
// taken or another checkpoint is current, whose questions are others.
type answerDrafts struct {
	at    string
	lines map[string]string
	state string // the state update's text, "" when the state is unchanged
}

// keepDrafts keeps the answer box's lines, and its state update, for the
// next time it opens on this checkpoint.
func (m *Model) keepDrafts() {
	if m.view == nil {
		return
	}
	if m.drafts.at != m.view.CheckpointID || m.drafts.lines == nil {
		m.drafts = answerDrafts{at: m.view.CheckpointID, lines: map[string]string{}}
	}
	for i, in := range m.answer.ints {
		if v := m.answer.inputs[i].Value(); v != "" {
			m.drafts.lines[in.ID] = v
		} else {
			delete(m.drafts.lines, in.ID)
		}
	}
	m.drafts.state = m.answer.stateDraft()
}

// restoreDrafts fills a new answer box with the lines kept for its
// interrupts.
func (m *Model) restoreDrafts() {
	if m.view == nil || m.drafts.at != m.view.CheckpointID {
		return
	}
	for i, in := range m.answer.ints {
		if v, ok := m.drafts.lines[in.ID]; ok {
			m.answer.inputs[i].SetValue(v)
			m.answer.inputs[i].CursorEnd()
		}
	}
	if m.drafts.state != "" {
		m.answer.editState()
		m.answer.state.area.SetValue(m.drafts.state)
		cursorToTop(&m.answer.state.area)
		m.answer.editAnswers()
	}
}

// answerForm is the inline interrupt answer box: one answer line per
// pending interrupt (parallel nodes, Send copies, subgraphs each raise
// their own), answered together by interrupt id. A Send fan-out can stop
// at thousands of interrupts: the answer lines then scroll, nav's cursor
// being the selected line.
type answerForm struct {
	ints    []engine.PendingInterrupt
	paths   map[string]string // interrupt id → mid › deep › b1
	nav     listNav
	inputs  []textinput.Model
	err     string
	payload inspector
	// questionRows is the rows the question had at the last setSize:
	// pgup and pgdn scroll it within them.
	questionRows int
	// byID: answers go by interrupt id even when there is one (the box
	// holds some of the run's interrupts, those of a subgraph).
	byID bool
	prev mode         // where esc returns: the main view or the subgraph view
	keys answerKeyMap // made by enableKeys
	// state is the state update sent with the answers, nil until tab
	// opens it on stateAt, the state at checkpoint stateCP (the root's);
	// editing: keys go to it rather than to the answer lines.
	state   *stateEdit
	editing bool
	stateAt map[string]any
	stateCP string
	info    engine.GraphInfo
	// byItself: the box opened at an interrupt, not by r, and no key
	// reached it yet; a first r (the key that opens it, which a person
	// who has not noticed the box presses) is not typed into the empty
	// answer line.
	byItself bool
}

// editState moves the keys to the state update, opening it on the
// checkpoint's state the first time.
func (f *answerForm) editState() {
	if f.state == nil {
		e := newStateEdit(f.stateAt, f.info)
		f.state = &e
	}
	f.editing = true
	f.inputs[f.nav.cur].Blur()
	f.state.area.Focus()
}

// editAnswers moves the keys back to the answer lines; the state update
// stays as edited.
func (f *answerForm) editAnswers() {
	f.editing = false
	if f.state != nil {
		f.state.area.Blur()
	}
	f.inputs[f.nav.cur].Focus()
}

// update is the state update to send with the answers: the keys changed
// in the state (stateEdit, as the fork form makes its update), nil when
// the state update was not opened or nothing in it changed.
func (f answerForm) update(check func(map[string]any) error) (map[string]any, error) {
	if f.state == nil {
		return nil, nil
	}
	return f.state.toUpdate(check)
}

// stateDraft is the state update's text to keep when the box closes, ""
// when it is the state as it was.
func (f answerForm) stateDraft() string {
	if f.state == nil || f.state.area.Value() == toJSON(f.stateAt) {
		return ""
	}
	return f.state.area.Value()
}

func newAnswerForm(ints []engine.PendingInterrupt, paths map[string]string, suggestion string) answerForm {
	f := answerForm{ints: ints, paths: paths}
	for range ints {
		f.inputs = append(f.inputs, lineInput("answer › ", suggestion, 0))
	}
	f.pick(0)
	return f
}

// input is the answer line of the selected interrupt.
func (f *answerForm) input() *textinput.Model { return &f.inputs[f.nav.cur] }

func (f *answerForm) pick(i int) {
	if len(f.ints) == 0 {
		return
	}
	if f.nav.cur < len(f.inputs) {
		f.inputs[f.nav.cur].Blur()
	}
	// ↑ on the first line goes to the last, ↓ on the last to the first.
	f.nav.cur = (i + len(f.ints)) % len(f.ints)
	f.inputs[f.nav.cur].Focus()
	in := f.ints[f.nav.cur]
	f.payload = newInspector(f.where(f.nav.cur)+" asks", in.Value)
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
	if len(f.ints) == 1 && !f.byID {
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

// answerRows is how the box's rows are shared out: the answer lines
// shown, the "is waiting" label (0 or 1), the question's rows, and the
// state update's (its label and its text; 0 while it is not open).
type answerRows struct{ list, label, question, state int }

// rows shares h rows out, the tail taking its own first. The answer lines
// take up to half of the rest, but three if they have them, so two or
// three interrupts are listed whole as they always were; the label and
// at least one row of the question are never pushed out by them. A box
// shorter than four rows keeps the selected line and the question's first
// row before the label, which only repeats the node's name.
//
// An open state update takes half of the rows the tail leaves, at least
// its label and one line of its text, before the rest is shared so.
func (f answerForm) rows(h int) answerRows {
	avail := h - f.tailHeight()
	r := answerRows{label: 1}
	if f.state != nil {
		r.state = clamp(avail/2, min(2, max(0, avail)), max(0, avail))
		avail -= r.state
	}
	if len(f.ints) > 1 {
		r.list = clamp(min(len(f.ints), max(3, (avail-1)/2)), 1, avail-2)
	}
	r.question = avail - r.list - r.label
	if r.question < 1 {
		r.label, r.question = 0, max(0, avail-r.list)
	}
	return r
}

func (f answerForm) View(st Styles, w, h int) string {
	var head []string
	rows := f.rows(h)
	sel := f.nav.cur
	// sync followed the selection in this same window: it is drawn.
	from, to := f.nav.window(rows.list, len(f.ints))
	for i := from; i < to; i++ {
		mark := "  "
		if i == sel {
			mark = "› "
		}
		label := cut(termtext.Name(fmt.Sprintf("%s%s (%s)", mark, f.where(i), shortID(f.ints[i].ID))), max(10, w/3))
		line := pad(label, max(10, w/3)) + " " + f.inputs[i].View()
		if i == sel {
			line = st.Key.Render(pad(label, max(10, w/3))) + " " + f.inputs[i].View()
		}
		head = append(head, line)
	}
	if rows.label > 0 && len(f.ints) > 0 {
		where := "interrupt " + shortID(f.ints[sel].ID)
		if len(f.ints) > 1 && rows.list < len(f.ints) {
			// Some answer lines are scrolled away: say which one of
			// them all this is.
			where += fmt.Sprintf(", %d of %d", sel+1, len(f.ints))
		}
		head = append(head, st.Label.Render(termtext.Name(fmt.Sprintf("%s is waiting (%s):", f.where(sel), where))))
	}
	ph := rows.question
	f.payload.prepare(w, ph)
	if rows.label > 0 && len(head) > 0 && f.payload.cutOff(ph) {
		// The inspector's own status line is dropped below: say here that
		// the value goes on, and where the box is in it.
		head[len(head)-1] += st.Dim.Render(cut("  "+f.payload.lineSpan(ph)+" · pgup pgdn", max(0, w-ansi.StringWidth(head[len(head)-1]))))
	}
	out := head
	if ph > 0 {
		body := f.payload.View(st, w, ph+1)
		// Drop the inspector's own status line: the box has its own hints.
		if i := strings.LastIndex(body, "\n"); i >= 0 {
			body = body[:i]
		}
		out = append(out, body)
	}
	if rows.state > 0 {
		out = append(out, f.stateView(st, w, rows.state))
	}
	return strings.Join(append(out, f.tail(st, w)...), "\n")
}

// stateView is the state update in h rows: its label, then its text.
func (f answerForm) stateView(st Styles, w, h int) string {
	where := "the state at checkpoint " + shortID(f.stateCP)
	if f.prev == modeSubgraph {
		// The run resumes at the root, whose state the update edits.
		where = "the root graph's state at " + shortID(f.stateCP) + " (the run resumes there)"
	}
	text := "State update · " + where + ": changed keys go with the answers"
	if ansi.StringWidth(text) > w && f.prev != modeSubgraph {
		text = "State update at " + shortID(f.stateCP) + ": the keys you change go with the answers"
	}
	label := st.Label.Render(cut(text, w))
	if h < 2 {
		return label
	}
	return label + "\n" + f.state.area.View()
}

// tailHeight is the number of lines tail returns.
func (f answerForm) tailHeight() int {
	if f.single() {
		return 2
	}
	return 1
}

// single reports whether the box has one interrupt, whose answer line is
// in the tail rather than in a list.
func (f answerForm) single() bool { return len(f.ints) <= 1 && len(f.inputs) == 1 }

// tail is the answer box's last lines: the answer line of a single
// interrupt, then the error or the hints, in w cells.
func (f answerForm) tail(st Styles, w int) []string {
	var tail []string
	multi := len(f.ints) > 1
	tab := " · tab state update"
	if f.info.Entrypoint {
		tab = ""
	}
	if f.single() {
		tail = append(tail, f.inputs[0].View())
	}
	switch {
	case f.err != "":
		tail = append(tail, st.Error.Render(glyphFailed+" "+f.err))
	case f.editing:
		hint := "ctrl+s resumes with the answers and this state update · tab or esc back to the answers"
		if ansi.StringWidth(hint) > w {
			hint = "ctrl+s resumes with this update · tab or esc: the answers" // every key kept, in fewer words
		}
		tail = append(tail, st.Dim.Render(hint))
	case multi:
		typed, n := len(f.ints)-f.unanswered(), len(f.ints)
		hint := fmt.Sprintf("↑↓ choose · enter or ctrl+s resumes with every answer typed (%d of %d)%s · esc close", typed, n, tab)
		if ansi.StringWidth(hint) > w {
			// Every key kept, in fewer words (ctrl+s is in the footer).
			hint = fmt.Sprintf("↑↓ choose · enter resumes (%d of %d typed)%s · esc close", typed, n, tab)
		}
		tail = append(tail, st.Dim.Render(hint))
	default:
		tail = append(tail, st.Dim.Render("enter resume"+tab+" · esc close (r reopens) · JSON or plain text"))
	}
	return tail
}

// scrollQuestion moves the question by five rows, or by the rows it has
// when they are fewer (a box crowded by answer lines may show it one row
// at a time), and no further than its last row at the bottom.
func (f *answerForm) scrollQuestion(dir int) {
	rows := max(1, f.questionRows)
	f.payload.scroll(dir*min(5, rows), rows)
}

// setSize gives each answer line the width it has: the whole box, or what
// the list of interrupts beside it leaves; and scrolls the answer lines
// the least needed to keep the selected one among the h rows of View.
func (f *answerForm) setSize(w, h int) {
	rows := f.rows(h)
	f.nav.follow(rows.list, len(f.ints))
	f.questionRows = rows.question
	for i := range f.inputs {
		lw := max(10, w-14)
		if len(f.inputs) > 1 {
			lw = max(10, w-w/3-16)
		}
		setLineWidth(&f.inputs[i], lw)
	}
	if f.state != nil {
		f.state.area.SetWidth(max(10, w-2))
		f.state.area.SetHeight(max(1, rows.state-1))
	}
	f.payload.layout(w - 2) // View lays out a copy: do it once here
}

// answerKeyMap is the answer box's keys: enter (or ctrl+s with several
// answer lines, or in the state update) resumes, ↑↓ choose the line, pgup
// and pgdn scroll the interrupt's value, tab edits the state update sent
// with the answers (and goes back), esc closes the box. Letters are
// typed: no k or j.
type answerKeyMap struct {
	Submit, Open, State, Up, Down, PageUp, PageDown, Back key.Binding
}

func newAnswerKeyMap() answerKeyMap {
	return answerKeyMap{
		Submit: keySubmit(), Open: keyOpen(), State: bind("tab", "answer with a state update", "tab"),
		Up: bind("↑", "previous answer", "up"), Down: bind("↓", "next answer", "down"),
		PageUp: bind("pgup", "scroll the value up", "pgup"), PageDown: bind("pgdn", "scroll the value down", "pgdown"),
		Back: keyBack(),
	}
}

func (k answerKeyMap) ShortHelp() []key.Binding {
	// esc before tab: a narrow footer that cuts keys off keeps it.
	return []key.Binding{k.Submit, k.Open, k.Back, k.State}
}

func (k answerKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colForms, k.Submit, k.State, k.Back)
	cols[colMoving] = []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Open}
	return cols
}

// enableKeys enables the answer box's keys.
func (f *answerForm) enableKeys(hasSess bool) {
	k := &f.keys
	*k = made(newAnswerKeyMap)
	disableAll(k)
	k.Open.SetEnabled(hasSess)
	k.Open.SetHelp("enter", "resume with answer")
	k.Back.SetEnabled(true)
	k.Back.SetHelp("esc", "close")
	k.PageUp.SetEnabled(true)
	k.PageDown.SetEnabled(true)
	k.State.SetEnabled(!f.info.Entrypoint)
	if f.state != nil {
		k.State.SetHelp("tab", "edit the state update")
	}
	if len(f.ints) > 1 {
		k.Up.SetEnabled(true)
		k.Down.SetEnabled(true)
		k.Open.SetHelp("enter", "resume with all answers")
		k.Submit.SetEnabled(hasSess)
		k.Submit.SetHelp("ctrl+s", "resume with all answers")
	}
	if f.editing {
		// enter and the arrows edit the JSON there.
		k.Open.SetEnabled(false)
		k.Up.SetEnabled(false)
		k.Down.SetEnabled(false)
		k.Submit.SetEnabled(hasSess)
		k.Submit.SetHelp("ctrl+s", "resume with the update")
		k.State.SetHelp("tab", "back to the answers")
		k.Back.SetHelp("esc", "back to the answers")
	}
}

// answerBoxHeight is the height of the answer box, borders included:
// under the subgraph's breadcrumb, the body but that line; in the main
// view, what the graph and channels row leaves.
func (m *Model) answerBoxHeight(bh int) int {
	switch {
	case m.answer.prev == modeSubgraph:
		return bh - 1
	case m.answer.editing:
		// The state update takes the graph's room, as the fork form
		// takes the screen: under the graph it had three lines at 80×24.
		return bh
	}
	return bh - m.topHeight()
}

// answerView puts the answer box where versions_seen and the tasks were.
func (m Model) answerView(w, bh int) string {
	st := m.styles
	boxH := (&m).answerBoxHeight(bh)
	if m.answer.prev == modeSubgraph {
		// Answered where they were raised: under the subgraph's breadcrumb.
		line := st.Header.Render(cut(m.sub.breadcrumb(), w))
		ans := st.box("Interrupts raised here · answer to resume the run", m.answer.View(st, w-2, boxH-2), w, boxH, true)
		return lipgloss.JoinVertical(lipgloss.Left, pad(line, w), ans)
	}
	ans := st.box("Interrupt · answer to resume", m.answer.View(st, w-2, boxH-2), w, boxH, true)
	if m.answer.editing {
		return ans
	}
	graph, chans, _, _ := m.mainPanes()
	return lipgloss.JoinVertical(lipgloss.Left, lipgloss.JoinHorizontal(lipgloss.Top, graph, chans), ans)
}
