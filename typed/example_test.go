package typed_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// The state is a struct; each field is a state key. Nodes read the state
// as *S and return the fields they change.
func Example() {
	type State struct {
		Total   int      `json:"total"`
		Visited []string `json:"visited" reducer:"append"`
	}
	g, err := typed.NewGraph[State]("linear").
		AddNode("a", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Total, s.Total*2), typed.Set(&s.Visited, []string{"a"})), nil
		}).
		AddNode("b", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Total, s.Total+1), typed.Set(&s.Visited, []string{"b"})), nil
		}).
		AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End).
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Total, 10)))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State.Total, res.State.Visited)
	// Output: 21 [a b]
}

// A reducer folds the writes of one superstep: the three parallel voters
// all write Votes (append) and Best (a reducer registered by name), and
// neither loses a write.
func ExampleWithReducer() {
	type State struct {
		Votes []string `json:"votes" reducer:"append"`
		Best  int      `json:"best" reducer:"max"`
	}
	vote := func(name string, score int) typed.NodeFunc[State] {
		return func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Votes, []string{name}), typed.Set(&s.Best, score)), nil
		}
	}
	g, err := typed.NewGraph[State]("votes", typed.WithReducer("max", func(a, b int) int { return max(a, b) })).
		AddNode("ann", vote("ann", 3)).AddNode("bob", vote("bob", 9)).AddNode("cy", vote("cy", 5)).
		AddEdge(engine.Start, "ann").AddEdge(engine.Start, "bob").AddEdge(engine.Start, "cy").
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Best, 0)))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State.Votes, res.State.Best)
	// Output: [ann bob cy] 9
}

// A conditional edge routes on the state after the routing node's update.
func ExampleStateGraph_AddConditionalEdges() {
	type State struct {
		N    int    `json:"n"`
		Path string `json:"path"`
	}
	step := func(name string) typed.NodeFunc[State] {
		return func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+1), typed.Set(&s.Path, s.Path+name)), nil
		}
	}
	g, err := typed.NewGraph[State]("loop").
		AddNode("inc", step("+")).AddNode("done", step(".")).
		AddEdge(engine.Start, "inc").
		AddConditionalEdges("inc", func(_ context.Context, s *State) (string, error) {
			if s.N < 3 {
				return "inc", nil
			}
			return "done", nil
		}, "inc", "done").
		AddEdge("done", engine.End).
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.N, 0)))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State.N, res.State.Path)
	// Output: 4 +++.
}

// A fan-out to one node: the function returns one typed argument per
// task, all run in one superstep, and the append field (an AppendList)
// collects their results in the arguments' order (LangGraph's map-reduce
// with Send).
func ExampleAddFanOut() {
	type State struct {
		Words   []string              `json:"words"`
		Lengths typed.AppendList[int] `json:"lengths"`
	}
	type Word struct {
		Text string `json:"text"`
	}
	g := typed.NewGraph[State]("fanout").
		AddNode("split", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Words, strings.Fields("map reduce in go"))), nil
		}).
		AddEdge(engine.Start, "split")
	typed.AddSendNode(g, "measure", func(_ context.Context, w Word, out *State) (typed.Update[State], error) {
		return typed.Write(out, typed.Append(&out.Lengths, len(w.Text))), nil
	})
	typed.AddFanOut(g, "split", "measure", func(_ context.Context, s *State) (words []Word, _ error) {
		for _, w := range s.Words {
			words = append(words, Word{w})
		}
		return words, nil
	})
	compiled, err := g.Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.Lengths, nil)))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State.Lengths)
	// Output: [3 6 2 2]
}

// Sends fan out to several nodes: one task per Send, each with its own
// typed argument, all in one superstep (AddFanOut says it more directly
// when every Send goes to one node). Here short words are counted and
// long ones shouted; each append field collects its tasks' results in
// Send order.
func ExampleStateGraph_AddSends() {
	type State struct {
		Words []string `json:"words"`
		Short int      `json:"short" reducer:"sum"`
		Loud  []string `json:"loud" reducer:"append"`
	}
	type Word struct {
		Text string `json:"text"`
	}
	g := typed.NewGraph[State]("sorter", typed.WithReducer("sum", func(a, b int) int { return a + b })).
		AddNode("split", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Words, strings.Fields("map reduce in go"))), nil
		})
	typed.AddSendNode(g, "count", func(_ context.Context, _ Word, out *State) (typed.Update[State], error) {
		return typed.Write(out, typed.Set(&out.Short, 1)), nil
	})
	typed.AddSendNode(g, "shout", func(_ context.Context, w Word, out *State) (typed.Update[State], error) {
		return typed.Write(out, typed.Set(&out.Loud, []string{strings.ToUpper(w.Text)})), nil
	})
	compiled, err := g.
		AddEdge(engine.Start, "split").
		AddSends("split", func(_ context.Context, s *State) (sends []engine.Send, _ error) {
			for _, w := range s.Words {
				to := "count"
				if len(w) > 2 {
					to = "shout"
				}
				sends = append(sends, typed.Send(to, Word{w}))
			}
			return sends, nil
		}, "count", "shout").
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.Loud, nil)))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State.Short, res.State.Loud)
	// Output: 2 [MAP REDUCE]
}

