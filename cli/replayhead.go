package cli

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
)

// replayHeadNote says, when thread's latest checkpoint is one superstep
// replay wrote, that a run going on from the thread's head goes on from the
// replay's branch, and which checkpoint ended the recorded run, which the
// replay's branch now hides; "" otherwise. how is what goes on from there
// ("this run goes on from it"); from is how to go on from the recorded
// run's end instead, given its short id.
func replayHeadNote(ctx context.Context, gr *engine.Graph, thread, how string, from func(short string) string) string {
	latest, err := gr.History(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{Limit: 1})
	if err != nil || len(latest) == 0 {
		return ""
	}
	if _, ok := recording.ReplayOf(latest[0].Metadata); !ok {
		return ""
	}
	head := latest[0].Config.CheckpointID
	heads, err := gr.HistoryHeads(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return ""
	}
	end := recording.RecordedEnd(heads)
	note := fmt.Sprintf("thread %q's latest checkpoint %s ends a replay's branch (%s replay wrote it), so %s", thread, engine.ShortID(head), invocationOf(ctx).program, how)
	if end != "" && end != head {
		note += fmt.Sprintf("; the recorded run ended at %s: %s", engine.ShortID(end), from(engine.ShortID(end)))
	}
	return note
}
