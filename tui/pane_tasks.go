package tui

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// tasksPane shows what the current phase did: the planned tasks and their
// input after Plan, each task's pending writes after Execute (before any
// reducer), and what the Update changed.
type tasksPane struct {
	title  string
	all    []taskRow // every row of the view
	rows   []taskRow // the rows the / filter keeps
	filter string
	nav    listNav
	// verdicts, during a replay, judge each executed task (by id) against
	// the recording.
	verdicts map[string]replayVerdict
	// edited are the tasks whose writes a person replaced (a).
	edited []string
	// subgraphs are the nodes that run a subgraph: enter on their task
	// opens its namespace.
	subgraphs map[string]bool
	// answers are the answers the tasks saved, by task id
	// (session.SavedAnswers).
	answers map[string][]any
	// paths name where each pending interrupt was raised, by interrupt
	// id (session.InterruptPaths).
	paths map[string]string
	// closeThreads are the database's threads with ids close to a new
	// thread's (Options.CloseThreads), listed while it is not written.
	closeThreads []string
	// cutOff are the done tasks of the superstep of a head checked out
	// in the tree, which was cut off after they saved their writes
	// (cutOffTasks): stepping reuses them. Nil for any other view.
	cutOff []engine.TaskView
	// live: the pane shows a subgraph run held while the root's step
	// runs, where no namespace can be opened (the step owns the
	// session): its subgraph tasks are marked, not offered to enter.
	live bool
}

// taskRow is one line; rows with a value open in the inspector.
type taskRow struct {
	text     string
	style    func(Styles) func(...string) string
	value    any
	hasValue bool
	name     string // inspector title
	node     string
	taskID   string // a planned task's id (e runs it alone)
	// header marks a task's own row (not its writes); label names it as
	// the subgraph breadcrumb does: node, or node[i] among copies.
	header bool
	label  string
}

// setView lists what v shows of the superstep: the tasks planned (and
// running), the checkpoint's changed state keys, or each task's writes,
// interrupts and errors once it ran; ran are the tasks that wrote the
// checkpoint shown.
func (p *tasksPane) setView(v *engine.StepView, ran []engine.TaskView, running bool) {
	p.all = p.all[:0]
	switch {
	case v == nil:
		p.title = "Tasks"
	case v.Phase == engine.PhasePlanned && v.Status == engine.StatusRunning:
		p.title = fmt.Sprintf("Tasks · step %d planned", v.Step)
		if running {
			p.title = fmt.Sprintf("Tasks · step %d running", v.Step)
		}
		p.addPlanned(v, running)
	case unwritten(v):
		p.title = "Tasks · new thread"
		p.add(taskRow{text: "not in the database: nothing is", style: dimStyle})
		p.add(taskRow{text: "written until you step (n s c)", style: dimStyle})
		if len(p.closeThreads) > 0 {
			p.add(taskRow{text: "", style: dimStyle})
			p.add(taskRow{text: "close ids in the database (T):", style: dimStyle})
			for _, id := range p.closeThreads {
				p.add(taskRow{text: "  " + termtext.Name(id)})
			}
		}
	case v.Phase == engine.PhaseCheckpoint && v.Status == engine.StatusRunning && failedTask(v) == nil || v.Status == engine.StatusDone && len(v.Tasks) == 0:
		p.title = fmt.Sprintf("Tasks · checkpoint %s (%s)", termtext.Name(shortID(v.CheckpointID)), termtext.Name(v.Source))
		p.addCheckpoint(v, ran)
	default:
		p.title = fmt.Sprintf("Tasks · step %d writes", v.Step)
		p.addResults(v)
	}
	if v != nil && v.Phase != engine.PhasePlanned && v.Phase != engine.PhaseCheckpoint {
		p.addWaiting(v)
	}
	p.setFilter(p.filter)
}

func (p *tasksPane) add(r taskRow) { p.all = append(p.all, r) }

// addPlanned lists the planned tasks with what triggered each and its
// input.
func (p *tasksPane) addPlanned(v *engine.StepView, running bool) {
	labels := copyLabels(v.Tasks)
	for _, t := range v.Tasks {
		trig := strings.Join(t.Triggers, ",")
		if t.Push {
			trig = "Send"
		}
		st := t.State
		mark := ""
		switch st {
		case engine.TaskCached:
			// Matched in the node cache right after Plan: its writes
			// are already there and Execute will not run it.
			mark = "  ◆ cached"
		case engine.TaskReused:
			// Its writes were saved before (a failed step run again),
			// as the live list and the graph say: not by colour alone.
			mark = "  reused (its saved writes; it does not run again)"
		}
		if p.subgraphs[t.Name] {
			mark += "  ⤷"
		}
		p.add(taskRow{text: fmt.Sprintf("%s ← %s%s  %s", labels[t.ID], trig, mark, preview(t.Input, previewBudget)), style: taskStyle(st, running), value: t.Input, hasValue: true, name: t.Name + " input", node: t.Name, taskID: t.ID, header: true, label: labels[t.ID]})
	}
	p.addWaiting(v)
}

