package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// subgraphWithInterrupt builds parent(start → child → after) where child runs
// inner(a → ask), ask calling Interrupt.
func subgraphWithInterrupt(t *testing.T, subOpts ...engine.CompileOption) *engine.Graph {
	t.Helper()
	appendLog := func(s string) engine.NodeFunc {
		return func(context.Context, any) (any, error) { return map[string]any{"log": []any{s}}, nil }
	}
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", appendLog("a")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "question")
			if err != nil {
				return nil, err
			}
			return map[string]any{"log": []any{"ask:" + v.(string)}}, nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "ask"), subOpts...)
	return mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("child", sub).
		AddNode("after", appendLog("after")).
		AddEdge(engine.Start, "child").AddEdge("child", "after"))
}

// LangGraph Python tests/test_pregel.py test_nested_graph_state (get_state
// with subgraphs=True; get_state and get_state_history for a subgraph's
// checkpoint_ns): the parent's snapshot task carries the subgraph's own
// state, and the subgraph's namespace is read with the subgraph's channels.
func TestGetState_SubgraphState(t *testing.T) {
	g := subgraphWithInterrupt(t)
	thread := engine.Config{ThreadID: "sub-state"}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread(thread.ThreadID)); err != nil {
		t.Fatal(err)
	}
	plain, err := g.GetState(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Tasks) != 1 || plain.Tasks[0].State != nil || !strings.HasPrefix(plain.Tasks[0].Subgraph, "child:") {
		t.Fatalf("without the option: namespace only, got %+v", plain.Tasks)
	}
	snap, err := g.GetState(ctx, thread, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	sub := snap.Tasks[0].State
	if sub == nil {
		t.Fatal("the child task carries no subgraph state")
	}
	if !reflect.DeepEqual(sub.Values["log"], []any{"in", "a"}) || !reflect.DeepEqual(sub.Next, []string{"ask"}) {
		t.Fatalf("subgraph state: values %v next %v", sub.Values, sub.Next)
	}
	if sub.Config.CheckpointNS != snap.Tasks[0].Subgraph || len(sub.Interrupts()) != 1 {
		t.Fatalf("subgraph snapshot: ns %q interrupts %v", sub.Config.CheckpointNS, sub.Interrupts())
	}

	// The subgraph's namespace, read through the parent graph.
	direct, err := g.GetState(ctx, engine.Config{ThreadID: thread.ThreadID, CheckpointNS: snap.Tasks[0].Subgraph})
	if err != nil || !reflect.DeepEqual(direct.Values, sub.Values) || !reflect.DeepEqual(direct.Next, sub.Next) {
		t.Fatalf("GetState of the namespace: %+v, %v", direct, err)
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: thread.ThreadID, CheckpointNS: snap.Tasks[0].Subgraph}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nexts [][]string
	for _, h := range hist {
		nexts = append(nexts, h.Next)
	}
	// input (next start) → loop step 0 (next a) → step 1 (next ask), newest first.
	if want := [][]string{{"ask"}, {"a"}, {engine.Start}}; !reflect.DeepEqual(nexts, want) {
		t.Fatalf("subgraph history nexts %v, want %v", nexts, want)
	}

	if _, err := g.GetState(ctx, engine.Config{ThreadID: thread.ThreadID, CheckpointNS: "nope:1"}); !errors.Is(err, engine.ErrUnknownSubgraph) {
		t.Fatalf("unknown namespace: %v", err)
	}

	// Resumed to the end: the parent has no tasks left, so no subgraph state.
	res, err := g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread(thread.ThreadID))
	if err != nil || !reflect.DeepEqual(res.Values["log"], []any{"in", "in", "a", "ask:yes", "after"}) {
		t.Fatalf("resumed: %v, %v", res.Values, err)
	}
	done, _ := g.GetState(ctx, thread, engine.WithSubgraphState())
	if len(done.Tasks) != 0 {
		t.Fatalf("finished: %+v", done.Tasks)
	}
}

