package tui

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
)

// uiGuard is a saver that fails the test when it is asked anything while
// a key is handled or the screen drawn (Update, View): against a database
// across the network that is a round trip the debugger waits on, frozen
// with the server. Cmds may ask it anything. The guarded helpers below
// say which is running; the recording a test makes beforehand is made
// outside both.
type uiGuard struct {
	engine.Saver
	t  testing.TB
	ui atomic.Bool
}

func newUIGuard(t testing.TB) *uiGuard {
	return &uiGuard{Saver: engine.NewMemorySaver(), t: t}
}

func (g *uiGuard) asked(what string) {
	if g.ui.Load() {
		g.t.Errorf("the store was asked %s while a key was handled or the screen drawn:\n%s", what, debug.Stack())
	}
}

func (g *uiGuard) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	g.asked("Put")
	return g.Saver.Put(ctx, cfg, cp, md, nv)
}

func (g *uiGuard) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	g.asked("PutWrites")
	return g.Saver.PutWrites(ctx, cfg, taskID, writes)
}

func (g *uiGuard) GetTuple(ctx context.Context, cfg engine.Config) (*engine.CheckpointTuple, error) {
	g.asked("GetTuple")
	return g.Saver.GetTuple(ctx, cfg)
}

func (g *uiGuard) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	g.asked("List")
	return g.Saver.List(ctx, cfg, opt)
}

func (g *uiGuard) Threads(ctx context.Context) ([]string, error) {
	g.asked("Threads")
	return g.Saver.(engine.ThreadLister).Threads(ctx)
}

func (g *uiGuard) DeleteThread(ctx context.Context, thread string) error {
	g.asked("DeleteThread")
	return g.Saver.DeleteThread(ctx, thread)
}

// model opens a debugger on s at w×h as newTestModel does, guarded.
func (g *uiGuard) model(t testing.TB, s session, opts Options, w, h int) Model {
	t.Helper()
	m := newModel(context.Background(), s, opts)
	m.static = true
	m = g.send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return g.run(t, m, m.Init())
}

// press is the test's press, guarded.
func (g *uiGuard) press(t testing.TB, m Model, ks ...string) Model {
	t.Helper()
	for _, k := range keys(ks...) {
		m = g.send(t, m, k)
	}
	return m
}

// send is the test's send, guarded: Update and View run under the guard,
// the Cmds they return outside it, as bubbletea runs them.
func (g *uiGuard) send(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	m, cmd := g.update(m, msg)
	return g.run(t, m, cmd)
}

func (g *uiGuard) update(m Model, msg tea.Msg) (Model, tea.Cmd) {
	g.ui.Store(true)
	defer g.ui.Store(false)
	nm, cmd := m.Update(msg)
	m = nm.(Model)
	_ = m.View()
	return m, cmd
}

// run is runCmd, guarded.
func (g *uiGuard) run(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	eachMsg(t, cmd, func(msg tea.Msg) (tea.Cmd, bool) {
		if _, quit := msg.(tea.QuitMsg); quit {
			return nil, false
		}
		var next tea.Cmd
		m, next = g.update(m, msg)
		return next, true
	})
	return m
}

// TestModel_NoStoreIOInUpdateOrView walks the debugger through what it
// does on the examples and a nested subgraph — stepping, answering,
// breakpoints and watches, the tree (browse, find, diff, fork, run alone,
// time travel, replay), the threads, the inspector, the overlays — with
// the store guarded: no key handled and no screen drawn may ask it
// anything. (Stepping into subgraphs is left out: its held runs go on
// reading in the background while the screen is drawn, as they may.)
func TestModel_NoStoreIOInUpdateOrView(t *testing.T) {
	walk := [][]string{
		{"n", "n", "n", "s", "s", "c"},
		{"esc", "r", `{"action":"approve"}`, "enter", "c"},
		{"t", "j", "j", "k", "end", "home", "m", "j", "d", "esc"},
		{"t", "j", "f", "ctrl+s"},
		{"t", "j", "j", "e", "e", "esc"},
		{"t", "/", "0", "enter", "p", "i", "enter", "n", "n"},
		{"t", "end", "k", "R", "c"},
		{"T", "j", "k", "enter"},
		{"S", "esc", "?", "esc", "L", "esc"},
		{"tab", "b", "B", "tab", "g", "g", "i", "I", "w", "/", "a", "esc"},
		{"W", "state", "enter", "C", "true", "enter", "c"},
		{"tab", "tab", "tab", "enter", "esc", "a", "esc"},
		{"d", "esc", "p", "esc", "q", "n"},
	}
	for _, name := range []string{"research", "essay", "mapreduce", "router"} {
		t.Run(name, func(t *testing.T) {
			ex, _ := graphs.Get(name)
			guard := newUIGuard(t)
			g, err := ex.Build(engine.WithSaver(guard), engine.WithIDs(&engine.CounterIDs{}), engine.WithClock(func() time.Time { return fixedNow }))
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Thread: "t1", Input: ex.Input, Saver: guard, Answers: ex.Answers}
			m := guard.model(t, newEngineSession(g, opts), opts, 120, 40)
			for _, ks := range walk {
				m = guard.press(t, m, ks...)
				m = guard.press(t, m, "esc", "esc")
			}
		})
	}
	t.Run("nested subgraph", func(t *testing.T) {
		f, err := scenario.Load("../testdata/conformance/own/nested_subgraph.json")
		if err != nil {
			t.Fatal(err)
		}
		guard := newUIGuard(t)
		opts := Options{Thread: "nested", Input: map[string]any{"out": []any{}}, Saver: guard, GraphName: "nested"}
		m := guard.model(t, newEngineSession(buildScenario(t, f, guard), opts), opts, 120, 40)
		m = guard.press(t, m, "c", "esc", "tab", "tab", "tab", "enter", "j", "j", "tab", "enter", "d", "esc", "esc", "esc", "esc")
		m = guard.press(t, m, "r", "ok", "enter", "s", "t", "j", "R", "c", "esc", "r", "esc")
		guard.press(t, m, "t", "end", "R", "c")
	})
}
