package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/draw"
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
	// waiting are deferred nodes triggered and waiting to run last.
	waiting map[string]bool

	// The drawn graph (g toggles it with the list): boxes and arrows laid
	// out once, shown through a window at (ox, oy) that follows the
	// selected node and scrolls with ←→.
	drawing *draw.Drawing
	drawn   bool
	chosen  bool // the person toggled: keep their choice
	ox, oy  int
	// track asks the next sync to scroll to the selected box (after the
	// selection moved); sideways scrolling by hand clears it.
	track bool
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
	p := graphPane{nodes: []string{engine.Start}, edges: map[string][]edgeOut{}, trig: map[string][]string{}, drawing: draw.Draw(draw.FromInfo(info))}
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
func (p *graphPane) setTasks(tasks []engine.TaskView, waiting []string, running bool) {
	p.tasks = map[string]*taskAgg{}
	p.waiting = map[string]bool{}
	for _, n := range waiting {
		p.waiting[n] = true
	}
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
	return [...]int{engine.TaskReused: 0, engine.TaskCached: 0, engine.TaskDone: 1, engine.TaskPlanned: 2, engine.TaskInterrupted: 3, engine.TaskFailed: 4}[s]
}

func (p *graphPane) selectNode(name string) {
	for i, n := range p.nodes {
		if n == name {
			p.nav.cur = i
		}
	}
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

// fit picks the drawing when it fits a w×h pane, unless the person chose.
func (p *graphPane) fit(w, h int) {
	if !p.chosen {
		p.drawn = p.drawing.Width <= w && len(p.drawing.Lines) <= h-1
	}
}

// follow scrolls the drawing the least needed to show the selected box.
func (p *graphPane) follow(w, h int) {
	if !p.drawn {
		return
	}
	h-- // the legend line
	if b, ok := p.drawing.Boxes[p.selected()]; ok && p.track {
		if b.Y < p.oy {
			p.oy = b.Y
		}
		if b.Y+b.H > p.oy+h {
			p.oy = b.Y + b.H - h
		}
		if b.X < p.ox {
			p.ox = b.X
		}
		if b.X+b.W > p.ox+w {
			p.ox = b.X + b.W - w
		}
	}
	p.ox = clamp(p.ox, 0, max(0, p.drawing.Width-w))
	p.oy = clamp(p.oy, 0, max(0, len(p.drawing.Lines)-h))
}

// viewDrawing shows the drawing's window: boxes of this superstep's tasks
// in their task's color, the selected box in the cursor style, ● / ○ on a
// box's left corners for breakpoints before / after the node.
func (p graphPane) viewDrawing(st Styles, bp breakpoints, focused bool, w, h int) string {
	d := p.drawing
	rows := make([]string, 0, h)
	for y := p.oy; y < min(len(d.Lines), p.oy+h-1); y++ {
		rows = append(rows, p.drawnRow(st, bp, focused, y, w))
	}
	for len(rows) < h-1 {
		rows = append(rows, "")
	}
	legend := "─ edge ╌ conditional/goto ⟲ back  ● before ○ after · g list"
	if p.ox > 0 || p.drawing.Width > p.ox+w || p.oy > 0 || len(d.Lines) > p.oy+h-1 {
		legend = fmt.Sprintf("%d×%d, scrolled %d,%d (←→ ↑↓) · g list", d.Width, len(d.Lines), p.ox, p.oy)
	}
	if n := p.selected(); focused && n != "" && n != engine.Start {
		legend = n + " triggers on " + strings.Join(p.trig[n], ", ")
	}
	rows = append(rows, st.Dim.Render(cut(legend, w)))
	return strings.Join(rows, "\n")
}

// drawnRow is line y of the drawing, w columns from the scroll offset:
// each box crossing it styled as its node is (selected, running or run,
// with a breakpoint), and a breakpoint's mark on the box's top (before)
// or bottom (after) line.
func (p graphPane) drawnRow(st Styles, bp breakpoints, focused bool, y, w int) string {
	line := []rune(p.drawing.Lines[y])
	type span struct {
		x0, x1 int
		style  func(...string) string
	}
	var spans []span
	for name, b := range p.drawing.Boxes {
		if y < b.Y || y >= b.Y+b.H {
			continue
		}
		if y == b.Y && bp.before[name] {
			line[b.X] = '●'
		}
		if y == b.Y+b.H-1 && bp.after[name] {
			line[b.X] = '○'
		}
		if style := p.boxStyle(st, bp, focused, name); style != nil {
			spans = append(spans, span{b.X, b.X + b.W, style})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].x0 < spans[j].x0 })
	x0, x1 := p.ox, min(len(line), p.ox+w)
	var b strings.Builder
	at := x0
	for _, sp := range spans {
		s0, s1 := max(sp.x0, x0), min(sp.x1, x1)
		if s0 >= s1 {
			continue
		}
		b.WriteString(string(line[at:s0]))
		b.WriteString(sp.style(string(line[s0:s1])))
		at = s1
	}
	if at < x1 {
		b.WriteString(string(line[at:x1]))
	}
	return b.String()
}

