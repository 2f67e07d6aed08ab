package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
)

// graphPane lists the nodes with their outgoing edges and this superstep's
// tasks. A one-line-per-node layout reads at 80 columns and scales; the
// Mermaid picture is what engine.Graph.Mermaid is for.
type graphPane struct {
	nodes []string // __start__ first, then declaration order
	edges map[string][]edgeOut
	trig  map[string][]string
	nav   listNav

	tasks   map[string]*taskAgg
	running bool
}

type edgeOut struct {
	to   string
	kind byte // '>' edge, '?' conditional, 'g' Command goto, 'j' join
	with []string
}

// taskAgg folds the tasks of one node: Send fans out many tasks of a node.
type taskAgg struct {
	n     int
	state engine.TaskState
}

func newGraphPane(info engine.GraphInfo) graphPane {
	p := graphPane{nodes: []string{engine.Start}, edges: map[string][]edgeOut{}, trig: map[string][]string{}}
	for _, n := range info.Nodes {
		p.nodes = append(p.nodes, n.Name)
		p.trig[n.Name] = n.Triggers
		for _, e := range n.Ends {
			p.edges[n.Name] = append(p.edges[n.Name], edgeOut{to: e, kind: 'g'})
		}
	}
	for _, e := range info.Edges {
		switch {
		case e.Join:
			for _, f := range e.From {
				var others []string
				for _, o := range e.From {
					if o != f {
						others = append(others, o)
					}
				}
				p.edges[f] = append(p.edges[f], edgeOut{to: e.To, kind: 'j', with: others})
			}
		case e.Conditional:
			p.edges[e.From[0]] = append(p.edges[e.From[0]], edgeOut{to: e.To, kind: '?'})
		default:
			p.edges[e.From[0]] = append(p.edges[e.From[0]], edgeOut{to: e.To, kind: '>'})
		}
	}
	return p
}

// setTasks records this superstep's tasks; running marks planned ones as
// executing now.
func (p *graphPane) setTasks(tasks []engine.TaskView, running bool) {
	p.tasks = map[string]*taskAgg{}
	p.running = running
	for _, t := range tasks {
		a := p.tasks[t.Name]
		if a == nil {
			a = &taskAgg{state: t.State}
			p.tasks[t.Name] = a
		}
		a.n++
		if severity(t.State) > severity(a.state) {
			a.state = t.State
		}
	}
}

func severity(s engine.TaskState) int {
	return [...]int{engine.TaskReused: 0, engine.TaskDone: 1, engine.TaskPlanned: 2, engine.TaskInterrupted: 3, engine.TaskFailed: 4}[s]
}

func (p graphPane) selected() string {
	if p.nav.cur < len(p.nodes) {
		return p.nodes[p.nav.cur]
	}
	return ""
}

func stateLabel(s engine.TaskState, running bool) string {
	if running && s == engine.TaskPlanned {
		return "running"
	}
	return s.String()
}

func (p graphPane) View(st Styles, bp breakpoints, focused bool, w, h int) string {
	rows := make([]string, 0, max(h, 0))
	from, to := p.nav.window(h-1, len(p.nodes))
	nameW := 0
	for _, n := range p.nodes {
		l := len(n)
		if a := p.tasks[n]; a != nil && a.n > 1 {
			l += len(fmt.Sprintf(" ×%d", a.n))
		}
		nameW = max(nameW, l+1)
	}
	nameW = min(nameW, max(8, w/2))
	labelW := 0
	for _, a := range p.tasks {
		labelW = max(labelW, len(stateLabel(a.state, p.running))+1)
	}
	for i := from; i < to; i++ {
		n := p.nodes[i]
		gut := " "
		if bp.before[n] {
			gut = st.Breakpoint.Render("●")
		}
		if bp.after[n] {
			gut += st.Breakpoint.Render("○")
		} else {
			gut += " "
		}
		name := n
		label := ""
		if a := p.tasks[n]; a != nil {
			if a.n > 1 {
				name += fmt.Sprintf(" ×%d", a.n)
			}
			s := st.task(a.state, p.running)
			name = s.Render(pad(name, nameW))
			label = s.Render(stateLabel(a.state, p.running))
		} else {
			name = pad(name, nameW)
		}
		var outs []string
		for _, e := range p.edges[n] {
			switch e.kind {
			case '?':
				to := e.to
				if to == "*" {
					to = "any"
				}
				outs = append(outs, st.CondEdge.Render("⇢ "+to+"?"))
			case 'g':
				outs = append(outs, st.CondEdge.Render("↪ "+e.to))
			case 'j':
				outs = append(outs, st.Edge.Render("⋈ "+e.to+" (+"+strings.Join(e.with, ",")+")"))
			default:
				outs = append(outs, st.Edge.Render("→ "+e.to))
			}
		}
		line := gut + name + " " + pad(label, labelW) + strings.Join(outs, "  ")
		if focused && i == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		}
		rows = append(rows, line)
	}
	for len(rows) < h-1 {
		rows = append(rows, "")
	}
	foot := st.Dim.Render("→ edge ⇢ conditional ↪ goto ⋈ join  ● before ○ after")
	if n := p.selected(); focused && n != "" && n != engine.Start {
		foot = st.Dim.Render(n + " triggers on " + strings.Join(p.trig[n], ", "))
	}
	rows = append(rows, foot)
	return strings.Join(rows, "\n")
}
