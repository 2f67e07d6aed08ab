package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine"
)

// declaredPair builds agent(start → agent) whose function invokes two
// declared subgraphs in turn: research (look → ask, ask interrupts) and
// write (draft), each with its own keys.
func declaredPair(t *testing.T, opts ...engine.NodeOption) (g, research, write *engine.Graph) {
	t.Helper()
	research = mustCompile(t, engine.NewStateGraph(engine.AppendKey("notes")).
		AddNode("look", func(context.Context, any) (any, error) { return map[string]any{"notes": []any{"looked"}}, nil }).
		AddNode("ask", func(ctx context.Context, _ any) (any, error) {
			v, err := engine.Interrupt(ctx, "dig deeper?")
			if err != nil {
				return nil, err
			}
			return map[string]any{"notes": []any{"ask:" + fmt.Sprint(v)}}, nil
		}).
		AddEdge(engine.Start, "look").AddEdge("look", "ask"))
	write = mustCompile(t, engine.NewStateGraph(engine.LastValueKey("draft"), engine.LastValueKey("from")).
		AddNode("compose", func(_ context.Context, in any) (any, error) {
			return map[string]any{"draft": "about " + fmt.Sprint(in.(map[string]any)["from"])}, nil
		}).
		AddEdge(engine.Start, "compose"))
	agent := func(ctx context.Context, in any) (any, error) {
		found, err := engine.InvokeSubgraph(ctx, research, map[string]any{"notes": []any{"topic"}})
		if err != nil {
			return nil, err
		}
		out, err := engine.InvokeSubgraph(ctx, write, map[string]any{"from": found["notes"]})
		if err != nil {
			return nil, err
		}
		return map[string]any{"log": []any{out["draft"]}}, nil
	}
	opts = append([]engine.NodeOption{engine.UsesSubgraph("research", research), engine.UsesSubgraph("write", write)}, opts...)
	g = mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("agent", agent, opts...).AddEdge(engine.Start, "agent"))
	return g, research, write
}

