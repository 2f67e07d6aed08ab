package tui

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
)

// uiGuard is a saver that fails the test when it is asked anything by a
// key being handled or the screen being drawn (Update, View): against a
// database across the network that is a round trip the debugger waits
// on, frozen with the server. Cmds may ask it anything. The guarded
// helpers below say which is running; the recording a test makes
// beforehand is made outside both.
//
// What Update and View ask, they ask on the goroutine that runs them.
// Other goroutines may ask the store at the same moment and rightly so:
// the runs a Cmd started and left held in a subgraph (stepping into, >)
// go on in the background, their siblings in a Send fan-out and the run
// released by the last key too. So the guard fails only a call made on
// the goroutine running Update or View while it runs it, told by its
// goroutine id (the runtime names no other way to say "this goroutine").
// A goroutine Update would start and wait on is not seen; none does.
type uiGuard struct {
	engine.Saver
	t testing.TB
	// ui is the id of the goroutine running Update or View, 0 when none.
	ui atomic.Uint64
}

func newUIGuard(t testing.TB) *uiGuard {
	return &uiGuard{Saver: engine.NewMemorySaver(), t: t}
}

func (g *uiGuard) asked(what string) {
	if ui := g.ui.Load(); ui != 0 && ui == goroutineID() {
		g.t.Errorf("the store was asked %s while a key was handled or the screen drawn:\n%s", what, debug.Stack())
	}
}

// goroutineID is the id of the calling goroutine, read from the first
// line of its stack trace ("goroutine 18 [running]:"): test code only.
func goroutineID() uint64 {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line, _ = bytes.CutPrefix(line, []byte("goroutine "))
	if i := bytes.IndexByte(line, ' '); i > 0 {
		line = line[:i]
	}
	id, err := strconv.ParseUint(string(line), 10, 64)
	if err != nil || id == 0 {
		panic(fmt.Sprintf("uiGuard: no goroutine id in %q", buf[:]))
	}
	return id
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
	g.ui.Store(goroutineID())
	defer g.ui.Store(0)
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
// time travel, replay), the threads, the inspector, the overlays, and
// stepping into subgraphs nested and fanned out by Send — with the store
// guarded: no key handled and no screen drawn may ask it anything.
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
		m = guard.press(t, m, "t", "home", "o", "tab", "enter", "esc", "esc", "j", "o", "j", "o", "esc", "esc")
		guard.press(t, m, "t", "end", "R", "c")
	})
	// Stepping into the nested subgraphs (>), through the interrupt deep
	// raises and its answer, looking around at each level, then the tree
	// of what it left. The runs held go on reading the store in the
	// background while keys are handled: the guard tells them apart.
	t.Run("stepping into nested subgraphs", func(t *testing.T) {
		f, err := scenario.Load("../testdata/conformance/own/nested_subgraph.json")
		if err != nil {
			t.Fatal(err)
		}
		guard := newUIGuard(t)
		opts := Options{Thread: "into", Input: map[string]any{"out": []any{}}, Saver: guard, GraphName: "nested"}
		m := guard.model(t, newEngineSession(buildScenario(t, f, guard), opts), opts, 120, 40)
		m = guard.press(t, m, ">", "s", "s", "n", "n")
		heldAt(t, m, "mid")
		m = guard.press(t, m, "tab", "j", "enter", "esc", "tab", "enter", "esc", "tab", "i", "g", "left", "g")
		m = guard.press(t, m, "s", "s", "n", "n")
		heldAt(t, m, "mid › deep")
		m = guard.press(t, m, "tab", "tab", "enter", "esc", "?", "esc", "s", "n", "n")
		heldAt(t, m, "mid › deep")
		m = guard.press(t, m, "n", "n") // back in mid, then at the root the answer box
		if m.mode != modeAnswer {
			t.Fatalf("mode %v, want the answer box", m.mode)
		}
		m = guard.press(t, m, "ok", "enter", "n", "n")
		heldAt(t, m, "mid")
		for i := 0; i < 8 && m.into.inside(); i++ {
			m = guard.press(t, m, "c", "n")
		}
		m = guard.press(t, m, "c")
		if m.view == nil || m.view.Status != engine.StatusDone {
			t.Fatalf("the run did not end: %v", m.View())
		}
		m = guard.press(t, m, "t", "end", "k", "enter", "j", "tab", "enter", "esc", "m", "j", "d", "esc", "esc", "esc")
		guard.press(t, m, ">", "q", "y")
	})
	t.Run("stepping into a Send fan-out", func(t *testing.T) {
		f, err := scenario.Load("testdata/substep/fanout.json")
		if err != nil {
			t.Fatal(err)
		}
		guard := newUIGuard(t)
		opts := Options{Thread: "fan", Input: map[string]any{"log": []any{}}, Saver: guard, GraphName: "fanout"}
		m := guard.model(t, newEngineSession(buildScenario(t, f, guard), opts), opts, 120, 40)
		m = guard.press(t, m, ">", "s", "s", "n", "n")
		heldAt(t, m, "sub[")
		m = guard.press(t, m, "n", "n", "tab", "tab", "enter", "esc", "s", "c")
		for i := 0; i < 3 && m.into.inside(); i++ {
			heldAt(t, m, "sub[")
			m = guard.press(t, m, "n", "n", "c", "n")
		}
		m = guard.press(t, m, "c")
		if m.view == nil || m.view.Status != engine.StatusDone {
			t.Fatalf("the run did not end: %v", m.View())
		}
		guard.press(t, m, "q", "y")
	})
}

// heldAt fails unless a subgraph run whose breadcrumb starts with crumb
// is held for the person to step.
func heldAt(t *testing.T, m Model, crumb string) {
	t.Helper()
	if m.mode != modeSubStep || m.into.held == nil || !strings.HasPrefix(strings.Join(m.into.level().crumbs, " › "), crumb) {
		t.Fatalf("want a subgraph run held at %s, mode %v:\n%s", crumb, m.mode, m.View())
	}
}

// failures records what a guard reports instead of failing the test.
type failures struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// The guard fails a call made on the goroutine running Update or View
// while it runs it, and neither one made meanwhile on another goroutine
// (a run held in a subgraph) nor one made on it afterwards (a Cmd).
func TestUIGuard_FailsOnlyTheUIGoroutine(t *testing.T) {
	rec := &failures{TB: t}
	g := &uiGuard{Saver: engine.NewMemorySaver(), t: rec}
	ctx, cfg := context.Background(), engine.Config{ThreadID: "t"}
	g.ui.Store(goroutineID())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = g.List(ctx, cfg, engine.ListOptions{})
	}()
	<-done
	if len(rec.errs) != 0 {
		t.Fatalf("a call on another goroutine was failed: %q", rec.errs)
	}
	_, _ = g.GetTuple(ctx, cfg)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "was asked GetTuple") {
		t.Fatalf("a call on the UI goroutine was not failed: %q", rec.errs)
	}
	g.ui.Store(0)
	_, _ = g.GetTuple(ctx, cfg)
	if len(rec.errs) != 1 {
		t.Fatalf("a call after Update returned was failed: %q", rec.errs)
	}
}