// boxStyle is how node name's box is drawn: the cursor's style when it is
// selected, its task's while it runs or after, the breakpoint's when it
// has one; nil: plain.
func (p graphPane) boxStyle(st Styles, bp breakpoints, focused bool, name string) func(...string) string {
	switch {
	case focused && name == p.selected():
		return st.Cursor.Render
	case p.tasks[name] != nil:
		return st.task(p.tasks[name].state, p.running).Render
	case bp.before[name] || bp.after[name]:
		return st.Breakpoint.Render
	}
	return nil
}

func (p graphPane) View(st Styles, bp breakpoints, focused bool, w, h int) string {
	if p.drawn {
		return p.viewDrawing(st, bp, focused, w, h)
	}
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
	if len(p.waiting) > 0 {
		labelW = max(labelW, len("waiting")+1)
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
		} else if p.waiting[n] {
			name = st.TaskWaiting.Render(pad(name, nameW))
			label = st.TaskWaiting.Render("waiting")
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
				outs = append(outs, st.CondEdge.Render(glyphGoto+" "+e.to))
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
	foot := st.Dim.Render(p.legend(bp))
	if n := p.selected(); focused && n != "" && n != engine.Start {
		foot = st.Dim.Render(n + " triggers on " + strings.Join(p.trig[n], ", "))
	}
	rows = append(rows, foot)
	return strings.Join(rows, "\n")
}

// legend names the marks the list draws, only those it can draw: the
// kinds of edge the graph has and, while any is set, the breakpoints'
// marks; then g. At 80 columns the legend of every kind was cut before
// "g draw", the one key it names, in a graph of plain edges.
func (p graphPane) legend(bp breakpoints) string {
	has := map[byte]bool{}
	for _, es := range p.edges {
		for _, e := range es {
			has[e.kind] = true
		}
	}
	var parts []string
	for _, k := range []struct {
		kind byte
		text string
	}{{'>', "→ edge"}, {'?', "⇢ conditional"}, {'g', glyphGoto + " goto"}, {'j', "⋈ join"}} {
		if has[k.kind] {
			parts = append(parts, k.text)
		}
	}
	legend := strings.Join(parts, " ")
	set := func(nodes map[string]bool) bool {
		for _, on := range nodes {
			if on {
				return true
			}
		}
		return false
	}
	if set(bp.before) || set(bp.after) {
		legend += "  ● before ○ after"
	}
	return legend + " · g draw"
}

// drawingKey handles the graph pane's own keys and reports whether msg
// was one: g switches between the list and the drawing from any pane,
// showing where the run is (the node of the first task, if any) as the
// drawing opens; left and right scroll the drawing while the pane has the
// focus.
func (p *graphPane) drawingKey(msg tea.KeyMsg, k *mainKeyMap, focused bool, where string) bool {
	switch {
	case key.Matches(msg, k.GraphView):
		p.drawn, p.chosen, p.track = !p.drawn, true, true
		if p.drawn && where != "" {
			p.selectNode(where)
		}
	case key.Matches(msg, k.Left) && focused && p.drawn:
		p.ox = max(0, p.ox-8)
		p.track = false
	case key.Matches(msg, k.Right) && focused && p.drawn:
		p.ox += 8
		p.track = false
	default:
		return false
	}
	return true
}