// A node asks a person with Interrupt: the run stops with the typed
// payload; Resume answers with a Go value that the node reads into its own
// type when it runs again. A Command (Goto) picks the next node.
func ExampleInterrupt() {
	type State struct {
		Draft    string `json:"draft"`
		Verdict  string `json:"verdict"`
		Approved bool   `json:"approved"`
	}
	type Ask struct {
		Draft string `json:"draft"`
	}
	type Answer struct {
		OK     bool   `json:"ok"`
		Reason string `json:"reason"`
	}
	g, err := typed.NewGraph[State]("review").
		AddNode("review", func(ctx context.Context, s *State) (typed.Update[State], error) {
			a, err := typed.Interrupt[Answer](ctx, Ask{Draft: s.Draft})
			if err != nil {
				return typed.Update[State]{}, err // the run stops here until resumed
			}
			u := typed.Write(s, typed.Set(&s.Approved, a.OK), typed.Set(&s.Verdict, a.Reason))
			if !a.OK {
				return u.Goto("rewrite"), nil
			}
			return u.Goto(engine.End), nil
		}, engine.WithEnds("rewrite", engine.End)).
		AddNode("rewrite", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Draft, strings.ToUpper(s.Draft))), nil
		}).
		AddEdge(engine.Start, "review").AddEdge("rewrite", "review").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t1")
	var in State
	res, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Draft, "hello")), thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Interrupts[0].Value)
	res, err = g.Resume(ctx, Answer{OK: false, Reason: "too quiet"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Interrupts[0].Value)
	res, err = g.Resume(ctx, Answer{OK: true, Reason: "good"}, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.State.Draft, res.State.Verdict)
	// Output:
	// interrupted map[draft:hello]
	// interrupted map[draft:HELLO]
	// done HELLO good
}

// UpdateState at an old checkpoint forks the thread: the fork gets its own
// branch of history, and running from it continues with the changed state
// while the original run stays as it was.
func ExampleGraph_UpdateState() {
	type State struct {
		N   int      `json:"n"`
		Log []string `json:"log" reducer:"append"`
	}
	add := func(name string, k int) typed.NodeFunc[State] {
		return func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+k), typed.Set(&s.Log, []string{name})), nil
		}
	}
	g, err := typed.NewGraph[State]("fork").
		AddNode("first", add("first", 1)).AddNode("second", add("second", 10)).
		AddEdge(engine.Start, "first").AddEdge("first", "second").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.Config{ThreadID: "t1"}
	var in State
	res, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.N, 0)), engine.OnThread(thread.ThreadID))
	if err != nil {
		panic(err)
	}
	fmt.Println("original:", res.State.N, res.State.Log)

	// Find the checkpoint taken after "first" ran, and change n there as
	// if "first" had written 100.
	history, err := g.History(ctx, thread, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	var afterFirst engine.Config
	for _, snap := range history {
		if len(snap.Next) == 1 && snap.Next[0] == "second" {
			afterFirst = snap.Config
		}
	}
	var fix State
	fork, err := g.UpdateState(ctx, afterFirst, typed.Write(&fix, typed.Set(&fix.N, 100)), "first")
	if err != nil {
		panic(err)
	}
	res, err = g.Continue(ctx, engine.FromConfig(fork))
	if err != nil {
		panic(err)
	}
	fmt.Println("fork:", res.State.N, res.State.Log)
	// Output:
	// original: 11 [first second]
	// fork: 110 [first second]
}

