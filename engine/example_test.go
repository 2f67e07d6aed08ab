package engine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
)

// These examples use the map API, which mirrors LangGraph's dictionaries and
// is what scenario files compile to. Package typed has the same examples
// with a struct state and typed nodes.

// A reducer key folds every write of a superstep: three parallel nodes all
// write "votes" (AppendKey) and "best" (a ReducerKey with max), and no
// write is lost. A LastValue key takes one write per superstep.
func ExampleReducerKey() {
	maxOf := func(current, write any) (any, error) {
		return max(current.(float64), write.(float64)), nil
	}
	vote := func(name string, score float64) engine.NodeFunc {
		return func(context.Context, any) (any, error) {
			return engine.Pairs("votes", []any{name}, "best", score), nil
		}
	}
	g, err := engine.NewStateGraph(engine.AppendKey("votes"), engine.ReducerKey("best", maxOf, func() any { return 0.0 })).
		AddNode("ann", vote("ann", 3)).AddNode("bob", vote("bob", 9)).AddNode("cy", vote("cy", 5)).
		AddEdge(engine.Start, "ann").AddEdge(engine.Start, "bob").AddEdge(engine.Start, "cy").
		Compile()
	if err != nil {
		panic(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{"best": 1.0})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Values["votes"], res.Values["best"])
	// Output: [ann bob cy] 9
}

// A conditional edge calls its route after the node ran, on the state plus
// the node's own update, and goes where it says.
func ExampleStateGraph_AddConditionalEdges() {
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)+1), nil
		}).
		AddEdge(engine.Start, "inc").
		AddConditionalEdges("inc", func(_ context.Context, s map[string]any) (any, error) {
			if s["n"].(float64) < 3 {
				return "inc", nil
			}
			return engine.End, nil
		}, "inc", engine.End).
		Compile()
	if err != nil {
		panic(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{"n": 0})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Values["n"])
	// Output: 3
}

// A route that returns Sends fans out: one task per Send, each with its own
// argument as its whole input, all in the next superstep. Their writes to
// an append key arrive in Send order.
func ExampleSend() {
	g, err := engine.NewStateGraph(engine.LastValueKey("words"), engine.AppendKey("lengths")).
		AddNode("split", func(context.Context, any) (any, error) {
			return engine.Pairs("words", []any{"map", "reduce", "in", "go"}), nil
		}).
		AddNode("measure", func(_ context.Context, arg any) (any, error) {
			return engine.Pairs("lengths", []any{len(arg.(map[string]any)["word"].(string))}), nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(_ context.Context, s map[string]any) (any, error) {
			var sends []any
			for _, w := range s["words"].([]any) {
				sends = append(sends, engine.Send{Node: "measure", Arg: map[string]any{"word": w}})
			}
			return sends, nil
		}, "measure").
		Compile()
	if err != nil {
		panic(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{"lengths": []any{}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Values["lengths"])
	// Output: [3 6 2 2]
}

// Interrupt stops the run and saves the question; resuming with a Command
// runs the node again from its top, and the same call returns the answer.
// Interrupts need a Saver.
func ExampleInterrupt() {
	g, err := engine.NewStateGraph(engine.LastValueKey("draft"), engine.LastValueKey("verdict")).
		AddNode("review", func(ctx context.Context, s any) (any, error) {
			answer, err := engine.Interrupt(ctx, map[string]any{"draft": s.(map[string]any)["draft"]})
			if err != nil {
				return nil, err
			}
			return engine.Pairs("verdict", answer), nil
		}).
		AddEdge(engine.Start, "review").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t1")
	res, err := g.Invoke(ctx, map[string]any{"draft": "hello"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %s\n", res.Status, engine.MustEncode(res.Interrupts[0].Value))
	res, err = g.Invoke(ctx, engine.Command{Resume: "ship it"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Values["verdict"])
	// Output:
	// interrupted {"draft":"hello"}
	// done ship it
}

// UpdateState at an old checkpoint forks the thread; running from the fork
// (nil input, FromCheckpoint) continues with the changed state while the
// original branch stays as it was.
func ExampleGraph_UpdateState() {
	add := func(name string, k float64) engine.NodeFunc {
		return func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)+k, "log", []any{name}), nil
		}
	}
	g, err := engine.NewStateGraph(engine.LastValueKey("n"), engine.AppendKey("log")).
		AddNode("first", add("first", 1)).AddNode("second", add("second", 10)).
		AddEdge(engine.Start, "first").AddEdge("first", "second").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.Config{ThreadID: "t1"}
	res, err := g.Invoke(ctx, map[string]any{"n": 0}, engine.OnThread(thread.ThreadID))
	if err != nil {
		panic(err)
	}
	fmt.Println("original:", res.Values["n"], res.Values["log"])
	history, err := g.History(ctx, thread, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	var afterFirst engine.Config
	for _, snap := range history {
		if strings.Join(snap.Next, ",") == "second" {
			afterFirst = snap.Config
		}
	}
	fork, err := g.UpdateState(ctx, afterFirst, map[string]any{"n": 100}, "first")
	if err != nil {
		panic(err)
	}
	res, err = g.Invoke(ctx, nil, engine.OnThread(thread.ThreadID), engine.FromCheckpoint(fork.CheckpointID))
	if err != nil {
		panic(err)
	}
	fmt.Println("fork:", res.Values["n"], res.Values["log"])
	// Output:
	// original: 11 [first second]
	// fork: 110 [first second]
}

// A Stepper runs one phase at a time — Plan, Execute, Update — and shows
// everything between phases: the debugger is built on it. Each line is the
// view after one Next: the step, the phase just done, the step's tasks.
func ExampleGraph_Start() {
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("double", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)*2), nil
		}).
		AddEdge(engine.Start, "double").
		Compile()
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	st, err := g.Start(ctx, map[string]any{"n": 21})
	if err != nil {
		panic(err)
	}
	for st.Status() == engine.StatusRunning {
		if err := st.Next(ctx); err != nil {
			panic(err)
		}
		v := st.View()
		var tasks []string
		for _, t := range v.Tasks {
			tasks = append(tasks, t.Name)
		}
		fmt.Println(v.Step, v.Phase, tasks)
	}
	fmt.Println(st.Result().Values["n"])
	// Output:
	// 0 PLAN [__start__]
	// 0 EXECUTE [__start__]
	// 1 UPDATE [__start__]
	// 1 PLAN [double]
	// 1 EXECUTE [double]
	// 2 UPDATE [double]
	// 2 UPDATE []
	// 42
}
