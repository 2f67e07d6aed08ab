package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// chain is START → a → b → END where b adds delta to total: two builds
// with another delta are "the code before and after a change".
func chain(t testing.TB, saver engine.Saver, delta float64) *engine.Graph {
	t.Helper()
	return chainWith(t, saver, delta, engine.NewTimeIDs(nil))
}

// chainWith builds chain with ids: the recording uses counter ids, later
// builds time ids, which sort after them as a later run's do.
func chainWith(t testing.TB, saver engine.Saver, delta float64, ids engine.IDSource) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("log")).
		AddNode("a", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", s.(map[string]any)["total"].(float64)*2, "log", []any{"a"}), nil
		}).
		AddNode("b", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("total", s.(map[string]any)["total"].(float64)+delta, "log", []any{"b"}), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(engine.WithSaver(saver), engine.WithIDs(ids))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func recorded(t testing.TB) *engine.MemorySaver {
	t.Helper()
	saver := engine.NewMemorySaver()
	if _, err := chainWith(t, saver, 1, &engine.CounterIDs{}).Invoke(context.Background(), map[string]any{"total": 5.0}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	return saver
}

// replayFromInput opens thread rec with g, selects its input checkpoint in
// the tree and starts a replay from there with R.
func replayFromInput(t *testing.T, g *engine.Graph, saver engine.Saver) Model {
	t.Helper()
	opts := Options{Thread: "rec", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	if m.mode == modeAnswer {
		m = press(t, m, "esc") // a thread waiting opens at its answer box
	}
	m = press(t, m, "t")
	for m.tree.selected().Metadata.Source != engine.SourceInput {
		m = press(t, m, "down")
	}
	before, _ := m.sess.History(context.Background())
	m = press(t, m, "R")
	if m.replay == nil || m.mode != modeMain || m.err != nil {
		t.Fatalf("R: replay %v mode %v err %v", m.replay, m.mode, m.err)
	}
	if h, _ := m.sess.History(context.Background()); len(h) != len(before) {
		t.Fatalf("starting a replay wrote a checkpoint: %d in history, %d before", len(h), len(before))
	}
	return m
}

func TestModel_Replay_SameCodeMatches(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 1), saver)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone || !strings.Contains(m.note, "replay matches the recording: 3 supersteps compared") {
		t.Fatalf("status %v note %q err %v", m.view.Status, m.note, m.err)
	}
}

// With changed code, c stops at the Execute where the writes first differ,
// and the tasks pane says which task and channel.
func TestModel_Replay_StopsAtDivergence(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 100), saver)
	m = press(t, m, "c")
	if m.view.Phase != engine.PhaseExecuted || len(m.view.Tasks) != 1 || m.view.Tasks[0].Name != "b" {
		t.Fatalf("stopped at step %d phase %v tasks %v, want the Execute of b", m.view.Step, m.view.Phase, m.view.Tasks)
	}
	v := m.View()
	for _, want := range []string{"replay DIVERGED at recorded step 2, b: writes differ on total", "≠ recorded", "REPLAY diverged"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	// __start__ and a matched on the way.
	if m.replay.compared != 3 {
		t.Fatalf("compared %d steps", m.replay.compared)
	}
}

