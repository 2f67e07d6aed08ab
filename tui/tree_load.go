package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// The checkpoint tree's loading, apart from how the tree is shown and
// browsed (pane_tree.go), so that how it is read can change alone.

// loadTree reads the thread's checkpoints for the tree (t).
func (m *Model) loadTree() tea.Cmd {
	return m.do(opHistory, func(ctx context.Context, s session) opDoneMsg {
		h, err := s.History(ctx)
		return opDoneMsg{hist: h, err: err}
	})
}

// showTree opens the tree on the checkpoints loadTree read, the current
// one selected.
func (m *Model) showTree(hist []*engine.StateSnapshot) {
	cur := ""
	if m.view != nil {
		cur = m.view.CheckpointID
	}
	m.tree = newTreePane(hist, cur, m.sess)
	m.tree.marked = m.mark
	m.refreshTreePreview()
	m.mode = modeTree
}

// History reads the thread's outline: no state values, so the tree of a
// long thread loads in time and memory linear in its checkpoints; the tree
// reads the checkpoint under its cursor whole (Snapshot).
func (s *engineSession) History(ctx context.Context) ([]*engine.StateSnapshot, error) {
	return s.g.HistoryOutline(ctx, engine.Config{ThreadID: s.thread}, engine.ListOptions{})
}

var _ snapshotReader = (*engineSession)(nil)

// Snapshot reads one checkpoint of the thread whole, as History would
// list it with its values.
func (s *engineSession) Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error) {
	return s.g.GetState(ctx, engine.Config{ThreadID: s.thread, CheckpointID: id})
}
