package tui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/graphs"
)

// The bad-case workflow's debugger breaks (issue 11): each test here fails
// on the debugger as it was before the fix it names.

// A head whose planned tasks all saved their writes (a crashed run, a
// replay that diverged) still has work: the debugger must not say DONE.
func TestModel_Open_HeadWithSavedWritesIsNotDone(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	st, err := g.Start(ctx, ex.Input, engine.OnThread("crashed"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Superstep(ctx); err != nil { // step 0: the input lands
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "crashed"})
	if err != nil || len(snap.Tasks) != 1 {
		t.Fatalf("want one planned task, got %v (%v)", snap.Tasks, err)
	}
	// The task finished and saved its writes; the run died before the
	// checkpoint that would apply them.
	task := snap.Tasks[0]
	if err := saver.PutWrites(ctx, snap.Config, task.ID, []engine.Write{{Channel: "total", Value: 20.0}, {Channel: "visited", Value: []any{"a"}}, {Channel: "branch:to:b", Value: nil}}); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "crashed", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	if m.view.Status == engine.StatusDone || strings.Contains(m.View(), "DONE") {
		t.Fatalf("a head with saved writes shows DONE:\n%s", m.View())
	}
	if !m.mainKeys.Next.Enabled() {
		t.Fatal("n is disabled on a head that has work left")
	}
	m = press(t, m, "s")
	if m.err != nil || m.view.Values["total"] != 20.0 {
		t.Fatalf("stepping the head: err %v values %v", m.err, m.view.Values)
	}
}

// Step keys typed while a step runs are queued (and shown), not dropped.
func TestModel_StepKeys_QueuedWhileBusy(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	// "n" starts a step; its Cmd is held, so the next keys arrive while
	// the model is busy, as a fast typist's would.
	nm, cmd := m.Update(keys("n")[0])
	m = nm.(Model)
	for _, k := range []string{"n", "n"} {
		nm, c := m.Update(keys(k)[0])
		m = nm.(Model)
		if c != nil {
			t.Fatal("a queued key started a second Cmd while the first runs")
		}
	}
	if len(m.queued) != 2 || !strings.Contains(m.View(), "queued nn (2)") {
		t.Fatalf("queue %v not shown:\n%s", m.queued, m.View())
	}
	m = runCmd(t, m, cmd)
	if m.view.Phase != engine.PhaseCheckpoint || m.view.CheckpointStep != 0 || len(m.queued) != 0 {
		t.Fatalf("nnn from the input checkpoint should end at checkpoint 0, got phase %v step %d queue %v", m.view.Phase, m.view.CheckpointStep, m.queued)
	}
	// The queue has a cap.
	nm, cmd = m.Update(keys("n")[0])
	m = nm.(Model)
	for i := 0; i < stepQueueCap+3; i++ {
		nm, _ := m.Update(keys("s")[0])
		m = nm.(Model)
	}
	if len(m.queued) != stepQueueCap || !strings.Contains(m.note, "ignored") {
		t.Fatalf("queue %d, note %q", len(m.queued), m.note)
	}
	// An interrupt drops what is left, saying so.
	m = runCmd(t, m, cmd)
	if m.mode != modeAnswer || len(m.queued) != 0 || !strings.Contains(m.note+m.View(), "interrupted") {
		t.Fatalf("at the interrupt: mode %v queue %v note %q", m.mode, m.queued, m.note)
	}
}

// esc takes back the step keys queued while a step runs, and says so;
// the step itself goes on.
func TestModel_StepKeys_EscClearsTheQueue(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	nm, cmd := m.Update(keys("n")[0])
	m = nm.(Model)
	for range 5 {
		nm, _ := m.Update(keys("n")[0])
		m = nm.(Model)
	}
	if !m.mainKeys.Back.Enabled() {
		t.Fatal("esc is not offered while keys are queued")
	}
	nm, _ = m.Update(keys("esc")[0])
	m = nm.(Model)
	if len(m.queued) != 0 || !strings.Contains(m.note, "esc cleared 5 queued step keys") || strings.Contains(m.View(), "queued nnnnn") {
		t.Fatalf("queue %v, note %q", m.queued, m.note)
	}
	m = runCmd(t, m, cmd)
	if m.view.Phase != engine.PhasePlanned {
		t.Fatalf("the step ran on to %v", m.view.Phase)
	}
}

// After an answered interrupt, the tasks pane must not claim the
// interrupted node ran, and the header keeps counting the same steps.
func TestModel_Resume_PanesAgree(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c")
	if !strings.Contains(viewHeaderOf(m), "step 2 → 3") {
		t.Fatalf("interrupt header: %s", viewHeaderOf(m))
	}
	m = press(t, m, `{"action":"approve"}`, "enter")
	if len(m.ran) != 0 || strings.Contains(m.View(), "ran: human_review") {
		t.Fatalf("after the answer the tasks pane says human_review ran:\n%s", m.View())
	}
	if h := viewHeaderOf(m); !strings.Contains(h, "step 2 → 3") {
		t.Fatalf("after the answer the header should say the next step is 3: %s", h)
	}
	if !strings.Contains(m.seen.View(m.styles, false, 60, 20), "will run") {
		t.Fatal("the why pane should say human_review will run")
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v", m.view.Status)
	}
	if strings.Contains(m.View(), "press n") || strings.Contains(m.View(), "n plans") {
		t.Fatalf("a finished thread offers n:\n%s", m.View())
	}
}

func viewHeaderOf(m Model) string { return strings.SplitN(m.View(), "\n", 2)[0] }

// p in the main view goes to the parent checkpoint, writing nothing.
func TestModel_Parent_MainView(t *testing.T) {
	m := engineModel(t, "linear", 100, 30)
	m = press(t, m, "s", "s")
	parent := m.view.ParentID
	m = press(t, m, "p")
	if m.err != nil || m.view.CheckpointID != parent {
		t.Fatalf("p: err %v at %q, want %q", m.err, m.view.CheckpointID, parent)
	}
	if h, _ := m.sess.History(context.Background()); len(h) != 3 {
		t.Fatalf("p wrote a checkpoint: %d in history", len(h))
	}
}

// / narrows the tasks pane as well as the channels.
func TestModel_Filter_Tasks(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "s", "s", "n", "n") // step 2: three investigate tasks executed
	m.focus = paneTasks
	all := len(m.tasks.rows)
	m = press(t, m, "/", "生产故障", "enter")
	if len(m.tasks.rows) == 0 || len(m.tasks.rows) >= all {
		t.Fatalf("filter kept %d of %d task rows", len(m.tasks.rows), all)
	}
	if !strings.Contains(m.View(), "/生产故障") {
		t.Fatalf("the tasks title should show the filter:\n%s", m.View())
	}
	m = press(t, m, "/", "esc")
	if len(m.tasks.rows) != all {
		t.Fatalf("esc should clear the filter: %d of %d", len(m.tasks.rows), all)
	}
}