// e runs one recorded task alone against its recorded input with the
// current code, writes nothing, and shows its writes against the
// recording: from the tree, and from a planned task in the tasks pane.
func TestModel_RerunTask(t *testing.T) {
	saver := recorded(t)
	opts := Options{Thread: "rec", Saver: saver}
	changed := chain(t, saver, 100)
	m := newTestModel(t, newEngineSession(changed, opts), opts, 120, 40)
	m = press(t, m, "t")
	for len(m.tree.selected().Tasks) == 0 || m.tree.selected().Tasks[0].Name != "b" {
		m = press(t, m, "down")
	}
	m = press(t, m, "e")
	if m.mode != modeDiff || m.err != nil {
		t.Fatalf("mode %v err %v", m.mode, m.err)
	}
	v := m.View()
	for _, want := range []string{"Run alone · b at", "≠ writes differ from the recording on 1 channel", "~ total: [11] → [110]"} {
		if !strings.Contains(v, want) {
			t.Fatalf("rerun lacks %q:\n%s", want, v)
		}
	}
	if h, _ := m.sess.History(context.Background()); len(h) != 4 {
		t.Fatalf("running a task alone wrote to the thread: %d checkpoints", len(h))
	}
	// The same code writes the same.
	m = newTestModel(t, newEngineSession(chain(t, saver, 1), opts), opts, 120, 40)
	m = press(t, m, "t")
	for len(m.tree.selected().Tasks) == 0 || m.tree.selected().Tasks[0].Name != "b" {
		m = press(t, m, "down")
	}
	m = press(t, m, "e")
	if !strings.Contains(m.View(), "= wrote the same as the recording") {
		t.Fatalf("same code:\n%s", m.View())
	}
	// From the main view, on a planned task: after time travel the step
	// runs on a fork, where nothing was recorded, and the pane says so.
	m = press(t, m, "esc", "enter", "n", "tab", "tab", "tab")
	if m.focus != paneTasks || !m.mainKeys.Rerun.Enabled() {
		t.Fatalf("focus %v, e enabled %v", m.focus, m.mainKeys.Rerun.Enabled())
	}
	m = press(t, m, "e")
	// With nothing recorded, its heading says so rather than sit empty
	// over "writes now", as if those were the recorded ones.
	if v := m.View(); !strings.Contains(v, "nothing was recorded for this task at this checkpoint") || !strings.Contains(v, "recorded writes: none") {
		t.Fatalf("on a fork:\n%s", v)
	}
}

// Time travel to the input checkpoint reads like opening it: the step it
// was written at and the one the next Plan starts; no recursion budget is
// claimed before a run holds the checkpoint.
func TestModel_Checkout_HeaderSaysWhereItIs(t *testing.T) {
	saver := recorded(t)
	opts := Options{Thread: "rec", Saver: saver}
	m := newTestModel(t, newEngineSession(chain(t, saver, 1), opts), opts, 160, 40)
	m = press(t, m, "t", "end")
	for m.tree.selected().Metadata.Source != engine.SourceInput {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	h := m.viewHeader()
	if !strings.Contains(h, "step -1 → 0") || strings.Contains(h, "budget") {
		t.Fatalf("header after time travel to the input: %q", h)
	}
	m = press(t, m, "n")
	if !strings.Contains(m.viewHeader(), "budget") {
		t.Fatalf("a step starts a run, whose budget shows: %q", m.viewHeader())
	}
}

// Goldens: a replay stopped at its divergence, and a task run alone.
func TestModel_ReplayRerun_Golden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			saver := recorded(t)
			opts := Options{Thread: "rec", Saver: saver}
			// Counter ids past the recording's, so the screen is the same
			// on every run and the new checkpoints sort after the old.
			ids := &engine.CounterIDs{}
			for range 100 {
				ids.NewID()
			}
			m := newTestModel(t, newEngineSession(chainWith(t, saver, 100, ids), opts), opts, sz.w, sz.h)
			m = press(t, m, "t")
			for len(m.tree.selected().Tasks) == 0 || m.tree.selected().Tasks[0].Name != "b" {
				m = press(t, m, "down")
			}
			m = press(t, m, "e")
			checkFrame(t, m)
			golden(t, fmt.Sprintf("rerun-%dx%d.golden", sz.w, sz.h), m.View())
			m = press(t, m, "esc", "down", "R", "c")
			if m.replay == nil || m.replay.diverged == "" {
				t.Fatalf("replay %+v note %q", m.replay, m.note)
			}
			checkFrame(t, m)
			golden(t, fmt.Sprintf("replay-diverged-%dx%d.golden", sz.w, sz.h), m.View())
		})
	}
}

