package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/termtext"
)

// treePane draws a thread's checkpoints like `git log --graph`: newest
// first, one lane per branch, a fork's branches joining where they meet
// their common parent. The layout is computed once per history load, so
// moving the cursor over thousands of checkpoints only redraws a window.
//
// The snapshots are an outline (engine.Graph.HistoryOutline: no state
// values); the one under the cursor is read whole from reader when the
// panes beside the tree or a fork need its values.
type treePane struct {
	snaps   []*engine.StateSnapshot
	reader  snapshotReader // nil: snaps are whole
	whole   *wholeSnap
	rows    []treeRow
	nav     listNav // over rows that are checkpoints (indexes into rows)
	points  []int   // row index of each snapshot, in snaps order
	byID    map[string]int
	current string
	marked  string     // the checkpoint marked for diff
	keys    treeKeyMap // made by enableKeys
}

// snapshotReader reads one checkpoint of the thread whole; the engine
// session is one.
type snapshotReader interface {
	Snapshot(ctx context.Context, id string) (*engine.StateSnapshot, error)
}

// wholeSnap is the checkpoint under the cursor read whole (or why it could
// not be): a cache of one, shared by the pane's copies.
type wholeSnap struct {
	idx  int
	snap *engine.StateSnapshot
	err  error
}

type treeRow struct {
	graph string
	snap  int // -1 for a connector row
}

func newTreePane(snaps []*engine.StateSnapshot, current string, sess any) treePane {
	p := treePane{snaps: snaps, byID: make(map[string]int, len(snaps)), current: current, whole: &wholeSnap{idx: -1}}
	p.reader, _ = sess.(snapshotReader)
	for i, s := range snaps {
		p.byID[s.Config.CheckpointID] = i
	}
	var lanes []string
	cell := func(j int, c string, fill string) string { return c + fill }
	for i, s := range snaps {
		id := s.Config.CheckpointID
		col, last := -1, -1
		var joins []int
		for j, want := range lanes {
			if want == id {
				if col < 0 {
					col = j
				} else {
					joins = append(joins, j)
					last = j
				}
			}
		}
		if len(joins) > 0 {
			var b strings.Builder
			isJoin := map[int]bool{}
			for _, j := range joins {
				isJoin[j] = true
			}
			for j := range lanes {
				inSpan := j > col && j < last
				fill := " "
				if j >= col && j < last {
					fill = "─"
				}
				switch {
				case j == col:
					b.WriteString(cell(j, "├", fill))
				case isJoin[j] && j == last:
					b.WriteString(cell(j, "┘", fill))
				case isJoin[j]:
					b.WriteString(cell(j, "┴", fill))
				case inSpan && lanes[j] != "":
					b.WriteString(cell(j, "┼", fill))
				case inSpan:
					b.WriteString(cell(j, "─", fill))
				case lanes[j] != "":
					b.WriteString(cell(j, "│", fill))
				default:
					b.WriteString(cell(j, " ", fill))
				}
			}
			p.rows = append(p.rows, treeRow{graph: strings.TrimRight(b.String(), " "), snap: -1})
			for _, j := range joins {
				lanes[j] = ""
			}
			for len(lanes) > 0 && lanes[len(lanes)-1] == "" {
				lanes = lanes[:len(lanes)-1]
			}
		}
		if col < 0 {
			for j, want := range lanes {
				if want == "" {
					col = j
					break
				}
			}
			if col < 0 {
				col = len(lanes)
				lanes = append(lanes, "")
			}
		}
		var b strings.Builder
		for j := range lanes {
			switch {
			case j == col:
				b.WriteString("● ")
			case lanes[j] != "":
				b.WriteString("│ ")
			default:
				b.WriteString("  ")
			}
		}
		p.points = append(p.points, len(p.rows))
		p.rows = append(p.rows, treeRow{graph: b.String(), snap: i})
		lanes[col] = s.ParentID
		for len(lanes) > 0 && lanes[len(lanes)-1] == "" {
			lanes = lanes[:len(lanes)-1]
		}
	}
	if i, ok := p.byID[current]; ok {
		p.nav.cur = i
	}
	return p
}