// A subgraph compiled with its own interrupt_before / interrupt_after stops
// the parent run there, and a resume with no input continues the subgraph
// from its breakpoint (LangGraph.js tests/pregel.test.ts "nested graph
// interrupts" with interruptBefore on the subgraph; the breakpoint is the
// subgraph loop's own, pregel/loop.ts tick → shouldInterrupt with the
// subgraph's interruptBefore/After).
func TestSubgraph_OwnBreakpoints(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  engine.CompileOption
		next []string // the subgraph's next tasks at the breakpoint
	}{
		{"before", engine.WithInterruptBefore("b"), []string{"b"}},
		{"after", engine.WithInterruptAfter("a"), []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			appendLog := func(s string) engine.NodeFunc {
				return func(context.Context, any) (any, error) { return map[string]any{"log": []any{s}}, nil }
			}
			sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddNode("a", appendLog("a")).AddNode("b", appendLog("b")).
				AddEdge(engine.Start, "a").AddEdge("a", "b"), tc.opt)
			g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
				AddSubgraph("child", sub).AddNode("after", appendLog("after")).
				AddEdge(engine.Start, "child").AddEdge("child", "after"))
			thread := "bp-" + tc.name
			res, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread(thread))
			if err != nil || res.Status != engine.StatusInterrupted {
				t.Fatalf("first run: %v, %v", res, err)
			}
			snap, err := g.GetState(ctx, engine.Config{ThreadID: thread}, engine.WithSubgraphState())
			if err != nil || !reflect.DeepEqual(snap.Next, []string{"child"}) || snap.Tasks[0].State == nil {
				t.Fatalf("parent at the breakpoint: %+v, %v", snap, err)
			}
			if st := snap.Tasks[0].State; !reflect.DeepEqual(st.Next, tc.next) || !reflect.DeepEqual(st.Values["log"], []any{"in", "a"}) {
				t.Fatalf("subgraph at the breakpoint: next %v values %v", st.Next, st.Values)
			}
			res, err = g.Invoke(ctx, nil, engine.OnThread(thread))
			if err != nil || res.Status == engine.StatusInterrupted || !reflect.DeepEqual(res.Values["log"], []any{"in", "in", "a", "b", "after"}) {
				t.Fatalf("resumed: %v, %v", res.Values, err)
			}
		})
	}
}

// A subgraph with its own state schema: it reads the parent's keys it shares
// by name, keeps its private keys to itself, and the parent takes back only
// the keys it has (LangGraph Python graph/state.py:1462 _get_updates keeps a
// node's output keys the parent has; JS graph/state.ts the same; Python
// the subgraphs how-to "different state schemas": a subgraph sharing
// one key with its parent).
func TestSubgraph_OwnSchema(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("question"), engine.LastValueKey("draft"), engine.LastValueKey("answer")).
		AddNode("write", func(_ context.Context, in any) (any, error) {
			m := in.(map[string]any)
			if _, ok := m["log"]; ok {
				return nil, errors.New("the parent's private key reached the subgraph")
			}
			return map[string]any{"draft": "draft of " + m["question"].(string)}, nil
		}).
		AddNode("reply", func(_ context.Context, in any) (any, error) {
			return map[string]any{"answer": "answer from " + in.(map[string]any)["draft"].(string)}, nil
		}).
		AddEdge(engine.Start, "write").AddEdge("write", "reply"))
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("question"), engine.LastValueKey("answer"), engine.AppendKey("log")).
		AddNode("ask", func(context.Context, any) (any, error) {
			return map[string]any{"question": "why", "log": []any{"ask"}}, nil
		}).
		AddSubgraph("child", sub).
		AddEdge(engine.Start, "ask").AddEdge("ask", "child"))
	res, err := g.Invoke(ctx, map[string]any{"log": []any{"in"}}, engine.OnThread("schema"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"question": "why", "answer": "answer from draft of why", "log": []any{"in", "ask"}}
	if !reflect.DeepEqual(res.Values, want) {
		t.Fatalf("got %v, want %v", res.Values, want)
	}
}

// A subgraph invoked from inside a node function runs in the node's task
// namespace: its interrupt stops the parent, and on resume the node runs
// again and the call continues the subgraph from its checkpoint instead of
// starting over (LangGraph Python tests/test_pregel.py
// test_nested_graph_interrupts_parallel / the subgraphs how-to "invoke a
// graph from a node"; the child reads the task's checkpoint_ns from config).
func TestInvokeSubgraph_FromNode(t *testing.T) {
	var innerRuns int
	sub := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("text")).
		AddNode("draft", func(_ context.Context, in any) (any, error) {
			innerRuns++
			return map[string]any{"text": in.(map[string]any)["text"].(string) + "+draft"}, nil
		}).
		AddNode("ask", func(ctx context.Context, in any) (any, error) {
			v, err := engine.Interrupt(ctx, "approve?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"text": in.(map[string]any)["text"].(string) + "+" + v.(string)}, nil
		}).
		AddEdge(engine.Start, "draft").AddEdge("draft", "ask"))
	var calls int
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("topic"), engine.LastValueKey("result")).
		AddNode("call", func(ctx context.Context, in any) (any, error) {
			calls++
			out, err := engine.InvokeSubgraph(ctx, sub, map[string]any{"text": in.(map[string]any)["topic"]})
			if err != nil {
				return nil, err
			}
			return map[string]any{"result": out["text"]}, nil
		}).
		AddEdge(engine.Start, "call"))
	res, err := g.Invoke(ctx, map[string]any{"topic": "go"}, engine.OnThread("from-node"))
	if err != nil || res.Status != engine.StatusInterrupted || len(res.Interrupts) != 1 || res.Interrupts[0].Value != "approve?" {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	res, err = g.Invoke(ctx, engine.Command{Resume: "ok"}, engine.OnThread("from-node"))
	if err != nil || res.Values["result"] != "go+draft+ok" {
		t.Fatalf("resumed: %v, %v", res.Values, err)
	}
	if calls != 2 || innerRuns != 1 {
		t.Fatalf("the node runs again (%d calls), the subgraph resumes without redoing draft (%d runs)", calls, innerRuns)
	}
	if _, err := engine.InvokeSubgraph(ctx, sub, map[string]any{}); !errors.Is(err, engine.ErrOutsideNode) {
		t.Fatalf("outside a node: %v", err)
	}
}

