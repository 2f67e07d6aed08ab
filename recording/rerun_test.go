package recording

import (
	"errors"
	"testing"

	"github.com/superstep/superstep/engine"
)

func TestJudgeRerun(t *testing.T) {
	boom := errors.New("boom")
	q := func(v string) []engine.Interruption { return []engine.Interruption{{ID: "i-" + v, Value: v}} }
	w := []engine.Write{{Channel: "x", Value: 1.0}}
	w2 := []engine.Write{{Channel: "x", Value: 2.0}}
	failed := engine.SnapshotTask{Err: boom, Error: "boom"}
	waiting := engine.SnapshotTask{Interrupts: q("ok?"), Waiting: true}
	finished := engine.SnapshotTask{Finished: true}
	for _, c := range []struct {
		name string
		r    engine.TaskRerun
		want VerdictKind
	}{
		{"saved nothing", engine.TaskRerun{Err: boom}, NoOutcome},
		{"answered, then cut off", engine.TaskRerun{Writes: w, Recording: engine.SnapshotTask{Interrupts: q("ok?"), Answers: []any{"y"}}}, NoOutcome},
		{"fails again", engine.TaskRerun{Err: boom, Recording: failed}, FailsAgain},
		{"fails otherwise", engine.TaskRerun{Err: errors.New("bang"), Recording: failed}, FailsNow},
		{"fails now", engine.TaskRerun{Err: boom, Recorded: w, Recording: finished}, FailsNow},
		{"waits as recorded", engine.TaskRerun{Interrupts: q("ok?"), Recording: waiting}, WaitsAsRecorded},
		{"waits on its second question", engine.TaskRerun{Interrupts: q("2nd"),
			Recording: engine.SnapshotTask{Interrupts: append(q("1st"), q("2nd")...), Answers: []any{"a"}, Waiting: true}}, WaitsAsRecorded},
		{"asks otherwise", engine.TaskRerun{Interrupts: q("sure?"), Recording: waiting}, AsksOtherwise},
		{"asks once more", engine.TaskRerun{Interrupts: q("ok?"), Recorded: w, Recording: finished}, AsksNow},
		{"no longer fails", engine.TaskRerun{Recording: failed}, RecordingFailed},
		{"no longer asks", engine.TaskRerun{Recording: waiting}, NoLongerAsks},
		{"writes differ", engine.TaskRerun{Recorded: w, Writes: w2, Diff: engine.DiffWrites(engine.RunWrites{Writes: w}, engine.RunWrites{Writes: w2}), Recording: finished}, WritesDiffer},
		{"same", engine.TaskRerun{Recorded: w, Writes: w, Recording: finished}, Same},
	} {
		got := JudgeRerun(&c.r)
		if got.Kind != c.want {
			t.Errorf("%s: kind %d, want %d", c.name, got.Kind, c.want)
		}
		if want := c.want != Same && c.want != NoOutcome && c.want != FailsAgain && c.want != WaitsAsRecorded; got.Diverged() != want {
			t.Errorf("%s: Diverged %v", c.name, got.Diverged())
		}
	}
}