// The fork form names the node the engine infers before anything is
// written.
func TestModel_Fork_NamesInferredNode(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "s", "s", "f")
	if m.mode != modeFork || m.fork.inferred != "plan_queries" {
		t.Fatalf("mode %v inferred %q (%s)", m.mode, m.fork.inferred, m.fork.inferErr)
	}
	if !strings.Contains(m.View(), "plan_queries (inferred") {
		t.Fatalf("the form does not name the inferred node:\n%s", m.View())
	}
}

// parallelInterrupt is a graph whose step 1 runs a (writes x) beside b
// (asks a question): at the interrupt, a's write is saved, not applied.
func parallelInterrupt(t testing.TB) (*engine.Graph, *engine.MemorySaver) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.LastValueKey("x"), engine.LastValueKey("y")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("x", "written by a"), nil }).
		AddNode("b", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "b asks")
			return engine.Pairs("y", v), err
		}).
		AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g, saver
}

// At an interrupt the channels pane shows the checkpoint's values, as the
// tree does, and the finished task's write as pending beside it.
func TestModel_Interrupt_ChannelsShowPendingWrites(t *testing.T) {
	g, saver := parallelInterrupt(t)
	opts := Options{Thread: "p", Input: map[string]any{"x": "input"}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusInterrupted {
		t.Fatalf("status %v", m.view.Status)
	}
	var x engine.ChannelView
	for _, c := range m.view.Channels {
		if c.Name == "x" {
			x = c
		}
	}
	if x.Value != "input" {
		t.Fatalf("channels pane shows x = %v at the interrupt; the checkpoint holds \"input\"", x.Value)
	}
	if p, ok := m.pending["x"]; !ok || p.Value != "written by a" {
		t.Fatalf("a's write is not shown as pending: %v", m.pending)
	}
	if v := m.View(); !strings.Contains(v, "pending → \"written by a\"") {
		t.Fatalf("no pending mark:\n%s", v)
	}
}

// manyKeys is a one-node graph with n state keys.
func manyKeys(t testing.TB, n int) (*engine.Graph, *engine.MemorySaver, map[string]any) {
	t.Helper()
	var specs []engine.KeySpec
	in := map[string]any{}
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("key_%02d", i)
		specs = append(specs, engine.LastValueKey(k))
		in[k] = float64(i)
	}
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(specs...).
		AddNode("only", func(context.Context, any) (any, error) { return engine.Pairs("key_00", 100.0), nil }).
		AddEdge(engine.Start, "only").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	return g, saver, in
}

