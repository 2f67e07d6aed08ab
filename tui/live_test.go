package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// hanging is a graph whose step 1 runs fast (finishes) beside hang (emits
// progress, then waits until cancelled).
func hanging(t testing.TB) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.LastValueKey("x"), engine.LastValueKey("y")).
		AddNode("fast", func(context.Context, any) (any, error) { return engine.Pairs("x", 1.0), nil }).
		AddNode("hang", func(ctx context.Context, _ any) (any, error) {
			for i := 1; i <= 5; i++ {
				engine.Emit(ctx, map[string]any{"token": i})
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}).
		AddEdge(engine.Start, "fast").AddEdge(engine.Start, "hang").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g, saver
}

// While a step executes, the tasks pane shows each task's state, elapsed
// time and latest output as it arrives; X cancels the tasks still running
// and the cancellation is recorded as the hanging task's error.
func TestModel_Live_OutputAndCancel(t *testing.T) {
	g, saver := hanging(t)
	opts := Options{Thread: "live", Input: map[string]any{"x": 0.0}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	m = press(t, m, "s", "n") // step 1 planned
	nm, cmd := m.Update(keys("n")[0])
	m = nm.(Model)
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(m.View(), `› {token: 5}`) {
		if time.Now().After(deadline) {
			t.Fatalf("no live output:\n%s", m.View())
		}
		time.Sleep(5 * time.Millisecond)
	}
	v := m.View()
	for _, want := range []string{"hang  running", "fast  done", "… 2 earlier", "X cancels"} {
		if !strings.Contains(v, want) {
			t.Fatalf("live pane lacks %q:\n%s", want, v)
		}
	}
	if !m.mainKeys.Cancel.Enabled() {
		t.Fatal("X is not offered while the step runs")
	}
	m = cancelStep(t, m, done)
	if m.view.Status != engine.StatusFailed {
		t.Fatalf("status %v", m.view.Status)
	}
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: "live"})
	if err != nil || snap.Status() != engine.CheckpointFailed {
		t.Fatalf("the cancellation should be recorded as the task's error: %v %v", snap.Status(), err)
	}
	var hang engine.SnapshotTask
	for _, tk := range snap.Tasks {
		if tk.Name == "hang" {
			hang = tk
		}
	}
	if !strings.Contains(hang.Error, "context canceled") {
		t.Fatalf("hang's saved error: %q", hang.Error)
	}
}

// stepClock is a clock the test moves: the live feed reads it.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// liveStep starts step 1 of the hanging graph and waits until both tasks
// reported: fast done at once, hang running and emitting. The feed's clock
// then moves 2.5s, so hang's elapsed time shows and fast's stays at 0s.
func liveStep(t *testing.T, w, h int) (Model, chan tea.Msg) {
	t.Helper()
	g, saver := hanging(t)
	opts := Options{Thread: "live", Input: map[string]any{"x": 0.0}, Saver: saver}
	sess := newEngineSession(g, opts)
	clock := &stepClock{t: fixedNow}
	sess.feed.now = clock.now
	m := newTestModel(t, sess, opts, w, h)
	m = press(t, m, "s", "n")
	nm, cmd := m.Update(keys("n")[0])
	m = nm.(Model)
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	deadline := time.Now().Add(10 * time.Second)
	for v := m.View(); !strings.Contains(v, "› {token: 5}") || !strings.Contains(v, "fast  done"); v = m.View() {
		if time.Now().After(deadline) {
			t.Fatalf("no live output:\n%s", v)
		}
		time.Sleep(5 * time.Millisecond)
	}
	clock.add(2500 * time.Millisecond)
	return m, done
}

