package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
)

// seenPane is versions_seen against channel_versions: one row per node and
// trigger channel, the answer to "why will this node run (or not) next?".
type seenPane struct {
	info engine.GraphInfo
	rows []seenRow
	nav  listNav
	view *engine.StepView
	// pinned is set once the person moves the cursor; until then it follows
	// the node the run is about, so the explanation is the useful one.
	pinned bool
	// replaying: a replay runs the view, and stops at a failure (it has
	// compared it) rather than running the failed step again.
	replaying bool
	// answeredFail are the failed tasks' nodes that failed on saved
	// answers (Model.answeredFail): n cannot get past them.
	answeredFail []string
	// live: the view is a subgraph run held while its root's step runs
	// (substep_view.go). Its end goes back to its parent on n: it is
	// neither answered (r) nor run again there, as the root's is.
	live bool
}

type seenRow struct {
	node, channel string
	seen, cur     engine.Version
	hasSeen       bool
	avail, due    bool
}

func (p *seenPane) setView(v *engine.StepView) {
	sel := p.selectedNode()
	p.view = v
	p.rows = p.rows[:0]
	avail := map[string]bool{}
	for _, c := range v.Channels {
		avail[c.Name] = c.Available
	}
	for _, n := range p.nodes() {
		for _, t := range n.Triggers {
			seen, ok := v.VersionsSeen[n.Name][t]
			cur := v.Versions[t]
			p.rows = append(p.rows, seenRow{node: n.Name, channel: t, seen: seen, hasSeen: ok, cur: cur, avail: avail[t], due: engine.TriggerFires(avail[t], cur, seen)})
		}
	}
	if !p.pinned {
		sel = p.interesting(v)
	}
	if sel != "" {
		for i, r := range p.rows {
			if r.node == sel {
				p.nav.cur = i
				break
			}
		}
	}
	p.nav.cur = clamp(p.nav.cur, 0, len(p.rows)-1)
}

// interesting is the node a glance should explain: the first with a task
// this step, else the first that is due.
func (p seenPane) interesting(v *engine.StepView) string {
	if v.Phase != engine.PhaseCheckpoint && len(v.Tasks) > 0 {
		return v.Tasks[0].Name
	}
	for _, r := range p.rows {
		if r.due {
			return r.node
		}
	}
	return ""
}

func (p seenPane) selectedNode() string {
	if p.nav.cur < len(p.rows) && len(p.rows) > 0 {
		return p.rows[p.nav.cur].node
	}
	return ""
}

// nodes are the graph's nodes with __start__ first: its task carries the
// input into the graph in step 0, so it has a row like any node. An
// entrypoint has no __start__ node: its versions_seen holds its own node
// (and its Task calls' names, which have no triggers).
func (p seenPane) nodes() []engine.NodeInfo {
	if p.info.Entrypoint {
		return p.info.Nodes
	}
	return append([]engine.NodeInfo{{Name: engine.Start, Triggers: []string{engine.Start}}}, p.info.Nodes...)
}

func (p seenPane) triggers(node string) []string {
	for _, n := range p.nodes() {
		if n.Name == node {
			return n.Triggers
		}
	}
	return nil
}

func (p seenPane) View(st Styles, focused bool, w, h int) string {
	if p.view == nil {
		return ""
	}
	nodeW, chW := 4, 7
	for _, r := range p.rows {
		nodeW = max(nodeW, len(r.node))
		chW = max(chW, len(r.channel))
	}
	// A row is node, trigger and 13 cells of versions (" seen now" and the
	// mark), which must show whole: the trigger column gives way first
	// (cutTrigger keeps what tells), down to 4 cells, then the node.
	nodeW = min(nodeW, w/3)
	chW = min(chW, max(4, w-nodeW-14))
	nodeW = max(1, min(nodeW, w-14-chW))
	ew := max(1, w)
	expl := ansi.Wordwrap(p.explanation(), ew, " ")
	explLines := min(strings.Count(expl, "\n")+1, max(1, h/3))
	if fit := h - 1 - len(p.rows); fit >= 1 && explLines > fit {
		// Rows that fit stay in view; the explanation is cut (enter
		// shows it whole).
		explLines = fit
	}
	body := h - 1 - explLines
	out := []string{st.Dim.Render(pad("node", nodeW) + " " + pad("trigger", chW) + "  seen  now")}
	from, to := p.nav.window(body, len(p.rows))
	for i := from; i < to; i++ {
		r := p.rows[i]
		seen := "   -"
		if r.hasSeen {
			seen = fmt.Sprintf("%4d", r.seen)
		}
		cur := fmt.Sprintf("%4d", r.cur)
		if !r.avail {
			cur = st.Unavailable.Render(cur)
		}
		mark := "  "
		if r.due {
			seen = st.Stale.Render(seen)
			cur = st.Stale.Render(fmt.Sprintf("%4d", r.cur))
			mark = st.Stale.Render(" " + glyphStale)
		}
		line := pad(r.node, nodeW) + " " + pad(cutTrigger(r.channel, chW), chW) + " " + seen + " " + cur + mark
		if focused && i == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		}
		out = append(out, line)
	}
	for len(out) < h-explLines {
		out = append(out, "")
	}
	el := strings.Split(expl, "\n")
	if len(el) > explLines {
		el = el[:explLines]
		el[explLines-1] = cut(el[explLines-1]+" …", max(1, w-8)) + " (enter)"
	}
	for _, l := range el {
		out = append(out, st.Label.Render(l))
	}
	return strings.Join(out, "\n")
}

