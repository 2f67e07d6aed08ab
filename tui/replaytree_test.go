package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/recording"
)

// After a replay the newest branch, the thread's head, is the replay's:
// the tree says which branch a replay wrote and where the recorded run
// ended, which a replay's branch looked exactly like a fork and hid.
func TestTree_MarksRecordedEndAndReplays(t *testing.T) {
	g, ex, saver := compile(t, "linear")
	ctx := context.Background()
	if _, err := g.Invoke(ctx, ex.Input, engine.OnThread("t1")); err != nil {
		t.Fatal(err)
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: "t1"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	end, input := hist[0].Config.CheckpointID, hist[len(hist)-1].Config.CheckpointID
	// What superstep replay does: a run from the recorded input
	// checkpoint, tagged as a replay of it.
	if _, err := g.Invoke(ctx, nil, engine.OnThread("t1"), engine.FromCheckpoint(input), engine.WithMetadata(recording.ReplayMetadata(input))); err != nil {
		t.Fatal(err)
	}
	opts := Options{Thread: "t1", Saver: saver}
	m := newTestModel(t, newEngineSession(g, opts), opts, 120, 30)
	m = press(t, m, "t")
	screen := m.View()
	var endRow string
	replays := 0
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, shortID(end)+" step") {
			endRow = line
		}
		if strings.Contains(line, "[replay]") {
			replays++
		}
	}
	if !strings.Contains(endRow, "[recorded end]") {
		t.Fatalf("the recorded run's end %s is not marked:\n%s", shortID(end), screen)
	}
	if replays != len(hist) { // the fork it starts with, and a checkpoint a recorded step
		t.Fatalf("%d rows marked [replay], want %d:\n%s", replays, len(hist), screen)
	}
}

// The debugger's replay (R) tags what it writes as superstep replay does,
// so its branch is marked [replay] too.
func TestModel_Replay_TagsItsBranch(t *testing.T) {
	saver := recorded(t)
	m := replayFromInput(t, chain(t, saver, 1), saver)
	m = press(t, m, "c")
	if m.view.Status != engine.StatusDone {
		t.Fatalf("status %v note %q err %v", m.view.Status, m.note, m.err)
	}
	list, err := saver.List(context.Background(), engine.Config{ThreadID: "rec"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tagged := 0
	for _, cp := range list {
		if from, ok := recording.ReplayOf(cp.Metadata); ok {
			tagged++
			if cp.Metadata.Source == engine.SourceInput || from == "" {
				t.Fatalf("checkpoint %s tagged as a replay of %q", cp.Checkpoint.ID, from)
			}
		}
	}
	if tagged == 0 || tagged >= len(list) {
		t.Fatalf("%d of %d checkpoints tagged as a replay's, want the replay's branch alone", tagged, len(list))
	}
	m = press(t, m, "t")
	if !strings.Contains(m.View(), "[replay]") || !strings.Contains(m.View(), "[recorded end]") {
		t.Fatalf("the tree does not mark the replay's branch and the recorded end:\n%s", m.View())
	}
}
