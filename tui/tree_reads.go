package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// The checkpoint tree's reads. Against a database across the network
// (superstep tui --db postgres://…) a read takes a round trip, or as long
// as a slow server makes it: none may happen while a key is handled or
// the screen drawn, or every cursor move would wait on it and a server
// that stops answering would freeze the debugger, ctrl+c included.
//
// So the tree asks. After every Update, readTree compares what the tree
// shows with what it knows and, for what is missing, starts a Cmd: the
// checkpoint under the cursor read whole (readSelected), the plans of the
// rows drawn (planWindow). Each answer names the thread and carries the
// number it was asked under. One read of each kind is in flight at a
// time: moving on while one is out asks nothing more, and its answer,
// whatever it brings, is followed by the read of where the cursor or the
// window is then. Holding j over a long thread thus reads about once per
// round trip, not once per row, and never piles reads on a slow server.
// An answer about a checkpoint the cursor has left is dropped.

// treeAsked numbers the tree's reads in flight (0: none of that kind).
type treeAsked struct {
	selected, plans int
}

// treeSnapMsg answers readSelected: checkpoint id of thread read whole,
// with the channels it changed, or why it could not be read.
type treeSnapMsg struct {
	thread, id string
	seq        int
	snap       *engine.StateSnapshot
	changed    map[string]bool
	err        error
}

// treePlansMsg answers planWindow: the plans of a window of rows.
type treePlansMsg struct {
	thread string
	seq    int
	plans  treeWindow
}

// treeAct is a key of the tree that needs a checkpoint's values or tasks
// which the tree may not have read yet: it reads them in a Cmd of its own
// (readFor) and goes on when they come (Model.onTreeAct).
type treeAct int

const (
	treeActFork  treeAct = iota + 1 // f: the fork form, with the values
	treeActRerun                    // e: run a planned task alone
)

// treeActMsg answers readFor: checkpoint id of thread read whole for act.
type treeActMsg struct {
	thread, id string
	act        treeAct
	snap       *engine.StateSnapshot
	err        error
}

// readTree starts the reads the tree on screen is missing (see above);
// nil when it misses nothing, has a read of each kind in flight, or is not
// on screen.
func (m *Model) readTree() tea.Cmd {
	if m.baseMode() != modeTree {
		return nil
	}
	p := &m.tree
	var cmds []tea.Cmd
	if id, ok := p.wantSelected(); ok {
		m.treeReads++
		p.asked.selected = m.treeReads
		cmds = append(cmds, p.readSelected(m.treeReads, id))
	}
	if lo, hi, ok := p.wantPlans(); ok {
		m.treeReads++
		p.asked.plans = m.treeReads
		cmds = append(cmds, p.planWindow(m.treeReads, lo, hi))
	}
	return tea.Batch(cmds...)
}

// wantSelected returns the checkpoint under the cursor when it is to be
// read whole now: not read yet, and no read in flight.
func (p treePane) wantSelected() (id string, ok bool) {
	if !p.reading() || p.asked.selected != 0 {
		return "", false
	}
	return p.snaps[p.nav.cur].ID, true
}

// wantPlans returns the checkpoints [lo, hi) to plan now: the rows drawn,
// when the last window asked for does not hold them and no plan is in
// flight; and the row below them, usually the last row's parent.
func (p treePane) wantPlans() (lo, hi int, ok bool) {
	if p.planner == nil || p.asked.plans != 0 || len(p.snaps) == 0 {
		return 0, 0, false
	}
	first, last := p.checkpointsIn(p.nav.off, min(len(p.rows), p.nav.off+p.height))
	if first >= last {
		return 0, 0, false
	}
	if w := p.plans; w.from < w.to && first >= w.from && last <= w.to {
		return 0, 0, false
	}
	return first, min(last+1, len(p.snaps)), true
}

