package recording

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

func in(id string, v any) engine.Interruption { return engine.Interruption{ID: id, Value: v} }

// Tasks pair by node, Sends by argument too (the ids each run minted for
// its messages aside), in order; calls are not paired; what is left over
// on either side is named.
func TestPair(t *testing.T) {
	s := &Step{Tasks: []Task{
		{ID: "r1", Name: "plan"},
		{ID: "r2", Name: "ask", Push: true, Input: map[string]any{"item": "x"}},
		{ID: "r3", Name: "ask", Push: true, Input: map[string]any{"item": "y"}},
		{ID: "r4", Name: "gone"},
		{ID: "r6", Name: "reply", Push: true, Input: map[string]any{"m": map[string]any{"id": "minted-1", "role": "user", "content": "hi"}}},
	}}
	got := []engine.TaskView{
		{ID: "g3", Name: "ask", Push: true, Input: map[string]any{"item": "y"}},
		{ID: "g1", Name: "plan"},
		{ID: "g2", Name: "ask", Push: true, Input: map[string]any{"item": "x"}},
		{ID: "c1", Name: "tool", Push: true, Call: true},
		{ID: "g5", Name: "extra"},
		{ID: "g6", Name: "reply", Push: true, Input: map[string]any{"m": map[string]any{"id": "minted-2", "role": "user", "content": "hi"}}},
	}
	p := s.Pair(got)
	for g, r := range map[string]string{"g1": "r1", "g2": "r2", "g3": "r3", "g6": "r6"} {
		if p.Of[g] == nil || p.Of[g].ID != r {
			t.Errorf("%s paired with %+v, want %s", g, p.Of[g], r)
		}
	}
	if _, ok := p.Of["c1"]; ok || len(p.Extra) != 1 || p.Extra[0].ID != "g5" || len(p.Missing) != 1 || p.Missing[0].ID != "r4" {
		t.Fatalf("extra %+v missing %+v, call paired %v", p.Extra, p.Missing, p.Of["c1"])
	}
}

// A task's verdict: the outcome first (a failure on one side only), then
// the writes; a task the recording left waiting has no outcome to compare;
// a call's failure beside the caller's interrupt is the recording's.
func TestJudge(t *testing.T) {
	w := func(v any) []engine.Write { return []engine.Write{{Channel: "out", Value: v}} }
	ran := func(v any) engine.TaskView { return engine.TaskView{Name: "n", State: engine.TaskDone, Writes: w(v)} }
	failed := engine.TaskView{Name: "n", State: engine.TaskFailed, Err: errors.New("boom")}
	waiting := engine.TaskView{Name: "n", State: engine.TaskInterrupted}
	failedCall := engine.TaskView{Name: "c", Call: true, State: engine.TaskFailed, Err: errors.New("call broke")}
	cancelled := engine.TaskView{Name: "n", State: engine.TaskFailed, Err: context.Canceled}
	s, open := &Step{}, &Step{Open: true}
	for _, c := range []struct {
		name  string
		step  *Step
		rec   *Task
		got   engine.TaskView
		calls []engine.TaskView
		want  VerdictKind
	}{
		{"same writes", s, &Task{Saved: true, Writes: w(1)}, ran(1), nil, Same},
		{"other writes", s, &Task{Saved: true, Writes: w(1)}, ran(2), nil, WritesDiffer},
		{"no such task", s, nil, ran(1), nil, Unrecorded},
		{"fails now", s, &Task{Saved: true, Writes: w(1)}, failed, nil, FailsNow},
		{"failed in the recording", s, &Task{Saved: true, Err: "boom"}, ran(1), nil, RecordingFailed},
		{"both failed", s, &Task{Saved: true, Err: "other words"}, failed, nil, Same},
		{"still waiting in the recording", open, &Task{Saved: true, Interrupted: true}, ran(1), nil, NoOutcome},
		{"cut off in the recording", open, &Task{}, ran(1), nil, NoOutcome},
		{"its call failed as recorded", open, &Task{Saved: true, Interrupted: true, CallErr: "call broke"}, waiting, []engine.TaskView{failedCall}, Same},
		{"its call no longer fails", open, &Task{Saved: true, Interrupted: true, CallErr: "call broke"}, waiting, nil, RecordingFailed},
		{"its call failed, saved as its own error too", open, &Task{Saved: true, Interrupted: true, Err: "call broke", CallErr: "call broke"}, waiting, []engine.TaskView{failedCall}, Same},
		{"caller failed with its call", s, &Task{Saved: true, Interrupted: true, CallErr: "call broke"}, failed, []engine.TaskView{failedCall}, Same},
		{"fails as the recording did first", s, &Task{Saved: true, Writes: w(1), FailedFirst: "boom"}, failed, nil, FailsAsFirst},
		{"cancelled as the recording was first", s, &Task{Saved: true, Writes: w(1), FailedFirst: "context canceled", CancelledFirst: true}, cancelled, nil, FailsAsFirst},
		{"fails where the recording was only cancelled first", s, &Task{Saved: true, Writes: w(1), FailedFirst: "context canceled", CancelledFirst: true}, failed, nil, FailsNow},
		{"runs where the recording failed first", s, &Task{Saved: true, Writes: w(1), FailedFirst: "boom"}, ran(1), nil, Same},
	} {
		if v := c.step.Judge(c.rec, c.got, c.calls); v.Kind != c.want {
			t.Errorf("%s: verdict %v, want %v", c.name, v.Kind, c.want)
		}
	}
	if v := s.JudgeCall(failedCall); v.Kind != FailsNow {
		t.Errorf("a call failing where no recorded call failed: %v", v.Kind)
	}
	if v := (&Step{Tasks: []Task{{CallErr: "call broke"}}}).JudgeCall(failedCall); v.Kind != Same {
		t.Errorf("a call failing where a recorded one did: %v", v.Kind)
	}
}

