package engine_test

import (
	"context"
	"errors"
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

// A graph with a saver refuses a run without a thread, as LangGraph
// refuses a run with a checkpointer and no thread_id, and writes nothing;
// without a saver a run needs none.
func TestRunWithoutThread(t *testing.T) {
	ctx := context.Background()
	build := func(opts ...engine.CompileOption) *engine.Graph {
		g, err := engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("a", func(context.Context, any) (any, error) {
				return engine.Update{{Key: "log", Value: []any{"a"}}}, nil
			}).
			AddEdge(engine.Start, "a").
			Compile(opts...)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	saver := engine.NewMemorySaver()
	g := build(engine.WithSaver(saver))
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}); !errors.Is(err, engine.ErrNoThread) {
		t.Errorf("Invoke without a thread: %v, want ErrNoThread", err)
	}
	if _, err := g.Start(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread("")); !errors.Is(err, engine.ErrNoThread) {
		t.Errorf("Start on thread \"\": %v, want ErrNoThread", err)
	}
	for _, err := range g.Stream(ctx, map[string]any{"log": []any{"in"}}) {
		if !errors.Is(err, engine.ErrNoThread) {
			t.Errorf("Stream without a thread: %v, want ErrNoThread", err)
		}
		break
	}
	if tuples, err := saver.List(ctx, engine.Config{}, engine.ListOptions{}); err != nil || len(tuples) != 0 {
		t.Errorf("the refused runs stored %d checkpoints (%v), want none", len(tuples), err)
	}
	res, err := build().Invoke(ctx, map[string]any{"log": []any{"in"}})
	if err != nil || res.Status != engine.StatusDone {
		t.Errorf("a run without a saver or a thread: %v %v, want done", res.Status, err)
	}
}
