package tui

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The help overlay lists every key binding of every component (those
// that apply now first, the rest below), each component's FullHelp holds
// every binding of its map, and the README's key table names exactly the
// same keys. A binding added to a component's map without help text, or
// left out of its FullHelp, or a component's map the overlay does not
// know, fails here.
func TestHelp_ListsEveryKey_READMEMatches(t *testing.T) {
	maps := componentKeyMaps()
	known := map[reflect.Type]bool{}
	var all []key.Binding
	for _, km := range maps {
		typ := reflect.TypeOf(km)
		known[typ] = true
		var inFull []string
		for _, col := range km.FullHelp() {
			for _, b := range col {
				inFull = append(inFull, bindingID(b))
			}
		}
		if n := len(km.FullHelp()); n != numHelpColumns {
			t.Errorf("%v.FullHelp has %d columns, want %d", typ, n, numHelpColumns)
		}
		ptr := reflect.New(typ)
		ptr.Elem().Set(reflect.ValueOf(km))
		bs := bindingsOf(ptr.Interface())
		if len(bs) == 0 {
			t.Errorf("%v has no bindings", typ)
		}
		for _, b := range bs {
			h := b.Help()
			if len(b.Keys()) == 0 || h.Key == "" || h.Desc == "" {
				t.Errorf("%v has a binding without keys or help text: keys %q help %q %q", typ, b.Keys(), h.Key, h.Desc)
			}
			if !slices.Contains(inFull, bindingID(*b)) {
				t.Errorf("%v: binding %q (%s) is not in its FullHelp", typ, h.Key, h.Desc)
			}
			all = append(all, *b)
		}
	}
	// Every key map a component holds is one the overlay lists.
	for _, typ := range keyMapTypesIn(reflect.TypeFor[Model](), map[reflect.Type]bool{}) {
		if !known[typ] {
			t.Errorf("%v is held by a component but not in componentKeyMaps: the help overlay would not list its keys", typ)
		}
	}

	for _, screen := range [][]string{{"?"}, {"t", "?"}} {
		m := engineModel(t, "research", 160, 48)
		m = press(t, m, screen...)
		if m.mode != modeHelp {
			t.Fatalf("%q: mode %v", screen, m.mode)
		}
		text := strings.Join(m.helpLines(m.width-2), "\n")
		lists := func(b key.Binding) bool {
			h := b.Help()
			return regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc)).MatchString(text)
		}
		// A key the screen under the overlay has on is listed with the
		// words it has there ("esc close tree"); it stands for the same
		// key of other screens ("esc back").
		standsFor := map[string]bool{}
		for _, live := range []help.KeyMap{m.activeKeys(), m.global} {
			plain := madeAs(live).FullHelp()
			for c, col := range live.FullHelp() {
				for i, b := range col {
					if !b.Enabled() {
						continue
					}
					standsFor[bindingID(plain[c][i])] = true
					if !lists(b) {
						t.Errorf("the help overlay over %q does not list %q %q under keys here:\n%s", screen, b.Help().Key, b.Help().Desc, text)
					}
				}
			}
		}
		for _, b := range all {
			if !standsFor[bindingID(b)] && !lists(b) {
				t.Errorf("the help overlay over %q does not list %q %q:\n%s", screen, b.Help().Key, b.Help().Desc, text)
			}
		}
	}

	// README: the first column of the key table, key by key.
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "| key | does |")
	if !ok {
		t.Fatal("README has no key table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	inREADME := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) < 3 {
			continue
		}
		for _, k := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			inREADME[k[1]] = true
		}
	}
	inHelp := map[string]bool{}
	for _, b := range all {
		inHelp[b.Help().Key] = true
	}
	for k := range inHelp {
		if !inREADME[k] {
			t.Errorf("README's key table lacks %q", k)
		}
	}
	for k := range inREADME {
		if !inHelp[k] {
			t.Errorf("README's key table lists %q, which no binding has", k)
		}
	}
}

func bindingID(b key.Binding) string {
	return fmt.Sprint(b.Keys(), b.Help().Key, b.Help().Desc)
}

// keyMapTypesIn finds the key map types (this package's types that
// implement help.KeyMap) held in typ's fields, however deep.
func keyMapTypesIn(typ reflect.Type, seen map[reflect.Type]bool) []reflect.Type {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if seen[typ] || typ.Kind() != reflect.Struct || typ.PkgPath() != reflect.TypeFor[Model]().PkgPath() {
		return nil
	}
	seen[typ] = true
	var out []reflect.Type
	if typ.Implements(reflect.TypeFor[help.KeyMap]()) {
		out = append(out, typ)
	}
	for i := range typ.NumField() {
		out = append(out, keyMapTypesIn(typ.Field(i).Type, seen)...)
	}
	return out
}

