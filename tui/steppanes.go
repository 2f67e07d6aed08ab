package tui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/superstep/superstep/engine"
)

// stepPanes are the four panes of a run's view — its graph, channels,
// versions_seen and tasks — as the main view shows the root's run and a
// subgraph run stepped live shows its own. They own moving along the
// focused pane and what enter on its row opens.
type stepPanes struct {
	graph graphPane
	chans chanPane
	seen  seenPane
	tasks tasksPane
}

// move moves the focused pane's cursor by d rows.
func (p *stepPanes) move(focus paneID, d int) {
	switch focus {
	case paneGraph:
		p.graph.nav.move(d, len(p.graph.nodes))
		p.graph.track = true
	case paneChannels:
		p.chans.nav.move(d, len(p.chans.shown))
	case paneSeen:
		p.seen.nav.move(d, len(p.seen.rows))
		p.seen.pinned = true
	case paneTasks:
		p.tasks.nav.move(d, len(p.tasks.rows))
	}
}

// openRow is what enter on the focused pane's row does: it returns the
// inspector to open on the row's value (ok), or, for a node of the graph,
// moves to the node's versions_seen row (why it runs) and returns the
// pane to focus instead. channel makes the inspector of a channel's row,
// whose title and value the view decides.
func (p *stepPanes) openRow(focus paneID, channel func(engine.ChannelView) inspector) (insp inspector, ok bool, focusNow paneID) {
	focusNow = focus
	switch focus {
	case paneChannels:
		if cv, found := p.chans.selected(); found {
			return channel(cv), true, focus
		}
	case paneTasks:
		if r, found := p.tasks.selected(); found && r.hasValue {
			return newInspector(r.name, r.value), true, focus
		}
	case paneSeen:
		// The explanation whole, which the pane may cut.
		if n := p.seen.selectedNode(); n != "" {
			return newInspector("why "+n+" runs or not", prose(p.seen.explanation())), true, focus
		}
	case paneGraph:
		n := p.graph.selected()
		for i, r := range p.seen.rows {
			if r.node == n {
				p.seen.nav.cur = i
				return inspector{}, false, paneSeen
			}
		}
	}
	return inspector{}, false, focusNow
}

// enableOpen enables enter for what openRow does on the focused pane's
// row, with its help.
func (p *stepPanes) enableOpen(focus paneID, open *key.Binding) {
	switch focus {
	case paneChannels:
		open.SetEnabled(len(p.chans.shown) > 0)
		open.SetHelp("enter", "inspect value")
	case paneTasks:
		r, ok := p.tasks.selected()
		open.SetEnabled(ok && r.hasValue)
		open.SetHelp("enter", "inspect value")
	case paneGraph:
		open.SetEnabled(true)
		open.SetHelp("enter", "why does it run?")
	case paneSeen:
		open.SetEnabled(p.seen.selectedNode() != "")
		open.SetHelp("enter", "explain")
	}
}
