package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// o in the checkpoint tree opens, read only, the namespace of a subgraph
// that the selected checkpoint's step ran, without checking it out: the
// subgraph tasks are those enter on a task would offer after time travel
// there (checkoutTasks), read in a Cmd; the run's position and the store
// are left as they were. When the step ran several (Send copies, two
// subgraph nodes), a list under the tree asks which, each named as the
// tasks pane names it (node[i] for copies).

// treeSubgraphsMsg answers readSubgraphTasks: the tasks of checkpoint id
// of thread that run a subgraph, or why they could not be read.
type treeSubgraphsMsg struct {
	thread, id string
	refs       []subgraphRef
	err        error
}

// treeSubPick is the list o opens when the step ran several subgraph
// tasks: on while refs holds them, cur the one selected.
type treeSubPick struct {
	id   string // the checkpoint whose step ran them
	refs []subgraphRef
	cur  int
}

func (p treeSubPick) on() bool { return len(p.refs) > 0 }

// readSubgraphTasks is the Cmd that reads checkpoint id's tasks as a
// checkout would list them and keeps those of the nodes in subgraphs; at
// a checkpoint whose own step failed or waits, and ran none, those of the
// step that wrote it.
func (p treePane) readSubgraphTasks(id string, subgraphs map[string]bool) tea.Cmd {
	ctx, reader, thread := p.ctx, p.reader, p.thread
	return func() tea.Msg {
		msg := treeSubgraphsMsg{thread: thread, id: id}
		snap, err := reader.Snapshot(ctx, id)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.refs = subgraphRefs(checkoutTasks(ctx, reader, snap), subgraphs)
		if len(msg.refs) == 0 {
			// A checkpoint its next step failed or stopped at lists
			// that step's tasks; when none of them runs a subgraph, the
			// step that wrote it (its row's "by …") may have.
			msg.refs = subgraphRefs(writers(ctx, reader, snap), subgraphs)
		}
		return msg
	}
}

// subgraphRefs are the tasks of ts (one step's) that run a subgraph, as
// ways into it at the root, labelled as the tasks pane labels them.
func subgraphRefs(ts []engine.TaskView, subgraphs map[string]bool) []subgraphRef {
	labels := copyLabels(ts)
	var out []subgraphRef
	for _, t := range ts {
		if subgraphs[t.Name] && t.ID != "" {
			out = append(out, subgraphRef{node: t.Name, taskID: t.ID, label: labels[t.ID]})
		}
	}
	return out
}

// openTreeSubgraph is o in the tree: it reads the selected checkpoint's
// subgraph tasks (onTreeSubgraphs goes on).
func (m *Model) openTreeSubgraph() tea.Cmd {
	s := m.tree.selected()
	switch {
	case s == nil:
		return nil
	case m.sess == nil:
		m.note = "wait: the debugger is busy with the run"
		return nil
	case m.tree.reader == nil:
		m.note = "o: this session cannot read the thread's checkpoints; enter makes the checkpoint current, then enter on its subgraph task"
		return nil
	}
	m.note = "reading checkpoint " + shortID(s.Config.CheckpointID) + "'s subgraph tasks…"
	return m.tree.readSubgraphTasks(s.Config.CheckpointID, m.tasks.subgraphs)
}

// onTreeSubgraphs goes on with o once the checkpoint's subgraph tasks are
// read: one opens at once, several open the list that asks which. An
// answer for a tree left or a checkpoint the cursor left is dropped.
func (m *Model) onTreeSubgraphs(msg treeSubgraphsMsg) tea.Cmd {
	s := m.tree.selected()
	if m.mode != modeTree || msg.thread != m.tree.thread || s == nil || s.Config.CheckpointID != msg.id {
		return nil
	}
	m.note = ""
	switch {
	case msg.err != nil:
		m.err = msg.err
	case len(msg.refs) == 0:
		m.note = "o: checkpoint " + shortID(msg.id) + "'s step ran no subgraph task"
	case len(msg.refs) == 1:
		return m.openTreeSubgraphRef(msg.refs[0])
	default:
		m.tree.pick = treeSubPick{id: msg.id, refs: msg.refs}
	}
	return nil
}

// openTreeSubgraphRef opens r's namespace read only over the tree, to
// which esc comes back.
func (m *Model) openTreeSubgraphRef(r subgraphRef) tea.Cmd {
	if m.sess == nil {
		m.note = "wait: the debugger is busy with the run (o again when it is done)"
		return nil
	}
	m.sub = subgraphPane{root: m.opts.GraphName, prev: modeTree}
	return m.enterSubgraph(r)
}

// pickKey handles a key while the list of subgraph tasks is open.
func (m *Model) pickKey(msg tea.KeyMsg) tea.Cmd {
	p := &m.tree.pick
	k := &m.tree.keys
	switch {
	case key.Matches(msg, k.Back):
		*p = treeSubPick{}
	case key.Matches(msg, k.Up):
		p.cur = max(p.cur-1, 0)
	case key.Matches(msg, k.Down):
		p.cur = min(p.cur+1, len(p.refs)-1)
	case key.Matches(msg, k.Open):
		r := p.refs[p.cur]
		*p = treeSubPick{}
		return m.openTreeSubgraphRef(r)
	}
	return nil
}

// lines draws the list in w cells: a line that says what it asks, then
// one line per subgraph task, the selected one marked.
func (p treeSubPick) lines(st Styles, w int) []string {
	out := []string{cut(fmt.Sprintf("open which subgraph of %s (read only)?", shortID(p.id)), w)}
	for i, r := range p.refs {
		line := cut("  "+termtext.Name(r.label), w)
		if i == p.cur {
			line = st.Cursor.Render(pad(line, w))
		}
		out = append(out, line)
	}
	return out
}
