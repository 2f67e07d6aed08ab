package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A kept threads filter that matches nothing says esc clears it: esc
// does, and a second esc closes the list.
func TestModel_Threads_EscClearsAKeptFilter(t *testing.T) {
	m := newTestModel(t, &fakeSession{info: fakeInfo(), view: twoInterrupts()}, Options{Thread: "f"}, 100, 30)
	m = press(t, m, "esc", "T", "/", "z", "z", "enter")
	if m.mode != modeThreads || !strings.Contains(m.View(), "esc clears it") {
		t.Fatalf("mode %v:\n%s", m.mode, m.View())
	}
	if !strings.Contains(m.View(), "esc clear filter") {
		t.Fatalf("the footer does not say what esc does:\n%s", m.View())
	}
	m = press(t, m, "esc")
	if m.mode != modeThreads || m.threads.filter.Value() != "" || len(m.threads.shown) != 2 {
		t.Fatalf("esc: mode %v filter %q shown %d", m.mode, m.threads.filter.Value(), len(m.threads.shown))
	}
	m = press(t, m, "esc")
	if m.mode != modeMain {
		t.Fatalf("the second esc left mode %v", m.mode)
	}
}

// In a subgraph's namespace, which is read only, the main view's keys say
// where they apply instead of doing nothing.
func TestModel_Subgraph_MainKeysSayWhy(t *testing.T) {
	m, _ := nestedModel(t, 120, 40)
	m = press(t, m, "enter")
	if m.mode != modeSubgraph {
		t.Fatalf("mode %v", m.mode)
	}
	for _, k := range []string{"f", "n", "c", "b", "t", "e"} {
		m.note = ""
		m = press(t, m, k)
		if m.note == "" || m.mode != modeSubgraph {
			t.Errorf("%s in a namespace: mode %v, says nothing", k, m.mode)
		}
	}
}

// At an engine breakpoint (interrupt_before/after) no question waits: r
// says so rather than nothing.
func TestModel_AnswerKey_AtEngineBreakpointSaysWhy(t *testing.T) {
	v := twoInterrupts()
	v.Interrupts = nil
	m := newTestModel(t, &fakeSession{info: fakeInfo(), view: v}, Options{Thread: "f"}, 100, 30)
	m = press(t, m, "r")
	if !strings.Contains(m.note, "engine breakpoint") || m.mode != modeMain {
		t.Fatalf("r at an engine breakpoint: mode %v note %q", m.mode, m.note)
	}
}

// versionedOnly is a saver that, like the bbolt store, keeps a value only
// for the channels that have a version.
type versionedOnly struct{ *engine.MemorySaver }

func (s versionedOnly) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (engine.Config, error) {
	c := *cp
	c.ChannelValues = map[string]any{}
	for k, v := range cp.ChannelValues {
		if _, ok := cp.ChannelVersions[k]; ok {
			c.ChannelValues[k] = v
		}
	}
	return s.MemorySaver.Put(ctx, cfg, &c, md, nv)
}

// A reducer channel never written reads the same at the input checkpoint
// live and after time travel to it: available with its start value ([]),
// as the engine reports it, even from a store that keeps no value for it.
func TestModel_TimeTravel_ReducerStartValueAsLive(t *testing.T) {
	_, ex, _ := compile(t, "research")
	saver := versionedOnly{engine.NewMemorySaver()}
	g, err := ex.Build(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t1", Input: ex.Input, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	findings := func(m Model) engine.ChannelView {
		for _, c := range m.view.Channels {
			if c.Name == "findings" {
				return c
			}
		}
		t.Fatal("no findings channel")
		return engine.ChannelView{}
	}
	live := findings(m)
	m = press(t, m, "s", "p")
	if m.view.CheckpointStep != -1 {
		t.Fatalf("p went to step %d", m.view.CheckpointStep)
	}
	back := findings(m)
	if back.Available != live.Available || back.HasValue != live.HasValue || fmt.Sprint(back.Value) != fmt.Sprint(live.Value) {
		t.Fatalf("live %+v, after time travel %+v", live, back)
	}
}

// In a namespace, its own keys that do not apply say why: r where the
// waiting interrupt was raised in a subgraph below (mid's deep), d on the
// namespace's first checkpoint with nothing marked.
func TestModel_Subgraph_OwnKeysSayWhy(t *testing.T) {
	m, _ := nestedModel(t, 120, 40)
	m = press(t, m, "enter")
	if m.mode != modeSubgraph {
		t.Fatalf("mode %v", m.mode)
	}
	m = press(t, m, "r")
	if m.mode != modeSubgraph || !strings.Contains(m.note, "deep's was raised in its subgraph below") {
		t.Fatalf("r in mid: mode %v note %q", m.mode, m.note)
	}
	m = press(t, m, "down", "down")
	if s := m.sub.selectedSnap(); s == nil || s.ParentID != "" {
		t.Fatalf("the cursor is not on mid's first checkpoint: %+v", s)
	}
	m.note = ""
	m = press(t, m, "d")
	if m.mode != modeSubgraph || !strings.Contains(m.note, "m marks one") {
		t.Fatalf("d on the first checkpoint: mode %v note %q", m.mode, m.note)
	}
	if !strings.Contains(m.View(), "m marks one") {
		t.Fatalf("the note is not on screen:\n%s", m.View())
	}
}
