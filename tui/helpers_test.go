package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
)

// updating reports -update: rewrite the golden files under testdata/. The
// flag itself is registered by charmbracelet/x/exp/golden, which teatest
// links into this test binary; a second definition would panic.
func updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

var fixedNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func TestMain(m *testing.M) {
	// Goldens hold text, not escape codes: no color, whatever the terminal.
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// compile builds a registered example on a fresh MemorySaver with counter
// ids and a fixed clock, so every screen is byte-identical between runs.
func compile(t testing.TB, name string) (*engine.Graph, graphs.Example, *engine.MemorySaver) {
	t.Helper()
	ex, ok := graphs.Get(name)
	if !ok {
		t.Fatalf("no example %q", name)
	}
	saver := engine.NewMemorySaver()
	g, err := ex.Build(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}), engine.WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	return g, ex, saver
}

// newTestModel opens a debugger on s at w×h and runs its first Cmd.
func newTestModel(t testing.TB, s session, opts Options, w, h int) Model {
	t.Helper()
	m := newModel(context.Background(), s, opts)
	m.static = true
	m.now = func() time.Time { return fixedNow }
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return runCmd(t, m, m.Init())
}

// engineModel opens the example on a real engine session.
func engineModel(t testing.TB, name string, w, h int) Model {
	t.Helper()
	g, ex, saver := compile(t, name)
	opts := Options{Thread: "t1", Input: ex.Input, Saver: saver, Answers: ex.Answers}
	return newTestModel(t, newEngineSession(g, opts), opts, w, h)
}

// send feeds msgs to Update and runs the resulting Cmds to completion,
// as bubbletea would, but synchronously.
func send(t testing.TB, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		nm, cmd := m.Update(msg)
		m = runCmd(t, nm.(Model), cmd)
	}
	return m
}

func runCmd(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	eachMsg(t, cmd, func(msg tea.Msg) (tea.Cmd, bool) {
		if _, quit := msg.(tea.QuitMsg); quit {
			return nil, false
		}
		nm, next := m.Update(msg)
		m = nm.(Model)
		return next, true
	})
	return m
}

// eachMsg runs cmd and the Cmds its batches and its messages lead to, in
// order, as bubbletea's loop does: every message but a batch goes to
// deliver, which returns the Cmd it led to and whether to go on. It may
// run on a goroutine of its own (inBackground), so a runaway loop is an
// error, not a Fatal.
func eachMsg(t testing.TB, cmd tea.Cmd, deliver func(tea.Msg) (tea.Cmd, bool)) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			t.Error("runaway Cmd loop")
			return
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			next, goOn := deliver(msg)
			if !goOn {
				return
			}
			queue = append(queue, next)
		}
	}
}

// keys turns "n", "enter", "ctrl+s" or literal text into key messages.
func keys(ks ...string) []tea.Msg {
	var out []tea.Msg
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"ctrl+s": tea.KeyCtrlS, "ctrl+n": tea.KeyCtrlN, "ctrl+c": tea.KeyCtrlC, "backspace": tea.KeyBackspace,
		"space": tea.KeySpace, "home": tea.KeyHome, "end": tea.KeyEnd, "left": tea.KeyLeft, "right": tea.KeyRight, "f1": tea.KeyF1,
	}
	for _, k := range ks {
		if kt, ok := named[k]; ok {
			out = append(out, tea.KeyMsg{Type: kt})
			continue
		}
		out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	}
	return out
}

func press(t testing.TB, m Model, ks ...string) Model {
	t.Helper()
	return send(t, m, keys(ks...)...)
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update and review):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// checkFrame asserts the View fills the window exactly: every line is
// exactly w cells and there are h lines.
func checkFrame(t testing.TB, m Model) {
	t.Helper()
	v := m.View()
	lines := strings.Split(v, "\n")
	if m.width >= 20 && m.height >= 6 && len(lines) != m.height {
		t.Fatalf("view has %d lines, want %d at %dx%d:\n%s", len(lines), m.height, m.width, m.height, v)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > m.width {
			t.Fatalf("line %d is %d cells wide, window is %d:\n%s", i, w, m.width, v)
		}
	}
}

// parseScenario parses scenario file src, named name in its errors.
func parseScenario(t testing.TB, name, src string) *scenario.File {
	t.Helper()
	f, err := scenario.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// buildScenario builds f's graph on saver with counted ids and the tests'
// fixed clock.
func buildScenario(t testing.TB, f *scenario.File, saver engine.Saver) *engine.Graph {
	t.Helper()
	g, _, err := scenario.Build(f, engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}), engine.WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