// explanation is what the pane says under its rows about the selected
// node: why it runs or not, or why the run stopped.
func (p seenPane) explanation() string {
	if p.view == nil {
		return ""
	}
	switch {
	case p.replaying && p.view.Status == engine.StatusFailed:
		return "The replay stops at this failure: t forks or replays a checkpoint."
	case len(p.answeredFail) > 0 && failedTask(p.view) != nil:
		return "The run failed on " + p.answeredFail[0] + "'s saved answer, which n reuses: p then n asks again (a fork), f edits in a fork."
	case p.live && p.view.Status == engine.StatusFailed:
		return "This subgraph run failed: n takes the failure back to its parent."
	case p.live && p.view.Status == engine.StatusInterrupted && len(p.view.Interrupts) == 0:
		return "This subgraph run stopped at a breakpoint compiled into it: n goes back to its parent, and the root's step stops there too."
	case p.live:
		return explainNodeAnswer(p.view, p.selectedNode(), p.triggers(p.selectedNode()), ": the root asks for the answer when its step ends")
	}
	return explainNode(p.view, p.selectedNode(), p.triggers(p.selectedNode()))
}

// explainNode says in one sentence why node will run in the next Plan or
// why it will not, from the same facts the engine plans with: a node runs
// when one of its trigger channels is available at a version newer than
// the one the node last saw.
func explainNode(v *engine.StepView, node string, triggers []string) string {
	return explainNodeAnswer(v, node, triggers, ": r answers it")
}

// explainNodeAnswer is explainNode saying how an interrupted task of node
// is answered: answer follows "node is interrupted in step N".
func explainNodeAnswer(v *engine.StepView, node string, triggers []string, answer string) string {
	if v == nil || node == "" {
		return ""
	}
	// At the end of the run (the header and the status line say so) why
	// a node does not run is still the question: a trigger may be newer
	// than what its node saw and yet be cleared.
	done := v.Status == engine.StatusDone
	switch v.Status {
	case engine.StatusFailed:
		if failedTask(v) == nil { // the recursion limit, a cancelled run
			return "The run stopped: n goes on from its last checkpoint, as a resumed run (with a new recursion budget)."
		}
		return "The run failed: n runs the failed step again (finished tasks keep their writes)."
	}
	if v.Phase != engine.PhaseCheckpoint && !done {
		return explainTasks(v, node, answer)
	}
	avail := map[string]bool{}
	var tasks any
	for _, c := range v.Channels {
		avail[c.Name] = c.Available
		if c.Name == engine.TasksChannel && c.Available {
			tasks = c.Value
		}
	}
	var why []string
	for _, t := range triggers {
		cur := v.Versions[t]
		seen, saw := v.VersionsSeen[node][t]
		switch fires := engine.TriggerFires(avail[t], cur, seen); {
		case fires && !saw:
			// The versions_seen pane shows "-" here: no entry, which the
			// engine compares as version 0 (ENGINE-NOTES: a missing entry
			// is the null version, pregel/_algo.py:1251-1257).
			return fmt.Sprintf("%s will run: %s is at v%d, which %s has never seen.", node, t, cur, node)
		case fires:
			return fmt.Sprintf("%s will run: %s is at v%d, %s last saw v%d.", node, t, cur, node, seen)
		case cur == 0:
			why = append(why, t+" was never written")
		case !avail[t] && saw && cur > seen:
			// A channel a step cleared (an ephemeral one not written
			// again) gets a new version by the clearing: newer than what
			// the node saw, and empty.
			why = append(why, fmt.Sprintf("%s was cleared at v%d, after the v%d %s saw", t, cur, seen, node))
		case !avail[t] && !saw:
			why = append(why, fmt.Sprintf("%s is not available (cleared at v%d)", t, cur))
		default:
			why = append(why, fmt.Sprintf("%s is at v%d and %s already saw it", t, cur, node))
		}
	}
	if n := sendsTo(tasks, node); n > 0 && !done {
		return fmt.Sprintf("%s will run as %s from %s.", node, plural(n, "Send task"), engine.TasksChannel)
	}
	if len(why) == 0 {
		return node + " has no trigger channel; only a Send or a goto runs it."
	}
	return node + " will not run: " + strings.Join(why, "; ") + "."
}

