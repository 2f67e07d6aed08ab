package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/termtext"
)

func (m *Model) loadThreads() tea.Cmd {
	in := m.opts.Input
	if m.lastInput != nil {
		in = m.lastInput // the last input used with this graph
	}
	m.threads = newThreadsPane(in, m.thread)
	return m.do(opThreads, func(ctx context.Context, s session) opDoneMsg {
		ts, err := s.Threads(ctx)
		if errors.Is(err, errNoThreadList) {
			return opDoneMsg{err: errors.New("this database cannot list threads: n starts a new one")}
		}
		return opDoneMsg{threads: ts, err: err}
	})
}

// newThreadKey handles a key of the new-thread form: its input state,
// submitted as a new thread started on the graph.
func (m *Model) newThreadKey(msg tea.KeyMsg) tea.Cmd {
	p := &m.threads
	k := &p.keys
	switch {
	case key.Matches(msg, k.Back):
		p.creating = false
		p.area.Blur()
		return nil
	case key.Matches(msg, k.Submit):
		in, err := parseState(p.area.Value())
		if err != nil {
			p.newErr = err.Error()
			return nil
		}
		if len(in) == 0 {
			p.newErr = "a new thread needs at least one state key"
			return nil
		}
		m.lastInput = in
		save := m.saveCmd()
		id := p.newID(m.thread, m.now())
		return tea.Batch(save, m.do(opStart, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.Start(ctx, id, in)
			return opDoneMsg{view: v, err: err}
		}))
	}
	var cmd tea.Cmd
	p.area, cmd = p.area.Update(msg)
	p.newErr = ""
	return cmd
}

// newID is the id of a thread started from the list: the thread the
// debugger was opened on (--thread) when the database does not have it
// yet, as the person named it, else one made of the time (unusedID).
func (p *threadsPane) newID(current string, now time.Time) string {
	if current != "" && !slices.ContainsFunc(p.list, func(t ThreadSummary) bool { return t.ID == current }) {
		return current
	}
	return p.unusedID(now.Format("run-20060102-150405"))
}

