package engine

import (
	"context"
	"testing"
	"time"
)

// TestTimeIDs_AfterACheckpointFromAClockAhead: a thread made on a machine
// whose clock is ahead, continued on one whose clock is behind (two
// machines of a service sharing a PostgreSQL store, or a laptop forking a
// thread pulled from a server), gets checkpoints whose ids sort after
// the ones they continue, so the thread's latest (greatest id) is the
// newest: before, the run's checkpoints sorted first, the thread still
// read as waiting before b, and the next run ran b again. An update
// (a fork) is ordered the same way.
func TestTimeIDs_AfterACheckpointFromAClockAhead(t *testing.T) {
	ctx := context.Background()
	ms := NewMemorySaver()
	build := func(skew time.Duration) *Graph {
		g, err := NewStateGraph(LastValueKey("n")).
			AddNode("a", func(context.Context, any) (any, error) { return map[string]any{"n": 1.0}, nil }).
			AddNode("b", func(context.Context, any) (any, error) { return map[string]any{"n": 2.0}, nil }).
			AddEdge(Start, "a").AddEdge("a", "b").
			Compile(WithSaver(ms), WithInterruptBefore("b"),
				WithIDs(NewTimeIDs(func() time.Time { return time.Now().Add(skew) })))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	on := OnThread("t")
	if _, err := build(time.Hour).Invoke(ctx, map[string]any{"n": 0.0}, on); err != nil {
		t.Fatal(err)
	}
	behind := build(0)
	if res, err := behind.Invoke(ctx, nil, on); err != nil || res.Status != StatusDone {
		t.Fatalf("resume: %v %v", res.Status, err)
	}
	latest, err := ms.GetTuple(ctx, Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if latest.Metadata.Step != 2 || latest.Checkpoint.ChannelValues["n"] != 2.0 {
		t.Fatalf("latest checkpoint: step %d, n %v; want the resumed run's last, step 2 with n 2", latest.Metadata.Step, latest.Checkpoint.ChannelValues["n"])
	}
	cfg, err := build(0).UpdateState(ctx, Config{ThreadID: "t"}, map[string]any{"n": 5.0}, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CheckpointID <= latest.Checkpoint.ID {
		t.Errorf("the update's id %s sorts before its parent's %s", cfg.CheckpointID, latest.Checkpoint.ID)
	}
}

func TestIDTime(t *testing.T) {
	for _, c := range []struct {
		id string
		hi uint64
		ok bool
	}{
		{idFrom(0x18ed7f3bc0a1e9d5, 7), 0x18ed7f3bc0a1e9d5, true},
		{"18ED7F3B-C0A1-E9D5-0000-000000000007", 0x18ed7f3bc0a1e9d5, true},
		{"1ef4f797-8335-6428-8001-8a1503f9b875", 0x1ef4f79783356428, true}, // LangGraph's uuid6
		{"18ed7f3bc0a1e9d5", 0, false},
		{"18ed7f3b-c0a1-e9d5-0000-00000000000", 0, false},
		{"18ed7f3b_c0a1-e9d5-0000-000000000007", 0, false},
		{"18ed7f3b-c0a1-e9dg-0000-000000000007", 0, false},
		{"", 0, false},
	} {
		if hi, ok := idTime(c.id); hi != c.hi || ok != c.ok {
			t.Errorf("idTime(%q) = %x, %v; want %x, %v", c.id, hi, ok, c.hi, c.ok)
		}
	}
}
