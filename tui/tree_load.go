package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// The checkpoint tree's loading, apart from how the tree is shown and
// browsed (pane_tree.go), so that how it is read can change alone.
//
// The heads come with the session, through loadTree's Cmd. Everything
// read after that — the checkpoint under the cursor whole, the plans of
// the rows drawn — is read by Cmds of the tree's own (tree_reads.go),
// which run while the session may be lent to another Cmd: they read
// through a savedThread, never through the session.

// loadTree reads the thread's checkpoints for the tree (t).
func (m *Model) loadTree() tea.Cmd {
	return m.do(opHistory, func(ctx context.Context, s session) opDoneMsg {
		h, err := s.History(ctx)
		return opDoneMsg{hist: h, err: err}
	})
}

// showTree opens the tree on the checkpoints loadTree read, the current
// one selected. The reads of the tree it replaces are cancelled: their
// answers would be dropped anyway.
func (m *Model) showTree(hist []engine.CheckpointHead) {
	cur := ""
	if m.view != nil {
		cur = m.view.CheckpointID
	}
	var src any
	if ts, ok := m.sess.(threadSource); ok {
		src = ts.savedThread()
	}
	m.tree.stopReads()
	m.tree = newTreePane(m.ctx, hist, cur, m.thread, src)
	m.tree.marked = m.mark
	m.refreshTreePreview()
	m.mode = modeTree
}

// threadSource is a session that can hand out a reader of its thread's
// checkpoints that is not the session itself (savedThread), for Cmds
// that read while the session is lent to another.
type threadSource interface {
	savedThread() savedThread
}

// History reads the heads of the thread's checkpoints (id, parent, step,
// source): no versions, values or writes, so the tree of a long thread
// loads in time and memory linear in its checkpoints with a small
// constant. The tree plans the rows it draws (Outline) and reads the
// checkpoint under its cursor whole (Snapshot).
func (s *engineSession) History(ctx context.Context) ([]engine.CheckpointHead, error) {
	return s.g.HistoryHeads(ctx, engine.Config{ThreadID: s.thread})
}

// savedThread reads one thread's checkpoints as the saver holds them: no
// run, no Stepper and no cache, only the compiled graph and the saver,
// which are safe for concurrent use. So, unlike the session, it may be
// used by any number of Cmds at once, while the session steps a run in
// another; and it stays on the thread it was made for when the session
// opens another.
type savedThread struct {
	g      *engine.Graph
	saver  engine.Saver
	thread string
}

var (
	_ threadSource   = (*engineSession)(nil)
	_ snapshotReader = savedThread{}
	_ windowPlanner  = savedThread{}
	_ changeReader   = savedThread{}
)

// savedThread is the session's thread as the saver holds it.
func (s *engineSession) savedThread() savedThread {
	return savedThread{g: s.g, saver: s.saver, thread: s.thread}
}

// Outline plans up to limit of the thread's checkpoints older than before
// ("" for the newest), newest first, without reading their values.
func (t savedThread) Outline(ctx context.Context, before string, limit int) ([]*engine.StateSnapshot, error) {
	return t.g.HistoryOutline(ctx, engine.Config{ThreadID: t.thread}, engine.ListOptions{Before: before, Limit: limit})
}

// Snapshot reads one checkpoint of the thread whole, as History would
// list it with its values.
func (t savedThread) Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error) {
	return t.g.GetState(ctx, engine.Config{ThreadID: t.thread, CheckpointID: id})
}

// Changed names the channels snap's checkpoint changed (changedIn),
// reading its parent when it recorded none; nil when it cannot be read.
func (t savedThread) Changed(ctx context.Context, snap *engine.StateSnapshot) map[string]bool {
	return t.changed(ctx, snap.Config.CheckpointNS, snap.Config.CheckpointID, snap.ParentID, snap.Checkpoint)
}

// TaskAnswers are the answers a recorded task of the checkpoint cfg
// addresses was given, its subgraph's included (engine.Graph.TaskAnswers);
// it makes the reader a recording.Answerer, for a replay.
func (t savedThread) TaskAnswers(ctx context.Context, cfg engine.Config, task engine.SnapshotTask) ([]any, error) {
	return t.g.TaskAnswers(ctx, cfg, task)
}

// Snapshot reads one checkpoint of the session's thread whole (the
// watches' parent values, read in a step's Cmd).
func (s *engineSession) Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error) {
	return s.savedThread().Snapshot(ctx, id)
}