// addCheckpoint lists, at a checkpoint between supersteps, the tasks that
// wrote it, the subgraphs planned next, and the state keys that changed,
// or why none did.
func (p *tasksPane) addCheckpoint(v *engine.StepView, ran []engine.TaskView) {
	labels := copyLabels(v.Tasks)
	if len(ran) > 0 {
		p.add(taskRow{text: "ran: " + taskNames(ran), style: dimStyle})
	}
	for _, t := range v.Tasks {
		switch {
		case p.subgraphs[t.Name] && p.live:
			p.add(taskRow{text: "⤷ " + labels[t.ID] + " ran a subgraph (enter opens it after the step)", style: dimStyle, node: t.Name})
		case p.subgraphs[t.Name]:
			p.add(taskRow{text: "⤷ " + labels[t.ID] + ": enter opens its subgraph", style: dimStyle, node: t.Name, taskID: t.ID, header: true, label: labels[t.ID]})
		}
	}
	n := 0
	for _, c := range v.Channels {
		if !c.Updated || c.Internal {
			continue
		}
		n++
		pv := preview(c.Value, previewBudget)
		if c.Reducer == "add_messages" {
			pv = conversationPreview(c.Value, pv)
		}
		p.add(taskRow{text: fmt.Sprintf("%s = %s", c.Name, pv), style: updatedStyle, value: c.Value, hasValue: true, name: c.Name})
	}
	// A cut-off head's done tasks saved their writes: a thread opened
	// there lists them as its tasks (ran is empty); the head checked out
	// in the tree lists the tasks that wrote it, and has them apart.
	cut := p.cutOff
	if len(ran) == 0 && len(savedDone(v.Tasks)) > 0 {
		cut = savedDone(v.Tasks)
	}
	if len(cut) > 0 && v.Status == engine.StatusRunning {
		p.add(taskRow{text: cutOffSaid(cut, v.Step), style: dimStyle})
	}
	// A checkpoint reopened or travelled to does not say which tasks
	// wrote it (ran is empty): what the next step holds is said instead,
	// under the keys the checkpoint changed.
	switch {
	case len(cut) > 0 && v.Status == engine.StatusRunning && len(ran) == 0:
		// Said above: the next step holds their writes.
	case len(ran) == 0 && v.Status == engine.StatusRunning && len(v.Answers) > 0:
		p.addHeldAnswers(v)
	case len(ran) == 0 && v.Status == engine.StatusRunning && v.HasSavedAnswer:
		// Answered and not yet run (the run was left after r, or reopened):
		// nothing else on screen says the answer is waiting.
		p.add(taskRow{text: fmt.Sprintf("answer %s saved, not taken yet: n plans step %d, whose waiting task takes it", preview(v.SavedAnswer, previewBudget), v.Step), style: dimStyle, value: v.SavedAnswer, hasValue: true, name: "answer"})
	case len(ran) == 0 && v.Status == engine.StatusRunning:
		p.add(taskRow{text: fmt.Sprintf("nothing ran here yet: n plans step %d", v.Step), style: dimStyle})
	case n == 0 && len(ran) > 0:
		p.add(taskRow{text: "no state key changed", style: dimStyle})
	}
	p.addWaiting(v)
	if v.Status == engine.StatusDone {
		p.add(taskRow{text: "run finished", style: dimStyle})
	}
}

// addHeldAnswers says, at a checkpoint resumed with answers by interrupt
// id, which interrupts the run holds an answer for and which go on
// waiting: until the next step runs, the answers are the run's alone
// (engine.StepView.Answers), and nothing else on screen says so.
func (p *tasksPane) addHeldAnswers(v *engine.StepView) {
	for _, in := range v.Interrupts {
		where := cmp.Or(p.paths[in.ID], in.Node)
		if a, ok := v.Answers[in.ID]; ok {
			p.add(taskRow{text: fmt.Sprintf("answer %s for %s, held by this run", preview(a, previewBudget), where), style: dimStyle, value: a, hasValue: true, name: where + " answer", node: in.Node})
			continue
		}
		p.add(taskRow{text: fmt.Sprintf("%s %s still waits: no answer given", glyphAttention, where), style: taskStyle(engine.TaskInterrupted, false), value: in.Value, hasValue: true, name: where + " interrupt", node: in.Node})
	}
	p.add(taskRow{text: fmt.Sprintf("n plans step %d, whose tasks take the answers and save them", v.Step), style: dimStyle})
}

