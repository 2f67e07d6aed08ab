package tui

import (
	"reflect"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Keys are owned by the components that handle them, as in Charm's apps:
// each component (the main view, the inspector, the tree, the diff, the
// subgraph view, the list of breakpoints, each form and the help overlay)
// has its own key map, a struct of key.Binding values with their help
// text, with ShortHelp (the footer) and FullHelp (the ? overlay). The
// component enables the bindings that do something now and matches keys
// against its own map. The root model keeps only the global keys (help,
// quit) and routes each key to the component on screen.
//
// This file holds what the maps share: each key's letters and the words
// it is listed with elsewhere, the columns of FullHelp, and the global map.

// helpColumns are the columns every FullHelp returns, in this order, so
// the overlay can lay the components' keys side by side (an empty column
// is not drawn).
const (
	colRun         = iota // running the graph, breakpoints and watches
	colCheckpoints        // checkpoints and threads
	colMoving             // moving around, opening, showing
	colForms              // forms, closing, help and quitting
	numHelpColumns
)

// bind makes a binding of keys, listed in the help as help and desc.
func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// The keys that several components bind, each defined once: its letters
// and the words the help overlay lists it with when it is not on screen.
// A component may change the words while it is (SetHelp in its
// enableKeys), never the letters.
func keyUp() key.Binding       { return bind("↑/k", "up", "up", "k") }
func keyDown() key.Binding     { return bind("↓/j", "down", "down", "j") }
func keyPageUp() key.Binding   { return bind("pgup", "page up", "pgup", "ctrl+u") }
func keyPageDown() key.Binding { return bind("pgdn", "page down", "pgdown", "ctrl+d") }
func keyOpen() key.Binding     { return bind("enter", "open", "enter") }
func keyBack() key.Binding     { return bind("esc", "back", "esc") }
func keySubmit() key.Binding   { return bind("ctrl+s", "submit", "ctrl+s") }
func keyLeft() key.Binding     { return bind("←/h", "scroll left", "left", "h") }
func keyRight() key.Binding    { return bind("→/l", "scroll right", "right", "l") }
func keyNextPane() key.Binding { return bind("tab", "next pane", "tab") }
func keyPrevPane() key.Binding { return bind("⇧tab", "previous pane", "shift+tab") }
func keyGraphView() key.Binding {
	return bind("g", "draw graph", "g") // the help says "graph as list" once drawn
}
func keyInternal() key.Binding { return bind("i", "internal channels", "i") }
func keyAnswer() key.Binding   { return bind("r", "answer interrupt", "r") }
func keyFork() key.Binding     { return bind("f", "fork checkpoint", "f") }
func keyParent() key.Binding   { return bind("p", "parent checkpoint", "p") }
func keyDiff() key.Binding     { return bind("d", "diff with parent or mark", "d") }
func keyMark() key.Binding     { return bind("m", "mark for diff", "m") }
func keyRerun() key.Binding    { return bind("e", "run task alone", "e") }

// breakKeys are C, W and E: the main view and the list of breakpoints
// both add conditions and watches and switch break-on-error.
type breakKeys struct {
	Condition, Watch, BreakOnError key.Binding
}

func newBreakKeys() breakKeys {
	return breakKeys{
		Condition:    bind("C", "break when expression", "C"),
		Watch:        bind("W", "watch expression", "W"),
		BreakOnError: bind("E", "break on task error", "E"),
	}
}

// globalKeyMap is the root model's own keys: they work on every screen.
type globalKeyMap struct {
	// Help opens the overlay (f1 in a text box, where ? is typed).
	Help key.Binding
	// Quit asks first while a run is in progress; it is off in text boxes.
	Quit key.Binding
	// Yes confirms the quit prompt.
	Yes       key.Binding
	ForceQuit key.Binding
}

func newGlobalKeyMap() globalKeyMap {
	return globalKeyMap{
		Help:      bind("?", "help", "?", "f1"),
		Quit:      bind("q", "quit", "q"),
		Yes:       bind("y", "yes", "y"),
		ForceQuit: bind("ctrl+c", "quit now", "ctrl+c"),
	}
}

// enableKeys sets the global keys for a screen: typing is whether keys
// go to a text box, quitting whether the quit prompt is open.
func (k *globalKeyMap) enableKeys(typing, quitting bool) {
	*k = made(newGlobalKeyMap)
	if typing {
		k.Help.SetHelp("f1", "help")
	}
	k.Quit.SetEnabled(!typing && !quitting)
	k.Yes.SetEnabled(quitting)
	if quitting {
		k.Yes.SetHelp("y", "quit")
	}
}

func (k globalKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Yes, k.Help, k.Quit} }

func (k globalKeyMap) FullHelp() [][]key.Binding {
	return helpColumns(colForms, k.Help, k.Quit, k.Yes, k.ForceQuit)
}

// helpColumns is a FullHelp with bindings in one column.
func helpColumns(col int, bs ...key.Binding) [][]key.Binding {
	cols := make([][]key.Binding, numHelpColumns)
	cols[col] = bs
	return cols
}

// bindingsOf returns every key.Binding of a key map (a pointer to its
// struct, and the exported struct fields in it), so a component can turn all of its
// keys off before it enables those that apply, and the tests can find a
// binding that its FullHelp leaves out.
func bindingsOf(keyMap any) []*key.Binding {
	var out []*key.Binding
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			switch f := v.Field(i); {
			case f.Type() == reflect.TypeFor[key.Binding]():
				out = append(out, f.Addr().Interface().(*key.Binding))
			case f.Kind() == reflect.Struct:
				walk(f)
			}
		}
	}
	walk(reflect.ValueOf(keyMap).Elem())
	return out
}

// disableAll turns every binding of a key map off.
func disableAll(keyMap any) {
	for _, b := range bindingsOf(keyMap) {
		b.SetEnabled(false)
	}
}

// madeMaps holds each key map type as its constructor makes it.
var madeMaps sync.Map // reflect.Type → the key map

// made is a key map as newMap makes it, built once per type: each
// enableKeys starts from it (every key with its own words) on every
// update without building it again. A copy shares the bindings' key
// lists, which nothing changes in place.
func made[T any](newMap func() T) T {
	t := reflect.TypeFor[T]()
	if v, ok := madeMaps.Load(t); ok {
		return v.(T)
	}
	v := newMap()
	madeMaps.Store(t, v)
	return v
}

// pressed reports whether msg is one of b's keys, whether or not b is
// enabled: a key that does not apply now is still answered with a reason.
func pressed(msg tea.KeyMsg, b key.Binding) bool {
	for _, s := range b.Keys() {
		if msg.String() == s {
			return true
		}
	}
	return false
}