// The channels pane gets the rows the nearly empty bottom panes do not
// need.
func TestModel_Layout_ChannelsGetSpareRoom(t *testing.T) {
	g, saver, in := manyKeys(t, 12)
	opts := Options{Thread: "k", Input: in, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 80, 24)
	m = press(t, m, "s", "n") // one task planned: the bottom panes need 7 rows
	checkFrame(t, m)
	v := m.View()
	if !strings.Contains(v, "key_11") {
		t.Fatalf("12 keys on a 24-row screen whose other panes are nearly empty: key_11 is not shown:\n%s", v)
	}
}

// A long value reads in full in the inspector: wrapped by default, and
// scrolled sideways with w.
func TestModel_Inspector_LongValueInFull(t *testing.T) {
	g, saver, in := manyKeys(t, 2)
	long := strings.Repeat("abcdefghij", 30) + "THE-END"
	in["key_01"] = long
	opts := Options{Thread: "k", Input: in, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 80, 24)
	m = press(t, m, "s", "tab", "down", "enter")
	if m.mode != modeInspect {
		t.Fatalf("mode %v", m.mode)
	}
	if v := m.View(); !strings.Contains(v, "-END") {
		t.Fatalf("the end of a 300-character value is not readable:\n%s", v)
	}
	m = press(t, m, "w")
	if strings.Contains(m.View(), "THE-END") {
		t.Fatal("w should stop wrapping")
	}
	for i := 0; i < 20 && !strings.Contains(m.View(), "THE-END"); i++ {
		m = press(t, m, "right")
	}
	if !strings.Contains(m.View(), "THE-END") {
		t.Fatalf("→ does not reach the end of the line:\n%s", m.View())
	}
	checkFrame(t, m)
}