// Stream yields the chunks of the stream modes asked for, with the state
// decoded: StreamUpdates gives each node's writes as a *State holding the
// fields it set (Keys names them), StreamValues the whole state after each
// superstep.
func ExampleGraph_Stream() {
	type State struct {
		N    int    `json:"n"`
		Note string `json:"note"`
	}
	g, err := typed.NewGraph[State]("stream").
		AddNode("inc", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).
		AddNode("describe", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Note, fmt.Sprint("n is ", s.N))), nil
		}).
		AddEdge(engine.Start, "inc").AddEdge("inc", "describe").
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	modes := []engine.StreamMode{engine.StreamUpdates, engine.StreamValues}
	for part, err := range g.Stream(context.Background(), typed.Write(&in, typed.Set(&in.N, 1)), modes) {
		if err != nil {
			panic(err)
		}
		switch part.Mode {
		case engine.StreamUpdates:
			fmt.Printf("update %s %v %+v\n", part.Node, part.Keys, *part.Update)
		case engine.StreamValues:
			fmt.Printf("values %+v\n", *part.State)
		}
	}
	// Output:
	// values {N:1 Note:}
	// update inc [n] {N:2 Note:}
	// values {N:2 Note:}
	// update describe [note] {N:0 Note:n is 2}
	// values {N:2 Note:n is 2}
}

// A Messages field is a chat history merged by id (LangGraph's
// add_messages): a message with a new id is appended, one with a known id
// replaces it in place, and RemoveMessage deletes one.
func ExampleMessages() {
	type State struct {
		Chat typed.Messages `json:"chat"`
	}
	g, err := typed.NewGraph[State]("chat").
		AddNode("reply", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{
				{ID: "a1", Role: "assistant", Content: "hi!"},
			})), nil
		}).
		AddNode("edit", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Chat, typed.Messages{
				{ID: "a1", Role: "assistant", Content: "hello, how can I help?"},
				typed.RemoveMessage("u0"),
			})), nil
		}).
		AddEdge(engine.Start, "reply").AddEdge("reply", "edit").
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Chat, typed.Messages{
		{ID: "u0", Role: "system", Content: "be brief"},
		{ID: "u1", Role: "user", Content: "hello"},
	})))
	if err != nil {
		panic(err)
	}
	for _, m := range res.State.Chat {
		fmt.Printf("%s %s: %s\n", m.ID, m.Role, m.Content)
	}
	// Output:
	// u1 user: hello
	// a1 assistant: hello, how can I help?
}

// A ReAct agent: the model's assistant message asks for tool calls, a tool
// node answers each with a "tool" message naming its call, and the model
// runs again until it answers without calling a tool. (The model and the
// tool are Go functions here.)
func ExampleToolCall() {
	type State struct {
		Messages typed.Messages `json:"messages"`
	}
	model := func(history typed.Messages) typed.Message {
		last := history[len(history)-1]
		if last.Role == "tool" {
			return typed.Message{Role: "assistant", Content: "2 + 3 = " + last.Content}
		}
		return typed.Message{Role: "assistant", ToolCalls: []typed.ToolCall{
			{ID: "call1", Name: "add", Args: map[string]any{"a": 2, "b": 3}},
		}}
	}
	tools := map[string]func(args map[string]any) string{
		"add": func(args map[string]any) string { // numbers come back as float64
			return fmt.Sprint(args["a"].(float64) + args["b"].(float64))
		},
	}
	g, err := typed.NewGraph[State]("react").
		AddNode("agent", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Messages, typed.Messages{model(s.Messages)})), nil
		}).
		AddNode("tools", func(_ context.Context, s *State) (typed.Update[State], error) {
			var results typed.Messages
			for _, call := range s.Messages[len(s.Messages)-1].ToolCalls {
				results = append(results, typed.Message{
					Role: "tool", Name: call.Name, ToolCallID: call.ID, Content: tools[call.Name](call.Args),
				})
			}
			return typed.Write(s, typed.Set(&s.Messages, results)), nil
		}).
		AddEdge(engine.Start, "agent").
		AddConditionalEdges("agent", func(_ context.Context, s *State) (string, error) {
			if len(s.Messages[len(s.Messages)-1].ToolCalls) > 0 {
				return "tools", nil
			}
			return engine.End, nil
		}, "tools", engine.End).
		AddEdge("tools", "agent").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	var in State
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Messages, typed.Messages{
		{Role: "user", Content: "what is 2 + 3?"},
	})), engine.OnThread("t1"))
	if err != nil {
		panic(err)
	}
	for _, m := range res.State.Messages {
		fmt.Printf("%s: %q", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Printf(" calls %s %s(%v)", c.ID, c.Name, c.Args)
		}
		if m.ToolCallID != "" {
			fmt.Printf(" answers %s", m.ToolCallID)
		}
		fmt.Println()
	}
	// Output:
	// user: "what is 2 + 3?"
	// assistant: "" calls call1 add(map[a:2 b:3])
	// tool: "5" answers call1
	// assistant: "2 + 3 = 5"
}

