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
	// (cutLeft keeps its telling end), down to 4 cells, then the node.
	nodeW = min(nodeW, w/3)
	chW = min(chW, max(4, w-nodeW-14))
	nodeW = max(1, min(nodeW, w-14-chW))
	explain := explainNode(p.view, p.selectedNode(), p.triggers(p.selectedNode()))
	if len(p.answeredFail) > 0 && failedTask(p.view) != nil {
		explain = "The run failed on " + p.answeredFail[0] + "'s saved answer, which n reuses: p then n asks again (a fork), f edits in a fork."
	}
	if p.replaying && p.view.Status == engine.StatusFailed {
		explain = "The replay stops at this failure: t forks or replays a checkpoint."
	}
	ew := max(1, w)
	expl := ansi.Wordwrap(explain, ew, " ")
	explLines := min(strings.Count(expl, "\n")+1, max(1, h/3))
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
		line := pad(r.node, nodeW) + " " + pad(cutLeft(r.channel, chW), chW) + " " + seen + " " + cur + mark
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
	}
	for _, l := range el {
		out = append(out, st.Label.Render(l))
	}
	return strings.Join(out, "\n")
}

// explainNode says in one sentence why node will run in the next Plan or
// why it will not, from the same facts the engine plans with: a node runs
// when one of its trigger channels is available at a version newer than
// the one the node last saw.
func explainNode(v *engine.StepView, node string, triggers []string) string {
	if v == nil || node == "" {
		return ""
	}
	switch v.Status {
	case engine.StatusDone:
		return "The run is done: no trigger channel is newer than what its node saw."
	case engine.StatusFailed:
		if failedTask(v) == nil { // the recursion limit, a cancelled run
			return "The run stopped: n goes on from its last checkpoint, as a resumed run (with a new recursion budget)."
		}
		return "The run failed: n runs the failed step again (finished tasks keep their writes)."
	}
	if v.Phase != engine.PhaseCheckpoint {
		n := 0
		for _, t := range v.Tasks {
			if t.Name == node {
				n++
			}
		}
		if n > 0 {
			what := "is planned"
			if v.Phase == engine.PhaseExecuted {
				what = "ran"
			}
			if n > 1 {
				return fmt.Sprintf("%s %s in step %d as %d tasks (Send).", node, what, v.Step, n)
			}
			return fmt.Sprintf("%s %s in step %d.", node, what, v.Step)
		}
		return fmt.Sprintf("%s has no task in step %d.", node, v.Step)
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
		case !avail[t]:
			why = append(why, fmt.Sprintf("%s is not available (cleared at v%d)", t, cur))
		default:
			why = append(why, fmt.Sprintf("%s is at v%d and %s already saw it", t, cur, node))
		}
	}
	if n := sendsTo(tasks, node); n > 0 {
		return fmt.Sprintf("%s will run as %d Send task(s) from %s.", node, n, engine.TasksChannel)
	}
	if len(why) == 0 {
		return node + " has no trigger channel; only a Send or a goto runs it."
	}
	return node + " will not run: " + strings.Join(why, "; ") + "."
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
