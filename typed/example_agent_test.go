package typed_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// A node retried by its policy (LangGraph's RetryPolicy): a flaky tool fails
// on its first call and the second attempt succeeds. Each attempt runs the
// node from its top; the run sees only the attempt that succeeded. The zero
// fields of a RetryPolicy retry at once; engine.DefaultRetryPolicy() is
// LangGraph's default (0.5s doubling, with jitter).
func ExampleStateGraph_AddNode_retry() {
	type State struct {
		Query  string `json:"query"`
		Result string `json:"result"`
	}
	calls := 0
	g, err := typed.NewGraph[State]("flaky").
		AddNode("search", func(_ context.Context, s *State) (typed.Update[State], error) {
			calls++
			if calls == 1 {
				return typed.Update[State]{}, errors.New("503 service unavailable")
			}
			return typed.Write(s, typed.Set(&s.Result, "3 results")), nil
		}, engine.WithRetry(engine.RetryPolicy{MaxAttempts: 3})).
		AddEdge(engine.Start, "search").
		Compile()
	if err != nil {
		panic(err)
	}
	var in State
	res, err := g.Run(context.Background(), typed.Write(&in, typed.Set(&in.Query, "pregel")))
	fmt.Println(res.Status, res.State.Result, calls, err)
	// Output:
	// done 3 results 2 <nil>
}

