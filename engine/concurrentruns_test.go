package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestConcurrentRunsOnOneThread pins what the package doc says of two runs
// started on one thread at once, as LangGraph does it: nothing refuses the
// second; both resume the one interrupt from the checkpoint that was
// latest when they began, both run the interrupted node, and each writes
// its own branch from that checkpoint.
func TestConcurrentRunsOnOneThread(t *testing.T) {
	ctx := context.Background()
	saver := engine.NewMemorySaver()
	var (
		mu      sync.Mutex
		answers []any
	)
	both := sync.WaitGroup{}
	both.Add(2)
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			answer, err := engine.Interrupt(ctx, "approve?")
			if err != nil {
				return nil, err
			}
			mu.Lock()
			answers = append(answers, answer)
			mu.Unlock()
			both.Done()
			both.Wait() // neither run writes before both have run the node
			return engine.Update{{Key: "log", Value: []any{answer}}}, nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(saver))
	if err != nil {
		t.Fatal(err)
	}
	thread := engine.Config{ThreadID: "t"}
	res, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("first run: %v %v, want interrupted", res.Status, err)
	}
	asked, err := g.GetState(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}
	var runs sync.WaitGroup
	for _, answer := range []string{"yes", "no"} {
		runs.Go(func() {
			res, err := g.Invoke(ctx, engine.Command{Resume: answer}, engine.OnThread("t"))
			if err != nil || res.Status != engine.StatusDone {
				t.Errorf("resume %q: %v %v, want done", answer, res.Status, err)
			}
		})
	}
	runs.Wait()
	if len(answers) != 2 {
		t.Fatalf("the interrupted node took %v, want both answers", answers)
	}
	history, err := g.History(ctx, thread, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var children []string
	for _, snap := range history {
		if snap.ParentID == asked.Config.CheckpointID {
			children = append(children, snap.Config.CheckpointID)
		}
	}
	if len(children) != 2 {
		t.Errorf("checkpoints written from the interrupted one: %v, want one branch per run", children)
	}
	latest, err := g.GetState(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}
	if log := latest.Values["log"].([]any); len(log) != 2 {
		t.Errorf("latest state's log %v, want the input and one run's answer", log)
	}
}