// quiet is START → a → b → END where b writes nothing, or fails: the code
// before and after a change that breaks b.
func quiet(t testing.TB, saver engine.Saver, bFails bool, ids engine.IDSource) *engine.Graph {
	t.Helper()
	g, err := engine.NewStateGraph(engine.LastValueKey("total")).
		AddNode("a", func(_ context.Context, s any) (any, error) { return engine.Pairs("total", 1.0), nil }).
		AddNode("b", func(_ context.Context, s any) (any, error) {
			if bFails {
				return nil, fmt.Errorf("b broke")
			}
			return nil, nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(engine.WithSaver(saver), engine.WithIDs(ids))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A task that fails in the replay where the recording's ran diverges,
// though neither wrote anything; it was judged "= recorded".
func TestModel_Replay_FailureDiverges(t *testing.T) {
	saver := engine.NewMemorySaver()
	if _, err := quiet(t, saver, false, &engine.CounterIDs{}).Invoke(context.Background(), map[string]any{"total": 0.0}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	m := replayFromInput(t, quiet(t, saver, true, engine.NewTimeIDs(nil)), saver)
	m = press(t, m, "c")
	v := m.View()
	for _, want := range []string{"replay DIVERGED at recorded step 2, b: fails now (node \"b\" failed at step 3: b broke); the recording ran", "REPLAY diverged", "The replay stops at this failure"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	// A replay does not run its failed step again (outside a replay, n
	// does): the screen must not offer it.
	if m.mainKeys.Next.Enabled() || strings.Contains(v, "n runs the failed step again") {
		t.Fatalf("a failed replay offers n:\n%s", v)
	}
}

// A replay of a run that failed, failing the same way, says so; a failure
// the replay no longer has diverges.
func TestModel_Replay_RecordedFailure(t *testing.T) {
	saver := engine.NewMemorySaver()
	if _, err := quiet(t, saver, true, &engine.CounterIDs{}).Invoke(context.Background(), map[string]any{"total": 0.0}, engine.OnThread("rec")); err == nil {
		t.Fatal("the recording should fail")
	}
	m := replayFromInput(t, quiet(t, saver, true, engine.NewTimeIDs(nil)), saver)
	m = press(t, m, "c")
	if m.replay.diverged != "" || !strings.Contains(m.note, "the replay fails as the recording did") || !strings.Contains(m.View(), "b failed  = recorded") {
		t.Fatalf("diverged %q note %q\n%s", m.replay.diverged, m.note, m.View())
	}

	m = replayFromInput(t, quiet(t, saver, false, engine.NewTimeIDs(nil)), saver)
	m = press(t, m, "c")
	if !strings.Contains(m.View(), "replay DIVERGED at recorded step 2, b: the recording failed here (node \"b\" failed at step 2: b broke); now it ran") {
		t.Fatalf("fixed code:\n%s", m.View())
	}
}

// e in a run-alone result opened from the tree runs the checkpoint's next
// task, as the help says ("e again for the next"), and the title says which
// of a fan-out's same-named tasks it is; esc still goes back to the tree.
func TestModel_RerunTask_NextFromTheResult(t *testing.T) {
	m := engineModel(t, "mapreduce", 100, 30)
	m = press(t, m, "c", "t")
	for len(m.tree.selected().Tasks) != 3 {
		m = press(t, m, "down")
	}
	m = press(t, m, "e")
	if v := m.View(); m.mode != modeDiff || !strings.Contains(v, "square (task 1 of 3)") || !strings.Contains(v, "n: 3") {
		t.Fatalf("first e: mode %v\n%s", m.mode, v)
	}
	if !m.diff.keys.Next.Enabled() {
		t.Fatal("e is not offered in the result")
	}
	m = press(t, m, "e")
	if v := m.View(); m.mode != modeDiff || !strings.Contains(v, "square (task 2 of 3)") || !strings.Contains(v, "n: 1") {
		t.Fatalf("e in the result: mode %v\n%s", m.mode, v)
	}
	m = press(t, m, "esc")
	if m.mode != modeTree {
		t.Fatalf("esc went to %v, not back to the tree", m.mode)
	}
	checkFrame(t, m)
}

// R on a checkpoint the recording ends at with nothing run there (a done
// head, an update nothing ran after) has nothing to compare: it is
// refused, as the command line's replay refuses it. It started a replay
// that compared one empty superstep and called the run after it a match.
func TestModel_Replay_NothingToCompareRefused(t *testing.T) {
	saver := recorded(t)
	opts := Options{Thread: "rec", Saver: saver}
	m := newTestModel(t, newEngineSession(chain(t, saver, 1), opts), opts, 120, 40)
	m = press(t, m, "t", "R") // the cursor is on the head: the run's end
	if m.replay != nil || m.err == nil || !strings.Contains(m.err.Error(), "nothing to replay: the recording has no superstep after checkpoint") {
		t.Fatalf("R at the recording's end: replay %v err %v", m.replay, m.err)
	}
	if h, _ := m.sess.History(context.Background()); len(h) != 4 {
		t.Fatalf("a refused replay wrote to the thread: %d checkpoints", len(h))
	}
	// One step earlier there is a superstep to compare.
	m = press(t, m, "down", "R", "c")
	if m.replay == nil || !strings.Contains(m.note, "replay matches the recording: 1 superstep compared") {
		t.Fatalf("R one step earlier: note %q err %v", m.note, m.err)
	}
}

// flakyB is quiet whose b fails its first failures runs (counted in this
// graph) and then writes nothing.
func flakyB(t testing.TB, saver engine.Saver, failures int) *engine.Graph {
	t.Helper()
	runs := 0
	g, err := engine.NewStateGraph(engine.LastValueKey("total")).
		AddNode("a", func(_ context.Context, s any) (any, error) { return engine.Pairs("total", 1.0), nil }).
		AddNode("b", func(_ context.Context, s any) (any, error) {
			if runs++; runs <= failures {
				return nil, fmt.Errorf("b broke")
			}
			return nil, nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile(engine.WithSaver(saver), engine.WithIDs(engine.NewTimeIDs(nil)))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A recording whose run failed and was then run on past the failure
// (invoke(null): b ran again and passed) is replayed as it ran: the same
// failure, then the step again, and c goes on through both. Code that
// fails twice diverges where the recording's second attempt ran.
func TestModel_Replay_FailureTheRecordingWentOnPast(t *testing.T) {
	saver, ids := engine.NewMemorySaver(), &engine.CounterIDs{}
	if _, err := quiet(t, saver, true, ids).Invoke(context.Background(), map[string]any{"total": 0.0}, engine.OnThread("rec")); err == nil {
		t.Fatal("the recording should fail first")
	}
	if _, err := quiet(t, saver, false, ids).Invoke(context.Background(), nil, engine.OnThread("rec")); err != nil {
		t.Fatalf("running the recording on past its failure: %v", err)
	}

	m := replayFromInput(t, flakyB(t, saver, 1), saver)
	m = press(t, m, "c")
	if m.replay.diverged != "" || m.view.Status != engine.StatusDone || !strings.Contains(m.note, "replay matches the recording: 3 supersteps compared") {
		t.Fatalf("flaky code: diverged %q status %v note %q\n%s", m.replay.diverged, m.view.Status, m.note, m.View())
	}

	m = replayFromInput(t, flakyB(t, saver, 2), saver)
	m = press(t, m, "c")
	if !strings.Contains(m.replay.diverged, "the replay failed again; the recording's run failed here once, then ran") || m.mainKeys.Next.Enabled() {
		t.Fatalf("code failing twice: diverged %q, n enabled %v\n%s", m.replay.diverged, m.mainKeys.Next.Enabled(), m.View())
	}
}

// A replay's first note says its keys before what it does: at 80
// columns the status line cut "c runs to the f…".
func TestModel_Replay_NarrowNoteSaysTheKeys(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 1), saver)
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	status := strings.Split(m.View(), "\n")[1]
	if !strings.Contains(status, "c runs to the first divergence, n steps") {
		t.Errorf("the status line does not say how to go on:\n%s", status)
	}
}