// selected returns the snapshot under the cursor, with its values: read
// whole once while the cursor stays on it. When it cannot be read, the
// outline is returned and describe says why.
func (p treePane) selected() *engine.StateSnapshot {
	if p.nav.cur >= len(p.snaps) || len(p.snaps) == 0 {
		return nil
	}
	s := p.snaps[p.nav.cur]
	if p.reader == nil || p.whole == nil {
		return s
	}
	if p.whole.idx != p.nav.cur {
		full, err := p.reader.Snapshot(context.Background(), s.Config.CheckpointID)
		*p.whole = wholeSnap{idx: p.nav.cur, snap: full, err: err}
	}
	if p.whole.snap == nil {
		return s
	}
	return p.whole.snap
}

// jumpParent moves the cursor to the selected checkpoint's parent.
func (p *treePane) jumpParent() bool {
	s := p.selected()
	if s == nil {
		return false
	}
	if i, ok := p.byID[s.ParentID]; ok {
		p.nav.cur = i
		return true
	}
	return false
}

// follow keeps the cursor's row in an h-row window; rows and checkpoints
// differ by the connector rows, so the window is over rows.
func (p *treePane) follow(h int) {
	p.nav.cur = clamp(p.nav.cur, 0, len(p.snaps)-1)
	if len(p.snaps) == 0 {
		return
	}
	r := p.points[p.nav.cur]
	rows := listNav{cur: r, off: p.nav.off}
	rows.follow(h, len(p.rows))
	p.nav.off = rows.off
}

func (p treePane) describe(i int) string {
	s := p.snaps[i]
	var b strings.Builder
	fmt.Fprintf(&b, "%s step %-2d %-6s", shortID(s.Config.CheckpointID), s.Metadata.Step, s.Metadata.Source)
	switch s.Metadata.Source {
	case engine.SourceLoop:
		if j, ok := p.byID[s.ParentID]; ok {
			var names []engine.TaskView
			for _, t := range p.snaps[j].Tasks {
				names = append(names, engine.TaskView{Name: t.Name})
			}
			if len(names) > 0 {
				b.WriteString(" by " + taskNames(names))
			}
		}
	case engine.SourceFork, engine.SourceUpdate:
		if s.ParentID != "" {
			b.WriteString(" of " + shortID(s.ParentID))
		}
		if ed, ok := s.Metadata.Extra[engine.MetaEditedWrites]; ok {
			// Never indistinguishable from a real run: say whose writes
			// were edited, and by whom.
			fmt.Fprintf(&b, " ✎ writes of %s edited by %s", termtext.Name(fmt.Sprint(ed)), termtext.Name(fmt.Sprint(s.Metadata.Extra[engine.MetaEditedBy])))
		}
	}
	if len(s.Next) > 0 {
		var ts []engine.TaskView
		for _, n := range s.Next {
			ts = append(ts, engine.TaskView{Name: n})
		}
		b.WriteString(" → " + taskNames(ts))
	} else if len(s.Tasks) == 0 {
		b.WriteString(" ■ end")
	}
	if ints := s.Interrupts(); len(ints) > 0 {
		fmt.Fprintf(&b, " ⚠ %d interrupt", len(ints))
	} else if answered(s) {
		b.WriteString(" ✓ answered")
	}
	if w := p.whole; w != nil && w.idx == i && w.err != nil {
		b.WriteString(" ⚠ values unreadable: " + termtext.Name(w.err.Error()))
	}
	return b.String()
}

