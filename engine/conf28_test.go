package engine_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
)

// parentUpdater is a subgraph whose one node sends an update to the parent
// graph (Command.PARENT).
func parentUpdater(t *testing.T, opts ...engine.CompileOption) *engine.Graph {
	return mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("up", func(context.Context, any) (any, error) {
			return engine.Command{Update: map[string]any{"log": []any{"up"}}, Graph: engine.Parent}, nil
		}).AddEdge(engine.Start, "up"), opts...)
}

// A Command.PARENT is addressed to the namespace of the graph its node ran
// in, and a task takes only one addressed to its own namespace
// (LangGraph.js pregel/retry.ts:129-146). A stateful subgraph runs in the
// namespace without task ids (index.ts:2313-2319), so the task running it
// never takes its Command: in the root graph the bubble-up is dropped (the
// tick raises it only when nested, runner.ts:204) and the superstep ends
// with the task's error saved; beside an interrupt seen first it counts as
// a node error and fails the run (runner.ts:156-171). A subgraph that is
// not stateful has its Command taken.
func TestParentCommand_FromStatefulSubgraphIsNotTaken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stateful bool
		invoke   bool
		want     []any
	}{
		{"subgraph node", false, false, []any{"a", "up"}},
		{"stateful subgraph node", true, false, []any{"a"}},
		{"invoking node", false, true, []any{"a", "up"}},
		{"stateful invoked", true, true, []any{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var copts []engine.CompileOption
			if tc.stateful {
				copts = append(copts, engine.AsStatefulSubgraph())
			}
			sub := parentUpdater(t, copts...)
			b := engine.NewStateGraph(engine.AppendKey("log")).AddNode("a", appendLog("a"))
			if tc.invoke {
				b.AddNode("S", func(ctx context.Context, in any) (any, error) {
					_, err := engine.InvokeSubgraph(ctx, sub, in)
					return nil, err
				}, engine.UsesSubgraph("sub", sub))
			} else {
				b.AddSubgraph("S", sub)
			}
			g := mustCompile(t, b.AddEdge(engine.Start, "a").AddEdge("a", "S"), engine.WithSaver(engine.NewMemorySaver()))
			res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
			if err != nil {
				t.Fatalf("run failed: %v", err)
			}
			if got := res.Values["log"]; !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("log %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("after an interrupt", func(t *testing.T) {
		sub := parentUpdater(t, engine.AsStatefulSubgraph())
		asked := make(chan struct{})
		g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
			AddNode("ask", func(ctx context.Context, _ any) (any, error) {
				_, err := engine.Interrupt(ctx, "ok?")
				return nil, err
			}).
			AddNode("S", func(ctx context.Context, in any) (any, error) {
				<-asked // the runner has taken ask's interrupt
				_, err := engine.InvokeSubgraph(ctx, sub, in)
				return nil, err
			}, engine.UsesSubgraph("sub", sub)).
			AddEdge(engine.Start, "ask").AddEdge(engine.Start, "S"),
			engine.WithSaver(engine.NewMemorySaver()))
		// Events arrive on the run's goroutine as it takes each result, so
		// closing asked on ask's result orders the two results; closing it
		// inside ask would let S's result be taken first.
		_, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
			if e.Kind == engine.EventTaskResult && e.Node == "ask" {
				close(asked)
			}
		}))
		var pc *engine.ParentCommandError
		if !errors.As(err, &pc) {
			t.Fatalf("run ended with %v, want the untaken ParentCommand as its error", err)
		}
	})
}

// The state of a planned task of a node that declares a subgraph
// (UsesSubgraph) and has not run is the empty snapshot, as a subgraph
// node's: LangGraph.js reads the state of every planned task whose node
// has subgraphs, declared ones included (pregel/index.ts:940-975).
func TestGetState_DeclaredSubgraphNotStartedIsEmptySnapshot(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("s", appendLog("s")).AddEdge(engine.Start, "s"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("S", func(ctx context.Context, in any) (any, error) {
			return engine.InvokeSubgraph(ctx, sub, in)
		}, engine.UsesSubgraph("sub", sub)).
		AddEdge(engine.Start, "S"),
		engine.WithSaver(engine.NewMemorySaver()), engine.WithInterruptBefore("S"))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"}, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Tasks) != 1 || snap.Tasks[0].State == nil {
		t.Fatalf("tasks %+v: want S with a state", snap.Tasks)
	}
	if st := snap.Tasks[0].State; len(st.Values) != 0 || len(st.Next) != 0 || len(st.Tasks) != 0 {
		t.Fatalf("state %+v: want the empty snapshot", st)
	}
}

// sendTo is a node that routes by a Command goto with one Send.
func sendTo(node string) engine.NodeFunc {
	return func(context.Context, any) (any, error) {
		return engine.Command{Update: map[string]any{"log": []any{"fan"}}, Goto: []any{engine.Send{Node: node, Arg: map[string]any{"log": []any{"x"}}}}}, nil
	}
}

// A cached task's Send comes back from the cache in its stored form, the
// plain {node, args} object: LangGraph.js's InMemoryCache keeps writes
// serialized (checkpoint cache/memory.ts:50) and a Send serializes so
// (serde/jsonplus.ts:213). The packet still runs its task.
func TestCachePolicy_CachedSendIsInStoredForm(t *testing.T) {
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", sendTo("w"), engine.WithCachePolicy(engine.CachePolicy{}), engine.WithEnds("w")).
		AddNode("w", appendLog("w")).
		AddEdge(engine.Start, "fan"),
		engine.WithSaver(engine.NewMemorySaver()), engine.WithCache(engine.NewMemoryCache()))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("first")); err != nil {
		t.Fatal(err)
	}
	var cached []engine.Write
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("second"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventCached {
			cached = e.Writes
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"node": "w", "args": map[string]any{"log": []any{"x"}}}
	var packet any
	for _, w := range cached {
		if w.Channel == engine.TasksChannel {
			packet = w.Value
		}
	}
	if !reflect.DeepEqual(packet, want) {
		t.Fatalf("cached packet %#v, want the stored form %v", packet, want)
	}
	if got := res.Values["log"]; !reflect.DeepEqual(got, []any{"fan", "w"}) {
		t.Fatalf("log %v: the cached packet runs w", got)
	}
}

// update_state as __end__ applies the pending tasks' saved writes as read
// back from the saver: a Send among them is in its stored form, as
// LangGraph.js's checkpointer gives it back (serde/jsonplus.ts:213), so
// the update checkpoint holds the plain {node, args} packet.
func TestUpdateState_AsClearAppliesSavedSendInStoredForm(t *testing.T) {
	saver := engine.NewMemorySaver()
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("fan", sendTo("w"), engine.WithEnds("w")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			_, err := engine.Interrupt(ctx, "ok?")
			return nil, err
		}).
		AddNode("w", appendLog("w")).
		AddEdge(engine.Start, "fan").AddEdge(engine.Start, "ask"),
		engine.WithSaver(saver))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	cfg, err := g.UpdateState(ctx, engine.Config{ThreadID: "t"}, nil, engine.AsClear)
	if err != nil {
		t.Fatal(err)
	}
	tup, err := saver.GetTuple(ctx, cfg)
	if err != nil || tup == nil {
		t.Fatalf("GetTuple: %v", err)
	}
	want := []any{map[string]any{"node": "w", "args": map[string]any{"log": []any{"x"}}}}
	if got := tup.Checkpoint.ChannelValues[engine.TasksChannel]; !reflect.DeepEqual(got, want) {
		t.Fatalf("update checkpoint's packets %#v, want the stored form %v", got, want)
	}
}
