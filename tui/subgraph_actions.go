package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// What the subgraph view does beyond reading: diff two checkpoints of the
// namespace, answer the interrupts raised in it, and travel back to the
// run's checkpoint a subgraph checkpoint was written under. Forking a
// subgraph checkpoint needs the engine to update state in a subgraph's
// namespace with the subgraph's channels, which it does not yet.

// subgraphDiff diffs the selected checkpoint of the namespace with the one
// marked there, or with its parent: the same diff engine as the main
// view's d, on checkpoints already read.
func (m *Model) subgraphDiff() tea.Cmd {
	p := &m.sub
	lv, b := p.level(), p.selectedSnap()
	if lv == nil || b == nil {
		return nil
	}
	want, la := b.ParentID, "parent "
	if p.mark != "" && p.mark != b.Config.CheckpointID {
		want, la = p.mark, "marked "
	}
	var a *engine.StateSnapshot
	for _, s := range lv.snaps {
		if s.Config.CheckpointID == want {
			a = s
		}
	}
	if a == nil || a.Checkpoint == nil || b.Checkpoint == nil {
		m.note = "this checkpoint has no parent in the namespace: m marks one to diff with"
		return nil
	}
	d := engine.DiffCheckpoints(a.Checkpoint, b.Checkpoint)
	la += shortID(want) + " " + stepNote(a.Metadata.Step)
	m.diff = newDiffPane(d, p.breadcrumb()+" · "+la, shortID(b.Config.CheckpointID)+" "+stepNote(b.Metadata.Step), lv.roles, m.chans.showInternal)
	m.diffPrev, m.mode = m.mode, modeDiff
	return nil
}

// subgraphTimeTravel makes current the run's checkpoint that the selected
// subgraph checkpoint was written under (its metadata's parents name it):
// stepping from there forks the run and runs the subgraph task again.
func (m *Model) subgraphTimeTravel() tea.Cmd {
	s := m.sub.selectedSnap()
	if s == nil || m.sess == nil {
		return nil
	}
	id := s.Metadata.Parents[""]
	if id == "" {
		m.note = "this subgraph checkpoint names no checkpoint of the run"
		return nil
	}
	from := "from " + m.sub.breadcrumb() + " " + shortID(s.Config.CheckpointID)
	return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
		v, err := ss.Checkout(ctx, id)
		return opDoneMsg{view: v, err: err, text: from}
	})
}

// subgraphInterrupts are the run's pending interrupts raised by a node of
// the namespace on screen (not relayed from a subgraph below it).
func (m *Model) subgraphInterrupts() []engine.PendingInterrupt {
	lv := m.sub.level()
	if lv == nil || len(lv.snaps) == 0 || m.view == nil || len(m.view.Interrupts) == 0 {
		return nil
	}
	here := map[string]bool{}
	for _, t := range lv.snaps[0].Tasks {
		if lv.subgraphs[t.Name] || !t.Waiting {
			continue
		}
		for _, in := range t.Interrupts {
			here[in.ID] = true
		}
	}
	var out []engine.PendingInterrupt
	for _, in := range m.view.Interrupts {
		if here[in.ID] {
			out = append(out, in)
		}
	}
	return out
}

// openSubgraphAnswer opens an answer box for the interrupts raised in
// this namespace. The run is resumed from its root, by interrupt id, as
// LangGraph resumes a subgraph's interrupt: the parent task runs the
// subgraph again, which picks its answer up where it stopped.
func (m *Model) openSubgraphAnswer() {
	ints := m.subgraphInterrupts()
	if len(ints) == 0 {
		m.note = "no interrupt of the run is waiting in this namespace"
		return
	}
	m.answer = m.newAnswer(ints)
	m.answer.byID = true
	m.answer.prev = modeSubgraph
	m.restoreDrafts()
	m.mode = modeAnswer
	m.note = fmt.Sprintf("%s raised in %s: enter resumes the run with these answers (by id)", plural(len(ints), "interrupt"), m.sub.breadcrumb())
}