// The thread picker shows each thread's graph and status, and refuses a
// thread of another graph with the caller's message instead of opening it
// under the wrong graph.
func TestModel_Threads_OtherGraphRefused(t *testing.T) {
	ctx := context.Background()
	saver := engine.NewMemorySaver()
	ex := func(name string) *engine.Graph {
		e, _ := graphs.Get(name)
		g, err := e.Build(engine.WithSaver(saver))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	research, linear := ex("research"), ex("linear")
	if _, err := research.Invoke(ctx, map[string]any{"question": "q"}, engine.OnThread("r")); err != nil {
		t.Fatal(err)
	}
	if _, err := linear.Invoke(ctx, map[string]any{"total": 1.0, "visited": []any{}}, engine.OnThread("l")); err != nil {
		t.Fatal(err)
	}
	refusal := errors.New(`graph changed for thread "r" (recorded with research: node plan_queries is not in this graph)`)
	opts := Options{Thread: "l", Saver: saver, CheckThread: func(_ context.Context, id string) error {
		if id == "r" {
			return refusal
		}
		return nil
	}}
	m := newTestModel(t, newEngineSession(linear, opts), opts, 120, 30)
	m = press(t, m, "T")
	if m.mode != modeThreads || len(m.threads.list) != 2 {
		t.Fatalf("mode %v threads %v", m.mode, m.threads.list)
	}
	v := m.View()
	if !strings.Contains(v, "other graph") || !strings.Contains(v, "done") {
		t.Fatalf("the picker should show each thread's status and the other graph's thread:\n%s", v)
	}
	for m.threads.list[m.threads.nav.cur].ID != "r" {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if m.thread != "l" || m.err == nil || m.err.Error() != refusal.Error() {
		t.Fatalf("opening another graph's thread: thread %q err %v", m.thread, m.err)
	}
}

// An interrupt raised two subgraphs down is named by its path, not just by
// the parent's node.
func TestModel_Interrupt_SubgraphPath(t *testing.T) {
	g, saver := nestedGraph(t)
	opts := Options{Thread: "nested", Input: map[string]any{"out": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v status %v err %v", m.mode, m.view.Status, m.err)
	}
	if v := m.View(); !strings.Contains(v, "mid › deep › b1 is waiting") {
		t.Fatalf("the answer box should name mid › deep › b1:\n%s", v)
	}
	m = press(t, m, "ok", "enter", "c")
	if m.view.Status != engine.StatusDone || m.err != nil {
		t.Fatalf("after the answer: status %v err %v", m.view.Status, m.err)
	}
	// The thread reopened at the interrupt names it the same way.
	opts2 := Options{Thread: "nested2", Input: map[string]any{"out": []any{}}, Saver: saver}
	m2 := newTestModel(t, newEngineSession(g, opts2), opts2, 100, 30)
	m2 = press(t, m2, "c")
	m3 := newTestModel(t, newEngineSession(g, Options{Thread: "nested2", Saver: saver}), Options{Thread: "nested2", Saver: saver}, 100, 30)
	if m3.mode != modeAnswer || !strings.Contains(m3.View(), "mid › deep › b1") {
		t.Fatalf("reopened: mode %v\n%s", m3.mode, m3.View())
	}
	_ = m2
}

// The checkpoint id the debugger shows is the command line's short form:
// engine.ResolveID (what every command uses) finds the checkpoint from it.
func TestModel_ShortID_ResolvesLikeTheCommandLine(t *testing.T) {
	ex, _ := graphs.Get("research")
	saver := engine.NewMemorySaver()
	g, err := ex.Build(engine.WithSaver(saver), engine.WithIDs(engine.NewTimeIDs(nil)))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "ids", Input: ex.Input, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	m = press(t, m, "s", "s")
	head := viewHeaderOf(m)
	short := shortID(m.view.CheckpointID)
	if !strings.Contains(head, "cp "+short) {
		t.Fatalf("header %q lacks %q", head, short)
	}
	hist, err := m.sess.History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range hist {
		ids = append(ids, s.ID)
	}
	got, err := engine.ResolveID(ids, short)
	if err != nil || got != m.view.CheckpointID {
		t.Fatalf("ResolveID(%q) = %q, %v; want %q", short, got, err, m.view.CheckpointID)
	}
}

// Keys typed while the answers are on their way do not go into the answer
// box: a step key waits for the resumed run, as in the main view.
func TestModel_Answer_KeysWhileResuming(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c")
	if m.mode != modeAnswer {
		t.Fatalf("mode %v", m.mode)
	}
	m = press(t, m, `{"action":"approve"}`)
	nm, cmd := m.Update(keys("enter")[0])
	m = nm.(Model)
	nm, _ = m.Update(keys("c")[0])
	m = nm.(Model)
	if v := m.answer.input().Value(); v != `{"action":"approve"}` || len(m.queued) != 1 {
		t.Fatalf("answer %q, queued %v", v, m.queued)
	}
	m = runCmd(t, m, cmd)
	if m.view.Status != engine.StatusDone || m.view.Values["final_report"] == nil {
		t.Fatalf("the queued c should run the resumed run to its end: %v %v", m.view.Status, m.err)
	}
}

// reopened runs the first invoke of an own scenario to where it stopped,
// then opens a new debugger on its thread, as a person does with a
// thread pulled from a server.
func reopened(t *testing.T, scenarioName string) Model {
	t.Helper()
	g, saver := scenarioGraph(t, scenarioName)
	ctx := context.Background()
	_, _ = g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("pulled")) // it fails: that is the point
	opts := Options{Thread: "pulled", Saver: saver}
	return newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
}

// A thread reopened at an interrupt shows the superstep that stopped
// there: the interrupted task, the one that failed beside it and the
// writes of the one that finished. The tasks pane was empty.
func TestModel_Open_InterruptedHeadShowsItsTasks(t *testing.T) {
	m := reopened(t, "interrupt_and_failure.json")
	m = press(t, m, "esc") // close the answer box
	screen := m.View()
	for _, want := range []string{"ask interrupted", `△ interrupt "ok?"`, "bad failed", "✗ boom", "fast done", `log ← ["fast"]`} {
		if !strings.Contains(screen, want) {
			t.Errorf("reopened interrupted head lacks %q", want)
		}
	}
	golden(t, "reopen-interrupted-100x30.golden", screen)
}

// A thread reopened at an interrupt keeps its finished tasks' saved writes
// aside as pending in the channels pane, as the session that stopped there
// does (suba finished beside subb's question); reopened, the pane showed
// only the checkpoint's value, with no mark that more was waiting.
func TestModel_Open_InterruptedHeadShowsPendingChannels(t *testing.T) {
	g, saver := scenarioGraph(t, "stream_sends_sub_interrupt.json")
	opts := Options{Thread: "s", Input: map[string]any{"log": []any{}}, Saver: saver}
	live := press(t, newTestModel(t, newEngineSession(g, opts), opts, 120, 30), "c", "esc")
	reopened := newTestModel(t, newEngineSession(g, opts), Options{Thread: "s", Saver: saver}, 120, 30)
	pendingLog := func(m Model) string {
		for _, r := range m.chans.rows {
			if r.cv.Name == "log" {
				return r.pendingTxt
			}
		}
		return ""
	}
	if got, want := pendingLog(reopened), pendingLog(live); !strings.Contains(want, `"slow:a", "after:a"`) || got != want {
		t.Errorf("reopened: log %q; the live session: %q", got, want)
	}
	// And so does time travel to it.
	back := press(t, live, "t", "enter")
	if m := press(t, back, "esc"); m.mode == modeMain {
		back = m
	}
	if got, want := pendingLog(back), pendingLog(live); got != want {
		t.Errorf("after time travel: log %q; the live session: %q", got, want)
	}
}

// The session that stops at an interrupt and the same thread reopened
// show the same pending channels, by the engine's one rule: a write of the
// value a channel holds changes it (its version goes up), as a reducer
// key's append does. Reopened, x's equal write was not shown as pending,
// while the live session showed it.
func TestModel_Interrupt_LiveAndReopenedShowTheSamePending(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := enginetest.WriteBesideInterrupt(t, saver)
	opts := Options{Thread: "e", Input: map[string]any{"x": "kept", "log": []any{"in"}}, Saver: saver}
	live := press(t, newTestModel(t, newEngineSession(g, opts), opts, 120, 30), "c", "esc")
	if live.view.Status != engine.StatusInterrupted {
		t.Fatalf("status %v", live.view.Status)
	}
	reopened := newTestModel(t, newEngineSession(g, opts), Options{Thread: "e", Saver: saver}, 120, 30)
	pending := func(m Model) map[string]string {
		out := map[string]string{}
		for _, r := range m.chans.rows {
			if r.pending != nil {
				out[r.cv.Name] = fmt.Sprintf("%s v%d", r.pendingTxt, r.pending.Version)
			}
		}
		return out
	}
	got, want := pending(reopened), pending(live)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reopened shows pending:\n%v\nthe live session:\n%v", got, want)
	}
	for _, k := range []string{"x", "log"} {
		if _, ok := want[k]; !ok {
			t.Errorf("the live session shows no pending %s: %v", k, want)
		}
	}
}

// A thread whose last superstep failed says so when reopened, with the
// task that failed and its error; stepping runs the superstep again. It
// showed "UPDATE done" and "nothing ran here yet".
func TestModel_Open_FailedHeadShowsTheFailure(t *testing.T) {
	m := reopened(t, "fail_while_sibling_works.json")
	screen := m.View()
	for _, want := range []string{"ERROR", "a failed", "✗ boom", "n runs it again"} {
		if !strings.Contains(screen, want) {
			t.Errorf("reopened failed head lacks %q", want)
		}
	}
	golden(t, "reopen-failed-100x30.golden", screen)
	m = press(t, m, "s") // a fails once only: the step goes through now
	if m.err != nil || m.view.Status != engine.StatusRunning || m.view.Values == nil {
		t.Fatalf("stepping the failed head again: status %v err %v", m.view.Status, m.err)
	}
	if got := m.view.Values["log"]; fmt.Sprint(got) != "[a b]" {
		t.Fatalf("log after the retried step: %v", got)
	}
}

// Time travel to an interrupted checkpoint shows the tasks that stopped
// there, not the step before's writers as "done (no writes)".
func TestModel_Checkout_InterruptedCheckpointShowsItsTasks(t *testing.T) {
	m := engineModel(t, "research", 100, 30)
	m = press(t, m, "c", "esc", "t", "enter", "esc")
	screen := m.View()
	if !strings.Contains(screen, "human_review interrupted") || strings.Contains(screen, "(no writes)") {
		t.Fatalf("time travel to the interrupt:\n%s", screen)
	}
}

// e on a task the recording saved an error for says so, beside how it
// runs now; it said "nothing was recorded for this task (it never ran
// here)".
func TestModel_Rerun_ShowsTheRecordedFailure(t *testing.T) {
	m := reopened(t, "fail_while_sibling_works.json")
	m = press(t, m, "t", "e") // the head plans a (failed) and b; a fails once only
	screen := m.View()
	for _, want := range []string{"Run alone · a", "✓ ran without the error the recording saved", `recorded: ✗ failed: node "a" failed at step 1: boom`} {
		if !strings.Contains(screen, want) {
			t.Errorf("rerun of the failed task lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "it never ran here") {
		t.Errorf("a task that failed there is said never to have run:\n%s", screen)
	}
}

// The checkpoint tree marks where a pulled thread failed, with the node
// that failed, as it marks where one asks a question: finding the failure
// among a thread's branches is the first step of a bad case.
func TestModel_Tree_MarksTheFailure(t *testing.T) {
	m := reopened(t, "fail_while_sibling_works.json")
	m = press(t, m, "t")
	screen := m.View()
	var row string
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "✗") {
			if row != "" {
				t.Fatalf("two rows marked failed:\n%s", screen)
			}
			row = line
		}
	}
	// At 80 columns the row gives up what runs next (a, b: the failure
	// names them) and the current mark its word, not the failure.
	if !strings.Contains(row, "✗ a failed, b cancelled ←") {
		t.Fatalf("the failed checkpoint's row is %q:\n%s", row, screen)
	}
	// b, cancelled when a failed, saved its cancellation as its error:
	// it is not a second failure. The row said "✗ a, b failed".
	if got := m.tree.describe(m.tree.nav.cur); !strings.HasSuffix(got, "✗ a failed, b cancelled") {
		t.Fatalf("the failed checkpoint's row reads %q, want a failed and b cancelled", got)
	}
}

// A thread reopened at a checkpoint whose next tasks saved their writes
// before the superstep was committed (a killed run, a replay stopped at a
// difference) says that they ran and that stepping reuses their writes;
// it said "nothing ran here yet". Stepping then reports them reused.
func TestModel_Open_CutOffHeadShowsSavedTasks(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	s, err := g.Start(ctx, ex.Input, engine.OnThread("cut"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Superstep(ctx); err != nil { // step 0: the input
		t.Fatal(err)
	}
	for s.Phase() != engine.PhaseExecuted {
		if err := s.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The process stops here: a's writes are saved, the step is not.
	opts := Options{Thread: "cut", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 200, 30)
	screen := m.View()
	if !strings.Contains(screen, "a saved writes before superstep 1 was cut off: n plans it and reuses them") || strings.Contains(screen, "nothing ran here yet") {
		t.Fatalf("reopened cut-off head:\n%s", screen)
	}
	m = press(t, m, "n", "n")
	if screen := m.View(); m.err != nil || !strings.Contains(screen, "a reused") {
		t.Fatalf("stepping the cut-off head (err %v):\n%s", m.err, screen)
	}
}

// A thread the caller refuses for another reason than its graph (its
// checkpoints are all in subgraph namespaces) keeps the status the caller
// gave it: "other graph" would send the user looking for the wrong graph.
func TestModel_Threads_RefusedStatusFromCaller(t *testing.T) {
	why := "has checkpoints only in subgraph namespaces: show and history read one with --ns NS"
	m := pickerOver(t, []ThreadSummary{{ID: "subonly", Status: "subgraphs only", Refused: why}}, 120, 30)
	v := m.View()
	if !strings.Contains(v, "subgraphs only") || strings.Contains(v, "other graph") || !strings.Contains(v, why) {
		t.Fatalf("the picker should show the caller's status and why:\n%s", v)
	}
}

// After a step fails, n runs it again from the checkpoint it planned
// from, as a resumed run does (LangGraph's invoke(null) after an error):
// the failed task runs again, the tasks that finished keep their saved
// writes. The screen was a dead end ("fork or replay a checkpoint to go
// on"): no step key worked until the user found the latest checkpoint in
// the tree and made it current.
func TestModel_Failed_StepRunsTheFailedTasksAgain(t *testing.T) {
	var wCalls, vCalls atomic.Int32
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"plan"}), nil }).
		AddNode("w", func(context.Context, any) (any, error) {
			wCalls.Add(1)
			return engine.Pairs("log", []any{"w"}), nil
		}).
		AddNode("v", func(context.Context, any) (any, error) {
			if vCalls.Add(1) == 1 {
				return nil, errors.New("upstream 503")
			}
			return engine.Pairs("log", []any{"v"}), nil
		}).
		AddEdge(engine.Start, "plan").
		AddConditionalEdges("plan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "w", Arg: map[string]any{}}, engine.Send{Node: "v", Arg: map[string]any{}}}, nil
		}, "w", "v").
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Input: map[string]any{"log": []any{}}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusFailed || !strings.Contains(m.View(), "n runs the failed step again") {
		t.Fatalf("status %v, screen:\n%s", m.view.Status, m.View())
	}
	failed := m.view.CheckpointID
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone || m.err != nil {
		t.Fatalf("after c: status %v err %v note %q", m.view.Status, m.err, m.note)
	}
	if wCalls.Load() != 1 || vCalls.Load() != 2 {
		t.Fatalf("w ran %d times, v %d: want w's saved writes kept and v run again", wCalls.Load(), vCalls.Load())
	}
	got := fmt.Sprint(m.view.Values["log"])
	if !strings.Contains(got, "w") || !strings.Contains(got, "v") {
		t.Fatalf("log %s, want both Sends' writes", got)
	}
	// Time travel to that checkpoint, now a past one, says what stepping
	// from it does: a fork runs every task again, w included.
	m = press(t, m, "t")
	for m.tree.selected().Config.CheckpointID != failed {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if !strings.Contains(m.note, "step 2 failed") || !strings.Contains(m.note, "stepping forks there and runs every task again") {
		t.Fatalf("time travel to the failed checkpoint: note %q", m.note)
	}
	m = press(t, m, "s")
	if wCalls.Load() != 2 {
		t.Fatalf("the fork ran w %d times in all, want it run again (2)", wCalls.Load())
	}

	// The same when the failed step ran from a checkpoint update_state
	// wrote (a run addressed at it forks and runs every task again; the
	// run that goes on after an error is not addressed at any).
	wCalls.Store(0)
	vCalls.Store(0)
	if _, err := g.UpdateState(context.Background(), engine.Config{ThreadID: "u"}, map[string]any{"log": []any{"edited"}}, "plan"); err != nil {
		t.Fatal(err)
	}
	opts = Options{Thread: "u", Saver: saver}
	m = newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusFailed || m.view.Source != engine.SourceUpdate {
		t.Fatalf("from the update: status %v source %q err %v", m.view.Status, m.view.Source, m.err)
	}
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone || wCalls.Load() != 1 || vCalls.Load() != 2 {
		t.Fatalf("after c from the update: status %v err %v, w ran %d times, v %d", m.view.Status, m.err, wCalls.Load(), vCalls.Load())
	}
}