// A Command.PARENT from a graph a node invoked itself reaches the calling
// task: its update is the node's update and its goto routes the parent
// (LangGraph.js pregel/retry.ts:129-139; the subgraphs how-to "navigate to
// a node in a parent graph" with a subgraph called from a node function).
func TestInvokeSubgraph_ParentCommand(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("text")).
		AddNode("decide", func(_ context.Context, in any) (any, error) {
			return engine.Command{Graph: engine.Parent, Update: map[string]any{"log": []any{"from child"}}, Goto: []any{"after"}}, nil
		}).
		AddNode("never", func(_ context.Context, in any) (any, error) {
			t.Error("the child's own edge must not run after a Command.PARENT")
			return nil, nil
		}).
		AddEdge(engine.Start, "decide").AddEdge("decide", "never"))
	var afterRuns int
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("call", func(ctx context.Context, in any) (any, error) {
			if _, err := engine.InvokeSubgraph(ctx, sub, map[string]any{"text": "x"}); err != nil {
				return nil, err
			}
			t.Error("InvokeSubgraph returned normally after a Command.PARENT")
			return nil, nil
		}, engine.WithEnds("after")).
		AddNode("after", func(_ context.Context, in any) (any, error) {
			afterRuns++
			return map[string]any{"log": []any{"after"}}, nil
		}).
		AddEdge(engine.Start, "call"))
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("invoke-parent"))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[from child after]" || afterRuns != 1 {
		t.Fatalf("log %s, after ran %d times", got, afterRuns)
	}
	// From the root graph's node the Command has no parent to go to.
	root := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("n", func(_ context.Context, in any) (any, error) {
			return engine.Command{Graph: engine.Parent, Update: map[string]any{"log": []any{"x"}}}, nil
		}).AddEdge(engine.Start, "n"))
	if _, err := root.Invoke(ctx, map[string]any{}); err == nil {
		t.Fatal("a Command.PARENT from the root graph must fail")
	}
}

