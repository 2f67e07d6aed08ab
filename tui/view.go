package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// View implements tea.Model.
func (m Model) View() string {
	if m.width < 20 || m.height < 6 {
		return fit("superstep: window too small", m.width, m.height)
	}
	body := m.viewBody()
	head := m.viewHeader()
	if m.showsSubStep() {
		head = m.subStepHeader()
	}
	foot := m.footer()
	if m.mode == modeHelp {
		foot = m.styles.Dim.Render("↑↓ pgup pgdn scroll · any other key closes the help")
	}
	return lipgloss.JoinVertical(lipgloss.Left,
		pad(head, m.width),
		pad(m.viewStatus(), m.width),
		body,
		pad(foot, m.width),
	)
}

func (m Model) phaseLabel() (string, lipgloss.Style) {
	st := m.styles
	if m.isBusy && (m.busy == opNext || m.busy == opSuperstep || m.continuing) {
		return "RUNNING", st.Running
	}
	v := m.view
	if v == nil {
		return "NO RUN", st.Done
	}
	if unwritten(v) {
		return "NEW THREAD", st.PhaseUpdate
	}
	if failedHere(v) {
		return "ERROR", st.Failed // live, or saved by the run that stopped here
	}
	return viewLabel(st, v)
}

// failedHere reports a view that stands at a failed superstep, which
// stepping runs again: the run failed live, or the checkpoint a reopened
// or travelled-to thread stands at holds a task's saved error (the run
// stopped there). The header says ERROR and n's help "retry" for both.
func failedHere(v *engine.StepView) bool {
	if v == nil {
		return false
	}
	return v.Status == engine.StatusFailed || v.Status == engine.StatusRunning && v.Phase == engine.PhaseCheckpoint && failedTask(v) != nil
}

// viewLabel says where a run's view is: how it ended, else the phase it
// completed last, or the kind of checkpoint it stands at. The root's
// header and a subgraph run stepped live both say it so.
func viewLabel(st Styles, v *engine.StepView) (string, lipgloss.Style) {
	switch v.Status {
	case engine.StatusInterrupted:
		return "INTERRUPTED", st.Interrupted
	case engine.StatusDone:
		return "DONE", st.Done
	case engine.StatusFailed:
		return "ERROR", st.Failed
	}
	switch v.Phase {
	case engine.PhasePlanned:
		return "PLAN done", st.PhasePlan
	case engine.PhaseExecuted:
		return "EXECUTE done", st.PhaseExecute
	}
	if v.Source == engine.SourceLoop {
		return "UPDATE done", st.PhaseUpdate
	}
	return termtext.Name(strings.ToUpper(v.Source)) + " checkpoint", st.PhaseUpdate
}

// viewHeader is the top line: where the screen is (graph, thread,
// checkpoint, step), how the run stands, and what is on (a replay,
// stepping into subgraphs, queued keys). In a narrow window the parts the
// screen says elsewhere give way whole, never cut mid-word: the graph's
// name (the graph pane's title has it), then the recursion budget, then
// the checkpoint id (the tasks pane's and the tree's titles have it);
// then the thread's id is shortened.
func (m Model) viewHeader() string {
	st := m.styles
	label, ls := m.phaseLabel()
	type part = headerPart
	thread := termtext.Name(m.thread)
	parts := []part{{st.Header.Render(m.opts.GraphName), 3}, {"thread " + thread, 0}}
	if m.width >= 100 {
		parts = append([]part{{st.Header.Render("superstep"), 4}}, parts...)
	}
	switch v := m.view; {
	case unwritten(v):
		parts = append(parts, part{"not written yet", 0})
	case v != nil:
		parts = append(parts, part{"cp " + shortID(v.CheckpointID), 1}, part{stepLabel(v), 0})
	}
	parts = append(parts, part{ls.Render(" " + label + " "), 0})
	if v := m.view; v != nil && v.RecursionLeft >= 0 {
		parts = append(parts, part{st.HeaderDim.Render(fmt.Sprintf("budget %d", v.RecursionLeft)), 2})
	}
	if m.replay != nil {
		r := "REPLAY"
		switch {
		case m.replay.diverged != "":
			r += " diverged"
		case m.replay.pastEnd():
			r += " past the recording"
		}
		parts = append(parts, part{st.Interrupted.Render(" " + r + " "), 0})
	}
	if m.into.on {
		parts = append(parts, part{st.Notice.Render("⤷ step into"), 0})
	}
	if q := m.queuedLabel(); q != "" {
		parts = append(parts, part{q, 0})
	}
	busy := ""
	if m.isBusy {
		el := m.now().Sub(m.busySince).Round(100 * time.Millisecond)
		busy = "  " + m.spin.View() + " " + el.String()
	}
	return fitHeader(st, parts, thread, busy, m.width)
}

