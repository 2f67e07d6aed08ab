package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// replayFromInput is replayFromInput guarded: R on thread rec's input
// checkpoint, with g compiled on the guard.
func (guard *uiGuard) replayFromInput(t *testing.T, g *engine.Graph) Model {
	t.Helper()
	opts := Options{Thread: "rec", Saver: guard}
	m := guard.model(t, newEngineSession(g, opts), opts, 120, 40)
	if m.mode == modeAnswer {
		m = guard.press(t, m, "esc")
	}
	m = guard.press(t, m, "t")
	for m.tree.selected().Metadata.Source != engine.SourceInput {
		m = guard.press(t, m, "down")
	}
	m = guard.press(t, m, "R")
	if m.replay == nil || m.mode != modeMain || m.err != nil {
		t.Fatalf("R: replay %v mode %v err %v", m.replay, m.mode, m.err)
	}
	return m
}

// TestReplay_JudgesWithoutReadingInUpdate: a replay's steps read the
// recording — the recorded checkpoint each step stands for, the answers
// its tasks had — while the step's message was taken (judgeReplay) and
// when the answer box opened, so against PostgreSQL each replay step
// waited on round trips in Update, and a frozen server froze the
// debugger. The step's Cmd reads them now: not once is the store asked
// while a key is handled or the screen drawn, and the replay still
// judges each task and offers each question its recorded answer.
func TestReplay_JudgesWithoutReadingInUpdate(t *testing.T) {
	t.Run("writes differ", func(t *testing.T) {
		guard := newUIGuard(t)
		if _, err := chainWith(t, guard, 1, &engine.CounterIDs{}).Invoke(context.Background(), map[string]any{"total": 5.0}, engine.OnThread("rec")); err != nil {
			t.Fatal(err)
		}
		m := guard.replayFromInput(t, chain(t, guard, 100))
		m = guard.press(t, m, "c")
		v := m.View()
		for _, want := range []string{"replay DIVERGED at recorded step 2, b: writes differ on total", "≠ recorded", "REPLAY diverged"} {
			if !strings.Contains(v, want) {
				t.Fatalf("screen lacks %q:\n%s", want, v)
			}
		}
		if m.replay.compared != 3 {
			t.Fatalf("compared %d steps, want 3", m.replay.compared)
		}
	})
	t.Run("recorded answers", func(t *testing.T) {
		guard := newUIGuard(t)
		g := askTwice(t, guard)
		ctx := context.Background()
		res, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("rec"))
		if err != nil || len(res.Interrupts) != 2 {
			t.Fatalf("recording: %v, %d interrupts", err, len(res.Interrupts))
		}
		rm, want := engine.ResumeMap{}, map[string]string{}
		for _, in := range res.Interrupts {
			a := "answer to " + fmt.Sprint(in.Value)
			rm[in.ID], want[fmt.Sprint(in.Value)] = a, `"`+a+`"`
		}
		if _, err := g.Invoke(ctx, engine.Command{Resume: rm}, engine.OnThread("rec")); err != nil {
			t.Fatal(err)
		}
		m := guard.replayFromInput(t, g)
		m = guard.press(t, m, "c")
		// esc and r reopen the box on what the step's Cmd read.
		for _, again := range []bool{false, true} {
			if again {
				m = guard.press(t, m, "esc", "r")
			}
			if m.mode != modeAnswer || len(m.answer.inputs) != 2 {
				t.Fatalf("reopened %v: mode %v, %d answer lines, note %q", again, m.mode, len(m.answer.inputs), m.note)
			}
			for i, in := range m.answer.ints {
				if got := m.answer.inputs[i].Value(); got != want[fmt.Sprint(in.Value)] {
					t.Errorf("reopened %v: line %d (%v): %q, want %q", again, i, in.Value, got, want[fmt.Sprint(in.Value)])
				}
			}
		}
		m = guard.press(t, m, "enter", "c")
		if m.replay == nil || m.replay.diverged != "" || !strings.Contains(m.note, "replay matches the recording") {
			t.Fatalf("after the recorded answers: replay %+v note %q", m.replay, m.note)
		}
	})
	t.Run("Task calls that asked", func(t *testing.T) {
		guard := newUIGuard(t)
		ctx := context.Background()
		g := askingCalls(t, guard, &engine.CounterIDs{})
		if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("rec")); err != nil {
			t.Fatal(err)
		}
		for _, a := range []any{true, false} {
			if _, err := g.Invoke(ctx, engine.Command{Resume: a}, engine.OnThread("rec")); err != nil {
				t.Fatal(err)
			}
		}
		m := guard.replayFromInput(t, askingCalls(t, guard, engine.NewTimeIDs(nil)))
		for _, want := range []string{"true", "false"} { // the second answer counts the first
			m = guard.press(t, m, "c")
			if m.mode != modeAnswer || len(m.answer.inputs) != 1 || m.answer.inputs[0].Value() != want {
				t.Fatalf("mode %v, answers %v, want %q; note %q", m.mode, m.answer.inputs, want, m.note)
			}
			m = guard.press(t, m, "enter")
		}
		m = guard.press(t, m, "c")
		if m.replay.diverged != "" || !strings.Contains(m.note, "replay matches the recording") {
			t.Fatalf("diverged %q note %q", m.replay.diverged, m.note)
		}
	})
	t.Run("a failure the recording went on past", func(t *testing.T) {
		guard, ids := newUIGuard(t), &engine.CounterIDs{}
		if _, err := quiet(t, guard, true, ids).Invoke(context.Background(), map[string]any{"total": 0.0}, engine.OnThread("rec")); err == nil {
			t.Fatal("the recording should fail first")
		}
		if _, err := quiet(t, guard, false, ids).Invoke(context.Background(), nil, engine.OnThread("rec")); err != nil {
			t.Fatal(err)
		}
		m := guard.replayFromInput(t, flakyB(t, guard, 1))
		m = guard.press(t, m, "c")
		if m.replay.diverged != "" || m.view.Status != engine.StatusDone || !strings.Contains(m.note, "replay matches the recording: 3 supersteps compared") {
			t.Fatalf("diverged %q status %v note %q", m.replay.diverged, m.view.Status, m.note)
		}
	})
}