// At a checkpoint written by a Send's task, the engine infers the node
// that sent it (the last to see a new channel version), not the task that
// wrote last; the form said "the node that wrote last", so a user who
// edited the Send's results expected the step after it and got the fan-out
// again.
func TestModel_Fork_SaysHowTheNodeIsInferred(t *testing.T) {
	saver := engine.NewMemorySaver()
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"plan"}), nil }).
		AddNode("w", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"w"}), nil }).
		AddEdge(engine.Start, "plan").
		AddConditionalEdges("plan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "w", Arg: map[string]any{}}}, nil
		}, "w").
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 200, 40)
	m = press(t, m, "f") // at the head, written by w
	v := m.View()
	if m.fork.inferred != "plan" || strings.Contains(v, "wrote last") || !strings.Contains(v, "plan (inferred: it saw the newest channel version") {
		t.Fatalf("inferred %q, form:\n%s", m.fork.inferred, v)
	}
}

// Making the thread's latest checkpoint current in the tree and stepping
// goes on from it (a run addressed at the head resumes it): nothing is
// forked. The note said "stepping … forks there", as for a past
// checkpoint, so a user wanting to go on looked for another way.
func TestModel_Tree_CheckoutOfTheHeadSaysItGoesOn(t *testing.T) {
	m := engineModel(t, "linear", 160, 40)
	m = press(t, m, "s", "s", "t") // a thread paused between supersteps
	head := m.tree.snaps[0].ID
	m = press(t, m, "enter")
	if m.view.CheckpointID != head || !strings.Contains(m.note, "the thread's latest, is current: stepping (n s c) goes on from it") || strings.Contains(m.note, "forks") {
		t.Fatalf("checkout of the head %s: at %s, note %q", shortID(head), shortID(m.view.CheckpointID), m.note)
	}
	m = press(t, m, "s")
	if m.err != nil || m.view.Source != engine.SourceLoop || m.view.ParentID != head {
		t.Fatalf("stepping on from the head: source %q parent %s err %v", m.view.Source, shortID(m.view.ParentID), m.err)
	}
	// A past checkpoint still says what stepping from it does.
	m = press(t, m, "t", "down", "enter")
	if !strings.Contains(m.note, "which forks there") {
		t.Fatalf("checkout of a past checkpoint: note %q", m.note)
	}
	// So does a latest checkpoint that update_state wrote: a run from it
	// forks (resumeAtHead excludes updates and forks).
	ctx := context.Background()
	if _, err := m.sess.UpdateState(ctx, m.view.CheckpointID, map[string]any{"total": 7.0}, ""); err != nil {
		t.Fatal(err)
	}
	m = press(t, m, "t")
	if m.tree.snaps[0].Source != engine.SourceUpdate {
		t.Fatalf("head source %q", m.tree.snaps[0].Source)
	}
	m = press(t, m, "g", "enter") // g: the newest
	if m.view.CheckpointID != m.tree.snaps[0].ID || !strings.Contains(m.note, "which forks there") {
		t.Fatalf("checkout of an update at the head: at %s, note %q", shortID(m.view.CheckpointID), m.note)
	}
}

