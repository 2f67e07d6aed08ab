package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// askingCalls is an entrypoint whose two Task calls ask in turn (LangGraph.js
// func.test.ts "task with interrupts"): each answer resumes the entrypoint,
// which reuses the finished call's saved result.
func askingCalls(t testing.TB, saver engine.Saver, ids engine.IDSource) *engine.Graph {
	t.Helper()
	add := func(ctx context.Context, who string) (string, error) {
		ok, err := engine.Interrupt(ctx, "add "+who+"?")
		if err != nil {
			return "", err
		}
		if ok == true {
			return "Added " + who, nil
		}
		return "not " + who, nil
	}
	g, err := engine.NewEntrypoint("program", func(ctx context.Context, _ any) (any, error) {
		var out []any
		for _, who := range []string{"James", "Will"} {
			r, err := engine.Task(ctx, "add_participant", add, who).Result()
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return map[string]any{"out": out}, nil
	}, engine.WithSaver(saver), engine.WithIDs(ids))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// R on a functional API thread whose Task calls asked offers each call the
// answer the recorded call that asked the same question saved, and
// matches: the calls were judged as tasks the recording never planned
// ("the recording has no such task") and were offered no answer.
func TestModel_Replay_FunctionalCallsThatAsked(t *testing.T) {
	saver := engine.NewMemorySaver()
	ctx := context.Background()
	g := askingCalls(t, saver, &engine.CounterIDs{})
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	for _, a := range []any{true, false} {
		if _, err := g.Invoke(ctx, engine.Command{Resume: a}, engine.OnThread("rec")); err != nil {
			t.Fatal(err)
		}
	}
	m := replayFromInput(t, askingCalls(t, saver, engine.NewTimeIDs(nil)), saver)
	for _, want := range []string{"true", "false"} {
		m = press(t, m, "c")
		if m.mode != modeAnswer || len(m.answer.inputs) != 1 {
			t.Fatalf("mode %v, %d answer lines, note %q diverged %q", m.mode, len(m.answer.inputs), m.note, m.replay.diverged)
		}
		if got := m.answer.inputs[0].Value(); got != want {
			t.Fatalf("answer offered %q, want %q", got, want)
		}
		m = press(t, m, "enter")
	}
	m = press(t, m, "c")
	if m.replay == nil || m.replay.diverged != "" || !strings.Contains(m.note, "replay matches the recording") {
		t.Fatalf("after the recorded answers: diverged %q note %q\n%s", m.replay.diverged, m.note, m.View())
	}
}

// failingCall is an entrypoint calling two tasks at once: asker interrupts
// at once, flaky fails 100 ms later while *fail is set (func_interrupt_then_failure).
func failingCall(t testing.TB, saver engine.Saver, ids engine.IDSource, fail *atomic.Bool) *engine.Graph {
	t.Helper()
	flaky := func(ctx context.Context, n float64) (string, error) {
		time.Sleep(100 * time.Millisecond)
		if fail.Load() {
			return "", errors.New("boom")
		}
		return fmt.Sprint("flaky:", n), nil
	}
	asker := func(ctx context.Context, n float64) (string, error) {
		a, err := engine.Interrupt(ctx, fmt.Sprint("ask ", n))
		if err != nil {
			return "", err
		}
		return fmt.Sprint("asker:", a), nil
	}
	g, err := engine.NewEntrypoint("main", func(ctx context.Context, in any) (any, error) {
		n, _ := in.(map[string]any)["n"].(float64)
		f := engine.Task(ctx, "flaky", flaky, n)
		a := engine.Task(ctx, "asker", asker, n)
		// As Promise.all: the interrupt, which comes first, stops the
		// entrypoint; flaky goes on and fails the run.
		ar, err := a.Result()
		if err != nil {
			return nil, err
		}
		fr, err := f.Result()
		if err != nil {
			return nil, err
		}
		return map[string]any{"out": []any{fr, ar}}, nil
	}, engine.WithSaver(saver), engine.WithIDs(ids))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// R on a functional API thread whose Task call failed beside its caller's
// interrupt (then, continued, ran and was answered: the scenario
// func_interrupt_then_failure): the replay's call fails again, as the
// recording's did, so the replay fails as the recording did; the call was
// judged a task the recording never ran. With the call fixed, the replay
// is offered the recorded answer and matches the run that finished.
func TestModel_Replay_FunctionalCallFailed(t *testing.T) {
	saver := engine.NewMemorySaver()
	ctx := context.Background()
	var fail atomic.Bool
	fail.Store(true)
	g := failingCall(t, saver, &engine.CounterIDs{}, &fail)
	if _, err := g.Invoke(ctx, map[string]any{"n": 1.0}, engine.OnThread("rec")); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("the recording should fail with boom: %v", err)
	}
	fail.Store(false)
	if _, err := g.Invoke(ctx, nil, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	if res, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread("rec")); err != nil || res.Status != engine.StatusDone {
		t.Fatalf("answering: %v %v", res, err)
	}
	fail.Store(true)
	m := replayFromInput(t, failingCall(t, saver, engine.NewTimeIDs(nil), &fail), saver)
	m = press(t, m, "c")
	if m.replay == nil || m.replay.diverged != "" || !strings.Contains(m.note, "the replay fails as the recording did") {
		t.Fatalf("diverged %q note %q\n%s", m.replay.diverged, m.note, m.View())
	}
	fail.Store(false)
	m = replayFromInput(t, failingCall(t, saver, engine.NewTimeIDs(nil), &fail), saver)
	m = press(t, m, "c")
	if m.mode != modeAnswer || len(m.answer.inputs) != 1 || m.answer.inputs[0].Value() != `"yes"` {
		t.Fatalf("fixed code: mode %v note %q diverged %q", m.mode, m.note, m.replay.diverged)
	}
	m = press(t, m, "enter", "c")
	if m.replay.diverged != "" || !strings.Contains(m.note, "replay matches the recording") {
		t.Fatalf("fixed code: diverged %q note %q\n%s", m.replay.diverged, m.note, m.View())
	}
}

// A recording that ended at the call's failure, answered and failing again
// (its only checkpoint, where the failure is then saved as the caller's
// error too): R runs it again from a copy and fails as the recording did;
// it said the caller "ran" where the recording failed.
func TestModel_Replay_FunctionalCallFailedAtTheEnd(t *testing.T) {
	saver := engine.NewMemorySaver()
	var fail atomic.Bool
	fail.Store(true)
	g := failingCall(t, saver, &engine.CounterIDs{}, &fail)
	if _, err := g.Invoke(context.Background(), map[string]any{"n": 1.0}, engine.OnThread("rec")); err == nil {
		t.Fatal("the recording should fail")
	}
	if _, err := g.Invoke(context.Background(), engine.Command{Resume: "yes"}, engine.OnThread("rec")); err == nil {
		t.Fatal("the answered recording should fail again")
	}
	m := replayFromInput(t, failingCall(t, saver, engine.NewTimeIDs(nil), &fail), saver)
	m = press(t, m, "c")
	if m.replay == nil || m.replay.diverged != "" || !strings.Contains(m.note, "the replay fails as the recording did") {
		t.Fatalf("diverged %q note %q\n%s", m.replay.diverged, m.note, m.View())
	}
}

// R on a thread whose only checkpoint waits (an entrypoint whose second
// call asked) runs that checkpoint's superstep again whole: a run
// addressed at the latest checkpoint resumes it, so the replay reused the
// finished call's saved result instead of calling it (the code under
// replay never ran) and added its writes to the recording's checkpoint.
func TestModel_Replay_FromTheLatestCheckpointRunsAfresh(t *testing.T) {
	saver := engine.NewMemorySaver()
	ctx := context.Background()
	var greets atomic.Int32
	build := func(ids engine.IDSource) *engine.Graph {
		g, err := engine.NewEntrypoint("program", func(ctx context.Context, _ any) (any, error) {
			hello, err := engine.Task(ctx, "greet", func(context.Context, string) (string, error) {
				greets.Add(1)
				return "hello", nil
			}, "James").Result()
			if err != nil {
				return nil, err
			}
			ok, err := engine.Task(ctx, "ask", func(ctx context.Context, q string) (any, error) { return engine.Interrupt(ctx, q) }, "add James?").Result()
			if err != nil {
				return nil, err
			}
			return map[string]any{"out": []any{hello, ok}}, nil
		}, engine.WithSaver(saver), engine.WithIDs(ids))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := build(&engine.CounterIDs{})
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("rec")); err != nil {
		t.Fatal(err)
	}
	rec, err := g.GetState(ctx, engine.Config{ThreadID: "rec"})
	if err != nil || greets.Load() != 1 {
		t.Fatalf("recording: %v, greet ran %d times", err, greets.Load())
	}
	m := replayFromInput(t, build(engine.NewTimeIDs(nil)), saver)
	m = press(t, m, "c")
	if greets.Load() != 2 {
		t.Fatalf("the replay ran greet %d times in all, want 2 (its own run): it reused the recording's result", greets.Load())
	}
	if m.view.CheckpointID == rec.Config.CheckpointID {
		t.Fatalf("the replay runs on the recorded checkpoint %s", rec.Config.CheckpointID)
	}
	after, err := g.GetState(ctx, engine.Config{ThreadID: "rec", CheckpointID: rec.Config.CheckpointID})
	if err != nil || len(after.PendingWrites) != len(rec.PendingWrites) {
		t.Fatalf("the recorded checkpoint's writes: %d, were %d (%v)", len(after.PendingWrites), len(rec.PendingWrites), err)
	}
	if m.replay.diverged != "" {
		t.Fatalf("diverged %q", m.replay.diverged)
	}
}