// Goldens of a step executing (hang emitting, 2.5s in) and of the same
// step cancelled with X.
func TestModel_Live_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, done := liveStep(t, sz.w, sz.h)
			v := m.View()
			if !strings.Contains(v, "hang  running  2.5s") || !strings.Contains(v, "fast  done  0s") {
				t.Fatalf("elapsed times:\n%s", v)
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("live-%dx%d.golden", sz.w, sz.h), v)
			m = cancelStep(t, m, done)
			checkFrame(t, m)
			golden(t, fmt.Sprintf("live-cancelled-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// cancelStep presses X while a step runs and feeds the step's result, from
// done, back to the model.
func cancelStep(t *testing.T, m Model, done chan tea.Msg) Model {
	t.Helper()
	m = press(t, m, "X")
	select {
	case msg := <-done:
		return send(t, m, msg)
	case <-time.After(10 * time.Second):
		t.Fatal("X did not end the step")
	}
	return m
}

// What a subgraph's own tasks emit shows under the task that runs the
// subgraph, named by its path inside it.
func TestLiveFeed_SubgraphOutput(t *testing.T) {
	saver := engine.NewMemorySaver()
	deep, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("b1", func(ctx context.Context, _ any) (any, error) {
			engine.Emit(ctx, "deep tick")
			return engine.Pairs("log", []any{"b1"}), nil
		}).
		AddEdge(engine.Start, "b1").Compile()
	if err != nil {
		t.Fatal(err)
	}
	mid, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("m1", func(ctx context.Context, _ any) (any, error) {
			engine.Emit(ctx, map[string]any{"progress": 1})
			return engine.Pairs("log", []any{"m1"}), nil
		}).
		AddSubgraph("deep", deep).
		AddEdge(engine.Start, "m1").AddEdge("m1", "deep").Compile()
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("mid", mid).AddEdge(engine.Start, "mid").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "sub", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	m = press(t, m, "s", "n") // step 1 planned: mid
	planned := m.view.Tasks
	m = press(t, m, "n")
	var lines []string
	for _, r := range m.feed.rows(planned) {
		lines = append(lines, r.text)
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"mid  done", "› m1: {progress: 1}", `› deep › b1: "deep tick"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("live rows lack %q:\n%s", want, got)
		}
	}
}

// quietHanging is hanging with a task that says nothing while it runs:
// only the engine's report of its start tells that it is there. Each run
// of quiet sends on started, which the test receives before it cancels:
// the engine does not wait for a task it abandons, and the race detector
// needs that edge between the task's start and the view read after.
func quietHanging(t testing.TB) (*engine.Graph, *engine.MemorySaver, chan struct{}) {
	t.Helper()
	saver := engine.NewMemorySaver()
	started := make(chan struct{}, 4)
	g, err := engine.NewStateGraph(engine.LastValueKey("x"), engine.LastValueKey("y")).
		AddNode("fast", func(context.Context, any) (any, error) { return engine.Pairs("x", 1.0), nil }).
		AddNode("quiet", func(ctx context.Context, _ any) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}).
		AddEdge(engine.Start, "fast").AddEdge(engine.Start, "quiet").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g, saver, started
}

// startStep presses k (a step key) and runs its Cmd in the background
// until the screen shows every one of want.
func startStep(t *testing.T, m Model, k string, want ...string) (Model, chan tea.Msg) {
	t.Helper()
	nm, cmd := m.Update(keys(k)[0])
	m = nm.(Model)
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := m.View()
		missing := ""
		for _, w := range want {
			if !strings.Contains(v, w) {
				missing = w
			}
		}
		if missing == "" {
			return m, done
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running step never shows %q:\n%s", missing, v)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// s (finish the superstep) plans and executes in one call: the tasks
// still running, silent ones too, are listed as with c, so the person
// sees what X would cancel.
func TestModel_Live_SuperstepListsRunningTasks(t *testing.T) {
	g, saver, started := quietHanging(t)
	opts := Options{Thread: "quiet", Input: map[string]any{"x": 0.0}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	m = press(t, m, "s") // step 0: __start__
	m, done := startStep(t, m, "s", "fast  done", "quiet  running", "X cancels")
	<-started
	m = cancelStep(t, m, done)
	if m.view.Status != engine.StatusFailed {
		t.Fatalf("status %v", m.view.Status)
	}
}

// A retried step reuses the writes saved by the tasks that finished: they
// show as reused from the start, not as running for the whole step.
func TestModel_Live_RetryShowsReusedTasks(t *testing.T) {
	for _, k := range []string{"n", "s"} {
		t.Run(k, func(t *testing.T) {
			g, saver, started := quietHanging(t)
			opts := Options{Thread: "quiet", Input: map[string]any{"x": 0.0}, Saver: saver}
			m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
			m = press(t, m, "s", "n")
			m, done := startStep(t, m, "n", "fast  done", "quiet  running")
			<-started
			m = cancelStep(t, m, done)
			if k == "n" {
				m = press(t, m, "n") // plans again: fast's writes are reused
			}
			m, done = startStep(t, m, k, "fast  reused", "quiet  running")
			if v := m.View(); strings.Contains(v, "fast  running") {
				t.Fatalf("fast shows running:\n%s", v)
			}
			<-started
			cancelStep(t, m, done)
		})
	}
}
