package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// cutOffModel opens a thread of the linear example whose superstep 1 was
// cut off after a finished (at step 0, __start__): its writes are saved,
// the step is not.
func cutOffModel(t *testing.T, atInput bool, w, h int) Model {
	t.Helper()
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	s, err := g.Start(ctx, ex.Input, engine.OnThread("cut"))
	if err != nil {
		t.Fatal(err)
	}
	if !atInput {
		if err := s.Superstep(ctx); err != nil { // step 0: the input
			t.Fatal(err)
		}
	}
	for s.Phase() != engine.PhaseExecuted {
		if err := s.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Thread: "cut", Saver: saver}
	return newTestModel(t, newEngineSession(g, opts), opts, w, h)
}

// Checking out a cut-off head in the tree says what opening the thread
// says, in the same words: the finished tasks saved their writes, and
// stepping plans the step again and reuses them. It said only that
// stepping goes on from the head. The tasks that wrote the head are
// still said to have run. Stepping then reuses a's writes, as it says.
func TestModel_Checkout_CutOffHeadSaysWritesAreReused(t *testing.T) {
	for _, c := range []struct {
		atInput, readYet bool
		said, ran        string
	}{
		// The head is checked out once the tree has read it whole, and
		// before (the checkout's Cmd reads it then).
		{false, true, "a saved writes before superstep 1 was cut off: n plans it and reuses them", "ran: __start__"},
		{false, false, "a saved writes before superstep 1 was cut off: n plans it and reuses them", "ran: __start__"},
		// The input checkpoint: no task wrote it, and its step was cut
		// off all the same (it said "nothing ran here yet").
		{true, true, "__start__ saved writes before superstep 0 was cut off: n plans it and reuses them", ""},
	} {
		m := cutOffModel(t, c.atInput, 200, 30)
		if v := m.View(); !strings.Contains(v, c.said) {
			t.Fatalf("opened cut-off head:\n%s", v)
		}
		m = press(t, m, "t")
		if m.mode != modeTree || m.tree.selected().Config.CheckpointID != m.view.CheckpointID {
			t.Fatalf("the tree is not on the head:\n%s", m.View())
		}
		if !c.readYet {
			m.tree.whole = wholeSnap{}
		}
		m = press(t, m, "enter")
		v := m.View()
		if m.mode != modeMain || m.err != nil {
			t.Fatalf("mode %v err %v:\n%s", m.mode, m.err, v)
		}
		if strings.Count(v, c.said) != 2 || !strings.Contains(v, c.ran) || strings.Contains(v, "nothing ran here yet") {
			t.Fatalf("%+v: the checked-out cut-off head should say %q in the note and the tasks pane, and who wrote it:\n%s", c, c.said, v)
		}
		m = press(t, m, "n", "n")
		if v := m.View(); m.err != nil || !strings.Contains(v, "reused") || strings.Contains(v, c.said) {
			t.Fatalf("stepping the checked-out cut-off head (err %v):\n%s", m.err, v)
		}
	}
}