// Answers: each task the recorded answer after those it has had; a call
// the answer of the recorded call that asked the same question; the
// caller's report of a call's interrupt takes the call's answer; a
// question the recording never answered waits in an open step and
// diverges otherwise, naming the node.
func TestAnswers(t *testing.T) {
	s := &Step{
		Tasks: []Task{{ID: "r1", Name: "ask", Saved: true, Interrupted: true, Answers: []any{"first", "second"}, Interrupts: []engine.Interruption{in("r1", "again?")}}, {ID: "r2", Name: "main", Saved: true, Interrupted: true}},
		Calls: []Call{{Questions: []string{`"q1?"`}, Answers: []any{true}}, {Questions: []string{`"q2?"`}, Answers: []any{false}}},
	}
	v := &engine.StepView{Tasks: []engine.TaskView{
		{ID: "g1", Name: "ask", State: engine.TaskInterrupted, Interrupts: []engine.Interruption{in("i1", "again?")}},
		{ID: "g2", Name: "main", State: engine.TaskInterrupted, Interrupts: []engine.Interruption{in("i2", "q2?")}},
		{ID: "c2", Name: "tool", Call: true, Push: true, State: engine.TaskInterrupted, Interrupts: []engine.Interruption{in("i2", "q2?")}},
	}}
	given := map[string]int{"g1": 1}
	o := s.Answers(v, func(t engine.TaskView) int { return given[t.ID] })
	if o.Diverged != nil || o.Resume["i1"] != "second" || o.Resume["i2"] != false || o.ByTask["c2"] != false || len(o.Resume) != 2 {
		t.Fatalf("offer %+v diverged %v", o, o.Diverged)
	}
	given["g1"] = 2
	if o := s.Answers(v, func(t engine.TaskView) int { return given[t.ID] }); o.Diverged == nil || o.Diverged.Node != "ask" || !strings.Contains(o.Diverged.Why, "interrupted only 2 times") {
		t.Fatalf("a third question: %+v", o.Diverged)
	}
	s.Open = true
	if o := s.Answers(v, func(t engine.TaskView) int { return given[t.ID] }); o.Diverged != nil || o.Waiting != 1 {
		t.Fatalf("a question the recording left waiting: waiting %d, diverged %v", o.Waiting, o.Diverged)
	}
	// Where the recording ends waiting, the replay must ask what it
	// waits on: another question is a divergence, not the same end.
	v.Tasks[0].Interrupts[0].Value = "something else?"
	if o := s.Answers(v, func(t engine.TaskView) int { return given[t.ID] }); o.Diverged == nil || o.Diverged.Node != "ask" || !strings.Contains(o.Diverged.Why, `the recording waits on "again?"`) {
		t.Fatalf("another question where the recording waits: %+v", o.Diverged)
	}
	// An answer the recording gave to another question is not given:
	// the task keeps its last question, the one its last answer went to.
	s.Open = false
	given["g1"] = 1
	if o := s.Answers(v, func(t engine.TaskView) int { return given[t.ID] }); o.Diverged == nil || o.Diverged.Node != "ask" || !strings.Contains(o.Diverged.Why, `the replay asked "something else?"; the recording's answer "second" was to "again?"`) || o.Resume["i1"] != nil {
		t.Fatalf("the last answer offered to another question: %+v, diverged %+v", o, o.Diverged)
	}
	given["g1"] = 0 // the first answer's question is not kept
	if o := s.Answers(v, func(t engine.TaskView) int { return given[t.ID] }); o.Diverged != nil || o.Resume["i1"] != "first" {
		t.Fatalf("an earlier answer, whose question was not kept: %+v, diverged %+v", o, o.Diverged)
	}
	v.Tasks[0].Interrupts[0].Value = "again?"
	v.Tasks[2].Interrupts[0].Value = "q3?"
	s.Open = false
	if o := s.Answers(v, func(engine.TaskView) int { return 0 }); o.Diverged == nil || !strings.Contains(o.Diverged.Why, "no call of the recording asked it") {
		t.Fatalf("a call asking what no recorded call asked: %+v", o.Diverged)
	}
}

