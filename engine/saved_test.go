package engine_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

func TestReadSavedWrites_Facts(t *testing.T) {
	ask := []engine.Interruption{{ID: "i1", Value: "ok?"}}
	pw := func(task, ch string, v any) engine.PendingWrite {
		return engine.PendingWrite{TaskID: task, Channel: ch, Value: v}
	}
	tests := []struct {
		name       string
		writes     []engine.PendingWrite
		task       string
		want       engine.SavedTask
		waiting    bool
		status     engine.CheckpointStatus // with tasks planned
		statusDone engine.CheckpointStatus // with none planned
	}{
		{
			name:   "finished with writes",
			writes: []engine.PendingWrite{pw("a", "x", 1.0), pw("a", "branch:to:b", "a")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Writes: []engine.Write{{Channel: "x", Value: 1.0}, {Channel: "branch:to:b", Value: "a"}}, Finished: true},
			status: engine.CheckpointPending, statusDone: engine.CheckpointDone,
		},
		{
			name:   "finished without writes",
			writes: []engine.PendingWrite{pw("a", engine.NoWritesChannel, nil)},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Finished: true},
			status: engine.CheckpointPending, statusDone: engine.CheckpointDone,
		},
		{
			name:    "waits on an interrupt",
			writes:  []engine.PendingWrite{pw("a", engine.InterruptChannel, ask)},
			task:    "a",
			want:    engine.SavedTask{ID: "a", Interrupts: ask},
			waiting: true,
			status:  engine.CheckpointInterrupted, statusDone: engine.CheckpointInterrupted,
		},
		{
			name:    "answered once, interrupted again",
			writes:  []engine.PendingWrite{pw("a", engine.InterruptChannel, ask), pw("a", engine.ResumeChannel, []any{"yes"})},
			task:    "a",
			want:    engine.SavedTask{ID: "a", Interrupts: ask, Answers: []any{"yes"}},
			waiting: true,
			status:  engine.CheckpointInterrupted, statusDone: engine.CheckpointInterrupted,
		},
		{
			name:   "answered and finished",
			writes: []engine.PendingWrite{pw("a", engine.InterruptChannel, ask), pw("a", engine.ResumeChannel, []any{"yes"}), pw("a", "x", 2.0)},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Interrupts: ask, Answers: []any{"yes"}, Writes: []engine.Write{{Channel: "x", Value: 2.0}}, Finished: true},
			status: engine.CheckpointPending, statusDone: engine.CheckpointDone,
		},
		{
			name:   "a plain resume value answers it",
			writes: []engine.PendingWrite{pw("a", engine.InterruptChannel, ask), pw(engine.NullTaskID, engine.ResumeChannel, "yes")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Interrupts: ask},
			status: engine.CheckpointPending, statusDone: engine.CheckpointDone,
		},
		{
			name: "answered with the plain value, interrupted again",
			writes: []engine.PendingWrite{pw("a", engine.InterruptChannel, ask), pw("a", engine.ResumeChannel, []any{"yes"}),
				pw(engine.NullTaskID, engine.ResumeChannel, "yes")},
			task:    "a",
			want:    engine.SavedTask{ID: "a", Interrupts: ask, Answers: []any{"yes"}},
			waiting: true,
			status:  engine.CheckpointInterrupted, statusDone: engine.CheckpointInterrupted,
		},
		{
			// Two tasks asked; the run resumed with one plain value, which the
			// first to ask again took (_algo.py:1320-1331): the other asked in
			// that run too and waits (a later Task call of an entrypoint is
			// the same case).
			name: "a sibling took the plain resume value",
			writes: []engine.PendingWrite{pw("a", engine.ResumeChannel, []any{"yes"}), pw("a", "x", 2.0),
				pw(engine.NullTaskID, engine.ResumeChannel, "yes"), pw("b", engine.InterruptChannel, ask)},
			task:    "b",
			want:    engine.SavedTask{ID: "b", Interrupts: ask},
			waiting: true,
			status:  engine.CheckpointInterrupted, statusDone: engine.CheckpointInterrupted,
		},
		{
			name: "answered, then failed",
			writes: []engine.PendingWrite{pw("a", engine.InterruptChannel, ask), pw("a", engine.ErrorChannel, "bad answer"),
				pw("a", engine.ResumeChannel, []any{"lots"}), pw(engine.NullTaskID, engine.ResumeChannel, "lots")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Interrupts: ask, Answers: []any{"lots"}, Error: "bad answer", Err: &engine.SavedError{Message: "bad answer"}, Failed: true},
			status: engine.CheckpointFailed, statusDone: engine.CheckpointFailed,
		},
		{
			name:   "failed",
			writes: []engine.PendingWrite{pw("a", engine.ErrorChannel, "boom"), pw("a", engine.ErrorSourceNodeChannel, "a")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Error: "boom", Err: &engine.SavedError{Message: "boom"}, Failed: true},
			status: engine.CheckpointFailed, statusDone: engine.CheckpointFailed,
		},
		{
			name:   "cancelled after its state update",
			writes: []engine.PendingWrite{pw("a", "x", 1.0), pw("a", engine.ErrorChannel, "cancelled")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Writes: []engine.Write{{Channel: "x", Value: 1.0}}, Error: "cancelled", Err: &engine.SavedError{Message: "cancelled"}, Failed: true, Finished: true},
			status: engine.CheckpointFailed, statusDone: engine.CheckpointFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := engine.ReadSavedWrites(tt.writes)
			got, ok := s.Task(tt.task)
			if !ok {
				t.Fatalf("Task(%q) not found", tt.task)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("Task = %+v, want %+v", *got, tt.want)
			}
			if w := s.Waiting(got); w != tt.waiting {
				t.Errorf("Waiting = %v, want %v", w, tt.waiting)
			}
			if n := len(s.WaitingInterrupts()); (n > 0) != tt.waiting {
				t.Errorf("WaitingInterrupts has %d, want waiting=%v", n, tt.waiting)
			}
			if st := s.Status(true); st != tt.status {
				t.Errorf("Status(true) = %v, want %v", st, tt.status)
			}
			if st := s.Status(false); st != tt.statusDone {
				t.Errorf("Status(false) = %v, want %v", st, tt.statusDone)
			}
		})
	}
}

