package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// An answer typed at a question another process has answered meanwhile
// (a PostgreSQL database has many writers) is refused, not sent to the
// thread's new head: the screen said "answered: n steps on", then "the
// run is done", and the answer had gone nowhere.
func TestModel_Answer_RefusedWhenAnotherProcessMovedTheThread(t *testing.T) {
	g, saver := parallelInterrupt(t)
	ctx := context.Background()
	if _, err := g.Invoke(ctx, map[string]any{"x": "input"}, engine.OnThread("p")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "p", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	if m.view.Status != engine.StatusInterrupted {
		t.Fatalf("opened at %v, want the question", m.view.Status)
	}
	// Another process answers and runs the thread to its end.
	if _, err := g.Invoke(ctx, engine.Command{Resume: "theirs"}, engine.OnThread("p")); err != nil {
		t.Fatal(err)
	}
	before, err := g.History(ctx, engine.Config{ThreadID: "p"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m = press(t, m, "mine", "enter")
	if v := m.View(); !strings.Contains(v, "another process moved thread") {
		t.Fatalf("the answer was taken though the thread moved on:\n%s", v)
	}
	after, err := g.History(ctx, engine.Config{ThreadID: "p"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || snap.Values["y"] != "theirs" {
		t.Errorf("checkpoints %d → %d, y = %v: the refused answer wrote", len(before), len(after), snap.Values["y"])
	}
	// The session's error is the typed one, naming both checkpoints.
	s := newEngineSession(g, opts)
	if _, err := s.Open(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Invoke(ctx, map[string]any{"x": "again"}, engine.OnThread("p")); err != nil {
		t.Fatal(err)
	}
	var moved *ThreadMovedError
	if _, err := s.Resume(ctx, "x", nil); !errors.As(err, &moved) || !errors.Is(err, ErrThreadMoved) || moved.Shown == moved.Now {
		t.Errorf("Resume after another process wrote: %v, want a *ThreadMovedError", err)
	}
}