// addResults lists each task of the superstep with how it ended and,
// under it, its writes, interrupts, retried attempts and error.
func (p *tasksPane) addResults(v *engine.StepView) {
	labels := copyLabels(v.Tasks)
	for _, t := range v.Tasks {
		label, style := p.resultLabel(t)
		p.add(taskRow{text: labels[t.ID] + " " + label, style: style, value: t.Input, hasValue: true, name: t.Name + " input", node: t.Name, taskID: t.ID, header: true, label: labels[t.ID]})
		for _, w := range t.Writes {
			p.add(taskRow{text: "  " + writeText(w), value: w.Value, hasValue: true, name: t.Name + " → " + w.Channel, node: t.Name, taskID: t.ID})
		}
		for _, in := range t.Interrupts {
			p.add(taskRow{text: "  " + glyphAttention + " interrupt " + preview(in.Value, previewBudget), style: taskStyle(engine.TaskInterrupted, false), value: in.Value, hasValue: true, name: t.Name + " interrupt", node: t.Name})
		}
		for i, e := range t.Retried {
			// Why the retry policy ran it again: the last attempt's
			// outcome alone hides a flaky tool.
			p.add(taskRow{text: fmt.Sprintf("  %s attempt %d failed: %s", glyphFailed, i+1, firstLine(e.Error())), style: dimStyle, value: errorDetail(e), hasValue: true, name: fmt.Sprintf("%s attempt %d error", t.Name, i+1), node: t.Name})
		}
		if t.Err != nil {
			p.add(taskRow{text: "  " + glyphFailed + " " + firstLine(errorCause(t.Name, t.Err)), style: taskStyle(engine.TaskFailed, false), value: errorDetail(t.Err), hasValue: true, name: t.Name + " error", node: t.Name})
		}
		p.all = append(p.all, taskAnswerRows("  ", labels[t.ID], t.Name, p.answers[t.ID])...)
		if len(t.Writes) == 0 && len(t.Interrupts) == 0 && t.Err == nil && t.State != engine.TaskPlanned {
			p.add(taskRow{text: "  (no writes)", style: dimStyle})
		}
	}
}

// taskAnswerRows are the rows of the answers a task was resumed with, in the
// order its Interrupt calls use them (a node that asks twice keeps only
// its last question, but every answer), indented by indent under the
// task labelled label (node, or node[i] among copies): the tasks pane's
// and a subgraph namespace's.
func taskAnswerRows(indent, label, node string, answers []any) []taskRow {
	rows := make([]taskRow, 0, len(answers))
	for i, a := range answers {
		rows = append(rows, taskRow{text: fmt.Sprintf("%s%s answer %d: %s", indent, glyphOK, i+1, preview(a, previewBudget)), value: a, hasValue: true, name: fmt.Sprintf("%s answer %d", label, i+1), node: node})
	}
	return rows
}

// resultLabel is how task t ended, as its row says it: its state, its
// attempts, a call, edited writes, a replay's verdict, a subgraph.
func (p *tasksPane) resultLabel(t engine.TaskView) (string, func(Styles) func(...string) string) {
	label := stateLabel(t.State, false)
	if t.Attempts > 1 {
		label += fmt.Sprintf(" after %d attempts", t.Attempts)
	}
	if t.State == engine.TaskCached {
		label = "◆ cached: did not run, writes from the node cache"
	}
	if t.Call {
		label += "  ƒ call" // an engine.Task call made by another task's node
	}
	style := taskStyle(t.State, false)
	if slices.Contains(p.edited, t.ID) {
		label += "  " + glyphEdited + " writes edited"
	}
	if vd, ok := p.verdicts[t.ID]; ok {
		if vd.same {
			label += "  = recorded"
			if vd.why != "" {
				label += ": " + vd.why
			}
		} else {
			label += "  ≠ recorded: " + vd.why
			style = taskStyle(engine.TaskFailed, false)
		}
	}
	if p.subgraphs[t.Name] {
		label += "  ⤷"
	}
	return label, style
}

// failedTask is the first task of v that failed: at a checkpoint, one that
// saved its error there (a reopened run that failed; stepping runs the
// superstep again).
func failedTask(v *engine.StepView) *engine.TaskView {
	for i := range v.Tasks {
		if v.Tasks[i].State == engine.TaskFailed {
			return &v.Tasks[i]
		}
	}
	return nil
}

// addWaiting lists the deferred nodes that were triggered and wait for the
// run to run out of other work (engine StepView.Waiting): they are not
// tasks of this superstep, so they are greyed, after the tasks.
func (p *tasksPane) addWaiting(v *engine.StepView) {
	for _, n := range v.Waiting {
		p.all = append(p.all, taskRow{text: glyphWaiting + " " + n + " waiting (deferred: runs when all else is done)", style: waitingStyle, node: n})
	}
}