func (p treePane) View(st Styles, w, h int) string {
	if len(p.snaps) == 0 {
		return st.Dim.Render("no checkpoints yet")
	}
	out := make([]string, 0, max(h, 0))
	for r := p.nav.off; r < min(len(p.rows), p.nav.off+h); r++ {
		row := p.rows[r]
		if row.snap < 0 {
			out = append(out, st.Branch.Render(row.graph))
			continue
		}
		text := p.describe(row.snap)
		g := row.graph
		id := p.snaps[row.snap].Config.CheckpointID
		if id == p.current {
			g = strings.Replace(g, "●", "◉", 1)
			text += " ← current"
		}
		if id == p.marked {
			text += " ◆ marked"
		}
		line := st.Branch.Render(g) + text
		if row.snap == p.nav.cur {
			line = st.Cursor.Render(pad(ansi.Strip(line), w))
		} else if id == p.current {
			line = st.Branch.Render(g) + st.Current.Render(text)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// viewFromSnapshot turns a stored checkpoint into the view the channels
// and versions_seen panes draw, so a tree checkpoint reads like a live one.
// Availability is inferred from the stored values: a checkpoint stores the
// value of every channel that has one.
func viewFromSnapshot(info engine.GraphInfo, s *engine.StateSnapshot) *engine.StepView {
	cp := s.Checkpoint
	v := &engine.StepView{
		Thread: s.Config.ThreadID, Step: s.Metadata.Step + 1, CheckpointStep: s.Metadata.Step, Phase: engine.PhaseCheckpoint,
		// No run holds this checkpoint yet, so no recursion budget is
		// known: the header leaves it out until a step starts one.
		RecursionLeft: -1,
		CheckpointID:  s.Config.CheckpointID, ParentID: s.ParentID, Source: s.Metadata.Source,
		Versions: map[string]engine.Version{}, VersionsSeen: map[string]map[string]engine.Version{}, Values: s.Values,
	}
	if len(s.Tasks) == 0 {
		v.Status = engine.StatusDone
	}
	if cp == nil {
		return v
	}
	v.Versions, v.VersionsSeen = cp.ChannelVersions, cp.VersionsSeen
	updated := map[string]bool{}
	for _, c := range cp.UpdatedChannels {
		updated[c] = true
	}
	for _, ci := range info.Channels {
		ver, hasVer := cp.ChannelVersions[ci.Name]
		val, hasVal := cp.ChannelValues[ci.Name]
		v.Channels = append(v.Channels, engine.ChannelView{
			Name: ci.Name, Kind: ci.Kind, Reducer: ci.Reducer, Internal: ci.Internal,
			Version: ver, HasVer: hasVer, Available: hasVal, Value: val, HasValue: hasVal, Updated: updated[ci.Name],
		})
	}
	return v
}

// shortID is the engine's one short form of a checkpoint id, the one the
// command line shows and resolves.
func shortID(id string) string { return engine.ShortID(id) }

func (m *Model) treeKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.tree.keys
	moved := true
	switch {
	case key.Matches(msg, k.Back):
		m.mode = modeMain
		return nil
	case key.Matches(msg, k.Up):
		m.tree.nav.move(-1, len(m.tree.snaps))
	case key.Matches(msg, k.Down):
		m.tree.nav.move(1, len(m.tree.snaps))
	case key.Matches(msg, k.PageUp):
		m.tree.nav.move(-m.bodyHeight()+2, len(m.tree.snaps))
	case key.Matches(msg, k.PageDown):
		m.tree.nav.move(m.bodyHeight()-2, len(m.tree.snaps))
	case key.Matches(msg, k.Parent):
		if !m.tree.jumpParent() {
			m.note = "this checkpoint has no parent"
		}
	case key.Matches(msg, k.Internal):
		m.treeChan.showInternal = !m.treeChan.showInternal
		m.chans.showInternal = m.treeChan.showInternal
		m.treeChan.refilter()
		m.chans.refilter()
	case key.Matches(msg, k.Open):
		s := m.tree.selected()
		if s == nil || m.sess == nil {
			return nil
		}
		id := s.Config.CheckpointID
		return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
			v, err := ss.Checkout(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	case key.Matches(msg, k.Fork):
		if s := m.tree.selected(); s != nil && m.sess != nil {
			return m.openFork(s.Config.CheckpointID, s.Values)
		}
		return nil
	case key.Matches(msg, k.Replay):
		s := m.tree.selected()
		if s == nil || m.sess == nil {
			return nil
		}
		r, err := newReplayRun(m.tree.snaps, s.Config.CheckpointID)
		if err != nil {
			m.err = err
			return nil
		}
		m.replayNext = r
		id := s.Config.CheckpointID
		return m.do(opCheckout, func(ctx context.Context, ss session) opDoneMsg {
			v, err := ss.Checkout(ctx, id)
			return opDoneMsg{view: v, err: err}
		})
	case key.Matches(msg, k.Rerun):
		s := m.tree.selected()
		if s == nil || m.sess == nil || len(s.Tasks) == 0 {
			m.note = "no task is planned from this checkpoint"
			return nil
		}
		// e again on the same checkpoint takes its next task.
		i := 0
		if m.rerunAt == s.Config.CheckpointID {
			i = (m.rerunIdx + 1) % len(s.Tasks)
		}
		m.rerunAt, m.rerunIdx = s.Config.CheckpointID, i
		t := s.Tasks[i]
		return m.rerunTask(s.Config.CheckpointID, t.ID, t.Name)
	case key.Matches(msg, k.Mark):
		if s := m.tree.selected(); s != nil {
			m.setMark(s.Config.CheckpointID)
			m.tree.marked = m.mark
		}
		return nil
	case key.Matches(msg, k.Diff):
		if s := m.tree.selected(); s != nil && m.sess != nil {
			return m.diffWith(s.Config.CheckpointID, s.ParentID)
		}
		return nil
	default:
		moved = false
	}
	if moved {
		m.refreshTreePreview()
	}
	return nil
}

func (m *Model) refreshTreePreview() {
	s := m.tree.selected()
	if s == nil {
		return
	}
	v := viewFromSnapshot(m.info, s)
	m.treeChan.setChannels(v.Channels, nil)
	m.treeSeen.setView(v)
}

// sizeTree keeps the tree's cursor and its preview panes' in view.
func (m *Model) sizeTree(bh int) {
	m.tree.follow(bh - 2)
	th := bh / 2
	m.treeChan.nav.follow(th-2, len(m.treeChan.shown))
	m.treeSeen.nav.follow(bh-th-3, len(m.treeSeen.rows))
}

// enableKeys enables the tree's keys for the checkpoint selected.
func (p *treePane) enableKeys(hasSess bool) {
	k := &p.keys
	*k = made(newTreeKeyMap)
	disableAll(k)
	sel := p.selected()
	has := sel != nil
	k.Open.SetEnabled(has && hasSess)
	k.Open.SetHelp("enter", "make current")
	k.Fork.SetEnabled(has && hasSess)
	k.Parent.SetEnabled(has)
	k.Mark.SetEnabled(has)
	k.Diff.SetEnabled(has && hasSess)
	k.Replay.SetEnabled(has && hasSess)
	k.Rerun.SetEnabled(has && hasSess && len(sel.Tasks) > 0)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Internal, &k.Back} {
		b.SetEnabled(true)
	}
	k.Back.SetHelp("esc", "close tree")
}

// treeView is the checkpoint tree with the selected checkpoint's channels
// and versions_seen beside it.
func (m Model) treeView(w, bh int) string {
	st := m.styles
	tw := clamp(w*11/20, min(40, w-20), w-20)
	pw := w - tw
	th := bh / 2
	title := fmt.Sprintf("Checkpoints · %s · %d", m.thread, len(m.tree.snaps))
	tree := st.box(title, m.tree.View(st, tw-2, bh-2), tw, bh, true)
	sel := "checkpoint"
	if s := m.tree.selected(); s != nil {
		sel = "at " + shortID(s.Config.CheckpointID)
	}
	pc := st.box(m.treeChan.title()+" "+sel, m.treeChan.View(st, m.bp.channels, false, pw-2, th-2), pw, th, false)
	ps := st.box("versions_seen "+sel, m.treeSeen.View(st, false, pw-2, bh-th-2), pw, bh-th, false)
	return lipgloss.JoinHorizontal(lipgloss.Top, tree, lipgloss.JoinVertical(lipgloss.Left, pc, ps))
}