// headerPart is one part of a header line or of a checkpoint tree's row
// (fitRow); drop is its turn to give way in a narrow window (0: never;
// the highest first).
type headerPart struct {
	text string
	drop int
}

// fitHeader joins parts into a header line of at most width cells: the
// parts that may give way do, whole, the highest drop first; then the
// part "thread <thread>" gives up the middle of the id (a numbered series
// differs at the end), down to a few cells; past that the line is cut at
// the window's edge. busy goes last, as it is.
func fitHeader(st Styles, parts []headerPart, thread, busy string, width int) string {
	sep := st.HeaderDim.Render(" · ")
	parts = fitParts(parts, sep, width-lipgloss.Width(busy))
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text
		}
		return strings.Join(texts, sep) + busy
	}
	if over := lipgloss.Width(join()) - width; over > 0 {
		for i, p := range parts {
			if p.text == "thread "+thread {
				parts[i].text = "thread " + cutMiddle(thread, max(8, lipgloss.Width(thread)-over))
			}
		}
	}
	return join()
}

// fitParts is the parts that fit in width cells joined by sep: those
// that may give way do, whole, the highest drop first, until the rest
// fits or none is left to give way. The result is a new slice.
func fitParts(parts []headerPart, sep string, width int) []headerPart {
	parts = slices.Clone(parts)
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text
		}
		return strings.Join(texts, sep)
	}
	for lipgloss.Width(join()) > width {
		worst := -1
		for i, p := range parts {
			if p.drop > 0 && (worst < 0 || p.drop > parts[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		parts = slices.Delete(parts, worst, worst+1)
	}
	return parts
}

// unwritten reports a view of a new thread the database does not have
// yet (session.Preview): its input checkpoint is written by the first
// step.
func unwritten(v *engine.StepView) bool {
	return v != nil && v.CheckpointID == "" && v.Phase == engine.PhaseCheckpoint
}

// stepLabel says which superstep the screen is about, the same way before
// and after a resume: at a checkpoint, the step that wrote it and the one
// the next Plan starts; between phases, the step being run. A run stopped
// at an interrupt is at its checkpoint, whose tasks wait to run again,
// whether it stopped there live or was reopened or travelled to: all
// three read "step 2 → 3" (live it read "step 3").
func stepLabel(v *engine.StepView) string {
	atCheckpoint := v.Phase == engine.PhaseCheckpoint || v.Status == engine.StatusInterrupted && v.CheckpointID != ""
	if atCheckpoint && v.Status != engine.StatusFailed {
		if v.Status == engine.StatusDone {
			return fmt.Sprintf("step %d", v.CheckpointStep)
		}
		return fmt.Sprintf("step %d → %d", v.CheckpointStep, v.Step)
	}
	return fmt.Sprintf("step %d", v.Step)
}

func (m Model) viewStatus() string {
	st := m.styles
	switch {
	case m.mode == modeQuit:
		return st.Error.Render("A run is in progress. Quit anyway? (y/n)")
	case m.err != nil:
		return st.Error.Render(glyphFailed + " " + firstLine(m.err.Error()))
	case m.note != "":
		return st.Notice.Render(m.note)
	case m.view != nil && m.view.Status == engine.StatusDone:
		return st.Notice.Render("The run is done. t opens the checkpoint tree, T the threads.")
	}
	return ""
}

// plural counts n of a thing: "1 channel", "2 channels", "0 channels".
// Every noun the debugger counts takes an s; one that does not would
// need its own words, not this.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// errorDetail is what the value viewer shows of a task's error: its
// text, and the frames of a panic (engine.PanicStack) under it. It is
// prose, shown and copied as it reads: an error of one line was shown as
// a JSON string, its quotes escaped (node \"summarize\" failed).
func errorDetail(err error) prose {
	if stack := engine.PanicStack(err); stack != "" {
		return prose(err.Error() + "\n\npanicked at:\n" + stack)
	}
	return prose(err.Error())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func (m Model) viewBody() string {
	st := m.styles
	w, bh := m.width, m.bodyHeight()
	if m.mode == modeHelp {
		return m.helpView(w, bh)
	}
	switch m.baseMode() {
	case modeInspect:
		return m.inspectView(w, bh)
	case modeAnswer:
		return m.answerView(w, bh)
	case modeTree:
		return m.treeView(w, bh)
	case modeFork:
		return st.box("Fork", m.fork.View(st, w-2, bh-2), w, bh, true)
	case modeDiff:
		return st.box(m.diff.title, m.diff.View(st, w-2, bh-2), w, bh, true)
	case modeSubgraph:
		return m.subgraphView(w, bh)
	case modeSubStep:
		return m.subStepView(w, bh)
	case modePrompt:
		return st.box("Add", m.promptView(w-2, bh-2), w, bh, true)
	case modeSettings:
		return st.box("Run settings", m.settingsView(w-2, bh-2), w, bh, true)
	case modeEdit:
		return st.box("Edit writes", m.edit.View(st, w-2, bh-2), w, bh, true)
	case modeBreaks:
		return st.box("Breakpoints & watches", m.breaksView(w-2, bh-2), w, bh, true)
	case modeThreads:
		return st.box(m.threads.title(), m.threads.View(st, w-2, bh-2), w, bh, true)
	}
	return m.mainView()
}

// footerKeys are the footer's keys: the screen's own, then the global
// ones. Under the quit prompt every key but y keeps the run.
func (m Model) footerKeys() []key.Binding {
	return append(m.screenKeys(), m.global.ShortHelp()...)
}

// screenKeys are the footer's keys of the screen on show.
func (m Model) screenKeys() []key.Binding {
	if m.mode == modeQuit {
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("any other key", "stay"))}
	}
	return m.activeKeys().ShortHelp()
}

// footer is the bottom line: as many of the screen's keys as fit (an
// ellipsis says some did not), then the global ones (help, quit), which
// a narrow window never cuts off: ? is how a user finds the keys the line
// had no room for. It is drawn as the help bubble draws a short help.
func (m Model) footer() string {
	st := m.help.Styles
	items := func(bs []key.Binding) []string {
		var out []string
		for _, b := range bs {
			if b.Enabled() {
				out = append(out, st.ShortKey.Inline(true).Render(b.Help().Key)+" "+st.ShortDesc.Inline(true).Render(b.Help().Desc))
			}
		}
		return out
	}
	sep := st.ShortSeparator.Inline(true).Render(m.help.ShortSeparator)
	screen, global := items(m.screenKeys()), items(m.global.ShortHelp())
	tail := strings.Join(global, sep)
	for n := len(screen); n > 0; n-- {
		line := strings.Join(screen[:n], sep)
		if n < len(screen) {
			line += " " + st.Ellipsis.Inline(true).Render(m.help.Ellipsis)
		}
		if tail != "" {
			line += sep + tail
		}
		if lipgloss.Width(line) <= m.width {
			return line
		}
	}
	return tail
}