// unusedID is base, or base-2, base-3, … when the database has a thread
// of that id already: a second thread started within the same second
// must not go on with the first.
func (p *threadsPane) unusedID(base string) string {
	used := make(map[string]bool, len(p.list))
	for _, t := range p.list {
		used[t.ID] = true
	}
	id := base
	for n := 2; used[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

// filterKey handles a key typed into the threads list's filter.
func (p *threadsPane) filterKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.keys
	switch {
	case key.Matches(msg, k.Back): // clear the filter
		p.filter.SetValue("")
		p.filtering = false
		p.refilter()
		return nil
	case key.Matches(msg, k.Open): // keep it
		p.filtering = false
		return nil
	}
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	p.refilter()
	return cmd
}

func (m *Model) threadsKey(msg tea.KeyMsg) tea.Cmd {
	p := &m.threads
	k := &p.keys
	if p.creating {
		return m.newThreadKey(msg)
	}
	if p.filtering {
		return p.filterKey(msg)
	}
	page := max(1, m.bodyHeight()-4)
	switch {
	case key.Matches(msg, k.Back) && p.filter.Value() != "":
		// A kept filter is cleared first, as in the filter box: the
		// list it hides is what esc was pressed to get back.
		p.filter.SetValue("")
		p.refilter()
	case key.Matches(msg, k.Back):
		m.mode = modeMain
	case key.Matches(msg, k.Up):
		p.nav.move(-1, len(p.shown))
	case key.Matches(msg, k.Down):
		p.nav.move(1, len(p.shown))
	case key.Matches(msg, k.PageUp):
		p.nav.move(-page, len(p.shown))
	case key.Matches(msg, k.PageDown):
		p.nav.move(page, len(p.shown))
	case key.Matches(msg, k.Top):
		p.nav.cur = 0
	case key.Matches(msg, k.Bottom):
		p.nav.cur = max(0, len(p.shown)-1)
	case key.Matches(msg, k.Filter):
		p.filtering = true
		return p.filter.Focus()
	case key.Matches(msg, k.NewThread):
		p.creating, p.newErr = true, ""
		return p.area.Focus()
	case key.Matches(msg, k.Open):
		t, ok := p.selected()
		if !ok || m.sess == nil {
			return nil
		}
		if t.Refused != "" {
			// The same words the command line uses, the first line as the
			// list shows it (the rest is what the command it names prints);
			// nothing is opened.
			first, _, _ := strings.Cut(t.Refused, "\n")
			m.err = errors.New(termtext.Name(first))
			return nil
		}
		id := t.ID
		return m.do(opOpen, func(ctx context.Context, s session) opDoneMsg {
			v, err := s.Open(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	}
	return nil
}

// threadsPane lists the database's threads and starts new ones; / keeps
// the threads whose id, graph or status contains what is typed.
type threadsPane struct {
	list      []ThreadSummary
	shown     []int // indexes into list that the filter keeps
	filter    textinput.Model
	filtering bool
	nav       listNav // over shown
	err       string
	creating  bool
	area      textarea.Model
	newErr    string
	current   string
	keys      threadsKeyMap // made by enableKeys
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
	return threadsPane{area: ta, current: current, filter: lineInput("/", "thread id, graph or status", 200)}
}

// setList shows a new list of threads, the filter kept.
func (p *threadsPane) setList(list []ThreadSummary) {
	p.list = list
	p.refilter()
}

// refilter keeps the threads whose id, graph or status contains the
// filter (any case).
func (p *threadsPane) refilter() {
	f := strings.ToLower(strings.TrimSpace(p.filter.Value()))
	p.shown = p.shown[:0]
	for i, t := range p.list {
		if f == "" || strings.Contains(strings.ToLower(t.ID), f) || strings.Contains(strings.ToLower(t.Graph), f) || strings.Contains(strings.ToLower(threadStatus(t)), f) {
			p.shown = append(p.shown, i)
		}
	}
	p.nav.cur = clamp(p.nav.cur, 0, len(p.shown)-1)
}

// title is the box's: how many threads, and how many the filter keeps.
func (p threadsPane) title() string {
	if f := p.filter.Value(); f != "" {
		return fmt.Sprintf("Threads · %d of %d · /%s", len(p.shown), len(p.list), termtext.Name(f))
	}
	return fmt.Sprintf("Threads · %d", len(p.list))
}

func (p threadsPane) selected() (ThreadSummary, bool) {
	if p.nav.cur < len(p.shown) && len(p.shown) > 0 {
		return p.list[p.shown[p.nav.cur]], true
	}
	return ThreadSummary{}, false
}

// threadStatus is the STATUS column's word for t: its status, which the
// caller may give for a thread this graph cannot open (read with the
// graph it was recorded with), else "other graph".
func threadStatus(t ThreadSummary) string {
	if t.Refused != "" && t.Status == "" {
		return "other graph" // CheckThread refused it
	}
	return t.Status
}

// threadColumns is the picker's layout: each column's width, and how
// UPDATED is written ("" when it does not fit).
type threadColumns struct {
	id, graph, status, step, source int
	updated                         string // a time layout
	open                            int    // room for " ← open" on the thread open now
}

// The ways UPDATED is written, widest first.
const (
	updatedFull  = "2006-01-02 15:04:05"
	updatedShort = "01-02 15:04"
)

// threadGap is the space between two columns.
const threadGap = "  "

// width is a row's width with every column.
func (c threadColumns) width() int {
	w := c.id + c.graph + c.status + c.step + c.source + 4*len(threadGap) + c.open
	if c.updated != "" {
		w += len(threadGap) + len(c.updated)
	}
	return w
}

// columns lays the columns out for w cells. Each is as wide as the
// threads listed need (THREAD at most 24, GRAPH 14), the same whatever
// the filter shows, so the columns line up. When a row is wider than the
// window, the columns give way in the order they are missed least:
// UPDATED drops its year and seconds, THREAD and GRAPH shrink to what
// tells one thread from another (the filter finds the rest), then
// UPDATED goes. Past that the row is cut at the window's edge.
func (p threadsPane) columns(w int) threadColumns {
	c := threadColumns{id: len("THREAD"), graph: len("GRAPH"), status: len("STATUS"), step: len("STEP"), source: len("SOURCE"), updated: updatedFull}
	for _, t := range p.list {
		c.id = max(c.id, min(24, ansi.StringWidth(termtext.Name(t.ID))))
		c.graph = max(c.graph, min(14, ansi.StringWidth(termtext.Name(t.Graph))))
		c.status = max(c.status, len(threadStatus(t)))
		c.step = max(c.step, len(fmt.Sprintf("step %d", t.Step)))
		c.source = max(c.source, ansi.StringWidth(termtext.Name(t.Source)))
		if t.ID == p.current {
			c.open = len(" ← open")
		}
	}
	if c.width() <= w {
		return c
	}
	c.updated = updatedShort
	for _, col := range []struct {
		width *int
		least int
	}{{&c.id, 12}, {&c.graph, 8}, {&c.id, 8}} {
		if over := c.width() - w; over > 0 {
			*col.width = max(min(*col.width, col.least), *col.width-over)
		}
	}
	if c.width() > w {
		c.updated = ""
	}
	return c
}

// row lays cells out in the columns, measured in cells (a thread id may
// be wide text), each cut with … when it is wider than its column: the
// id in its middle, where ids of a series are alike.
func (c threadColumns) row(id, graph, status, step, source, updated string) string {
	line := strings.Join([]string{pad(cutMiddle(id, c.id), c.id), pad(graph, c.graph), pad(status, c.status), pad(step, c.step), pad(source, c.source)}, threadGap)
	if c.updated != "" && updated != "" {
		line += threadGap + updated
	}
	return line
}

func (p threadsPane) View(st Styles, w, h int) string {
	if p.creating {
		tail := st.Dim.Render("ctrl+s start the thread · esc cancel")
		if p.newErr != "" {
			tail = st.Error.Render(glyphFailed + " " + p.newErr)
		}
		return st.Label.Render("New thread: input (JSON object of state keys)") + "\n" + p.area.View() + "\n" + tail
	}
	var out []string
	if p.err != "" {
		out = append(out, st.Dim.Render(p.err))
	}
	cols := p.columns(w)
	out = append(out, st.Dim.Render(cols.row("THREAD", "GRAPH", "STATUS", "STEP", "SOURCE", "UPDATED")))
	var refusal []string
	if t, ok := p.selected(); ok && t.Refused != "" {
		// Wrapped, not cut: it may end in the command that opens the
		// thread, to be copied whole (at most three lines).
		first, _, _ := strings.Cut(t.Refused, "\n") // the rest is detail the command it names prints
		lines := strings.Split(ansi.Wrap(glyphFailed+" "+termtext.Name(first), max(1, w), " "), "\n")
		if len(lines) > 3 {
			lines = lines[:3]
			lines[2] += " …"
		}
		for _, l := range lines {
			refusal = append(refusal, st.Error.Render(cut(l, w)))
		}
	}
	from, to := p.nav.window(h-len(out)-1-max(1, len(refusal)), len(p.shown))
	for i := from; i < to; i++ {
		t := p.list[p.shown[i]]
		graph := t.Graph
		if graph == "" {
			graph = "?"
		}
		updated := ""
		if !t.Updated.IsZero() && cols.updated != "" {
			updated = t.Updated.Format(cols.updated)
		}
		line := cols.row(termtext.Name(t.ID), termtext.Name(graph), threadStatus(t), fmt.Sprintf("step %d", t.Step), termtext.Name(t.Source), updated)
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
	out = append(out, refusal...)
	switch {
	case len(p.list) == 0 && p.err == "":
		out = append(out, st.Dim.Render("no threads yet"))
	case len(p.shown) == 0 && p.err == "":
		out = append(out, st.Dim.Render("no thread matches the filter: esc clears it"))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	if p.filtering {
		out = append(out, cut(p.filter.View(), w))
	} else {
		out = append(out, st.Dim.Render("enter open · n new thread · / filter · esc back"))
	}
	return strings.Join(out, "\n")
}

// setSize keeps the cursor in view and gives the new-thread input the
// box's room.
func (p *threadsPane) setSize(w, bh int) {
	p.nav.follow(bh-5, len(p.shown)) // room for a refusal of three lines
	p.area.SetWidth(max(10, w-4))
	p.area.SetHeight(max(1, bh-4))
}

// threadsKeyMap is the thread list's keys, and the new-thread form's
// (Submit; esc cancels it).
type threadsKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Filter, Open, NewThread, Submit, Back key.Binding
}

func newThreadsKeyMap() threadsKeyMap {
	return threadsKeyMap{Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown(),
		Top: bind("home/g", "top", "home", "g"), Bottom: bind("end/G", "bottom", "end", "G"),
		Filter: bind("/", "filter threads", "/"),
		Open:   keyOpen(), NewThread: bind("n", "new thread", "n"), Submit: keySubmit(), Back: keyBack()}
}

func (k threadsKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Submit, k.Open, k.NewThread, k.Back}
}

func (k threadsKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colCheckpoints, k.NewThread)
	cols[colMoving] = []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Filter, k.Open}
	cols[colForms] = []key.Binding{k.Submit, k.Back}
	return cols
}

// enableKeys enables the thread list's keys, or the new-thread form's.
func (p *threadsPane) enableKeys(hasSess bool) {
	k := &p.keys
	*k = made(newThreadsKeyMap)
	disableAll(k)
	if p.creating || p.filtering {
		// A text box has the focus: the key that ends it and esc.
		done, doneWhat, backWhat := &k.Submit, "start thread", "cancel"
		if p.filtering {
			done, doneWhat, backWhat = &k.Open, "keep filter", "clear filter"
		}
		done.SetEnabled(hasSess || p.filtering)
		done.SetHelp(done.Help().Key, doneWhat)
		k.Back.SetEnabled(true)
		k.Back.SetHelp("esc", backWhat)
		return
	}
	_, has := p.selected()
	k.Open.SetEnabled(has && hasSess)
	k.Open.SetHelp("enter", "open thread")
	k.NewThread.SetEnabled(true)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom, &k.Filter, &k.Back} {
		b.SetEnabled(true)
	}
	if p.filter.Value() != "" {
		k.Back.SetHelp("esc", "clear filter")
	}
}
