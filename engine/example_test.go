package engine_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/superstep/superstep/engine"
)

// These examples use the map API, which mirrors LangGraph's dictionaries and
// is what scenario files compile to. Package typed has the same examples
// with a struct state and typed nodes.

// A first graph: one state key, one node, an edge from Start. The node reads
// the state map and returns the keys it changes; Invoke runs the graph to its
// end and returns the final state.
func ExampleGraph_Invoke() {
	g, err := engine.NewStateGraph(engine.LastValueKey("total"), engine.AppendKey("visited")).
		AddNode("double", func(_ context.Context, s any) (any, error) {
			total := s.(map[string]any)["total"].(float64)
			return engine.Pairs("total", total*2, "visited", []any{"double"}), nil
		}).
		AddEdge(engine.Start, "double").
		Compile()
	if err != nil {
		panic(err)
	}
	res, err := g.Invoke(context.Background(), map[string]any{"total": 21})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Values["total"], res.Values["visited"])
	// Output: done 42 [double]
}

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
	fmt.Println(res.Status, res.Interrupts[0].Value)
	res, err = g.Invoke(ctx, engine.Command{Resume: "ship it"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Values["verdict"])
	// Output:
	// interrupted map[draft:hello]
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
	ctx := context.Background()
	original, err := g.Invoke(ctx, map[string]any{"n": 0}, engine.OnThread("t1"))
	if err != nil {
		panic(err)
	}
	fmt.Println("original:", original.Values["n"], original.Values["log"])

	// Find the checkpoint taken after "first" ran, and change n there as
	// if "first" had written 100.
	history, err := g.History(ctx, engine.Config{ThreadID: "t1"}, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	var afterFirst engine.Config
	for _, snap := range history {
		if slices.Equal(snap.Next, []string{"second"}) {
			afterFirst = snap.Config
		}
	}
	fork, err := g.UpdateState(ctx, afterFirst, map[string]any{"n": 100}, "first")
	if err != nil {
		panic(err)
	}
	res, err := g.Invoke(ctx, nil, engine.FromConfig(fork))
	if err != nil {
		panic(err)
	}
	fmt.Println("fork:", res.Values["n"], res.Values["log"])
	kept, err := g.GetState(ctx, original.Checkpoint)
	if err != nil {
		panic(err)
	}
	fmt.Println("original branch still:", kept.Values["n"])
	// Output:
	// original: 11 [first second]
	// fork: 110 [first second]
	// original branch still: 11
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

// With a saver the graph writes a checkpoint after every superstep. GetState
// reads a thread's latest one; History lists them all, newest first, each
// with the step that wrote it, how it came to be and the nodes it plans next.
func ExampleGraph_History() {
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("plan", func(context.Context, any) (any, error) {
			return engine.Pairs("log", []any{"planned"}), nil
		}).
		AddNode("act", func(context.Context, any) (any, error) {
			return engine.Pairs("log", []any{"acted"}), nil
		}).
		AddEdge(engine.Start, "plan").AddEdge("plan", "act").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.Config{ThreadID: "t1"}
	if _, err := g.Invoke(ctx, map[string]any{"log": []any{}}, engine.OnThread(thread.ThreadID)); err != nil {
		panic(err)
	}
	latest, err := g.GetState(ctx, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println("latest:", latest.Values["log"])
	history, err := g.History(ctx, thread, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, snap := range history {
		fmt.Println(snap.Metadata.Step, snap.Metadata.Source, snap.Next)
	}
	// Output:
	// latest: [planned acted]
	// 2 loop []
	// 1 loop [act]
	// 0 loop [plan]
	// -1 input [__start__]
}

// Stream yields the run's events as they happen; here each task's update as
// it finishes (EventTaskResult) and the state after each superstep
// (EventValues), starting with the input's.
func ExampleGraph_Stream() {
	g, err := engine.NewStateGraph(engine.LastValueKey("n")).
		AddNode("inc", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)+1), nil
		}).
		AddNode("double", func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", s.(map[string]any)["n"].(float64)*2), nil
		}).
		AddEdge(engine.Start, "inc").AddEdge("inc", "double").
		Compile()
	if err != nil {
		panic(err)
	}
	for ev, err := range g.Stream(context.Background(), map[string]any{"n": 1}) {
		if err != nil {
			panic(err)
		}
		switch ev.Kind {
		case engine.EventTaskResult:
			fmt.Println("task", ev.Node, ev.Update)
		case engine.EventValues:
			fmt.Println("values", ev.Values)
		}
	}
	// Output:
	// values map[n:1]
	// task inc map[n:2]
	// values map[n:2]
	// task double map[n:4]
	// values map[n:4]
}

