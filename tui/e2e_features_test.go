package tui

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/superstep/superstep/engine"
)

// Each feature of the debugger driven through a real bubbletea program
// (teatest): keys and mouse go in as the terminal would send them, the
// screen is read back from what the program writes.

// program starts m in a real bubbletea program at w×h.
func program(t *testing.T, s session, opts Options, w, h int) *teatest.TestModel {
	t.Helper()
	m := newModel(context.Background(), s, opts)
	m.static = true
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
}

// typeKeys sends keys by the names press uses.
func typeKeys(tm *teatest.TestModel, ks ...string) {
	for _, k := range keys(ks...) {
		tm.Send(k)
	}
}

// waitMatch waits until the program's output matches re.
func waitMatch(t *testing.T, tm *teatest.TestModel, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return rx.Match(b) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

// finish quits and returns the final model.
func finish(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
}

// 7. Live output: a hanging task's emitted values and elapsed time appear
// while the step runs, and X cancels it.
func TestE2E_LiveOutputAndCancel(t *testing.T) {
	g, saver := hanging(t)
	opts := Options{Thread: "live", Input: map[string]any{"x": 0.0}, Saver: saver}
	m := newModel(context.Background(), newEngineSession(g, opts), opts)
	// Not static: the spinner's ticks are what redraw the screen while a
	// step runs, as in a terminal.
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "s", "n")
	waitFor(t, tm, "PLAN done")
	typeKeys(tm, "n")
	waitFor(t, tm, "{token: 5}")
	waitMatch(t, tm, `hang  running  \d+(\.\d)?m?s`)
	typeKeys(tm, "X")
	waitFor(t, tm, "context canceled")
	fm := finish(t, tm)
	if fm.view.Status != engine.StatusFailed {
		t.Fatalf("status %v", fm.view.Status)
	}
}

// 10. Mouse: a click focuses the channels pane and selects a row (enter
// then inspects it); the wheel scrolls the tree.
func TestE2E_Mouse(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "e2e", Input: ex.Input, Saver: saver}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "s", "s", "s")
	waitFor(t, tm, "step 2 → 3")
	// Left is 54 wide at 120 columns; the third channel row is findings.
	tm.Send(click(54+5, bodyTop+1+2))
	typeKeys(tm, "enter")
	waitFor(t, tm, "Inspect · findings")
	typeKeys(tm, "esc", "t")
	waitFor(t, tm, "Checkpoints · e2e")
	tm.Send(wheel(5, bodyTop+3, 1))
	fm := finish(t, tm)
	if fm.mode != modeTree || fm.tree.nav.cur != 3 {
		t.Fatalf("mode %v tree cursor %d (the wheel moves 3)", fm.mode, fm.tree.nav.cur)
	}
}

// 9. Run settings: interrupt before a node, set with S, stops the run
// there with the interrupt recorded.
func TestE2E_RunSettings(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "e2e", Input: ex.Input, Saver: saver}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "S")
	waitFor(t, tm, "Run settings")
	tm.Type("investigate")
	typeKeys(tm, "enter", "c")
	waitFor(t, tm, "engine breakpoint")
	fm := finish(t, tm)
	if fm.view.Status != engine.StatusInterrupted || fm.view.Tasks[0].Name != "investigate" {
		t.Fatalf("status %v tasks %v", fm.view.Status, fm.view.Tasks)
	}
}

// 6. Conversations: the messages channel reads as a conversation in the
// inspector.
func TestE2E_Conversation(t *testing.T) {
	g, saver := chat(t)
	opts := Options{Thread: "chat", Input: map[string]any{"messages": []any{map[string]any{"id": "m1", "role": "user", "content": "Why is the sky blue?"}}}, Saver: saver}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "c")
	waitFor(t, tm, "DONE")
	typeKeys(tm, "tab", "enter")
	waitFor(t, tm, "answers call_1")
	fm := finish(t, tm)
	if fm.mode != modeInspect || !fm.insp.convo {
		t.Fatalf("mode %v convo %v", fm.mode, fm.insp.convo)
	}
}

// 3. Edit writes at the Execute pause: the checkpoint says so.
func TestE2E_EditWrites(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	opts := Options{Thread: "e2e", Input: ex.Input, Saver: saver}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "s", "n", "n")
	waitFor(t, tm, "EXECUTE done")
	typeKeys(tm, "tab", "tab", "tab", "a")
	waitFor(t, tm, "Edit writes")
	typeKeys(tm, "ctrl+s")
	waitFor(t, tm, "writes edited")
	typeKeys(tm, "n")
	waitFor(t, tm, "UPDATE checkpoint")
	fm := finish(t, tm)
	if fm.view.Source != engine.SourceUpdate {
		t.Fatalf("source %q", fm.view.Source)
	}
}