// In a window too short for every key the overlay scrolls; any other key
// closes it; f1 opens it from a text box, where ? is typed.
func TestHelp_ScrollsAndOpensFromTextBoxes(t *testing.T) {
	m := engineModel(t, "research", 80, 24)
	m = press(t, m, "?")
	if !strings.Contains(m.View(), "Keys · ↑↓ more") {
		t.Fatalf("a short window should say the help scrolls:\n%s", m.View())
	}
	for i := 0; i < 10; i++ {
		m = press(t, m, "pgdown")
	}
	if m.mode != modeHelp || !strings.Contains(m.View(), "f1 opens this help") {
		t.Fatalf("pgdown should reach the end of the help:\n%s", m.View())
	}
	checkFrame(t, m)
	golden(t, "help-end-80x24.golden", m.View())
	m = press(t, m, "x")
	if m.mode != modeMain {
		t.Fatalf("x should close the help, mode %v", m.mode)
	}
	m = press(t, m, "C", "?")
	if m.mode != modePrompt || !strings.HasSuffix(m.prompt.input.Value(), "?") {
		t.Fatalf("? in a text box is typed: mode %v value %q", m.mode, m.prompt.input.Value())
	}
	m = press(t, m, "f1")
	if m.mode != modeHelp || !strings.Contains(fmt.Sprint(m.View()), "Keys here") {
		t.Fatalf("f1 should open the help from the prompt: mode %v", m.mode)
	}
	// Over a text box the keys here are the box's: f1 for help, no q
	// (typed there); the help still scrolls with the arrows.
	here, _, _ := strings.Cut(strings.Join(m.helpLines(m.width-2), "\n"), "Keys elsewhere")
	if has := func(re string) bool { return regexp.MustCompile(re).MatchString(here) }; !has(`f1 +help`) || has(`q +quit`) || !has(`enter +add`) {
		t.Fatalf("keys here over the prompt:\n%s", here)
	}
	if m = press(t, m, "down"); m.mode != modeHelp || m.helpOff != 1 {
		t.Fatalf("↓ should scroll the help opened from a text box: mode %v offset %d", m.mode, m.helpOff)
	}
	m = press(t, m, "esc")
	if m.mode != modePrompt {
		t.Fatalf("closing the help should return to the prompt, mode %v", m.mode)
	}
}

// No key is bound twice in the main view's key map: mainKey asks its key
// groups (run, breakpoints, checkpoints, panes) in turn, which decides
// nothing only while no key belongs to two of them.
func TestMainKeyMap_NoKeyBoundTwice(t *testing.T) {
	k := newMainKeyMap()
	bindings := map[string]key.Binding{
		"Next": k.Next, "Superstep": k.Superstep, "Continue": k.Continue, "Cancel": k.Cancel,
		"Answer": k.Answer, "EditWrites": k.EditWrites, "Break": k.Break, "BreakAfter": k.BreakAfter,
		"Condition": k.Exprs.Condition, "Watch": k.Exprs.Watch, "BreakOnError": k.Exprs.BreakOnError,
		"Breakpoints": k.Breakpoints, "Tree": k.Tree, "Fork": k.Fork, "Parent": k.Parent, "Diff": k.Diff,
		"Mark": k.Mark, "Rerun": k.Rerun, "Threads": k.Threads, "Settings": k.Settings,
		"NextPane": k.NextPane, "PrevPane": k.PrevPane, "Up": k.Up, "Down": k.Down, "PageUp": k.PageUp,
		"PageDown": k.PageDown, "Open": k.Open, "Filter": k.Filter, "Internal": k.Internal,
		"GraphView": k.GraphView, "Left": k.Left, "Right": k.Right, "Back": k.Back, "StepInto": k.StepInto,
	}
	if n := reflect.TypeOf(k).NumField() - 1 + reflect.TypeOf(k.Exprs).NumField(); len(bindings) != n {
		t.Fatalf("the test lists %d bindings; mainKeyMap has %d: list the new one", len(bindings), n)
	}
	owner := map[string]string{}
	for name, b := range bindings {
		for _, s := range b.Keys() {
			if other, ok := owner[s]; ok {
				t.Errorf("%q is bound to both %s and %s", s, other, name)
			}
			owner[s] = name
		}
	}
}

// In a narrow window the help lays its columns one under another when two
// side by side do not fit: at 40 columns the second column was cut
// ("t checkpoi…"), so half the keys could not be read.
func TestHelp_NarrowWindowKeepsEveryKeyWhole(t *testing.T) {
	m := engineModel(t, "research", 40, 12)
	m = press(t, m, "?")
	lines := m.helpLines(m.width - 2)
	for _, l := range lines {
		if w := lipgloss.Width(l); w > m.width-2 {
			t.Errorf("help line %d cells wide in a %d-cell box: %q", w, m.width-2, ansi.Strip(l))
		}
	}
	text := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"t checkpoint tree", "f fork checkpoint", "why does it run?"} {
		if !strings.Contains(text, want) {
			t.Errorf("the help lacks %q:\n%s", want, text)
		}
	}
	checkFrame(t, m)
}
