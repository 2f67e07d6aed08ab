package tui

import (
	"strings"
	"testing"
)

// A kept threads filter that matches nothing says esc clears it: esc
// does, and a second esc closes the list.
func TestModel_Threads_EscClearsAKeptFilter(t *testing.T) {
	m := newTestModel(t, &fakeSession{info: fakeInfo(), view: twoInterrupts()}, Options{Thread: "f"}, 100, 30)
	m = press(t, m, "esc", "T", "/", "z", "z", "enter")
	if m.mode != modeThreads || !strings.Contains(m.View(), "esc clears it") {
		t.Fatalf("mode %v:\n%s", m.mode, m.View())
	}
	if !strings.Contains(m.View(), "esc clear filter") {
		t.Fatalf("the footer does not say what esc does:\n%s", m.View())
	}
	m = press(t, m, "esc")
	if m.mode != modeThreads || m.threads.filter.Value() != "" || len(m.threads.shown) != 2 {
		t.Fatalf("esc: mode %v filter %q shown %d", m.mode, m.threads.filter.Value(), len(m.threads.shown))
	}
	m = press(t, m, "esc")
	if m.mode != modeMain {
		t.Fatalf("the second esc left mode %v", m.mode)
	}
}

// In a subgraph's namespace, which is read only, the main view's keys say
// where they apply instead of doing nothing.
func TestModel_Subgraph_MainKeysSayWhy(t *testing.T) {
	m, _ := nestedModel(t, 120, 40)
	m = press(t, m, "enter")
	if m.mode != modeSubgraph {
		t.Fatalf("mode %v", m.mode)
	}
	for _, k := range []string{"f", "n", "c", "b", "t", "e"} {
		m.note = ""
		m = press(t, m, k)
		if m.note == "" || m.mode != modeSubgraph {
			t.Errorf("%s in a namespace: mode %v, says nothing", k, m.mode)
		}
	}
}

// At an engine breakpoint (interrupt_before/after) no question waits: r
// says so rather than nothing.
func TestModel_AnswerKey_AtEngineBreakpointSaysWhy(t *testing.T) {
	v := twoInterrupts()
	v.Interrupts = nil
	m := newTestModel(t, &fakeSession{info: fakeInfo(), view: v}, Options{Thread: "f"}, 100, 30)
	m = press(t, m, "r")
	if !strings.Contains(m.note, "engine breakpoint") || m.mode != modeMain {
		t.Fatalf("r at an engine breakpoint: mode %v note %q", m.mode, m.note)
	}
}
