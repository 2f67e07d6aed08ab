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
func (m *Model) showTree(hist []engine.CheckpointHead) {
	cur := ""
	if m.view != nil {
		cur = m.view.CheckpointID
	}
	m.tree = newTreePane(hist, cur, m.sess)
	m.tree.marked = m.mark
	m.refreshTreePreview()
	m.mode = modeTree
}

// History reads the heads of the thread's checkpoints (id, parent, step,
// source): no versions, values or writes, so the tree of a long thread
// loads in time and memory linear in its checkpoints with a small
// constant. The tree plans the rows it draws (Outline) and reads the
// checkpoint under its cursor whole (Snapshot).
func (s *engineSession) History(ctx context.Context) ([]engine.CheckpointHead, error) {
	return s.g.HistoryHeads(ctx, engine.Config{ThreadID: s.thread})
}

var (
	_ snapshotReader = (*engineSession)(nil)
	_ windowPlanner  = (*engineSession)(nil)
)

// Outline plans up to limit of the thread's checkpoints older than before
// ("" for the newest), newest first, without reading their values.
func (s *engineSession) Outline(ctx context.Context, before string, limit int) ([]*engine.StateSnapshot, error) {
	return s.g.HistoryOutline(ctx, engine.Config{ThreadID: s.thread}, engine.ListOptions{Before: before, Limit: limit})
}

// Snapshot reads one checkpoint of the thread whole, as History would
// list it with its values.
func (s *engineSession) Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error) {
	return s.g.GetState(ctx, engine.Config{ThreadID: s.thread, CheckpointID: id})
}

// TaskAnswers are the answers a recorded task of the checkpoint cfg
// addresses was given, its subgraph's included (engine.Graph.TaskAnswers);
// it makes the session a recording.Answerer.
func (s *engineSession) TaskAnswers(ctx context.Context, cfg engine.Config, task engine.SnapshotTask) ([]any, error) {
	return s.g.TaskAnswers(ctx, cfg, task)
}