// R replays from a recorded checkpoint, e runs one task alone.
func TestE2E_ReplayAndRerun(t *testing.T) {
	saver := recorded(t)
	opts := Options{Thread: "rec", Saver: saver}
	tm := program(t, newEngineSession(chain(t, saver, 100), opts), opts, 120, 40)
	waitFor(t, tm, "opened thread rec")
	typeKeys(tm, "t")
	waitFor(t, tm, "Checkpoints · rec")
	typeKeys(tm, "down", "e") // the checkpoint before b's step
	waitFor(t, tm, "Run alone · b")
	typeKeys(tm, "esc", "down", "R")
	waitFor(t, tm, "REPLAY")
	typeKeys(tm, "c")
	waitFor(t, tm, "replay DIVERGED")
	fm := finish(t, tm)
	if fm.replay == nil || fm.replay.diverged == "" {
		t.Fatalf("replay %+v", fm.replay)
	}
}

// 5. Into a subgraph: the breadcrumb, and the interrupt answered where it
// was raised.
func TestE2E_SubgraphAnswerWhereRaised(t *testing.T) {
	g, saver := nestedGraph(t)
	opts := Options{Thread: "nested", Input: map[string]any{"out": []any{}}, Saver: saver, GraphName: "nested"}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "c")
	waitFor(t, tm, "INTERRUPTED")
	typeKeys(tm, "esc", "tab", "tab", "tab")
	typeKeys(tm, "enter")
	waitFor(t, tm, "nested › mid  read only")
	typeKeys(tm, "tab", "pgdown", "up", "enter")
	waitFor(t, tm, "nested › mid › deep")
	typeKeys(tm, "r")
	waitFor(t, tm, "Interrupts raised here")
	tm.Type("ok")
	typeKeys(tm, "enter")
	waitFor(t, tm, "answered")
	typeKeys(tm, "c")
	waitFor(t, tm, "DONE")
	fm := finish(t, tm)
	if !strings.Contains(strings.Join(toStrings(fm.view.Values["out"]), ","), "b1:ok") {
		t.Fatalf("out %v", fm.view.Values["out"])
	}
}

// 8. Several interrupts: one answer box each, one key resumes with all.
func TestE2E_SeveralInterrupts(t *testing.T) {
	saver := engine.NewMemorySaver()
	ask := func(name string) engine.NodeFunc {
		return func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "ok for "+name+"?")
			if err != nil {
				return nil, err
			}
			return engine.Pairs("answers", []any{name + "=" + v.(string)}), nil
		}
	}
	g, err := engine.NewStateGraph(engine.AppendKey("answers")).
		AddNode("left", ask("left")).AddNode("right", ask("right")).
		AddEdge(engine.Start, "left").AddEdge(engine.Start, "right").
		Compile(engine.WithSaver(saver), engine.WithIDs(&engine.CounterIDs{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "two", Input: map[string]any{"answers": []any{}}, Saver: saver}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "c")
	waitFor(t, tm, "2 interrupts are waiting")
	tm.Type("yes")
	typeKeys(tm, "down")
	tm.Type("no")
	typeKeys(tm, "ctrl+s")
	waitFor(t, tm, "answered")
	typeKeys(tm, "c")
	waitFor(t, tm, "DONE")
	fm := finish(t, tm)
	got := strings.Join(toStrings(fm.view.Values["answers"]), ",")
	if got != "left=yes,right=no" {
		t.Fatalf("answers %q", got)
	}
}

// 1, 2, 4: watches and a watchpoint, kept across the breakpoint list.
func TestE2E_WatchesAndList(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "e2e", Input: ex.Input, Saver: saver, Compile: scenarioCompile}
	tm := program(t, newEngineSession(g, opts), opts, 120, 40)
	waitFor(t, tm, "INPUT checkpoint")
	typeKeys(tm, "W")
	tm.Type("len(state.findings)")
	typeKeys(tm, "enter", "E", "s", "s", "s")
	waitFor(t, tm, "*len(state.findings) = 3")
	typeKeys(tm, "L")
	waitFor(t, tm, "when a task fails")
	fm := finish(t, tm)
	if len(fm.watches) != 1 || !fm.bp.onError {
		t.Fatalf("watches %d onError %v", len(fm.watches), fm.bp.onError)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