// Time travel into a subgraph: update_state with the config of a subgraph's
// checkpoint writes an update checkpoint in the subgraph's namespace, with
// the subgraph's channels and nodes, and the parent's continued run resumes
// the subgraph from it (LangGraph.js src/tests/pregel.test.ts "send to
// nested graphs": updateState(outerState.tasks[1].state, …); index.ts
// bulkUpdateState delegates to the subgraph). A run from a subgraph's
// config continues the root thread (loop.ts:569-578).
func TestUpdateState_SubgraphCheckpoint(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("subject"), engine.AppendKey("jokes")).
		AddNode("edit", func(_ context.Context, in any) (any, error) {
			return map[string]any{"subject": in.(map[string]any)["subject"].(string) + " - hohoho"}, nil
		}).
		AddNode("generate", func(_ context.Context, in any) (any, error) {
			return map[string]any{"jokes": []any{"Joke about " + in.(map[string]any)["subject"].(string)}}, nil
		}).
		AddEdge(engine.Start, "edit").AddEdge("edit", "generate"),
		engine.WithInterruptBefore("generate"))
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("subject"), engine.AppendKey("jokes")).
		AddSubgraph("joke", sub).AddEdge(engine.Start, "joke"),
		engine.WithSaver(engine.NewMemorySaver()))
	thread := engine.Config{ThreadID: "tt-sub"}
	if res, err := g.Invoke(ctx, map[string]any{"subject": "dogs"}, engine.OnThread("tt-sub")); err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	outer, err := g.GetState(ctx, thread, engine.WithSubgraphState())
	if err != nil || len(outer.Tasks) != 1 || outer.Tasks[0].State == nil {
		t.Fatalf("outer state: %+v, %v", outer, err)
	}
	inner := outer.Tasks[0].State
	if inner.Values["subject"] != "dogs - hohoho" || fmt.Sprint(inner.Next) != "[generate]" {
		t.Fatalf("inner state: %v next %v", inner.Values, inner.Next)
	}
	cfg, err := g.UpdateState(ctx, inner.Config, map[string]any{"subject": "turtles - hohoho"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CheckpointNS != inner.Config.CheckpointNS {
		t.Fatalf("the update is written in the subgraph's namespace %q, got %q", inner.Config.CheckpointNS, cfg.CheckpointNS)
	}
	upd, err := g.GetState(ctx, cfg)
	if err != nil || upd.Values["subject"] != "turtles - hohoho" || upd.ParentID != inner.Config.CheckpointID || upd.Metadata.Source != engine.SourceUpdate {
		t.Fatalf("updated subgraph checkpoint: %+v, %v", upd, err)
	}
	// Unknown subgraphs are refused by name.
	if _, err := g.UpdateState(ctx, engine.Config{ThreadID: "tt-sub", CheckpointNS: "nope:1"}, map[string]any{}, ""); !errors.Is(err, engine.ErrUnknownSubgraph) {
		t.Fatalf("unknown subgraph: %v", err)
	}
	res, err := g.Invoke(ctx, nil, engine.FromConfig(cfg))
	if err != nil || res.Status != engine.StatusDone || fmt.Sprint(res.Values["jokes"]) != "[Joke about turtles - hohoho]" {
		t.Fatalf("continued: %+v, %v", res, err)
	}
}

// A subgraph node's task that has not run yet (stopped before it by a
// breakpoint) has an empty state with the subgraph's snapshot option: no
// checkpoint, no values, nothing next (LangGraph.js reads every planned
// subgraph task's state, pregel/index.ts:878-884, 942-975).
func TestGetState_SubgraphNotRunYetHasEmptyState(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("i", appendLog("i")).AddEdge(engine.Start, "i"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).AddEdge(engine.Start, "sub"), engine.WithInterruptBefore("sub"))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"}, engine.WithSubgraphState())
	if err != nil || len(snap.Tasks) != 1 {
		t.Fatalf("%+v %v", snap, err)
	}
	st := snap.Tasks[0].State
	if st == nil || st.Checkpoint != nil || len(st.Values) != 0 || len(st.Next) != 0 || len(st.Tasks) != 0 {
		t.Fatalf("state %+v, want an empty snapshot", st)
	}
}

// An inner node that ends its subgraph with a Command for the parent and
// wrote nothing saves the bubble-up as its error in the subgraph's
// checkpoint (LangGraph.js pregel/runner.ts:445-453), which the
// subgraph's snapshot shows.
func TestParentCommand_InnerTaskSavedAsError(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("up", func(context.Context, any) (any, error) {
			return engine.Command{Update: map[string]any{"log": []any{"up"}}, Graph: engine.Parent}, nil
		}).AddEdge(engine.Start, "up"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			_, err := engine.Interrupt(ctx, "ok?")
			return nil, err
		}).
		AddEdge(engine.Start, "sub").AddEdge(engine.Start, "ask"))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "t"}, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range snap.Tasks {
		if task.Name != "sub" {
			continue
		}
		if task.State == nil || len(task.State.Tasks) != 1 || task.State.Tasks[0].Name != "up" || task.State.Tasks[0].Error == "" {
			t.Fatalf("sub's state %+v: want up with its bubble-up saved as an error", task.State)
		}
		return
	}
	t.Fatalf("no sub task in %+v", snap.Tasks)
}

// Inside a subgraph, a Command for the parent that comes after a sibling
// stopped at an interrupt is taken for a node error and raised before the
// interrupt: the parent applies it and the interrupt is dropped
// (LangGraph.js pregel/runner.ts:156-191 keeps a bubble-up only while no
// interrupt was seen).
func TestParentCommand_AfterSiblingInterruptWins(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			_, err := engine.Interrupt(ctx, "ok?")
			return nil, err
		}).
		AddNode("up", func(context.Context, any) (any, error) {
			time.Sleep(100 * time.Millisecond) // after ask's interrupt
			return engine.Command{Update: map[string]any{"log": []any{"up"}}, Goto: []any{"after"}, Graph: engine.Parent}, nil
		}).
		AddEdge(engine.Start, "ask").AddEdge(engine.Start, "up"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddSubgraph("sub", sub, engine.WithEnds("after")).
		AddNode("after", appendLog("after")).
		AddEdge(engine.Start, "sub"))
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("t"))
	if err != nil || res.Status != engine.StatusDone || !reflect.DeepEqual(res.Values["log"], []any{"up", "after"}) {
		t.Fatalf("%+v %v: want the parent Command applied and the run done", res, err)
	}
}
