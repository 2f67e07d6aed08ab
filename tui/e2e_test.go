package tui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/superstep/superstep/engine"
)

// teaModel is a debugger on a real engine inside a real bubbletea program.
func teaModel(t *testing.T, name string) (*teatest.TestModel, Model) {
	g, ex, saver := compile(t, name)
	opts := Options{Thread: "e2e", Input: ex.Input, Saver: saver}
	m := newModel(context.Background(), newEngineSession(g, opts), opts)
	m.static = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	return tm, m
}

func waitFor(t *testing.T, tm *teatest.TestModel, what string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func TestE2E_EssayStepsToDone(t *testing.T) {
	tm, _ := teaModel(t, "essay")
	waitFor(t, tm, "INPUT checkpoint")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
	waitFor(t, tm, "PLAN done")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
	waitFor(t, tm, "EXECUTE done")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")})
	waitFor(t, tm, "DONE")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if fm.view.Status != engine.StatusDone || fm.view.Values["approved"] != true {
		t.Fatalf("final: status %v values %v", fm.view.Status, fm.view.Values)
	}
}

func TestE2E_ResearchApprove(t *testing.T) {
	tm, _ := teaModel(t, "research")
	waitFor(t, tm, "INPUT checkpoint")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")})
	waitFor(t, tm, "INTERRUPTED")
	tm.Type(`{"action":"approve"}`)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "answered")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")})
	waitFor(t, tm, "DONE")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if fm.view.Values["final_report"] == nil || !bytes.Contains([]byte(fm.View()), []byte("final_report")) {
		t.Fatalf("no final_report: %v", fm.view.Values)
	}
}

// TestE2E_ConditionalBreakpointDiffDraw drives a real bubbletea program: a
// conditional breakpoint stops where it first holds, d diffs with the
// parent, g draws the graph.
func TestE2E_ConditionalBreakpointDiffDraw(t *testing.T) {
	g, ex, saver := compile(t, "research")
	opts := Options{Thread: "e2e", Input: ex.Input, Saver: saver, Compile: scenarioCompile}
	m := newModel(context.Background(), newEngineSession(g, opts), opts)
	m.static = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	waitFor(t, tm, "INPUT checkpoint")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("C")})
	tm.Type("len(state.findings) >= 3")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")})
	waitFor(t, tm, "became true at checkpoint")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("d")})
	waitFor(t, tm, "1 channel differs")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")})
	waitFor(t, tm, "│ investigate │")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if fm.view.CheckpointStep != 2 || len(fm.view.Values["findings"].([]any)) != 3 {
		t.Fatalf("stopped at step %d with %v", fm.view.CheckpointStep, fm.view.Values["findings"])
	}
}
