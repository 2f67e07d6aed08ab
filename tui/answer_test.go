package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// manyInterrupts is a Send fan-out stopped at one interrupting node: n
// interrupts, each asking about its own item, with ids whose short form
// is the item's number.
func manyInterrupts(n int) *engine.StepView {
	v := twoInterrupts()
	v.Interrupts = nil
	for i := range n {
		v.Interrupts = append(v.Interrupts, engine.PendingInterrupt{
			Interruption: engine.Interruption{ID: fmt.Sprintf("00000000-0000-0000-0000-%012d", i), Value: fmt.Sprintf("keep item %d?", i)},
			Node:         "c",
		})
	}
	return v
}

// With more interrupts than the box has lines, the answer lines scroll:
// the selected one stays on screen, and so do the question, the label
// saying where the selection is, and the hints.
func TestAnswerForm_View_ManyInterruptsScroll(t *testing.T) {
	for _, h := range []int{15, 20, 24, 34, 48} {
		t.Run(fmt.Sprintf("120x%d", h), func(t *testing.T) {
			m := newTestModel(t, &fakeSession{info: fakeInfo(), view: manyInterrupts(40)}, Options{Thread: "f"}, 120, h)
			for i := range 30 {
				m = press(t, m, "down")
				checkFrame(t, m)
				wantAnswerBoxShows(t, m.View(), i+1, 40)
			}
			// ↑ from the first line wraps to the last.
			m = press(t, m, strings.Split(strings.Repeat("up,", 31), ",")[:31]...)
			wantAnswerBoxShows(t, m.View(), 39, 40)
		})
	}
}

// wantAnswerBoxShows fails unless screen shows interrupt sel's answer line
// selected, its question, the label with sel's place among n, and the hints.
func wantAnswerBoxShows(t *testing.T, screen string, sel, n int) {
	t.Helper()
	for _, want := range []string{
		fmt.Sprintf("› c (%06d)", sel),
		fmt.Sprintf(`"keep item %d?"`, sel),
		fmt.Sprintf("c is waiting (interrupt %06d, %d of %d)", sel, sel+1, n),
		"↑↓ choose · enter or ctrl+s resumes",
	} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, screen)
		}
	}
}

// The box never draws more lines than it has, whatever the number of
// interrupts; one to three are listed whole whenever the label and a row
// of the question fit below them, as before answer lines scrolled.
func TestAnswerForm_View_FitsItsHeight(t *testing.T) {
	st := DefaultStyles()
	for _, n := range []int{1, 2, 3, 40} {
		for h := 3; h <= 30; h++ {
			f := newAnswerForm(manyInterrupts(n).Interrupts, nil, "yes")
			f.setSize(82, h)
			for range n / 2 {
				f.pick(f.nav.cur + 1)
				f.setSize(82, h)
			}
			got := strings.Split(f.View(st, 80, h), "\n")
			if len(got) > h {
				t.Fatalf("%d interrupts in %d rows: %d lines:\n%s", n, h, len(got), strings.Join(got, "\n"))
			}
			sel := fmt.Sprintf("keep item %d?", f.nav.cur)
			if n > 1 {
				sel = fmt.Sprintf("› c (%06d)", f.nav.cur)
			}
			if !strings.Contains(strings.Join(got, "\n"), sel) {
				t.Fatalf("%d interrupts in %d rows: no %q:\n%s", n, h, sel, strings.Join(got, "\n"))
			}
			if listed := strings.Count(strings.Join(got, "\n"), "answer ›"); n > 1 && n <= 3 && h >= n+3 && listed != n {
				t.Fatalf("%d interrupts in %d rows: %d answer lines listed", n, h, listed)
			}
		}
	}
}

// pgdn reaches the question's last row even when the box, crowded by
// answer lines, shows fewer rows of it than pgdn scrolls.
func TestAnswerForm_PageDown_ReachesTheQuestionsEnd(t *testing.T) {
	v := manyInterrupts(40)
	v.Interrupts[0].Value = map[string]any{"a": 1, "b": 2, "c": 3, "d": 4}
	m := newTestModel(t, &fakeSession{info: fakeInfo(), view: v}, Options{Thread: "f"}, 120, 15)
	if !strings.Contains(m.View(), "lines 1–1 of 6") {
		t.Fatalf("want a one-row question:\n%s", m.View())
	}
	for _, want := range []string{"lines 2–2 of 6", "lines 3–3 of 6"} {
		m = press(t, m, "pgdown")
		if !strings.Contains(m.View(), want) {
			t.Fatalf("after pgdn, want %q:\n%s", want, m.View())
		}
	}
	m = press(t, m, "pgdown", "pgdown", "pgdown", "pgdown")
	if !strings.Contains(m.View(), "lines 6–6 of 6") {
		t.Fatalf("want the last row after pgdn:\n%s", m.View())
	}
	m = press(t, m, "pgup")
	if !strings.Contains(m.View(), "lines 5–5 of 6") {
		t.Fatalf("want one row back after pgup:\n%s", m.View())
	}
}

