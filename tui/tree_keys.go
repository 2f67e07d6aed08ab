package tui

import "github.com/charmbracelet/bubbles/key"

// treeKeyMap is the checkpoint tree's keys: move, find a checkpoint, make
// it current, open a subgraph its step ran (read only), fork it, jump to
// its parent, mark and diff, replay from it, run one of its tasks alone,
// show internal channels, close.
type treeKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Find, Open, Subgraph, Internal key.Binding
	Fork, Parent, Diff, Mark, Replay, Rerun, Back                           key.Binding
}

func newTreeKeyMap() treeKeyMap {
	return treeKeyMap{
		Up: keyUp(), Down: keyDown(), PageUp: keyPageUp(), PageDown: keyPageDown(), Open: keyOpen(), Internal: keyInternal(),
		Top: bind("home/g", "top", "home", "g"), Bottom: bind("end/G", "bottom", "end", "G"),
		Find:     bind("/", "find by id, step, source", "/"),
		Subgraph: bind("o", "open a subgraph it ran", "o"),
		Fork:     keyFork(), Parent: keyParent(), Diff: keyDiff(), Mark: keyMark(),
		Replay: bind("R", "replay from here", "R"), Rerun: keyRerun(), Back: keyBack(),
	}
}

func (k treeKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Fork, k.Parent, k.Diff, k.Back}
}

func (k treeKeyMap) FullHelp() [][]key.Binding {
	cols := helpColumns(colCheckpoints, k.Fork, k.Parent, k.Diff, k.Mark, k.Replay, k.Rerun)
	cols[colMoving] = []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Find, k.Open, k.Subgraph, k.Internal}
	cols[colForms] = []key.Binding{k.Back}
	return cols
}
