package engine

import (
	"context"
	"testing"
	"time"
)

// TestCurrentTask_AndWithMetadata: node code sees its own task (id, node,
// step, thread, its namespace), the id being the one the thread's history
// shows for that task; every checkpoint the run writes carries
// WithMetadata's tags; outside a node there is no current task.
func TestCurrentTask_AndWithMetadata(t *testing.T) {
	var seen []TaskInfo
	g, err := NewStateGraph(LastValueKey("n")).
		AddNode("a", func(ctx context.Context, _ any) (any, error) {
			info, ok := CurrentTask(ctx)
			if !ok {
				t.Error("CurrentTask in a node: not found")
			}
			seen = append(seen, info)
			return Update{{Key: "n", Value: 1.0}}, nil
		}).
		AddEdge(Start, "a").AddEdge("a", End).
		Compile(WithSaver(NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok := CurrentTask(ctx); ok {
		t.Fatal("CurrentTask outside a node: found")
	}
	if _, err := g.Invoke(ctx, map[string]any{"n": 0.0}, OnThread("t1"), WithMetadata(map[string]any{"release": "v2", "replay": 3.0})); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("node ran %d times, want 1", len(seen))
	}
	got := seen[0]
	// The task's own namespace, node:id, as LangGraph's checkpoint_ns in
	// a task's config.
	if got.Node != "a" || got.Step != 1 || got.ThreadID != "t1" || got.ID == "" || got.Namespace != "a:"+got.ID {
		t.Fatalf("CurrentTask = %+v, want node a, step 1, thread t1, an id, namespace a:<id>", got)
	}
	hist, err := g.History(ctx, Config{ThreadID: "t1"}, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, snap := range hist {
		if snap.Metadata.Extra["release"] != "v2" || snap.Metadata.Extra["replay"] != 3.0 {
			t.Errorf("checkpoint at step %d: metadata %v, want the run's tags", snap.Metadata.Step, snap.Metadata.Extra)
		}
		for _, task := range snap.Tasks {
			if task.Name == "a" {
				found = true
				if task.ID != got.ID {
					t.Errorf("history's task id %q, CurrentTask's %q", task.ID, got.ID)
				}
			}
		}
	}
	if !found {
		t.Fatal("no snapshot in the history lists task a")
	}
}

// TestDefaultRetryPolicy_IsLangGraphs pins LangGraph's defaults
// (langgraph-core retry.ts: 3 attempts, 500 ms doubling up to 128 s, with
// jitter).
func TestDefaultRetryPolicy_IsLangGraphs(t *testing.T) {
	p := DefaultRetryPolicy()
	if p.MaxAttempts != 3 || p.InitialInterval != 500*time.Millisecond ||
		p.BackoffFactor != 2 || p.MaxInterval != 128*time.Second || !p.Jitter {
		t.Fatalf("DefaultRetryPolicy() = %+v", p)
	}
}
