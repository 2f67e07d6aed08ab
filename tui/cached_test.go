package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// cachedDeferred is a graph whose lookup node is cached and whose finish
// node is deferred: START → lookup → finish, START → slow → slow2 → finish.
// After step 1, finish is triggered by lookup but waits while slow2 runs.
func cachedDeferred(t testing.TB) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.LastValueKey("q"), engine.LastValueKey("found"), engine.LastValueKey("progress"), engine.LastValueKey("done")).
		AddNode("lookup", func(_ context.Context, in any) (any, error) {
			return engine.Pairs("found", "answer to "+in.(map[string]any)["q"].(string)), nil
		}, engine.WithCachePolicy(engine.CachePolicy{})).
		AddNode("slow", func(context.Context, any) (any, error) { return engine.Pairs("progress", 1.0), nil }).
		AddNode("slow2", func(context.Context, any) (any, error) { return engine.Pairs("progress", 2.0), nil }).
		AddNode("finish", func(context.Context, any) (any, error) { return engine.Pairs("done", true), nil }, engine.WithDefer()).
		AddEdge(engine.Start, "lookup").AddEdge(engine.Start, "slow").
		AddEdge("lookup", "finish").AddEdge("slow", "slow2").AddEdge("slow2", "finish").
		Compile(engine.WithSaver(saver), engine.WithCache(engine.NewMemoryCache()), engine.WithIDs(&engine.CounterIDs{}),
			engine.WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	// A first thread fills the node cache for this input.
	if _, err := g.Invoke(context.Background(), map[string]any{"q": "why"}, engine.OnThread("warm")); err != nil {
		t.Fatal(err)
	}
	return g, saver
}

// A task whose writes come from the node cache is marked cached at Plan
// and after Execute (it did not run), and a deferred node that was
// triggered waits, greyed, in the tasks and graph panes until the other
// work is done.
func TestModel_CachedAndWaiting_RealEngine(t *testing.T) {
	g, saver := cachedDeferred(t)
	opts := Options{Thread: "t2", Input: map[string]any{"q": "why"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 36)
	m = press(t, m, "s", "n") // step 1 planned
	if v := m.View(); !containsLine(v, "lookup", "◆ cached") {
		t.Fatalf("planned cached task not marked:\n%s", v)
	}
	m = press(t, m, "n") // executed
	if v := m.View(); !strings.Contains(v, "lookup ◆ cached: did not run, writes from the node cache") || !strings.Contains(v, "slow done") {
		t.Fatalf("executed cached task not marked:\n%s", v)
	}
	m = press(t, m, "n") // checkpoint of step 1: finish triggered, waits behind slow2
	v := m.View()
	if !strings.Contains(v, "‖ finish waiting (deferred") {
		t.Fatalf("deferred finish not shown waiting in the tasks pane:\n%s", v)
	}
	if !strings.Contains(v, "waiting") || !containsLine(v, "finish", "waiting") {
		t.Fatalf("deferred finish not shown waiting in the graph pane:\n%s", v)
	}
	m = press(t, m, "s") // step 2: slow2 runs; nothing else is left, so finish is due
	if v := m.View(); strings.Contains(v, "‖ finish") || containsLine(v, "finish", "waiting") {
		t.Fatalf("finish still shown waiting when it is due:\n%s", v)
	}
	m = press(t, m, "s") // step 3: finish runs
	if m.view.Values["done"] != true {
		t.Fatalf("finish did not run: %v", m.view.Values)
	}
}

// containsLine reports whether one line of v holds every part.
func containsLine(v string, parts ...string) bool {
	for _, l := range strings.Split(v, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

func cachedView() *engine.StepView {
	return &engine.StepView{
		Thread: "f", Step: 2, Phase: engine.PhaseExecuted, Status: engine.StatusRunning, CheckpointID: "cp", CheckpointStep: 1,
		Tasks: []engine.TaskView{
			{ID: "t1", Name: "a", State: engine.TaskCached, Writes: []engine.Write{{Channel: "x", Value: 2.0}}},
			{ID: "t2", Name: "c", State: engine.TaskDone, Writes: []engine.Write{{Channel: "x", Value: 3.0}}, Attempts: 1},
		},
		Waiting:  []string{"b"},
		Channels: []engine.ChannelView{{Name: "x", Kind: "LastValue", Value: 1.0, HasValue: true, Available: true}},
	}
}

func TestModel_CachedAndWaiting_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := newTestModel(t, &fakeSession{info: fakeInfo(), view: cachedView()}, Options{Thread: "f"}, sz.w, sz.h)
			checkFrame(t, m)
			v := m.View()
			for _, want := range []string{"◆ cached", "‖ b waiting"} {
				if !strings.Contains(v, want) {
					t.Fatalf("frame lacks %q:\n%s", want, v)
				}
			}
			golden(t, fmt.Sprintf("cached-waiting-%dx%d.golden", sz.w, sz.h), v)
		})
	}
}

// Streamed chat messages and custom values appear live under their task;
// a task served from the cache shows as cached, not running.
func TestLiveFeed_MessagesAndCached(t *testing.T) {
	f := newLiveFeed(func() time.Time { return fixedNow })
	f.reset()
	f.on(engine.Event{Kind: engine.EventCustom, TaskID: "t1", Node: "agent", Value: map[string]any{"progress": 1.0}})
	f.on(engine.Event{Kind: engine.EventMessage, TaskID: "t1", Node: "agent", Value: map[string]any{"role": "ai", "content": "hello\nthere", "tool_calls": []any{map[string]any{"name": "search"}}}})
	f.on(engine.Event{Kind: engine.EventCached, TaskID: "t2", Node: "lookup"})
	f.on(engine.Event{Kind: engine.EventMessage, TaskID: "t3", Node: "sub", Namespace: "sub:x", Value: "ignored"})
	var got []string
	for _, r := range f.rows([]engine.TaskView{{ID: "t1", Name: "agent"}, {ID: "t2", Name: "lookup"}}) {
		got = append(got, r.text)
	}
	want := []string{"agent  running  0s", "  › {progress: 1}", "  › msg ai: hello there [1 tool call]", "lookup  cached  0s"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows\n%q\nwant\n%q", got, want)
	}
}

// A task its retry policy runs again shows the attempt running and why the
// earlier ones failed while the step executes (engine.EventRetry): the
// attempt that works would hide a flaky tool.
func TestLiveFeed_Retries(t *testing.T) {
	f := newLiveFeed(func() time.Time { return fixedNow })
	f.reset()
	f.on(engine.Event{Kind: engine.EventRetry, TaskID: "t1", Node: "tools", Attempt: 1, Err: errors.New("connection reset\nby peer")})
	var got []string
	for _, r := range f.rows([]engine.TaskView{{ID: "t1", Name: "tools"}}) {
		got = append(got, r.text)
	}
	want := []string{"tools  running  0s  · attempt 2", "  " + glyphFailed + " attempt 1 failed: connection reset …"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows\n%q\nwant\n%q", got, want)
	}
}