// readSelected is the Cmd that reads checkpoint id whole, with the
// channels it changed.
func (p treePane) readSelected(seq int, id string) tea.Cmd {
	ctx, reader, changes, thread := p.ctx, p.reader, p.changes, p.thread
	return func() tea.Msg {
		msg := treeSnapMsg{thread: thread, id: id, seq: seq}
		msg.snap, msg.err = reader.Snapshot(ctx, id)
		if msg.snap != nil && changes != nil {
			msg.changed = changes.Changed(ctx, msg.snap)
		}
		return msg
	}
}

// planWindow is the Cmd that plans checkpoints [lo, hi), and the parents
// of their loop checkpoints that fall outside (for "by …"): one outline
// read of the run and one per such parent. The heads and their index are
// never written after the layout, so the Cmd may read them.
func (p treePane) planWindow(seq, lo, hi int) tea.Cmd {
	ctx, planner, thread, heads, byID := p.ctx, p.planner, p.thread, p.snaps, p.byID
	return func() tea.Msg {
		before := ""
		if lo > 0 {
			before = heads[lo-1].ID
		}
		snaps, err := planner.Outline(ctx, before, hi-lo)
		w := treeWindow{from: lo, to: hi, snaps: snaps, err: err}
		for i := lo; i < hi && err == nil; i++ {
			j, ok := byID[heads[i].ParentID]
			if !ok || heads[i].Source != engine.SourceLoop || w.plan(j, heads[j].ID) != nil {
				continue
			}
			before := ""
			if j > 0 {
				before = heads[j-1].ID
			}
			if one, err := planner.Outline(ctx, before, 1); err == nil && len(one) == 1 {
				if w.extra == nil {
					w.extra = map[int]*engine.StateSnapshot{}
				}
				w.extra[j] = one[0]
			}
		}
		return treePlansMsg{thread: thread, seq: seq, plans: w}
	}
}

// readFor is the Cmd that reads checkpoint id whole for act.
func (p treePane) readFor(act treeAct, id string) tea.Cmd {
	ctx, reader, thread := p.ctx, p.reader, p.thread
	return func() tea.Msg {
		snap, err := reader.Snapshot(ctx, id)
		return treeActMsg{thread: thread, id: id, act: act, snap: snap, err: err}
	}
}

// takeSelected takes readSelected's answer and reports whether it is the
// cursor's checkpoint's. An answer to a tree since replaced is ignored;
// one about a checkpoint the cursor has left is dropped (readTree then
// reads where it is).
func (p *treePane) takeSelected(msg treeSnapMsg) bool {
	if msg.thread != p.thread || msg.seq != p.asked.selected {
		return false
	}
	p.asked.selected = 0
	if p.nav.cur >= len(p.snaps) || p.snaps[p.nav.cur].ID != msg.id {
		return false
	}
	p.whole = wholeSnap{id: msg.id, snap: msg.snap, changed: msg.changed, err: msg.err}
	return true
}

// takePlans takes planWindow's answer. A window the rows have left since
// is kept all the same until the next one comes: its plans are right for
// the rows they are of.
func (p *treePane) takePlans(msg treePlansMsg) {
	if msg.thread != p.thread || msg.seq != p.asked.plans {
		return
	}
	p.asked.plans = 0
	p.plans = msg.plans
}

// stopReads cancels the pane's reads in flight.
func (p treePane) stopReads() {
	if p.stop != nil {
		p.stop()
	}
}

// onTreeAct goes on with a key that read its checkpoint first (readFor),
// unless the tree was left meanwhile or the session lent to a Cmd.
func (m *Model) onTreeAct(msg treeActMsg) tea.Cmd {
	if m.mode != modeTree || msg.thread != m.tree.thread {
		return nil
	}
	m.note = ""
	switch {
	case msg.err != nil:
		m.err = msg.err
		return nil
	case m.sess == nil:
		m.note = "checkpoint " + shortID(msg.id) + " was read while something else ran: press the key again"
		return nil
	case msg.act == treeActFork:
		return m.openFork(msg.id, msg.snap.Values)
	case msg.act == treeActRerun:
		return m.rerunTaskOf(msg.snap)
	}
	return nil
}