func TestIsControlWrite(t *testing.T) {
	for _, ch := range []string{engine.ErrorChannel, engine.ErrorSourceNodeChannel, engine.InterruptChannel, engine.ResumeChannel, engine.ScheduledChannel, engine.NoWritesChannel} {
		if !engine.IsControlWrite(ch) {
			t.Errorf("IsControlWrite(%q) = false", ch)
		}
	}
	for _, ch := range []string{"x", engine.TasksChannel, "branch:to:a"} {
		if engine.IsControlWrite(ch) {
			t.Errorf("IsControlWrite(%q) = true", ch)
		}
	}
}

// A node that asks twice: after the first answer the thread waits on the
// second question, and GetState says so.
func TestStateSnapshot_Status_SecondInterruptWaits(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			b, err := engine.Interrupt(ctx, "second?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{a, b}}, nil
		}).
		AddEdge(engine.Start, "ask"))
	status := func() (engine.CheckpointStatus, []engine.PendingInterrupt) {
		t.Helper()
		snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return snap.Status(), snap.Interrupts()
	}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if st, ints := status(); st != engine.CheckpointInterrupted || len(ints) != 1 || ints[0].Value != "first?" {
		t.Fatalf("after invoke: %v %v, want interrupted on first?", st, ints)
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: "x"}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if st, ints := status(); st != engine.CheckpointInterrupted || len(ints) != 1 || ints[0].Value != "second?" || ints[0].Node != "ask" {
		t.Fatalf("after the first answer: %v %v, want interrupted on second? by ask", st, ints)
	}
	res, err := g.Invoke(ctx, engine.Command{Resume: "y"}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["log"]; !reflect.DeepEqual(got, []any{"x", "y"}) {
		t.Fatalf("log = %v, want [x y]", got)
	}
	if st, ints := status(); st != engine.CheckpointDone || len(ints) != 0 {
		t.Fatalf("at the end: %v %v, want done", st, ints)
	}
}

// A node fails after its first answer (given by interrupt id); once fixed,
// the rerun replays the saved answer and asks its second question. The saved writes hold the old
// error beside the new interrupt: the snapshot still says the task waits,
// because the new interrupt's id is the one after the saved answers.
func TestStateSnapshot_Status_AskAgainAfterFailure(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			a, err := engine.Interrupt(ctx, "first?")
			if err != nil {
				return nil, err
			}
			if broken.Load() {
				return nil, errors.New("broken")
			}
			b, err := engine.Interrupt(ctx, "second?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{a, b}}, nil
		}).
		AddEdge(engine.Start, "ask"))
	snap := func() *engine.StateSnapshot {
		t.Helper()
		s, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	// Answered by interrupt id: no plain resume value is saved, which
	// would answer the second question too on the next run.
	ints := snap().Interrupts()
	if len(ints) != 1 {
		t.Fatalf("waiting: %v, want first?", ints)
	}
	if _, err := g.Invoke(ctx, engine.Command{Resume: engine.ResumeMap{ints[0].ID: "x"}}, engine.OnThread("t")); err == nil {
		t.Fatal("the broken node did not fail")
	}
	if s := snap(); s.Status() != engine.CheckpointFailed || len(s.Interrupts()) != 0 {
		t.Fatalf("after the failure: %v %v, want error with nothing waiting", s.Status(), s.Interrupts())
	}
	broken.Store(false)
	if _, err := g.Invoke(ctx, nil, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	s := snap()
	if ints := s.Interrupts(); s.Status() != engine.CheckpointInterrupted || len(ints) != 1 || ints[0].Value != "second?" {
		t.Fatalf("after the fixed rerun: %v %v, want interrupted on second?", s.Status(), ints)
	}
	res, err := g.Invoke(ctx, engine.Command{Resume: "y"}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["log"]; !reflect.DeepEqual(got, []any{"x", "y"}) {
		t.Fatalf("log = %v, want [x y]", got)
	}
}