// A subgraph a node function runs through InvokeSubgraph, once declared
// (UsesSubgraph, LangGraph.js addNode's `subgraphs` option), is found by
// its namespace as a subgraph node's is: GetState WithSubgraphState shows
// its state on the task, its namespace has a history and takes updates,
// its interrupt is answered where it was raised, and a second declared
// subgraph run by the same task is told apart by its name.
func TestUsesSubgraph_StateByNamespace(t *testing.T) {
	g, research, write := declaredPair(t)
	thread := engine.Config{ThreadID: "declared"}
	res, err := g.Invoke(ctx, map[string]any{}, engine.OnThread(thread.ThreadID))
	if err != nil || res.Status != engine.StatusInterrupted {
		t.Fatalf("run: %+v, %v", res, err)
	}
	snap, err := g.GetState(ctx, thread, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	task := snap.Tasks[0]
	if task.Name != "agent" || !strings.HasPrefix(task.Subgraph, "agent:") || task.State == nil {
		t.Fatalf("agent task: %+v", task)
	}
	if got := task.State.Values["notes"]; !reflect.DeepEqual(got, []any{"topic", "looked"}) || !reflect.DeepEqual(task.State.Next, []string{"ask"}) {
		t.Fatalf("research state: %v next %v", got, task.State.Next)
	}
	if len(task.Runs) != 1 || task.Runs[0].Name != "research" || task.Runs[0].Namespace != task.Subgraph || task.Runs[0].State != task.State {
		t.Fatalf("runs: %+v", task.Runs)
	}
	ns := engine.Config{ThreadID: thread.ThreadID, CheckpointNS: task.Subgraph}
	if sub, own, err := g.SubgraphAt(ctx, ns); err != nil || sub != research || own != task.Subgraph {
		t.Fatalf("SubgraphAt: %v %q %v", sub == research, own, err)
	}
	hist, err := g.History(ctx, ns, engine.ListOptions{})
	if err != nil || len(hist) != 3 { // input, look's step, the interrupted step
		t.Fatalf("history of the research namespace: %d, %v", len(hist), err)
	}

	// Update the research subgraph through its config: its next run (the
	// resumed agent invokes it again) continues from there.
	up, err := g.UpdateState(ctx, ns, map[string]any{"notes": []any{"edited"}}, "look")
	if err != nil || up.CheckpointNS != task.Subgraph {
		t.Fatalf("update: %+v, %v", up, err)
	}
	after, err := g.GetState(ctx, ns)
	if err != nil || !reflect.DeepEqual(after.Values["notes"], []any{"topic", "looked", "edited"}) || after.Metadata.Extra[engine.MetaSubgraph] != "research" {
		t.Fatalf("after the update: %+v, %v", after, err)
	}

	res, err = g.Invoke(ctx, engine.Command{Resume: "yes"}, engine.OnThread(thread.ThreadID))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	if got := fmt.Sprint(res.Values["log"]); got != "[about [topic looked edited ask:yes]]" {
		t.Fatalf("log %s", got)
	}
	// The interrupted checkpoint's task ran both: research in its own
	// namespace, write in "<ns>|1", each read with its own channels.
	old, err := g.GetState(ctx, snap.Config, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	runs := old.Tasks[0].Runs
	if len(runs) != 2 || runs[0].Name != "research" || runs[1].Name != "write" || runs[1].Namespace != task.Subgraph+"|1" {
		t.Fatalf("runs: %+v", runs)
	}
	if runs[1].State.Values["draft"] != "about [topic looked edited ask:yes]" || len(runs[1].State.Next) != 0 {
		t.Fatalf("write's state: %+v", runs[1].State.Values)
	}
	if sub, _, err := g.SubgraphAt(ctx, engine.Config{ThreadID: thread.ThreadID, CheckpointNS: runs[1].Namespace}); err != nil || sub != write {
		t.Fatalf("SubgraphAt of the second run: %v", err)
	}
	info := g.Describe()
	if !info.Nodes[0].Subgraph || !reflect.DeepEqual(info.Nodes[0].Declared, []string{"research", "write"}) {
		t.Fatalf("describe: %+v", info.Nodes[0])
	}
}

// A subgraph the node did not declare runs, but its namespace is not taken
// for a declared one's: reading it is refused, not misread.
func TestUsesSubgraph_UndeclaredRunNotMisread(t *testing.T) {
	_, research, _ := declaredPair(t)
	other := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("n", func(context.Context, any) (any, error) { return map[string]any{"x": 1}, nil }).
		AddEdge(engine.Start, "n"))
	g := mustCompile(t, engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("agent", func(ctx context.Context, _ any) (any, error) {
			if _, err := engine.InvokeSubgraph(ctx, other, map[string]any{}); err != nil {
				return nil, err
			}
			_, err := engine.InvokeSubgraph(ctx, research, map[string]any{})
			return nil, err
		}, engine.UsesSubgraph("research", research)).
		AddEdge(engine.Start, "agent"))
	if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("u")); err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(ctx, engine.Config{ThreadID: "u"}, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	task := snap.Tasks[0]
	if task.State != nil || len(task.Runs) != 0 {
		t.Fatalf("the undeclared first run was read as research: %+v", task)
	}
	if _, err := g.GetState(ctx, engine.Config{ThreadID: "u", CheckpointNS: task.Subgraph}); !errors.Is(err, engine.ErrNoCheckpoint) {
		t.Fatalf("GetState of the undeclared run's namespace: %v", err)
	}
	st, err := g.GetState(ctx, engine.Config{ThreadID: "u", CheckpointNS: task.Subgraph + "|1"})
	if err != nil || !reflect.DeepEqual(st.Next, []string{"ask"}) {
		t.Fatalf("the declared second run: %+v, %v", st, err)
	}
}

func TestUsesSubgraph_BadDeclarations(t *testing.T) {
	sub := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("x")).
		AddNode("n", func(context.Context, any) (any, error) { return nil, nil }).AddEdge(engine.Start, "n"))
	nop := func(context.Context, any) (any, error) { return nil, nil }
	for _, c := range []struct {
		b    *engine.StateGraph
		want string
	}{
		{engine.NewStateGraph(engine.LastValueKey("x")).AddSubgraph("s", sub, engine.UsesSubgraph("s", sub)), `subgraph node "s" runs its graph itself`},
		{engine.NewStateGraph(engine.LastValueKey("x")).AddNode("a", nop, engine.UsesSubgraph("", sub)), `node "a" declares a subgraph with an empty or invalid name ""`},
		{engine.NewStateGraph(engine.LastValueKey("x")).AddNode("a", nop, engine.UsesSubgraph("s", nil)), `declares subgraph "s" without a graph`},
		{engine.NewStateGraph(engine.LastValueKey("x")).AddNode("a", nop, engine.UsesSubgraph("s", sub), engine.UsesSubgraph("s", sub)), `declares subgraph "s" twice`},
		{engine.NewStateGraph(engine.LastValueKey("x")).AddNode("a", nop, engine.UsesSubgraph("s", sub), engine.UsesSubgraph("t", sub)), `declares one graph as both "s" and "t"`},
	} {
		_, err := c.b.AddEdge(engine.Start, "a").Compile()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

// A declared stateful subgraph (AsStatefulSubgraph) keeps one namespace per
// thread, the node's name without task ids: the task's State and Runs
// read it there, and its namespace resolves by either form.
func TestUsesSubgraph_Stateful(t *testing.T) {
	counter := mustCompile(t, engine.NewStateGraph(engine.AppendKey("seen")).
		AddNode("count", func(context.Context, any) (any, error) { return map[string]any{"seen": []any{"x"}}, nil }).
		AddEdge(engine.Start, "count"), engine.AsStatefulSubgraph())
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("agent", func(ctx context.Context, _ any) (any, error) {
			out, err := engine.InvokeSubgraph(ctx, counter, map[string]any{})
			if err != nil {
				return nil, err
			}
			return map[string]any{"n": len(out["seen"].([]any))}, nil
		}, engine.UsesSubgraph("counter", counter)).
		AddNode("stop", func(context.Context, any) (any, error) { return nil, nil }).
		AddEdge(engine.Start, "agent").AddEdge("agent", "stop"),
		engine.WithInterruptBefore("stop"))
	for i := 0; i < 2; i++ {
		if _, err := g.Invoke(ctx, map[string]any{}, engine.OnThread("st")); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := g.History(ctx, engine.Config{ThreadID: "st"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var withAgent *engine.StateSnapshot
	for _, h := range hist {
		if len(h.Next) == 1 && h.Next[0] == "agent" {
			withAgent = h // the newest checkpoint that plans agent
			break
		}
	}
	if withAgent == nil {
		t.Fatal("no checkpoint plans agent")
	}
	snap, err := g.GetState(ctx, withAgent.Config, engine.WithSubgraphState())
	if err != nil {
		t.Fatal(err)
	}
	task := snap.Tasks[0]
	if task.State == nil || len(task.Runs) != 1 || task.Runs[0].Name != "counter" {
		t.Fatalf("agent task: %+v", task)
	}
	if got := task.State.Values["seen"]; !reflect.DeepEqual(got, []any{"x", "x"}) {
		t.Fatalf("the stateful subgraph's one history holds both runs: %v", got)
	}
	for _, ns := range []string{task.Subgraph, "agent"} {
		sub, own, err := g.SubgraphAt(ctx, engine.Config{ThreadID: "st", CheckpointNS: ns})
		if err != nil || sub != counter || own != "agent" {
			t.Fatalf("SubgraphAt(%q): %v %q %v", ns, sub == counter, own, err)
		}
	}
}
