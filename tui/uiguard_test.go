package tui

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
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
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			t.Fatal("runaway Cmd loop")
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
		case tea.QuitMsg:
			return m
		default:
			var next tea.Cmd
			m, next = g.update(m, msg)
			queue = append(queue, next)
		}
	}
	return m
}
