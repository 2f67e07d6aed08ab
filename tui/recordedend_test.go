package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
)

// prodFail is a run pulled from production: its last node, summarize,
// fails every time (an upstream model that answers 503).
const prodFail = `{
  "name": "prodfail",
  "state": {"topic": null, "findings": "add", "summary": null},
  "nodes": [
    {"name": "plan", "update": {"topic": "state.topic + ' (planned)'"}},
    {"name": "investigate", "update": {"findings": "[state.topic + ' finding']"}},
    {"name": "summarize", "fail": {"times": 99, "message": "upstream model returned 503"}, "update": {"summary": "'ok'"}}
  ],
  "edges": [["__start__", "plan"], ["plan", "investigate"], ["investigate", "summarize"], ["summarize", "__end__"]],
  "ops": [{"op": "invoke", "input": {"topic": "pregel"}}]
}`

// replayedFailure is the debugger at w×h on thread "prod" of prodFail,
// which failed in summarize and was then replayed from its input (as
// superstep replay does), failing again: the tree has the recorded
// branch, ending at its failure, and the replay's.
func replayedFailure(t *testing.T, w, h int) (Model, string) {
	t.Helper()
	g, saver, end := replayedFailureThread(t)
	opts := Options{Thread: "prod", Saver: saver}
	return press(t, newTestModel(t, newEngineSession(g, opts), opts, w, h), "t"), end
}

// replayedFailureThread writes thread "prod" of replayedFailure and
// returns its graph, its saver and the recorded run's end.
func replayedFailureThread(t *testing.T) (*engine.Graph, *engine.MemorySaver, string) {
	t.Helper()
	saver := engine.NewMemorySaver()
	g := buildScenario(t, parseScenario(t, "prodfail.json", prodFail), saver)
	ctx := context.Background()
	if _, err := g.Invoke(ctx, map[string]any{"topic": "pregel"}, engine.OnThread("prod")); err == nil {
		t.Fatal("summarize did not fail")
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: "prod"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	end, input := hist[0].Config.CheckpointID, hist[len(hist)-1].Config.CheckpointID
	if _, err := g.Invoke(ctx, nil, engine.OnThread("prod"), engine.FromCheckpoint(input), engine.WithMetadata(recording.ReplayMetadata(input))); err == nil {
		t.Fatal("the replay did not fail")
	}
	return g, saver, end
}

// At 80 columns the recorded run's end gives up its "[recorded end]" tag
// and the word "step" before what its tasks left: it read
// "● 000005 step 3  loop   [recorded end…", the failure cut whole. The
// replay's failed row, the current one, keeps its failure and its mark.
func TestTree_NarrowFailedRowsKeepTheFailure(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, end := replayedFailure(t, size[0], size[1])
		checkFrame(t, m)
		screen := m.View()
		failed := 0
		for _, line := range strings.Split(screen, "\n") {
			if strings.Contains(line, glyphFailed+" summarize failed") {
				failed++
				if strings.Contains(line, shortID(end)) && size[0] >= 120 && !strings.Contains(line, "[recorded end]") {
					t.Errorf("%dx%d: the recorded end lost its tag with room for it:\n%s", size[0], size[1], line)
				}
			}
		}
		if failed != 2 {
			t.Errorf("%dx%d: %d rows say summarize failed, want the recording's and the replay's:\n%s", size[0], size[1], failed, screen)
		}
		// The preview's title names its checkpoint before what it may
		// cut: it read "Channels (+5 internal: i) at 00…".
		if at := "Channels at " + shortID(m.tree.selected().Config.CheckpointID); !strings.Contains(screen, at) {
			t.Errorf("%dx%d: no %q:\n%s", size[0], size[1], at, screen)
		}
		if size[0] == 80 {
			golden(t, "tree-failed-replayed-80x24.golden", screen)
		}
	}
}

// Opened at a failed head with the caller's notice (the command line's,
// when a replay's branch is the head), the status line says the failure
// apart from the notice's own way on: it read "…the recorded run ended
// at 000005: t, enter on it: step 4 failed", as if that one had.
func TestModel_Open_FailureAfterTheCallersNotice(t *testing.T) {
	g, saver, end := replayedFailureThread(t)
	notice := "the head ends a replay's branch; the recorded run ended at " + shortID(end) + ": t, enter on it"
	opts := Options{Thread: "prod", Saver: saver, Notice: notice}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 40)
	if want := notice + "; here step 4 failed; n runs it again"; !strings.HasPrefix(m.note, want) {
		t.Errorf("note %q, want it to start %q", m.note, want)
	}
}