// The versions_seen pane keeps its rows in view when they fit: its scroll
// offset is kept for the worst-case explanation below it, so with a short
// explanation the pane hid its first rows (essay at 80×24: __start__ and
// plan) above blank lines, with no mark that anything was hidden.
func TestModel_Seen_NoRowsHiddenAboveBlankLines(t *testing.T) {
	m := engineModel(t, "essay", 80, 24)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v err %v", m.view.Status, m.err)
	}
	v := m.View()
	for _, want := range []string{"__start__ __start__", "plan      branch:to:plan", "revise"} {
		if !strings.Contains(v, want) {
			t.Fatalf("versions_seen lacks %q:\n%s", want, v)
		}
	}
}

// The caller's notice (the command line's: the thread named was not in
// the database) is the first thing the status line says, once.
func TestModel_Open_ShowsTheCallersNoticeOnce(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	opts := Options{Thread: "lineer", Input: ex.Input, Saver: saver, Notice: `thread "lineer" was not in the database: this is a new run on it`}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	if !strings.Contains(m.View(), opts.Notice) {
		t.Fatalf("the first screen lacks the notice:\n%s", m.View())
	}
	m = press(t, m, "n")
	if strings.Contains(m.View(), opts.Notice) {
		t.Fatalf("the notice stays after a step:\n%s", m.View())
	}
}