// A compiled graph is a node of another with AddSubgraph (LangGraph's
// add_node("name", compiled_subgraph)): the state keys both declare pass
// in and come back, and the subgraph checkpoints in the parent's saver,
// under a namespace of its own. With engine.WithSubgraphs its chunks
// stream too, each with the namespace it came from; a part names the node
// that wrote and its keys, and the subgraph's DecodePart decodes its state.
func ExampleStateGraph_AddSubgraph() {
	type Research struct {
		Question string                   `json:"question"`
		Notes    typed.AppendList[string] `json:"notes"`
		Summary  string                   `json:"summary"`
	}
	type Agent struct {
		Question string `json:"question"`
		Summary  string `json:"summary"`
		Answer   string `json:"answer"`
	}
	sub, err := typed.NewGraph[Research]("research").
		AddNode("gather", func(_ context.Context, s *Research) (typed.Update[Research], error) {
			return typed.Write(s, typed.Append(&s.Notes, "channels", "supersteps")), nil
		}).
		AddNode("summarize", func(_ context.Context, s *Research) (typed.Update[Research], error) {
			return typed.Write(s, typed.Set(&s.Summary, s.Question+": "+strings.Join(s.Notes, ", "))), nil
		}).
		AddEdge(engine.Start, "gather").AddEdge("gather", "summarize").
		Compile() // no saver of its own: it runs in its parent's
	if err != nil {
		panic(err)
	}
	g, err := typed.NewGraph[Agent]("agent").
		AddSubgraph("researcher", sub.Graph).
		AddNode("respond", func(_ context.Context, s *Agent) (typed.Update[Agent], error) {
			return typed.Write(s, typed.Set(&s.Answer, "from "+s.Summary)), nil
		}).
		AddEdge(engine.Start, "researcher").AddEdge("researcher", "respond").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	var in Agent
	input := typed.Write(&in, typed.Set(&in.Question, "pregel"))
	for p, err := range g.Stream(ctx, input, []engine.StreamMode{engine.StreamUpdates}, engine.OnThread("t1"), engine.WithSubgraphs()) {
		if err != nil {
			panic(err)
		}
		where := "root"
		if len(p.Namespace) > 0 {
			where = engine.NamespaceNodes(strings.Join(p.Namespace, "|")) // "researcher:<task id>" without the id
		}
		fmt.Printf("%s: %s wrote %v\n", where, p.Node, p.Keys)
	}
	st, _, err := g.State(ctx, engine.Config{ThreadID: "t1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Answer)
	// The subgraph's own state, by the namespace its task ran in.
	hist, err := g.History(ctx, engine.Config{ThreadID: "t1"}, engine.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, h := range hist {
		for _, t := range h.Tasks {
			if t.Subgraph != "" {
				r, _, err := sub.StateIn(ctx, g.Graph, engine.Config{ThreadID: "t1", CheckpointNS: t.Subgraph})
				if err != nil {
					panic(err)
				}
				fmt.Println(t.Name, r.Notes)
			}
		}
	}
	// Output:
	// researcher: gather wrote [notes]
	// researcher: summarize wrote [summary]
	// root: researcher wrote [question summary]
	// root: respond wrote [answer]
	// from pregel: channels, supersteps
	// researcher [channels supersteps]
}

// Cancelling a run's context (Ctrl-C, through signal.NotifyContext) stops
// it: Run returns an error that matches context.Canceled, the supersteps
// that finished stay checkpointed, and Continue on the thread goes on from
// there without running them again.
func ExampleGraph_Continue() {
	type State struct {
		Steps []string `json:"steps" reducer:"append"`
	}
	ctx, cancel := context.WithCancel(context.Background())
	hang := true
	g, err := typed.NewGraph[State]("cancel").
		AddNode("plan", func(_ context.Context, s *State) (typed.Update[State], error) {
			return typed.Write(s, typed.Set(&s.Steps, []string{"plan"})), nil
		}).
		AddNode("call", func(ctx context.Context, s *State) (typed.Update[State], error) {
			if hang {
				cancel() // the person presses Ctrl-C while the call hangs
				<-ctx.Done()
				return typed.Update[State]{}, ctx.Err()
			}
			return typed.Write(s, typed.Set(&s.Steps, []string{"call"})), nil
		}).
		AddEdge(engine.Start, "plan").AddEdge("plan", "call").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	thread := engine.OnThread("t1")
	var in State
	_, err = g.Run(ctx, typed.Write(&in, typed.Set(&in.Steps, []string{"start"})), thread)
	fmt.Println(errors.Is(err, context.Canceled))

	hang = false
	res, err := g.Continue(context.Background(), thread)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.State.Steps)
	// Output:
	// true
	// done [start plan call]
}

// Resume with engine.FromCheckpoint at a checkpoint whose interrupt was
// answered already keeps the answer saved there, as LangGraph does (a
// task's saved answer comes before a new one). To answer an old question
// differently, run on from its checkpoint, which asks it again on a new
// branch of the thread, then resume that branch.
func ExampleGraph_Resume_fork() {
	type State struct {
		Action string `json:"action"`
		Done   string `json:"done"`
	}
	g, err := typed.NewGraph[State]("approve").
		AddNode("act", func(ctx context.Context, s *State) (typed.Update[State], error) {
			ok, err := typed.Interrupt[bool](ctx, "may I "+s.Action+"?")
			if err != nil {
				return typed.Update[State]{}, err
			}
			if !ok {
				return typed.Write(s, typed.Set(&s.Done, "refused")), nil
			}
			return typed.Write(s, typed.Set(&s.Done, s.Action)), nil
		}).
		AddEdge(engine.Start, "act").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t1")
	var in State
	res, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Action, "delete")), thread)
	if err != nil {
		panic(err)
	}
	asked := res.Checkpoint.CheckpointID // where the question waits
	if res, err = g.Resume(ctx, true, thread); err != nil {
		panic(err)
	}
	fmt.Println("answered yes:", res.State.Done)

	// The saved answer wins over a new one at that checkpoint.
	if res, err = g.Resume(ctx, false, thread, engine.FromCheckpoint(asked)); err != nil {
		panic(err)
	}
	fmt.Println("resumed there with no:", res.State.Done)

	// Running on from it asks again, on a new branch; answer that.
	if res, err = g.Continue(ctx, thread, engine.FromCheckpoint(asked)); err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Interrupts[0].Value)
	if res, err = g.Resume(ctx, false, thread); err != nil {
		panic(err)
	}
	fmt.Println("fork answered no:", res.State.Done)
	// Output:
	// answered yes: delete
	// resumed there with no: delete
	// interrupted may I delete?
	// fork answered no: refused
}