// TestReplay_QuitCancelsRecordingRead: the recording is read by the
// step's Cmd, under the context quitting cancels: while a slow server
// holds that read the debugger still takes keys, and ctrl+c ends the read
// rather than leave it to a server that may never answer.
func TestReplay_QuitCancelsRecordingRead(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 1), saver)
	m = press(t, m, "n") // Plan: nothing to compare yet
	r := newSlowReader(m.replay.read.(savedThread))
	m.replay.read = r
	r.holdNext()
	m, cmd := update(m, keys("n")[0]) // Execute, then its comparison
	answers := inBackground(t, cmd)
	select {
	case <-r.entered: // the step ran; the Cmd reads the recording
	case msg := <-answers:
		t.Fatalf("the step's Cmd ended without reading the recording: %T", msg)
	}
	m, _ = update(m, keys("?")[0])
	if m.mode != modeHelp {
		t.Fatalf("a key while the recording is read: mode %v", m.mode)
	}
	_, cmd = update(m, keys("ctrl+c")[0])
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("ctrl+c did not quit")
	}
	msg := (<-answers).(opDoneMsg)
	if got := msg.replayRead; got != nil {
		t.Fatalf("the read in flight brought %+v, want nothing: it was cancelled", got)
	}
	// What a cancelled read brings is no divergence of the replay: the
	// recorded checkpoint is not unreadable, the step was stopped.
	m, _ = update(m, msg)
	if m.replay.diverged != "" {
		t.Fatalf("a cancelled read made the replay diverge: %s", m.replay.diverged)
	}
}
