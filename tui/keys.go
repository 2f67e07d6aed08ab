package tui

import (
	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key of the debugger, grouped for the help overlay. The
// model enables only the keys that apply to what is on screen, so the help
// never offers a key that does nothing.
type KeyMap struct {
	// Running the graph.
	Next, Superstep, Continue, Answer, Break, BreakAfter, Cancel, EditWrites key.Binding
	// Conditional breakpoints, watches and the list of them all.
	Condition, Watch, BreakOnError, Breakpoints, Remove key.Binding
	// Checkpoints and threads.
	Tree, Fork, Parent, Threads, NewThread, Diff, Mark, Replay, Rerun, Settings key.Binding
	// Moving around.
	NextPane, PrevPane, Up, Down, PageUp, PageDown, Open, Filter, Internal key.Binding
	// The inspector: wrap long lines, or scroll them sideways (also the
	// drawn graph). GraphView switches the graph pane's list and drawing.
	Wrap, Left, Right, GraphView key.Binding
	// A messages value: conversation or JSON, message ids shown or not.
	Conversation, IDs key.Binding
	// Forms and overlays.
	Submit, AsNode, Back, Help, Quit, ForceQuit, Yes key.Binding
}

// DefaultKeyMap returns the debugger's keys.
func DefaultKeyMap() KeyMap {
	k := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Next:       k([]string{"n"}, "n", "next phase"),
		Superstep:  k([]string{"s"}, "s", "finish superstep"),
		Continue:   k([]string{"c"}, "c", "continue"),
		Answer:     k([]string{"r"}, "r", "answer interrupt"),
		Break:      k([]string{"b"}, "b", "break before node"),
		BreakAfter: k([]string{"B"}, "B", "break after node"),
		Cancel:     k([]string{"X"}, "X", "cancel running tasks"),
		EditWrites: k([]string{"a"}, "a", "edit task's writes"),

		Condition:    k([]string{"C"}, "C", "break when expression"),
		Watch:        k([]string{"W"}, "W", "watch expression"),
		BreakOnError: k([]string{"E"}, "E", "break on task error"),
		Breakpoints:  k([]string{"L"}, "L", "list breakpoints"),
		Remove:       k([]string{"x", "delete"}, "x", "remove"),

		Tree:      k([]string{"t"}, "t", "checkpoint tree"),
		Fork:      k([]string{"f"}, "f", "fork checkpoint"),
		Parent:    k([]string{"p"}, "p", "parent checkpoint"),
		Threads:   k([]string{"T"}, "T", "threads"),
		Diff:      k([]string{"d"}, "d", "diff with parent or mark"),
		Mark:      k([]string{"m"}, "m", "mark for diff"),
		Replay:    k([]string{"R"}, "R", "replay from here"),
		Settings:  k([]string{"S"}, "S", "run settings"),
		Rerun:     k([]string{"e"}, "e", "run task alone"),
		NewThread: k([]string{"n"}, "n", "new thread"),

		NextPane:     k([]string{"tab"}, "tab", "next pane"),
		PrevPane:     k([]string{"shift+tab"}, "⇧tab", "previous pane"),
		Up:           k([]string{"up", "k"}, "↑/k", "up"),
		Down:         k([]string{"down", "j"}, "↓/j", "down"),
		PageUp:       k([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:     k([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Open:         k([]string{"enter"}, "enter", "open"),
		Filter:       k([]string{"/"}, "/", "filter channels and tasks"),
		Internal:     k([]string{"i"}, "i", "internal channels"),
		Wrap:         k([]string{"w"}, "w", "wrap long lines"),
		GraphView:    k([]string{"g"}, "g", "draw graph"),
		Conversation: k([]string{"v"}, "v", "as JSON"),
		IDs:          k([]string{"I"}, "I", "message ids"),
		Left:         k([]string{"left", "h"}, "←/h", "scroll left"),
		Right:        k([]string{"right", "l"}, "→/l", "scroll right"),

		Submit:    k([]string{"ctrl+s"}, "ctrl+s", "submit"),
		AsNode:    k([]string{"ctrl+n"}, "ctrl+n", "as node"),
		Back:      k([]string{"esc"}, "esc", "back"),
		Help:      k([]string{"?", "f1"}, "?", "help"),
		Quit:      k([]string{"q"}, "q", "quit"),
		ForceQuit: k([]string{"ctrl+c"}, "ctrl+c", "quit now"),
		Yes:       k([]string{"y"}, "y", "yes"),
	}
}

// ShortHelp implements help.KeyMap: the footer line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Superstep, k.Continue, k.Cancel, k.Answer, k.Submit, k.AsNode, k.Open, k.NewThread, k.Tree, k.Fork, k.Parent, k.Diff, k.Back, k.Yes, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap: the ? overlay, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Superstep, k.Continue, k.Cancel, k.Answer, k.EditWrites, k.Break, k.BreakAfter, k.Condition, k.Watch, k.BreakOnError, k.Breakpoints, k.Remove},
		{k.Tree, k.Fork, k.Parent, k.Diff, k.Mark, k.Replay, k.Rerun, k.Threads, k.NewThread, k.Settings},
		{k.NextPane, k.PrevPane, k.Up, k.Down, k.PageUp, k.PageDown, k.Open, k.Filter, k.Internal, k.GraphView, k.Wrap, k.Left, k.Right, k.Conversation, k.IDs},
		{k.Submit, k.AsNode, k.Back, k.Help, k.Quit, k.Yes, k.ForceQuit},
	}
}

// all lists every binding, for enabling and disabling them together.
func (k *KeyMap) all() []*key.Binding {
	return []*key.Binding{&k.Next, &k.Superstep, &k.Continue, &k.Cancel, &k.Answer, &k.EditWrites, &k.Break, &k.BreakAfter,
		&k.Condition, &k.Watch, &k.BreakOnError, &k.Breakpoints, &k.Remove,
		&k.Tree, &k.Fork, &k.Parent, &k.Diff, &k.Mark, &k.Replay, &k.Rerun, &k.Threads, &k.NewThread, &k.Settings,
		&k.NextPane, &k.PrevPane, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Open, &k.Filter, &k.Internal, &k.GraphView, &k.Wrap, &k.Left, &k.Right, &k.Conversation, &k.IDs,
		&k.Submit, &k.AsNode, &k.Back, &k.Help, &k.Quit, &k.ForceQuit, &k.Yes}
}