// A run that failed in a node fails as recorded when a recorded task of
// that node failed, or a failed Task call matches a recorded call's
// failure, or a failed task of the superstep does (a subgraph's failure
// names the subgraph's node).
func TestSameFailure(t *testing.T) {
	s := &Step{Tasks: []Task{{Name: "outer", Err: "boom"}, {Name: "main", CallErr: "call broke"}}}
	if !s.SameFailure("outer", nil) || s.SameFailure("other", nil) {
		t.Fatal("by the node the error names")
	}
	if !s.SameFailure("inner", []engine.TaskView{{Name: "outer", State: engine.TaskFailed}}) {
		t.Fatal("a subgraph's failure, by the failed parent task")
	}
	if !s.SameFailure("tool", []engine.TaskView{{Name: "tool", Call: true, State: engine.TaskFailed}}) {
		t.Fatal("a failed call")
	}
}

// A replay goes on past a failure where the recording's run did: the node
// the error names (or a failed task of the superstep) failed first in the
// recording and ran when run again; a task only cancelled beside the
// failure does not count, nor does one that failed at the recording's end.
func TestWentOnAfterFailure(t *testing.T) {
	s := &Step{Tasks: []Task{
		{Name: "check", Saved: true, FailedFirst: "flaky"},
		{Name: "slow", Saved: true, FailedFirst: "context canceled", CancelledFirst: true},
		{Name: "end", Saved: true, Err: "boom"},
	}}
	if !s.WentOnAfterFailure("check", nil) {
		t.Fatal("by the node the error names")
	}
	if !s.WentOnAfterFailure("inner", []engine.TaskView{{Name: "check", State: engine.TaskFailed, Err: errors.New("flaky")}}) {
		t.Fatal("a subgraph's failure, by the failed parent task")
	}
	if s.WentOnAfterFailure("slow", nil) || s.WentOnAfterFailure("end", nil) || s.WentOnAfterFailure("other", nil) {
		t.Fatal("a cancelled task, a failure the recording ended in, or another node")
	}
	if s.WentOnAfterFailure("other", []engine.TaskView{{Name: "check", State: engine.TaskFailed, Err: context.Canceled}}) {
		t.Fatal("check cancelled beside another node's failure")
	}
}