// A node that fails on its answer saved the answer with the failed task,
// and every retry there replays it (LangGraph's rule): r must say why it
// cannot give a new one and where to go instead, and the way it points
// to (the parent, then a step, which forks) must ask the question again.
func TestModel_AnswerKey_FailedOnSavedAnswer(t *testing.T) {
	m := engineModel(t, "research", 120, 40)
	m = press(t, m, "c", "h", "e", "l", "l", "o", "enter", "n", "n")
	if m.view.Status != engine.StatusFailed {
		t.Fatalf("status %v, want failed", m.view.Status)
	}
	if v := m.View(); !strings.Contains(v, "human_review's saved answer") {
		t.Errorf("the hint does not say why n fails again:\n%s", v)
	}
	m = press(t, m, "r")
	if !strings.Contains(m.note, "human_review failed on its saved answer") || !strings.Contains(m.note, "p then n") {
		t.Fatalf("r says %q", m.note)
	}
	if v := m.View(); !strings.Contains(v, m.note) {
		t.Errorf("the reason is not on screen:\n%s", v)
	}
	m = press(t, m, "p", "c")
	if m.mode != modeAnswer {
		t.Fatalf("p then stepping did not ask again: mode %v, note %q", m.mode, m.note)
	}
}

// esc closes the answer box, whose help says r reopens it: what was typed
// on every answer line comes back with it, until it is sent or another
// checkpoint is current.
func TestModel_AnswerKey_EscKeepsDrafts(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: manyInterrupts(3)}
	m := newTestModel(t, f, Options{Thread: "f"}, 120, 40)
	if m.mode != modeAnswer {
		t.Fatalf("mode %v, want the answer box", m.mode)
	}
	m = press(t, m, "y", "e", "s", "down", "n", "o", "esc")
	if m.mode != modeMain {
		t.Fatalf("esc left mode %v", m.mode)
	}
	m = press(t, m, "r")
	if got := []string{m.answer.inputs[0].Value(), m.answer.inputs[1].Value(), m.answer.inputs[2].Value()}; got[0] != "yes" || got[1] != "no" || got[2] != "" {
		t.Fatalf("reopened with %q, want the drafts [yes no ]", got)
	}
	m = press(t, m, "enter")
	if len(f.resumed) != 1 {
		t.Fatalf("resumed %d times", len(f.resumed))
	}
	// The answers were taken: the box the next question opens is empty.
	if m.mode == modeAnswer && m.answer.inputs[0].Value() != "" {
		t.Fatalf("sent drafts came back: %q", m.answer.inputs[0].Value())
	}
	m = press(t, m, "esc", "r")
	if v := m.answer.inputs[0].Value(); v != "" {
		t.Fatalf("sent drafts came back: %q", v)
	}

	// Another checkpoint's questions start empty.
	m = press(t, m, "x", "esc")
	next := manyInterrupts(3)
	next.CheckpointID = "another"
	f.view = next
	m = send(t, m, opDoneMsg{sess: m.take(), op: opCheckout, view: next})
	if m.mode != modeAnswer {
		m = press(t, m, "r")
	}
	if v := m.answer.inputs[0].Value(); v != "" {
		t.Fatalf("another checkpoint's box has %q", v)
	}
}

// The answer box opens by itself at an interrupt; a person who has not
// noticed it presses r, the key that opens it: that r is not typed into
// the empty answer (it would be sent as the answer "r"), and the note says
// the box is open. Later keys, a later r included, are typed.
func TestModel_AnswerKey_FirstRIntoABoxThatOpenedByItself(t *testing.T) {
	f := &fakeSession{info: fakeInfo(), view: manyInterrupts(1)}
	m := newTestModel(t, f, Options{Thread: "f"}, 120, 40)
	if m.mode != modeAnswer || !m.answer.byItself {
		t.Fatalf("mode %v (by itself %v), want the answer box open by itself", m.mode, m.answer.byItself)
	}
	m = press(t, m, "r")
	if v := m.answer.inputs[0].Value(); v != "" || !strings.Contains(m.note, "open already") {
		t.Fatalf("after r: answer %q, note %q", v, m.note)
	}
	m = press(t, m, "r", "e", "j")
	if v := m.answer.inputs[0].Value(); v != "rej" {
		t.Fatalf("typed %q, want rej", v)
	}
	// Opened with r, the box types every key.
	m = press(t, m, "esc", "r")
	m.answer.inputs[0].SetValue("")
	m = press(t, m, "r")
	if v := m.answer.inputs[0].Value(); v != "r" {
		t.Fatalf("a box r opened: typed %q, want r", v)
	}
}
