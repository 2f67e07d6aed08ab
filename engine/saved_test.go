package engine_test

import (
	"reflect"
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
			name:   "failed",
			writes: []engine.PendingWrite{pw("a", engine.ErrorChannel, "boom"), pw("a", engine.ErrorSourceNodeChannel, "a")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Error: "boom", Failed: true},
			status: engine.CheckpointFailed, statusDone: engine.CheckpointFailed,
		},
		{
			name:   "cancelled after its state update",
			writes: []engine.PendingWrite{pw("a", "x", 1.0), pw("a", engine.ErrorChannel, "cancelled")},
			task:   "a",
			want:   engine.SavedTask{ID: "a", Writes: []engine.Write{{Channel: "x", Value: 1.0}}, Error: "cancelled", Failed: true, Finished: true},
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
