package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// A Send's argument is put in engine form by the check of its task's
// writes (the walk that measures it), not when the route returns it: a
// Send a task keeps without that check — made by a route before the
// superstep abandoned the task in its next route — is saved in engine
// form all the same (a Go int becomes a float64, as any write's).
func TestSendArgument_SavedInEngineFormWhenTheTaskIsAbandonedInALaterRoute(t *testing.T) {
	routing := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	b := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "work", Arg: map[string]any{"x": 1, "l": []any{int64(2)}}}}, nil
		}, "work").
		AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
			close(routing)
			<-release // ignores its context
			return engine.End, nil
		}, engine.End)
	saver := engine.NewMemorySaver()
	g := mustCompile(t, b, engine.WithSaver(saver))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := g.Invoke(cctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
		errc <- err
	}()
	<-routing
	cancel()
	if err := returnsPromptly(t, errc, "a route that ignores its context"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	tp, err := saver.GetTuple(ctx, engine.Config{ThreadID: "t"})
	if err != nil || tp == nil {
		t.Fatalf("GetTuple: %v %v", tp, err)
	}
	var sends []engine.Send
	for _, pw := range tp.PendingWrites {
		if s, ok := pw.Value.(engine.Send); ok && pw.Channel == engine.TasksChannel {
			sends = append(sends, s)
		}
	}
	if len(sends) != 1 {
		t.Fatalf("saved Sends = %v, want the first route's one", sends)
	}
	arg, _ := sends[0].Arg.(map[string]any)
	if x, ok := arg["x"].(float64); !ok || x != 1 {
		t.Errorf("saved x = %#v (%T), want float64 1", arg["x"], arg["x"])
	}
	if l, _ := arg["l"].([]any); len(l) != 1 || l[0] != float64(2) {
		t.Errorf("saved l = %#v, want [float64 2]", arg["l"])
	}
}

// A Send whose argument is in engine form is kept as the route returned
// it; one that is not reaches its task in engine form, whatever it holds
// (a Go int, an int64 in a list, an ordered object).
func TestSendArgument_ReachesItsTaskInEngineForm(t *testing.T) {
	b := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "log", Value: []any{in}}}, nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
			return []any{
				engine.Send{Node: "work", Arg: map[string]any{"x": 1.5}},
				engine.Send{Node: "work", Arg: map[string]any{"x": 1}},
				engine.Send{Node: "work", Arg: []any{int64(3), "s"}},
				engine.Send{Node: "work", Arg: &engine.OrderedMap{Keys: []string{"k"}, Values: map[string]any{"k": int32(4)}}},
			}, nil
		}, "work")
	res, err := mustCompile(t, b).Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	got := res.Values["log"].([]any)
	want := []any{
		map[string]any{"x": 1.5},
		map[string]any{"x": float64(1)},
		[]any{float64(3), "s"},
		map[string]any{"k": float64(4)},
	}
	if len(got) != len(want) {
		t.Fatalf("log = %#v", got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) { // types too: 1 is not float64(1)
			t.Errorf("log[%d] = %#v, want %#v", i, got[i], want[i])
		}
	}
}

// A run that travels to the thread's head, an update checkpoint (no
// fork: LangGraph.js loop.ts:1454-1469), saves against that checkpoint,
// where an earlier run of the same graph saved writes by reference in the
// same MemorySaver: the writes saved there read back as the first run
// left them, but for the interrupt saved again, for a superstep of one
// other task and of many (a save against a checkpoint the run did not put
// is never fresh: memSaveHint).
func TestTravelToHead_SavesAgainstItKeepEachKeysFirstWrite(t *testing.T) {
	for _, sends := range []int{2, 12} {
		t.Run(fmt.Sprint("sends=", sends), func(t *testing.T) {
			var run atomic.Int32
			b := engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
				AddNode("work", func(ctx context.Context, in any) (any, error) {
					if in == 0.0 {
						if _, err := engine.Interrupt(ctx, "stop"); err != nil {
							return nil, err
						}
					}
					return engine.Update{{Key: "log", Value: []any{fmt.Sprint(in, "/", run.Load())}}}, nil
				}).
				AddEdge(engine.Start, "split").
				AddConditionalEdges("split", func(context.Context, map[string]any) (any, error) {
					out := make([]any, sends)
					for i := range out {
						out[i] = engine.Send{Node: "work", Arg: float64(i)}
					}
					return out, nil
				}, "work")
			saver := engine.NewMemorySaver()
			g := mustCompile(t, b, engine.WithSaver(saver))
			if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread("t"), engine.BreakBefore("split")); err != nil {
				t.Fatal(err)
			}
			up, err := g.UpdateState(ctx, engine.Config{ThreadID: "t"}, nil, "split")
			if err != nil {
				t.Fatal(err)
			}
			run.Store(1)
			if res, err := g.Invoke(ctx, nil, engine.OnThread("t")); err != nil || res.Status != engine.StatusInterrupted {
				t.Fatalf("first run from the update: %v %v", res, err)
			}
			first := savedLog(t, saver, up.CheckpointID)
			run.Store(2)
			if res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.FromCheckpoint(up.CheckpointID)); err != nil || res.Status != engine.StatusInterrupted {
				t.Fatalf("travel to the head: %v %v", res, err)
			}
			again := savedLog(t, saver, up.CheckpointID)
			if len(first) != sends-1 || !reflect.DeepEqual(again, first) {
				t.Errorf("log writes against the update checkpoint: %v, want the first run's %v", again, first)
			}
		})
	}
}

// savedLog lists the log writes saved against checkpoint id, by task.
func savedLog(t *testing.T, saver *engine.MemorySaver, id string) map[string][]any {
	t.Helper()
	tp, err := saver.GetTuple(ctx, engine.Config{ThreadID: "t", CheckpointID: id})
	if err != nil || tp == nil {
		t.Fatalf("GetTuple: %v %v", tp, err)
	}
	out := map[string][]any{}
	for _, pw := range tp.PendingWrites {
		if pw.Channel == "log" {
			out[pw.TaskID] = append(out[pw.TaskID], pw.Value)
		}
	}
	return out
}
