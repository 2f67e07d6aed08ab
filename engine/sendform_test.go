package engine_test

import (
	"context"
	"errors"
	"reflect"
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
	res, err := mustCompile(t, b).Invoke(ctx, map[string]any{"log": []any{}})
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
