package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
)

// substepModel opens one of testdata/substep's scenarios on a real engine
// session, with stepping into subgraphs turned on (>).
func substepModel(t *testing.T, file string, input map[string]any, w, h int) Model {
	t.Helper()
	f, err := scenario.Load("testdata/substep/" + file)
	if err != nil {
		t.Fatal(err)
	}
	saver := engine.NewMemorySaver()
	g, _, err := scenario.Build(f, engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}), engine.WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Input: input, Saver: saver, GraphName: strings.TrimSuffix(file, ".json")}
	m := newTestModel(t, newEngineSession(g, opts), opts, w, h)
	if m.into.gate == nil {
		t.Fatal("the session of a graph with subgraphs has no gate to step into them")
	}
	m = press(t, m, ">")
	if !m.into.on {
		t.Fatal("> did not turn stepping into subgraphs on")
	}
	return m
}

// at asserts where the debugger is: the breadcrumb of the subgraph run
// held ("" at the root), and text the screen shows.
func at(t *testing.T, m Model, crumb string, want ...string) {
	t.Helper()
	checkFrame(t, m)
	v := m.View()
	if crumb == "" {
		if m.mode != modeMain || m.into.inside() {
			t.Fatalf("want the root's main view, mode %v, %d subgraph levels:\n%s", m.mode, len(m.into.levels), v)
		}
	} else {
		if m.mode != modeSubStep || m.into.held == nil {
			t.Fatalf("want a subgraph run held at %q, mode %v:\n%s", crumb, m.mode, v)
		}
		if got := strings.Join(m.into.level().crumbs, " › "); got != crumb {
			t.Fatalf("held at %q, want %q:\n%s", got, crumb, v)
		}
	}
	for _, w := range want {
		if !strings.Contains(v, w) {
			t.Fatalf("the screen lacks %q:\n%s", w, v)
		}
	}
}

// Stepping into a subgraph, and into the one inside it: n at the root's
// Plan of the superstep that runs mid stops at mid's input checkpoint,
// shown live with its graph, channels, versions_seen and tasks under a
// breadcrumb; n steps mid phase by phase, into deep the same way; each
// run's last view goes back to its parent, and the root's Execute ends
// when mid is done.
func TestModel_SubStep_Nested(t *testing.T) {
	m := substepModel(t, "nested.json", map[string]any{"out": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n") // steps 0 (the input) and 1 (pre) done; step 2 planned: mid
	at(t, m, "", "⤷ step into", "PLAN done", "mid ← branch:to:mid  ⤷")
	m = press(t, m, "n")
	at(t, m, "mid", "nested › mid  live · paused · namespace mid:", "INPUT checkpoint", "root step 2 executing", "Graph · mid", "m1", "deep", "stepped into mid")
	m = press(t, m, "n", "n", "n", "n") // mid's step 0 (its input) and the Plan of its step 1
	at(t, m, "mid", "PLAN done", "m1 ← branch:to:m1")
	m = press(t, m, "n", "n", "n") // execute, update, plan deep
	at(t, m, "mid", "PLAN done", "deep ← branch:to:deep  ⤷", `"m1"`)
	m = press(t, m, "n")
	at(t, m, "mid › deep", "nested › mid › deep  live · paused", "Graph · deep", "b1", "INPUT checkpoint")
	m = press(t, m, "s", "s") // deep's steps 0 and 1 (b1)
	at(t, m, "mid › deep", "UPDATE done", `"b1"`)
	m = press(t, m, "n")
	at(t, m, "mid › deep", "DONE", "mid › deep is done: n goes back to its parent")
	m = press(t, m, "n")
	at(t, m, "mid", "EXECUTE done", "back in mid from deep, which ended", "deep done")
	m = press(t, m, "n", "n")
	at(t, m, "mid", "DONE")
	m = press(t, m, "n")
	at(t, m, "", "EXECUTE done", "mid done")
	if m.err != nil {
		t.Fatal(m.err)
	}
	m = press(t, m, "c")
	// As `superstep run` ends it: each subgraph's whole list goes
	// through its parent's add reducer.
	if m.view.Status != engine.StatusDone || fmt.Sprint(m.view.Values["out"]) != "[pre pre m1 pre m1 b1 post]" {
		t.Fatalf("the run ended %v with %v", m.view.Status, m.view.Values)
	}
}
