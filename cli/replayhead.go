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
	head, end, ok := replayHead(ctx, gr, thread)
	if !ok {
		return ""
	}
	note := fmt.Sprintf("thread %q's latest checkpoint %s ends a replay's branch (%s replay wrote it), so %s", thread, engine.ShortID(head), invocationOf(ctx).program, how)
	if end != "" && end != head {
		note += fmt.Sprintf("; the recorded run ended at %s: %s", engine.ShortID(end), from(engine.ShortID(end)))
	}
	return note
}

// replayHeadNotice is replayHeadNote for the debugger's status line, one
// line that a 100-column terminal shows whole: the sentence stderr gets
// was cut there before it named the recorded run's end.
func replayHeadNotice(ctx context.Context, gr *engine.Graph, thread string) string {
	head, end, ok := replayHead(ctx, gr, thread)
	if !ok {
		return ""
	}
	note := fmt.Sprintf("the head %s ends a replay's branch", engine.ShortID(head))
	if end != "" && end != head {
		note += fmt.Sprintf("; the recorded run ended at %s: t, enter on it", engine.ShortID(end))
	}
	return note
}

// replayHead returns thread's latest checkpoint when superstep replay
// wrote it (ok), and the checkpoint that ended the recorded run ("" when
// none is known).
func replayHead(ctx context.Context, gr *engine.Graph, thread string) (head, end string, ok bool) {
	latest, err := gr.History(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{Limit: 1})
	if err != nil || len(latest) == 0 {
		return "", "", false
	}
	if _, ok := recording.ReplayOf(latest[0].Metadata); !ok {
		return "", "", false
	}
	heads, err := gr.HistoryHeads(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return "", "", false
	}
	return latest[0].Config.CheckpointID, recording.RecordedEnd(heads), true
}