// A tool-calling loop whose tools run in parallel: the model's tool calls
// fan out, one task each, and a conditional edge from the same node goes
// on when there is no call (LangGraph's route returning Sends or a node's
// name). The fan-out returns no arguments when the route goes on; the
// route returns engine.End when the fan-out has work.
func ExampleAddFanOut_toolCalls() {
	type State struct {
		Messages typed.Messages `json:"messages"`
		Answer   string         `json:"answer"`
	}
	model := func(history typed.Messages) typed.Message {
		if history[len(history)-1].Role == "tool" {
			return typed.Message{Role: "assistant", Content: "all looked up"}
		}
		return typed.Message{Role: "assistant", ToolCalls: []typed.ToolCall{
			{ID: "c1", Name: "order", Args: map[string]any{"id": "A-17"}},
			{ID: "c2", Name: "customer", Args: map[string]any{"email": "x@example.com"}},
		}}
	}
	g := typed.NewGraph[State]("tools").
		AddNode("agent", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Messages, typed.Messages{model(s.Messages)})), nil
		}).
		AddNode("reply", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Answer, s.Messages[len(s.Messages)-1].Content)), nil
		}).
		AddEdge(engine.Start, "agent")
	typed.AddSendNode(g, "tool", func(_ context.Context, call typed.ToolCall, out *State) (typed.Update[State], error) {
		result := fmt.Sprintf("%s %v: found", call.Name, call.Args)
		return typed.Write(out, typed.Set(&out.Messages, typed.Messages{
			{Role: "tool", Name: call.Name, ToolCallID: call.ID, Content: result},
		})), nil
	})
	typed.AddFanOut(g, "agent", "tool", func(_ context.Context, s *State) ([]typed.ToolCall, error) {
		return s.Messages[len(s.Messages)-1].ToolCalls, nil // none: the route goes on
	})
	compiled, err := g.
		AddConditionalEdges("agent", func(_ context.Context, s *State) (string, error) {
			if len(s.Messages[len(s.Messages)-1].ToolCalls) > 0 {
				return engine.End, nil // the fan-out has work
			}
			return "reply", nil
		}, "reply", engine.End).
		AddEdge("tool", "agent").
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := compiled.Run(context.Background(), typed.Write(&in, typed.Set(&in.Messages, typed.Messages{
		{Role: "user", Content: "where is my order?"},
	})))
	if err != nil {
		panic(err)
	}
	for _, m := range res.State.Messages[1:] {
		fmt.Printf("%s %s %q\n", m.Role, m.ToolCallID, m.Content)
	}
	fmt.Println(res.State.Answer)
	// Output:
	// assistant  ""
	// tool c1 "order map[id:A-17]: found"
	// tool c2 "customer map[email:x@example.com]: found"
	// assistant  "all looked up"
	// all looked up
}

// The caller reads an interrupt's payload back as the engine's value
// (JSON's data model); Decode turns it into the payload's type again.
func ExampleDecode_interruptPayload() {
	type State struct {
		Amount float64 `json:"amount"`
		Status string  `json:"status"`
	}
	type Refund struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}
	g, err := typed.NewGraph[State]("refund").
		AddNode("approve", func(ctx context.Context, s *State) (typed.Update[State], error) {
			ok, err := typed.Interrupt[bool](ctx, Refund{Order: "A-17", Amount: s.Amount})
			if err != nil {
				return typed.Update[State]{}, err
			}
			return typed.Write(s, typed.Set(&s.Status, fmt.Sprint("approved: ", ok))), nil
		}).
		AddEdge(engine.Start, "approve").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t1")
	var in State
	res, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Amount, 42.5)), thread)
	if err != nil {
		panic(err)
	}
	ask, err := typed.Decode[Refund](res.Interrupts[0].Value)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s asks: %+v\n", res.Interrupts[0].Node, ask)
	res, err = g.Resume(ctx, ask.Amount < 100, thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.State.Status)
	// Output:
	// approve asks: {Order:A-17 Amount:42.5}
	// approved: true
}