// explainTasks says what node's tasks of the superstep on screen are
// doing, by their state: planned, or how each ended (at an interrupt some
// ran and some wait for an answer).
func explainTasks(v *engine.StepView, node, answer string) string {
	var states []engine.TaskState
	for _, t := range v.Tasks {
		if t.Name == node {
			states = append(states, t.State)
		}
	}
	if len(states) == 0 {
		return fmt.Sprintf("%s has no task in step %d.", node, v.Step)
	}
	// word is what a task in state s did, and what that means.
	word := func(s engine.TaskState) (verb, means string) {
		switch s {
		case engine.TaskDone:
			return "ran", ""
		case engine.TaskInterrupted:
			return "is interrupted", answer
		case engine.TaskFailed:
			return "failed", ""
		case engine.TaskReused:
			return "reuses its saved writes", ": it does not run again"
		case engine.TaskCached:
			return "took its writes from the node cache", ": it did not run"
		}
		if v.Phase == engine.PhaseExecuted {
			return "ran", "" // a task the engine left planned after Execute
		}
		return "is planned", ""
	}
	first, means := word(states[0])
	same := true
	for _, s := range states {
		verb, _ := word(s)
		same = same && verb == first
	}
	switch {
	case len(states) == 1 && first == "is planned":
		return fmt.Sprintf("%s is planned in step %d%s.", node, v.Step, plannedBecause(v, node))
	case len(states) == 1:
		return fmt.Sprintf("%s %s in step %d%s.", node, first, v.Step, means)
	case same:
		return fmt.Sprintf("%s %s in step %d as %d tasks (Send)%s.", node, first, v.Step, len(states), means)
	}
	count := map[string]int{}
	var order []string
	for _, s := range states {
		verb, _ := word(s)
		if count[verb] == 0 {
			order = append(order, verb)
		}
		count[verb]++
	}
	parts := make([]string, len(order))
	for i, verb := range order {
		parts[i] = fmt.Sprintf("%d %s", count[verb], verb)
	}
	return fmt.Sprintf("%s has %d tasks (Send) in step %d: %s.", node, len(states), v.Step, strings.Join(parts, ", "))
}

// plannedBecause says why node's one planned task was planned, from the
// facts Plan used: the trigger it names (TaskView.Triggers) was newer
// than what node had seen of it. versions_seen is written when the step's
// writes are applied (Update), so between Plan and Update it still holds
// what node saw before ("" for a Send, which the caller names, or when
// the view does not say).
func plannedBecause(v *engine.StepView, node string) string {
	for _, t := range v.Tasks {
		if t.Name != node || t.Push || len(t.Triggers) == 0 {
			continue
		}
		trig := t.Triggers[0]
		cur, ok := v.Versions[trig]
		if !ok {
			return ""
		}
		if seen, saw := v.VersionsSeen[node][trig]; saw {
			return fmt.Sprintf(": %s is at v%d, %s last saw v%d", trig, cur, node, seen)
		}
		return fmt.Sprintf(": %s is at v%d, which %s has never seen", trig, cur, node)
	}
	return ""
}

func sendsTo(tasks any, node string) int {
	n := 0
	switch xs := tasks.(type) {
	case []any:
		for _, x := range xs {
			if s, ok := x.(engine.Send); ok && s.Node == node {
				n++
			}
		}
	case []engine.Send:
		for _, s := range xs {
			if s.Node == node {
				n++
			}
		}
	}
	return n
}
