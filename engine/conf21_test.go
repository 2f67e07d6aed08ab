package engine_test

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/superstep/superstep/engine"
)

// Two Send tasks of a cached node whose inputs give one key: LangGraph.js
// looks the key up once per task but maps it to the last such task only,
// so both hits land on that task (its writes are the cached ones twice,
// streamed once per hit) and the first task runs (loop.ts:911-950; 1.7.3
// dist loop.js:583-608, index.js:1320).
func TestCachePolicy_EqualKeysMatchTheLastTask(t *testing.T) {
	var runs atomic.Int64
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("w", func(_ context.Context, in any) (any, error) {
			runs.Add(1)
			return map[string]any{"log": []any{in.(map[string]any)["x"]}}, nil
		}, engine.WithCachePolicy(engine.CachePolicy{Key: func(any) (string, error) { return "one", nil }})).
		AddEdge(engine.Start, "fan").
		AddConditionalEdges("fan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "w", Arg: map[string]any{"x": "a"}}, engine.Send{Node: "w", Arg: map[string]any{"x": "b"}}}, nil
		}, "w"),
		engine.WithSaver(engine.NewMemorySaver()), engine.WithCache(engine.NewMemoryCache()))
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("first"))
	if err != nil || runs.Load() != 2 || !reflect.DeepEqual(res.Values["log"], []any{"a", "b"}) {
		t.Fatalf("first run: %v %v, %d runs: an empty cache runs both", res, err, runs.Load())
	}
	// The entry holds the writes of the task that finished last; order
	// the second run's check on what it holds, not on which finished last.
	var cachedUpdates int
	res, err = g.Invoke(ctx, map[string]any{}, engine.OnThread("second"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventCached {
			cachedUpdates++
			if e.Node != "w" || len(e.Writes) != 2 {
				t.Errorf("cached event %+v: want w with the cached write twice", e)
			}
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	log, _ := res.Values["log"].([]any)
	if runs.Load() != 3 || len(log) != 3 || cachedUpdates != 2 {
		t.Fatalf("second run: log %v, %d runs, %d cached events: want the first Send run, the second given the cached writes twice, streamed per hit", log, runs.Load(), cachedUpdates)
	}
	if log[0] != "a" || log[1] != log[2] {
		t.Fatalf("log %v: the first Send task runs (a), the last takes the one cached write twice", log)
	}
}

// A snapshot task that wrote one key twice shows {"$writes": [v1, v2]} for
// it, LangGraph.js's task result (pregel/debug.ts mapTaskResultWrites).
func TestSnapshotTask_KeyWrittenTwiceShowsWrites(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log"), engine.LastValueKey("v")).
		AddNode("twice", func(context.Context, any) (any, error) {
			return engine.Update{{Key: "log", Value: []any{"a"}}, {Key: "v", Value: 1.0}, {Key: "log", Value: []any{"b"}}, {Key: "log", Value: []any{"c"}}}, nil
		}).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			_, err := engine.Interrupt(ctx, "ok?")
			return nil, err
		}).
		AddEdge(engine.Start, "twice").AddEdge(engine.Start, "ask"),
		engine.WithSaver(engine.NewMemorySaver()))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"log": map[string]any{"$writes": []any{[]any{"a"}, []any{"b"}, []any{"c"}}}, "v": 1.0}
	for _, task := range snap.Tasks {
		if task.Name == "twice" {
			if !reflect.DeepEqual(task.Result, want) {
				t.Fatalf("result %v, want %v", task.Result, want)
			}
			if !reflect.DeepEqual(snap.Values["log"], []any{"a", "b", "c"}) {
				t.Fatalf("values %v: all three writes apply", snap.Values)
			}
			return
		}
	}
	t.Fatalf("no task twice in %+v", snap.Tasks)
}

// An inner node that answered an interrupt and then returns a Command for
// the parent saves its answer, and that save streams {node: {}} in the
// subgraph's updates (1.7.3 dist runner.js:200 putWrites → loop.js:554
// _outputWrites).
func TestParentCommand_AfterResumeStreamsEmptyUpdate(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("up", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.Interrupt(ctx, "go?"); err != nil {
				return nil, err
			}
			return engine.Command{Update: map[string]any{"log": []any{"up"}}, Goto: []any{"after"}, Graph: engine.Parent}, nil
		}).AddEdge(engine.Start, "up"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub, engine.WithEnds("after")).
		AddNode("after", appendLog("after")).
		AddEdge(engine.Start, "sub"),
		engine.WithSaver(engine.NewMemorySaver()))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	var inner []any
	for p, err := range g.StreamModes(ctx, engine.Command{Resume: "yes"}, []engine.StreamMode{engine.StreamUpdates}, engine.WithSubgraphs(), engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Namespace != nil {
			inner = append(inner, p.Data)
		}
	}
	want := []any{engine.UpdatesChunk{"up": map[string]any{}}}
	if !reflect.DeepEqual(inner, want) {
		t.Fatalf("subgraph updates %#v, want %#v", inner, want)
	}
}

// A resumed superstep streams, in tasks mode, the start of every task —
// the ones whose saved writes are reused too — after the cached updates of
// those saved writes (1.7.3 dist loop.js:705-709: _outputCachedWrites,
// then mapDebugTasks(taskList)).
func TestStreamModes_ResumedSuperstepStartsEveryTaskAfterCachedUpdates(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("done", appendLog("done")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "ok?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{v}}, nil
		}).
		AddEdge(engine.Start, "done").AddEdge(engine.Start, "ask"),
		engine.WithSaver(engine.NewMemorySaver()))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, err := range g.StreamModes(ctx, engine.Command{Resume: "yes"}, []engine.StreamMode{engine.StreamUpdates, engine.StreamTasks}, engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		switch d := p.Data.(type) {
		case engine.UpdatesChunk:
			for k := range d {
				if k != "__metadata__" {
					got = append(got, "update "+k)
				}
			}
		case engine.TaskChunk:
			got = append(got, "start "+d.Name)
		case engine.TaskResultChunk:
			got = append(got, "result "+d.Name)
		}
	}
	want := []string{"update done", "start ask", "start done", "update ask", "result ask"}
	if len(got) == 5 && got[1] == "start done" { // the two starts in planning order, whichever is first
		want[1], want[2] = "start done", "start ask"
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stream %v, want %v", got, want)
	}
}

// An inner task whose Command for the parent is saved as an error streams
// a failed task result (1.7.3 dist runner.js:200-206 → loop.js:554
// _outputWrites: an __error__ write is a task result with its error).
func TestParentCommand_SavedAsErrorStreamsFailedTaskResult(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("up", func(context.Context, any) (any, error) {
			return engine.Command{Update: map[string]any{"log": []any{"up"}}, Graph: engine.Parent}, nil
		}).AddEdge(engine.Start, "up"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).AddEdge(engine.Start, "sub"))
	var inner []engine.TaskResultChunk
	for p, err := range g.StreamModes(ctx, map[string]any{}, []engine.StreamMode{engine.StreamTasks}, engine.WithSubgraphs(), engine.OnThread("t")) {
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := p.Data.(engine.TaskResultChunk); ok && p.Namespace != nil {
			inner = append(inner, r)
		}
	}
	if len(inner) != 1 || inner[0].Name != "up" || inner[0].Error == "" || len(inner[0].Result) != 0 {
		t.Fatalf("subgraph task results %+v: want up's, failed, with no result", inner)
	}
}