// WithHook calls a function at every phase boundary of a run, Invoke's
// included: it sees what the Stepper's View shows, and may block the run (a
// debugger waiting for a key) or stop it by returning an error. This one
// prints which nodes each superstep plans.
func ExampleWithHook() {
	g, err := engine.NewStateGraph(engine.AppendKey("log")).
		AddNode("a", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"a"}), nil }).
		AddNode("b", func(context.Context, any) (any, error) { return engine.Pairs("log", []any{"b"}), nil }).
		AddEdge(engine.Start, "a").AddEdge("a", "b").
		Compile()
	if err != nil {
		panic(err)
	}
	planned := func(_ context.Context, v *engine.StepView) error {
		if v.Phase == engine.PhasePlanned && len(v.Tasks) > 0 {
			fmt.Println("step", v.Step, "plans", v.Next())
		}
		return nil
	}
	res, err := g.Invoke(context.Background(), map[string]any{"log": []any{}}, engine.WithHook(planned))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Values["log"])
	// Output:
	// step 0 plans [__start__]
	// step 1 plans [a]
	// step 2 plans [b]
	// [a b]
}

// A node may return a Command instead of an update: Goto picks the next node
// itself, with no edge or route. WithEnds declares where it may go, for
// Compile's checks and for drawing the graph.
func ExampleCommand() {
	g, err := engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("size")).
		AddNode("classify", func(_ context.Context, s any) (any, error) {
			next := "small"
			if s.(map[string]any)["n"].(float64) > 10 {
				next = "big"
			}
			return engine.Command{Goto: []any{next}}, nil
		}, engine.WithEnds("small", "big")).
		AddNode("small", func(context.Context, any) (any, error) { return engine.Pairs("size", "small"), nil }).
		AddNode("big", func(context.Context, any) (any, error) { return engine.Pairs("size", "big"), nil }).
		AddEdge(engine.Start, "classify").
		Compile()
	if err != nil {
		panic(err)
	}
	for _, n := range []int{3, 30} {
		res, err := g.Invoke(context.Background(), map[string]any{"n": n})
		if err != nil {
			panic(err)
		}
		fmt.Println(n, res.Values["size"])
	}
	// Output:
	// 3 small
	// 30 big
}

// The functional API: NewEntrypoint makes a graph of one function, and Task
// runs a step of it as a checkpointed task. When the function is resumed
// after an interrupt, the finished Task call returns its saved result
// instead of running again: "drafting" is printed once.
func ExampleNewEntrypoint() {
	draft := func(_ context.Context, topic string) (string, error) {
		fmt.Println("drafting")
		return "an essay on " + topic, nil
	}
	g, err := engine.NewEntrypoint("write", func(ctx context.Context, input any) (any, error) {
		text, err := engine.Task(ctx, "draft", draft, input.(map[string]any)["topic"].(string)).Result()
		if err != nil {
			return nil, err
		}
		verdict, err := engine.Interrupt(ctx, text)
		if err != nil {
			return nil, err
		}
		return text + ": " + verdict.(string), nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t1")
	res, err := g.Invoke(ctx, map[string]any{"topic": "Go"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Interrupts[0].Value)
	res, err = g.Invoke(ctx, engine.Command{Resume: "approved"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Output)
	// Output:
	// drafting
	// interrupted an essay on Go
	// done an essay on Go: approved
}