// A functional entrypoint's channels are all internal: the channels pane
// said "no channel matches" with no filter typed, as if one hid them.
func TestModel_Channels_AllInternalSaysSo(t *testing.T) {
	g, saver := scenarioGraph(t, "func_tasks_basic.json")
	opts := Options{Thread: "f", Input: map[string]any{}, Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	if v := m.View(); !strings.Contains(v, "no state channels: i shows the internal ones") || strings.Contains(v, "no channel matches") {
		t.Fatalf("channels pane:\n%s", v)
	}
	if v := press(t, m, "i").View(); strings.Contains(v, "no state channels") {
		t.Fatalf("after i:\n%s", v)
	}
}

// A run stopped by the recursion limit (no task failed) goes on with n, as
// a resumed run with a new budget does, and the screen says that rather
// than "runs the failed step again".
func TestModel_Failed_RecursionLimitGoesOn(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := enginetest.AppendLoop(t, saver, 20, nil)
	opts := Options{Thread: "t", Input: map[string]any{"n": 0.0, "items": []any{}}, Saver: saver, RecursionLimit: 4}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusFailed || !strings.Contains(m.View(), "n goes on from its last checkpoint") {
		t.Fatalf("status %v, screen:\n%s", m.view.Status, m.View())
	}
	before := m.view.Values["n"].(float64)
	m = press(t, m, "c")
	if n := m.view.Values["n"].(float64); n <= before {
		t.Fatalf("c after the limit: n %v, was %v (status %v err %v)", n, before, m.view.Status, m.err)
	}
}

// The picker's word on a thread it cannot open is wrapped, not cut: the
// command line's ends in the command that opens the thread (a scenario
// path and --db run past 80 columns). The list keeps its cursor in view
// and the frame its size with the longer note.
func TestModel_Threads_RefusalWrapsWhole(t *testing.T) {
	why := "recorded with approve: superstep tui /home/someone/projects/agents/flows/approve.json --db /home/someone/data/bugs.db --thread t19 opens it\nthe graph's topology differs …"
	var list []ThreadSummary
	for i := range 20 {
		list = append(list, ThreadSummary{ID: fmt.Sprintf("t%d", i), Refused: why})
	}
	m := press(t, pickerOver(t, list, 80, 24), "G")
	v := m.View()
	for _, want := range []string{"/home/someone/data/bugs.db", "--thread t19 opens it", "t19 "} {
		if !strings.Contains(v, want) {
			t.Fatalf("picker lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "topology differs") || strings.Contains(v, "opens it …") {
		t.Fatalf("only the refusal's first line belongs on screen:\n%s", v)
	}
	checkFrame(t, m)
}

// pickerOver opens the linear graph at w×h with a thread picker (T) that
// lists list, as a caller's Options.Threads gives it.
func pickerOver(t *testing.T, list []ThreadSummary, w, h int) Model {
	t.Helper()
	saver := engine.NewMemorySaver()
	e, _ := graphs.Get("linear")
	linear, err := e.Build(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "l", Saver: saver, Threads: func(context.Context) ([]ThreadSummary, error) { return list, nil }}
	return press(t, newTestModel(t, newEngineSession(linear, opts), opts, w, h), "T")
}