// copyLabels names each task as the subgraph breadcrumb does: its node,
// or node[i] (1-based, in task order) when the step ran several copies.
func copyLabels(ts []engine.TaskView) map[string]string {
	count := map[string]int{}
	for _, t := range ts {
		count[t.Name]++
	}
	seen := map[string]int{}
	out := make(map[string]string, len(ts))
	for _, t := range ts {
		seen[t.Name]++
		out[t.ID] = t.Name
		if count[t.Name] > 1 {
			out[t.ID] = fmt.Sprintf("%s[%d]", t.Name, seen[t.Name])
		}
	}
	return out
}

// setFilter keeps the rows whose node or text contains f (any case).
func (p *tasksPane) setFilter(f string) {
	p.filter = f
	p.rows = p.rows[:0]
	lf := strings.ToLower(f)
	for _, r := range p.all {
		if lf == "" || strings.Contains(strings.ToLower(r.node), lf) || strings.Contains(strings.ToLower(r.text), lf) {
			p.rows = append(p.rows, r)
		}
	}
	p.nav.cur = clamp(p.nav.cur, 0, len(p.rows)-1)
}

// heading is the pane's title with the filter in force.
func (p tasksPane) heading() string {
	if p.filter != "" {
		return p.title + " /" + p.filter
	}
	return p.title
}

// savedDone lists the tasks of a reopened checkpoint that saved their
// writes (session.Open fills them from the saved writes).
// cutOffSaid says that the done tasks of superstep step, cut off before
// its checkpoint was written (cutOffTasks), saved their writes and that
// stepping reuses them: the words of the tasks pane when the thread is
// opened there and of the note when its head is checked out.
func cutOffSaid(done []engine.TaskView, step int) string {
	return fmt.Sprintf("%s saved writes before superstep %d was cut off: n plans it and reuses them", taskNames(done), step)
}

func savedDone(ts []engine.TaskView) []engine.TaskView {
	var out []engine.TaskView
	for _, t := range ts {
		if t.State == engine.TaskDone {
			out = append(out, t)
		}
	}
	return out
}

func taskNames(ts []engine.TaskView) string {
	var names []string
	count := map[string]int{}
	for _, t := range ts {
		if count[t.Name] == 0 {
			names = append(names, t.Name)
		}
		count[t.Name]++
	}
	for i, n := range names {
		if count[n] > 1 {
			names[i] = fmt.Sprintf("%s ×%d", n, count[n])
		}
	}
	return strings.Join(names, ", ")
}

func taskStyle(s engine.TaskState, running bool) func(Styles) func(...string) string {
	return func(st Styles) func(...string) string { return st.task(s, running).Render }
}

func waitingStyle(st Styles) func(...string) string { return st.TaskWaiting.Render }
func dimStyle(st Styles) func(...string) string     { return st.Dim.Render }
func updatedStyle(st Styles) func(...string) string { return st.Updated.Render }

func (p tasksPane) selected() (taskRow, bool) {
	if p.nav.cur < len(p.rows) && len(p.rows) > 0 {
		return p.rows[p.nav.cur], true
	}
	return taskRow{}, false
}

func (p tasksPane) View(st Styles, focused bool, w, h int) string {
	from, to := p.nav.window(h, len(p.rows))
	out := make([]string, 0, max(h, 0))
	for i := from; i < to; i++ {
		r := p.rows[i]
		line := cut(termtext.Name(r.text), w)
		if focused && i == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		} else if r.style != nil {
			line = r.style(st)(line)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// writeText is a task's write as a row reads it: "channel ← value", or
// "→ node" for a write that only sends the run to a node (its trigger
// channel's null: engine.Write.RoutesTo).
func writeText(w engine.Write) string {
	if node, ok := w.RoutesTo(); ok {
		return glyphRoute + " " + termtext.Name(node)
	}
	return w.Channel + " ← " + preview(w.Value, previewBudget)
}

// errorCause is what the row under a failed task's own says of its
// error: the task's row names the node and that it failed, the pane's
// title the step, so the engine's NodeError (node, step, attempts) is
// left out for what it wraps, "panicked: " before a panic's value and the
// attempts when it was retried. At 80 columns the whole text, node
// "summarize" failed at step 4: …, left no room for the cause. enter
// shows the whole (errorDetail). Another error, or one of another node
// (a Task call's), is its text.
func errorCause(node string, err error) string {
	var ne *engine.NodeError
	if !errors.As(err, &ne) || ne.Node != node || ne.Err == nil {
		return err.Error()
	}
	cause := ne.Err.Error()
	if ne.Panic {
		cause = "panicked: " + cause
	}
	if ne.Attempts > 1 {
		cause = fmt.Sprintf("after %d attempts: %s", ne.Attempts, cause)
	}
	return cause
}
