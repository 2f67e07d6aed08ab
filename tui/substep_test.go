package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
)

// substepModel opens one of testdata/substep's scenarios on a real engine
// session, with stepping into subgraphs turned on (>).
func substepModel(t *testing.T, file string, input map[string]any, w, h int) Model {
	t.Helper()
	m := substepOpen(t, file, engine.NewMemorySaver(), "t", input, w, h)
	m = press(t, m, ">")
	if !m.into.on {
		t.Fatal("> did not turn stepping into subgraphs on")
	}
	return m
}

// substepOpen opens the scenario on saver and thread.
func substepOpen(t *testing.T, file string, saver engine.Saver, thread string, input map[string]any, w, h int) Model {
	t.Helper()
	f, err := scenario.Load("testdata/substep/" + file)
	if err != nil {
		t.Fatal(err)
	}
	g := buildScenario(t, f, saver)
	opts := Options{Thread: thread, Input: input, Saver: saver, GraphName: strings.TrimSuffix(filepath.Base(file), ".json")}
	m := newTestModel(t, newEngineSession(g, opts), opts, w, h)
	if m.into.gate == nil {
		t.Fatal("the session of a graph with subgraphs has no gate to step into them")
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

// waitersAre waits until n subgraph runs wait for the turn (they reach
// the hook on their own goroutines) and returns their names.
func waitersAre(t *testing.T, m Model, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ws := m.into.gate.waiters()
		if len(ws) == n {
			return ws
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d subgraph runs wait for the turn (%q), want %d", len(ws), ws, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A Send fan-out to a subgraph node runs its three subgraph runs
// concurrently: they are stepped one at a time, and the screen names the
// others, which wait their turn; c runs the one held to its last view,
// and n there takes it back and holds the next one.
func TestModel_SubStep_FanOut(t *testing.T) {
	m := substepModel(t, "fanout.json", map[string]any{"log": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n") // the input, fan; step 2 plans sub three times
	at(t, m, "", "sub[1] ← Send  ⤷", "sub[2] ← Send  ⤷", "sub[3] ← Send  ⤷")
	m = press(t, m, "n")
	first := strings.Join(m.into.level().crumbs, "")
	if !strings.HasPrefix(first, "sub[") {
		t.Fatalf("the run held is %q, want one of sub[1..3]", first)
	}
	ws := waitersAre(t, m, 2)
	at(t, m, first, "2 more wait their turn: "+strings.Join(ws, ", "), "a1", "a2")
	m = press(t, m, "n", "n", "n", "n") // its step 0 (the input), the Plan of a1
	at(t, m, first, "PLAN done", "a1 ← branch:to:a1")
	seen := map[string]bool{first: true}
	for left := 1; left >= 0; left-- {
		m = press(t, m, "c")
		at(t, m, strings.Join(m.into.level().crumbs, ""), "DONE")
		m = press(t, m, "n")
		next := strings.Join(m.into.level().crumbs, "")
		if seen[next] {
			t.Fatalf("%s is held twice", next)
		}
		seen[next] = true
		waitersAre(t, m, left)
		at(t, m, next, "INPUT checkpoint")
	}
	m = press(t, m, "c", "n")
	at(t, m, "", "EXECUTE done")
	m = press(t, m, "c")
	got := fmt.Sprint(m.view.Values["log"])
	for _, want := range []string{"a1:1 a2:1", "a1:2 a2:2", "a1:3 a2:3", "join"} {
		if !strings.Contains(got, want) {
			t.Fatalf("log %s lacks %q", got, want)
		}
	}
}

// An interrupt raised inside a subgraph run being stepped ends that run
// and its parent's interrupted, as each one's last view says; back at the
// root the answer box asks for it as it does without stepping, and the
// answer resumes the run.
func TestModel_SubStep_InterruptReachesRoot(t *testing.T) {
	m := substepModel(t, "../../../testdata/conformance/own/nested_subgraph.json", map[string]any{"out": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n") // into mid
	at(t, m, "mid", "INPUT checkpoint")
	m = press(t, m, "s", "s", "n", "n") // mid's steps 0 and 1, the Plan of deep, into deep
	at(t, m, "mid › deep", "INPUT checkpoint")
	m = press(t, m, "s", "n", "n")
	at(t, m, "mid › deep", "INTERRUPTED", "mid › deep stopped at an interrupt")
	m = press(t, m, "n")
	at(t, m, "mid", "INTERRUPTED")
	m = press(t, m, "n")
	if m.mode != modeAnswer || !strings.Contains(m.View(), `n=2`) {
		t.Fatalf("mode %v, want the answer box asking n=2:\n%s", m.mode, m.View())
	}
	m = press(t, m, "ok", "enter", "c")
	if m.err != nil || m.view.Status != engine.StatusDone || !strings.Contains(fmt.Sprint(m.view.Values["out"]), "b1:ok") {
		t.Fatalf("after the answer: %v %v %v", m.err, m.view.Status, m.view.Values)
	}
}

// Quitting while a subgraph run is held and two more wait for the turn
// releases them all: the step's goroutines end, none is left behind.
func TestModel_SubStep_QuitWhileHeld(t *testing.T) {
	before := runtime.NumGoroutine()
	m := substepModel(t, "fanout.json", map[string]any{"log": []any{}}, 100, 30)
	m = press(t, m, "s", "s", "n", "n", "n")
	waitersAre(t, m, 2)
	at(t, m, strings.Join(m.into.level().crumbs, ""), "PLAN done")
	m = press(t, m, "q")
	if m.mode != modeQuit {
		t.Fatalf("q while a subgraph is held should ask first, mode %v", m.mode)
	}
	nm, cmd := m.Update(keys("y")[0])
	if msg := cmd(); msg != tea.Quit() {
		t.Fatalf("y did not quit: %T", msg)
	}
	_ = nm
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// Stepping into subgraphs is kept with the graph's settings: a debugger
// opened on the graph again steps into them until > turns it off.
func TestModel_SubStep_SettingPersists(t *testing.T) {
	saver := &settingsSaver{MemorySaver: engine.NewMemorySaver(), docs: map[string][]byte{}}
	in := map[string]any{"out": []any{}}
	m := substepOpen(t, "nested.json", saver, "t1", in, 120, 40)
	if m.into.on || strings.Contains(m.View(), "⤷ step into") {
		t.Fatal("stepping into subgraphs is on before > turned it on")
	}
	m = press(t, m, ">")
	m2 := substepOpen(t, "nested.json", saver, "t2", in, 120, 40)
	if !m2.into.on {
		t.Fatalf("the setting was not kept: %s", saver.docs["tui/graph/nested"])
	}
	m2 = press(t, m2, "s", "s", "n", "n")
	at(t, m2, "mid", "INPUT checkpoint")
	m2 = press(t, m2, ">")
	at(t, m2, "", "EXECUTE done", "mid done")
	if m3 := substepOpen(t, "nested.json", saver, "t3", in, 120, 40); m3.into.on {
		t.Fatal("> did not turn the kept setting off")
	}
}

// Turned off while a fan-out's run is held and two wait, stepping into
// lets all three run through, and the root's Execute ends.
func TestModel_SubStep_TurnedOffWhileHeld(t *testing.T) {
	m := substepModel(t, "fanout.json", map[string]any{"log": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n")
	waitersAre(t, m, 2)
	m = press(t, m, ">")
	at(t, m, "", "EXECUTE done")
	if m.into.on || m.err != nil {
		t.Fatalf("on %v err %v", m.into.on, m.err)
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone || !strings.Contains(fmt.Sprint(m.view.Values["log"]), "a2:3") {
		t.Fatalf("the run ended %v with %v", m.view.Status, m.view.Values)
	}
}

// c at the root runs through subgraph runs while stepping into them is
// on, to the root's breakpoints, which keep working.
func TestModel_SubStep_ContinueRunsThroughToBreakpoint(t *testing.T) {
	m := substepModel(t, "nested.json", map[string]any{"out": []any{}}, 120, 40)
	for m.graph.selected() != "post" {
		m = press(t, m, "down")
	}
	m = press(t, m, "b", "c")
	at(t, m, "", "breakpoint: before post", "PLAN done")
	if !strings.Contains(fmt.Sprint(m.view.Values["out"]), "b1") {
		t.Fatalf("mid did not run: %v", m.view.Values)
	}
}

func TestModel_SubStep_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := substepModel(t, "nested.json", map[string]any{"out": []any{}}, sz.w, sz.h)
			m = press(t, m, "s", "s", "n", "n", "n", "n", "n", "n", "n", "n", "n", "n")
			at(t, m, "mid › deep")
			m = press(t, m, "n", "tab")
			// Where the run is held and that the root waits for it fit
			// the header at every size: the parts said elsewhere give way.
			head, _, _ := strings.Cut(m.View(), "\n")
			for _, want := range []string{"PLAN done", "root step 2 executing"} {
				if !strings.Contains(head, want) {
					t.Errorf("the header lacks %q: %q", want, head)
				}
			}
			golden(t, fmt.Sprintf("substep-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// enter on a channel of the run held opens its value in the inspector,
// beside that run's graph and versions_seen; esc comes back to it. A
// click focuses the pane under the pointer.
func TestModel_SubStep_InspectAndClick(t *testing.T) {
	m := substepModel(t, "nested.json", map[string]any{"out": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n", "n", "n", "n", "n", "n", "n")
	at(t, m, "mid", "UPDATE done")
	m = send(t, m, tea.MouseMsg{X: 100, Y: bodyTop + 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if m.into.focus != paneChannels {
		t.Fatalf("a click on the channels focused pane %v", m.into.focus)
	}
	m = press(t, m, "enter")
	v := m.View()
	if m.mode != modeInspect || !strings.Contains(v, "Inspect · out · reduce(add) · v3 · subgraph mid") || !strings.Contains(v, "Graph · mid") || !strings.Contains(v, "⤷ mid") {
		t.Fatalf("mode %v:\n%s", m.mode, v)
	}
	m = press(t, m, "esc")
	at(t, m, "mid", "UPDATE done")
}

// X while a subgraph run is held cancels the step: the held run and those
// waiting end with the cancellation, the root's step ends failed, and n
// runs it again.
func TestModel_SubStep_CancelWhileHeld(t *testing.T) {
	m := substepModel(t, "fanout.json", map[string]any{"log": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n")
	waitersAre(t, m, 2)
	m = press(t, m, "X")
	if m.mode != modeMain || m.isBusy || m.view.Status != engine.StatusFailed {
		t.Fatalf("after X: mode %v busy %v status %v", m.mode, m.isBusy, m.view.Status)
	}
	m = press(t, m, ">", "c")
	if m.view.Status != engine.StatusDone || !strings.Contains(fmt.Sprint(m.view.Values["log"]), "a2:3") {
		t.Fatalf("the step run again ended %v with %v (%v)", m.view.Status, m.view.Values, m.err)
	}
}

// A subgraph run held at its end says how that end goes on from there:
// its parent takes it on n. versions_seen's explanation and the status
// line said what the root's view says (r answers an interrupt, n runs a
// failed step again, an interrupt's answer is asked for at a breakpoint
// that asks nothing), and none of those keys does that here.
func TestModel_SubStep_EndSaysHowItGoesOn(t *testing.T) {
	const own = "../../../testdata/conformance/own/"
	t.Run("interrupt", func(t *testing.T) {
		m := substepModel(t, own+"nested_subgraph.json", map[string]any{"out": []any{}}, 120, 40)
		m = press(t, m, "s", "s", "n", "n", "s", "s", "n", "n", "s", "n", "n")
		at(t, m, "mid › deep", "INTERRUPTED", "mid › deep stopped at an interrupt: n goes back, and the root asks for the answer")
		if got := m.into.level().seen.explanation(); !strings.HasSuffix(got, "is interrupted in step 1: the root asks for the answer when its step ends.") {
			t.Fatalf("versions_seen says %q", got)
		}
		if v := m.View(); strings.Contains(v, "r answers it") {
			t.Fatalf("r does not answer a subgraph run held live:\n%s", v)
		}
	})
	t.Run("failure", func(t *testing.T) {
		m := substepModel(t, own+"sub_failure_state.json", map[string]any{"log": []any{}}, 120, 40)
		m = press(t, m, "s", "n", "n")
		at(t, m, "sub", "INPUT checkpoint")
		for i := 0; i < 20 && m.into.held != nil && !m.into.held.final(); i++ {
			m = press(t, m, "s")
		}
		at(t, m, "sub", "ERROR", "n goes back to its parent")
		if got := m.into.level().seen.explanation(); got != "This subgraph run failed: n takes the failure back to its parent." {
			t.Fatalf("versions_seen says %q", got)
		}
		if v := m.View(); strings.Contains(v, "n runs the failed step again") {
			t.Fatalf("n does not run a failed subgraph step again where it is held:\n%s", v)
		}
	})
	t.Run("held call", func(t *testing.T) {
		m := substepModel(t, own+"held_call_in_subgraph_continue.json", map[string]any{"log": []any{}}, 120, 40)
		m = press(t, m, "s", "s", "n", "n", "s", "n", "n")
		at(t, m, "s", "INTERRUPTED", "s stopped at a breakpoint, which held s0's call to m (interrupt_after s0): n goes back; the root stops there too")
		if got := m.into.level().seen.explanation(); !strings.HasPrefix(got, "This subgraph run stopped at a breakpoint compiled into it: n goes back") {
			t.Fatalf("versions_seen says %q", got)
		}
		if v := m.View(); strings.Contains(v, "asks for the answer") || strings.Contains(v, "r answers") {
			t.Fatalf("a breakpoint asks nothing:\n%s", v)
		}
		m = press(t, m, "n")
		// The root names the call its subgraph's breakpoint held.
		at(t, m, "", "INTERRUPTED", "breakpoint: held s0's call to m in s (interrupt_after s0)")
	})
}

// At a checkpoint of a subgraph run held live, a task that ran a subgraph
// is marked, but enter cannot open its namespace while the step runs: the
// row says where it opens instead of offering enter.
func TestModel_SubStep_SubgraphTaskRowSaysWhereItOpens(t *testing.T) {
	m := substepModel(t, "nested.json", map[string]any{"out": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n", "s", "s", "n", "n", "c", "n", "n") // c stops on deep's last view
	at(t, m, "mid", "UPDATE done", "⤷ deep ran a subgraph (enter opens it after the step)")
	if v := m.View(); strings.Contains(v, "enter opens its subgraph") {
		t.Fatalf("the live view offers enter on a subgraph task:\n%s", v)
	}
}

// A subgraph's own breakpoints (compiled into it) are marked on its graph
// while it is stepped, as the root's are on the root's: they are where
// stepping it stops, and nothing on screen said so.
func TestModel_SubStep_GraphMarksItsCompiledBreakpoints(t *testing.T) {
	m := substepModel(t, "../../../testdata/conformance/own/held_call_in_subgraph_continue.json", map[string]any{"log": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n")
	at(t, m, "s", "INPUT checkpoint", " ○s0 ")
	if v := m.View(); strings.Contains(v, " ○s1 ") {
		t.Fatalf("s1 has no breakpoint:\n%s", v)
	}
}

// stepToEnd steps the subgraph run held with s until its last view.
func stepToEnd(t *testing.T, m Model) Model {
	t.Helper()
	for i := 0; i < 20 && m.into.held != nil && !m.into.held.final(); i++ {
		m = press(t, m, "s")
	}
	if m.into.held == nil || !m.into.held.final() {
		t.Fatalf("the subgraph run did not stop on its last view:\n%s", m.View())
	}
	return m
}

// channelValue is the value of channel name in the view of the subgraph
// run held.
func channelValue(t *testing.T, m Model, name string) string {
	t.Helper()
	for _, c := range m.into.level().view.Channels {
		if c.Name == name {
			return fmt.Sprint(c.Value)
		}
	}
	t.Fatalf("the run held has no channel %s", name)
	return ""
}

// Two runs of a Send fan-out to a subgraph node both interrupt: the
// answer box names each question by the run that asks it, as stepping
// named that run on the breadcrumb (worker[1] › check), not both
// "worker › check"; and each answer goes, by interrupt id, to the run
// its line names.
func TestModel_SubStep_FanOutAnswersNameTheirRuns(t *testing.T) {
	m := substepModel(t, "../../../testdata/conformance/own/subgraph_send_interrupt.json", map[string]any{"out": []any{}}, 120, 40)
	m = press(t, m, "s", "s", "n", "n") // the input, split; worker planned twice; into the first run
	items := map[string]string{}        // run label → the item it was sent
	for len(items) < 2 {
		crumbs := m.into.level().crumbs
		run := crumbs[len(crumbs)-1]
		if _, ok := items[run]; ok {
			t.Fatalf("%s is held twice", run)
		}
		m = stepToEnd(t, m)
		at(t, m, run, "INTERRUPTED")
		items[run] = channelValue(t, m, "item")
		m = press(t, m, "n")
	}
	if m.mode != modeAnswer || len(m.answer.ints) != 2 {
		t.Fatalf("mode %v with %d interrupts, want the answer box on 2:\n%s", m.mode, len(m.answer.ints), m.View())
	}
	answers := map[string]string{"worker[1]": "one", "worker[2]": "two"}
	for i := range m.answer.ints {
		where := m.answer.where(i)
		run, ok := strings.CutSuffix(where, " › check")
		if _, stepped := items[run]; !ok || !stepped {
			t.Fatalf("interrupt %d is named %q, want a run stepping named (%v) › check:\n%s", i, where, items, m.View())
		}
		m.answer.inputs[i].SetValue(answers[run])
	}
	v := m.View()
	for run := range items {
		if !strings.Contains(v, run+" › check") {
			t.Fatalf("the answer box does not name %s:\n%s", run, v)
		}
	}
	m = press(t, m, "enter", "c")
	out := fmt.Sprint(m.view.Values["out"])
	if m.err != nil || m.view.Status != engine.StatusDone {
		t.Fatalf("after the answers: %v %v %s", m.err, m.view.Status, out)
	}
	for run, item := range items {
		if want := "check:" + item + ":" + answers[run]; !strings.Contains(out, want) {
			t.Fatalf("%s was sent %s and answered %s, but out is %s (want %s)", run, item, answers[run], out, want)
		}
	}
}

// c in a subgraph run held runs it to its end, the runs nested in it
// whole, and stops on its last view as n and s do: done, interrupted or
// failed, with how it goes on; n then takes it back to its parent.
func TestModel_SubStep_ContinueStopsOnLastView(t *testing.T) {
	const own = "../../../testdata/conformance/own/"
	t.Run("done", func(t *testing.T) {
		m := substepModel(t, "nested.json", map[string]any{"out": []any{}}, 120, 40)
		m = press(t, m, "s", "s", "n", "n")
		at(t, m, "mid", "INPUT checkpoint")
		m = press(t, m, "c") // deep, nested in mid, runs whole
		at(t, m, "mid", "DONE", "mid is done: n goes back to its parent")
		m = press(t, m, "n")
		at(t, m, "", "EXECUTE done", "mid done")
	})
	t.Run("interrupted", func(t *testing.T) {
		m := substepModel(t, own+"nested_subgraph.json", map[string]any{"out": []any{}}, 120, 40)
		m = press(t, m, "s", "s", "n", "n")
		at(t, m, "mid", "INPUT checkpoint")
		m = press(t, m, "c")
		at(t, m, "mid", "INTERRUPTED", "mid stopped at an interrupt: n goes back")
		m = press(t, m, "n")
		if m.mode != modeAnswer {
			t.Fatalf("mode %v, want the answer box:\n%s", m.mode, m.View())
		}
	})
	t.Run("failed", func(t *testing.T) {
		m := substepModel(t, own+"sub_failure_state.json", map[string]any{"log": []any{}}, 120, 40)
		m = press(t, m, "s", "n", "n")
		at(t, m, "sub", "INPUT checkpoint")
		m = press(t, m, "c")
		at(t, m, "sub", "ERROR", "n goes back to its parent")
	})
	t.Run("fan-out", func(t *testing.T) {
		m := substepModel(t, "fanout.json", map[string]any{"log": []any{}}, 120, 40)
		m = press(t, m, "s", "s", "n", "n")
		first := strings.Join(m.into.level().crumbs, "")
		m = press(t, m, "c") // the next run waits until this one's last view goes back
		at(t, m, first, "DONE", first+" is done")
		m = press(t, m, "n")
		next := strings.Join(m.into.level().crumbs, "")
		if next == first {
			t.Fatalf("%s is held again", first)
		}
		at(t, m, next, "INPUT checkpoint")
	})
}

// releaseAndType presses rel on the subgraph run held and types more
// before the Cmd that waits for its next pause runs: the keys a person
// types faster than the run pauses again. It returns that Cmd.
func releaseAndType(t *testing.T, m Model, rel string, more ...string) (Model, tea.Cmd) {
	t.Helper()
	nm, cmd := m.Update(keys(rel)[0])
	m = nm.(Model)
	if m.into.held != nil || cmd == nil {
		t.Fatalf("%s did not release the run held", rel)
	}
	return send(t, m, keys(more...)...), cmd
}

// Step keys typed while a subgraph run stepped runs on, before its next
// pause reaches the screen, are queued as the root queues keys typed
// while a step runs: counted in the header, then each one steps the next
// pause in turn; esc clears them; a run that stops at an interrupt or
// fails drops them, as the root does, and says so.
func TestModel_SubStep_QueuesStepKeysTypedWhileRunning(t *testing.T) {
	in := map[string]any{"out": []any{}}
	t.Run("queued", func(t *testing.T) {
		want := press(t, substepModel(t, "nested.json", in, 120, 40), "s", "s", "n", "n", "n", "n", "n")
		m := press(t, substepModel(t, "nested.json", in, 120, 40), "s", "s", "n", "n")
		at(t, m, "mid", "INPUT checkpoint")
		m, cmd := releaseAndType(t, m, "n", "n", "n")
		if strings.Join(m.queued, "") != "nn" || !strings.Contains(m.View(), "queued nn (2)") {
			t.Fatalf("queued %q, want nn counted in the header:\n%s", m.queued, m.View())
		}
		m = runCmd(t, m, cmd)
		at(t, m, "mid", "UPDATE done")
		sameSpot(t, m, want, "n n n")
	})
	t.Run("esc clears", func(t *testing.T) {
		want := press(t, substepModel(t, "nested.json", in, 120, 40), "s", "s", "n", "n", "n")
		m := press(t, substepModel(t, "nested.json", in, 120, 40), "s", "s", "n", "n")
		m, cmd := releaseAndType(t, m, "n", "s", "c", "esc")
		if len(m.queued) != 0 || !strings.Contains(m.note, "esc cleared 2 queued step keys") {
			t.Fatalf("queued %q, note %q", m.queued, m.note)
		}
		m = runCmd(t, m, cmd)
		sameSpot(t, m, want, "n alone")
	})
	t.Run("dropped at an interrupt", func(t *testing.T) {
		m := press(t, substepModel(t, "../../../testdata/conformance/own/subgraph_send_interrupt.json", in, 120, 40), "s", "s", "n", "n")
		run := strings.Join(m.into.level().crumbs, "")
		m, cmd := releaseAndType(t, m, "c", "n", "n")
		m = runCmd(t, m, cmd)
		at(t, m, run, "INTERRUPTED", "2 queued step keys dropped: "+run+" stopped at an interrupt: n goes back")
		if len(m.queued) != 0 {
			t.Fatalf("queued %q", m.queued)
		}
	})
}

// sameSpot asserts m holds the subgraph run want holds, at the same step
// and phase, with no key queued.
func sameSpot(t *testing.T, m, want Model, how string) {
	t.Helper()
	wv, gv := want.into.level().view, m.into.level().view
	if len(m.queued) != 0 || gv.Namespace != wv.Namespace || gv.Step != wv.Step || gv.Phase != wv.Phase {
		t.Fatalf("queued %q; at %s step %d %v, want %s step %d %v as %s:\n%s", m.queued, gv.Namespace, gv.Step, gv.Phase, wv.Namespace, wv.Step, wv.Phase, how, m.View())
	}
}

// On a subgraph run's last view (done, interrupted, failed) n, s and c
// all take it back to its parent, and the footer and the ? overlay say
// so for each of them: s and c said "finish superstep" and "run subgraph
// to its end", which they do not do there. They stay enabled: s there
// goes back as n does.
func TestModel_SubStep_LastViewHelpSaysBack(t *testing.T) {
	const own = "../../../testdata/conformance/own/"
	cases := []struct {
		name, file, key string
		in              map[string]any
		to              func(t *testing.T, m Model) Model
		end             string
	}{
		{"done", "nested.json", "s", map[string]any{"out": []any{}}, func(t *testing.T, m Model) Model {
			return press(t, m, "s", "s", "n", "n", "c")
		}, "DONE"},
		{"interrupted", own + "nested_subgraph.json", "c", map[string]any{"out": []any{}}, func(t *testing.T, m Model) Model {
			return press(t, m, "s", "s", "n", "n", "c")
		}, "INTERRUPTED"},
		{"failed", own + "sub_failure_state.json", "s", map[string]any{"log": []any{}}, func(t *testing.T, m Model) Model {
			return press(t, m, "s", "n", "n", "c")
		}, "ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.to(t, substepModel(t, tc.file, tc.in, 160, 40))
			crumb := strings.Join(m.into.level().crumbs, " › ")
			at(t, m, crumb, tc.end, "n back to the parent • s back to the parent • c back to the parent")
			if v := m.View(); strings.Contains(v, "finish superstep") || strings.Contains(v, "run subgraph to its end") {
				t.Fatalf("the footer offers what s and c do not do on a last view:\n%s", v)
			}
			h := press(t, m, "?")
			here, _, _ := strings.Cut(strings.Join(h.helpLines(h.width-2), "\n"), "Keys elsewhere")
			for _, k := range []string{"n", "s", "c"} {
				if !regexp.MustCompile(`(?m)^` + k + ` +back to the parent`).MatchString(here) {
					t.Fatalf("the overlay does not list %s as going back to the parent:\n%s", k, here)
				}
			}
			if strings.Contains(here, "finish superstep") || strings.Contains(here, "run subgraph to its end") {
				t.Fatalf("the overlay offers what s and c do not do on a last view:\n%s", here)
			}
			m = press(t, m, tc.key)
			if m.into.inside() {
				t.Fatalf("%s on %s's last view did not go back to its parent:\n%s", tc.key, crumb, m.View())
			}
		})
	}
}

// At 80×24, stepping a fan-out's run while another waits its turn, the
// header still says where the run is held and the line under it that it
// is paused: the names of the runs waiting and the namespace are what a
// narrow window cuts.
func TestModel_SubStep_NarrowFanOut(t *testing.T) {
	m := substepModel(t, "fanout.json", map[string]any{"log": []any{}}, 80, 24)
	m = press(t, m, "s", "s", "n", "n")
	waitersAre(t, m, 2)
	lines := strings.Split(m.View(), "\n")
	if !strings.Contains(lines[0], "INPUT checkpoint") || !strings.Contains(lines[0], "root step 2 executing") {
		t.Errorf("the header does not say where the run is held: %q", lines[0])
	}
	if !strings.Contains(lines[2], "live · paused · 2 more wait their turn") {
		t.Errorf("the breadcrumb line does not say the run is paused: %q", lines[2])
	}
	m = press(t, m, ">") // let them all run through
	at(t, m, "", "EXECUTE done")
}
