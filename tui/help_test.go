package tui

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The help overlay lists every key binding of the debugger (those that
// apply now first, the rest below), it scrolls to its end in a small
// window, and the README's key table names exactly the same keys.
func TestHelp_ListsEveryKey_READMEMatches(t *testing.T) {
	m := engineModel(t, "research", 160, 48)
	var grouped []string
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			grouped = append(grouped, b.Help().Key+" "+b.Help().Desc)
		}
	}
	for _, b := range m.keys.all() {
		if h := b.Help(); !slices.Contains(grouped, h.Key+" "+h.Desc) {
			t.Errorf("binding %q (%s) is in no help group", h.Key, h.Desc)
		}
	}
	m = press(t, m, "?")
	text := strings.Join(m.helpLines(m.width-2), "\n")
	for _, b := range m.keys.all() {
		h := b.Help()
		if !regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc)).MatchString(text) {
			t.Errorf("the help overlay does not list %q %q:\n%s", h.Key, h.Desc, text)
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
	def := DefaultKeyMap()
	inHelp := map[string]bool{}
	for _, b := range def.all() {
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
	m = press(t, m, "esc")
	if m.mode != modePrompt {
		t.Fatalf("closing the help should return to the prompt, mode %v", m.mode)
	}
}
