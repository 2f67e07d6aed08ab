package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A new thread opened with DeferNewThread (the command line's tui
// --thread with an id the database lacks, a typo as often as not) is
// shown, not written: nothing reaches the saver until the first step,
// which writes its input checkpoint and plans step 0 as n did after the
// debugger had written it at once.
func TestModel_DeferNewThread_WritesOnFirstStep(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			g, ex, saver := compile(t, "research")
			opts := Options{Thread: "t-24", Input: ex.Input, Saver: saver, DeferNewThread: true, CloseThreads: []string{"t-42", "t-2"},
				Notice: `thread "t-24" is not in the database: a new thread, written when you step`}
			m := newTestModel(t, newEngineSession(g, opts), opts, sz.w, sz.h)
			written := func() int {
				t.Helper()
				list, err := saver.List(context.Background(), engine.Config{ThreadID: "t-24"}, engine.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return len(list)
			}
			if n := written(); n != 0 {
				t.Fatalf("opening a new thread wrote %d checkpoint(s) before any step", n)
			}
			screen := m.View()
			for _, want := range []string{"NEW THREAD", "not written yet", "a new thread, written when you step", "Tasks · new thread", "close ids in the database (T):", "  t-42", "  t-2"} {
				if !strings.Contains(screen, want) {
					t.Fatalf("the new thread's screen lacks %q:\n%s", want, screen)
				}
			}
			golden(t, fmt.Sprintf("newthread-%dx%d.golden", sz.w, sz.h), screen)
			if m.mainKeys.Tree.Enabled() || m.mainKeys.Fork.Enabled() {
				t.Fatal("t or f offered on a thread that has no checkpoint yet")
			}
			m = press(t, m, "n")
			if m.err != nil {
				t.Fatal(m.err)
			}
			if n := written(); n != 1 {
				t.Fatalf("the first step wrote %d checkpoint(s), want the input checkpoint", n)
			}
			if m.view.Phase != engine.PhasePlanned || m.view.Step != 0 || m.view.ParentID != "" || m.view.CheckpointID == "" {
				t.Fatalf("after n: phase %v step %d cp %q parent %q, want step 0 planned at the input checkpoint", m.view.Phase, m.view.Step, m.view.CheckpointID, m.view.ParentID)
			}
			if !m.mainKeys.Tree.Enabled() {
				t.Fatal("t not offered once the thread is written")
			}
		})
	}
}

// Left without a step, it leaves nothing: another thread opened from the
// thread list, and the new one is not in the database.
func TestModel_DeferNewThread_LeftUnwritten(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	if _, err := g.Invoke(ctx, ex.Input, engine.OnThread("t-42")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t-24", Input: ex.Input, Saver: saver, DeferNewThread: true}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	if !strings.Contains(m.note, "nothing is written until you step") {
		t.Fatalf("note %q does not say the thread is not written", m.note)
	}
	m = press(t, m, "T")
	for m.threads.list[m.threads.shown[m.threads.nav.cur]].ID != "t-42" {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if m.thread != "t-42" || m.err != nil {
		t.Fatalf("thread %q err %v, want t-42 open", m.thread, m.err)
	}
	ids, err := saver.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("threads in the saver: %v, want only t-42", ids)
	}
}

// The checkpoint keys are off on a new thread, which has none yet; each
// says so and how to get one, rather than doing nothing (t, f, p, d and
// m looked broken on a thread opened by a mistyped --thread), and writes
// nothing.
func TestModel_DeferNewThread_CheckpointKeysSayWhy(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	opts := Options{Thread: "t-24", Input: ex.Input, Saver: saver, DeferNewThread: true}
	m := newTestModel(t, newEngineSession(g, opts), opts, 100, 30)
	for _, k := range []string{"t", "f", "p", "d", "m"} {
		m.note = ""
		m = press(t, m, k)
		if m.mode != modeMain || !strings.Contains(m.note, "a new thread has no checkpoints yet") || !strings.Contains(m.View(), "no checkpoints yet") {
			t.Errorf("%s on a new thread: mode %v, note %q", k, m.mode, m.note)
		}
	}
	if ids, err := saver.Threads(context.Background()); err != nil || len(ids) != 0 {
		t.Fatalf("the keys wrote threads %v (%v)", ids, err)
	}
}
