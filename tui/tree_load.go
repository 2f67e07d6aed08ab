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
	m.tree = newTreePane(hist, cur)
	m.tree.marked = m.mark
	m.refreshTreePreview()
	m.mode = modeTree
}

// History lists the thread's checkpoints, newest first, every branch.
func (s *engineSession) History(ctx context.Context) ([]*engine.StateSnapshot, error) {
	return s.g.History(ctx, engine.Config{ThreadID: s.thread}, engine.ListOptions{})
}
