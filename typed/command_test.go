package typed_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// jumpState is a graph where "b" runs only when something goes to it: a
// Command's goto, as a run's input or an update's.
type jumpState struct {
	N   int                      `json:"n"`
	Log typed.AppendList[string] `json:"log"`
}

func jumpGraph(t *testing.T) *typed.Graph[jumpState] {
	t.Helper()
	step := func(name string) typed.NodeFunc[jumpState] {
		return func(_ context.Context, s *jumpState) (typed.Update[jumpState], error) {
			return typed.Write(s, typed.Append(&s.Log, name)), nil
		}
	}
	g, err := typed.NewGraph[jumpState]("jump").
		AddNode("a", func(_ context.Context, s *jumpState) (typed.Update[jumpState], error) {
			return typed.Write(s, typed.Append(&s.Log, "a")).Goto(engine.End), nil
		}, engine.WithEnds("b", engine.End)).
		AddNode("b", step("b")).
		AddEdge(engine.Start, "a").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A run's input with Goto is LangGraph's invoke(Command(update=...,
// goto=...)): the named node runs next with the update written. Run took
// the Update as a plain input and dropped its gotos, and an input of gotos
// alone set no field, so Run continued the thread instead.
func TestRun_InputWithGotoIsACommand(t *testing.T) {
	ctx, thread := context.Background(), engine.OnThread("t")
	g := jumpGraph(t)
	var in jumpState
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.N, 1)), thread); err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.N, 2)).Goto("b"), thread)
	if err != nil {
		t.Fatal(err)
	}
	if want := (jumpState{N: 2, Log: typed.AppendList[string]{"a", "b"}}); !reflect.DeepEqual(res.State, want) {
		t.Fatalf("state %+v, want %+v", res.State, want)
	}
	res, err = g.Run(ctx, typed.Update[jumpState]{}.Goto("b"), thread)
	if err != nil {
		t.Fatal(err)
	}
	if want := (typed.AppendList[string]{"a", "b", "b"}); !reflect.DeepEqual(res.State.Log, want) {
		t.Fatalf("log %v after a goto alone, want %v", res.State.Log, want)
	}
}

// UpdateState with Goto is update_state with a Command as the node's
// return: the node it names is next. The gotos were dropped.
func TestGraph_UpdateState_GotoNamesTheNextNode(t *testing.T) {
	ctx := context.Background()
	g := jumpGraph(t)
	var in jumpState
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.N, 1)), engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	var u jumpState
	if _, err := g.UpdateState(ctx, engine.Config{ThreadID: "t"}, typed.Write(&u, typed.Set(&u.N, 5)).Goto("b"), "a"); err != nil {
		t.Fatal(err)
	}
	s, snap, err := g.State(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 5 || !reflect.DeepEqual(snap.Next, []string{"b"}) {
		t.Fatalf("n %d, next %v; want 5 and [b]", s.N, snap.Next)
	}
}

// ResumeWith answers with a typed state update (Command(resume=...,
// update=...)); an engine.Command could not carry a typed Update: the
// engine refused it as "expected a map of state keys".
func TestGraph_ResumeWith_WritesTheUpdateBeforeTheNodeRunsAgain(t *testing.T) {
	type state struct {
		Note  string `json:"note"`
		Draft string `json:"draft"`
	}
	g, err := typed.NewGraph[state]("ask").
		AddNode("ask", func(ctx context.Context, s *state) (typed.Update[state], error) {
			ans, err := typed.Interrupt[string](ctx, "ok?")
			if err != nil {
				return typed.Update[state]{}, err
			}
			return typed.Write(s, typed.Set(&s.Draft, ans+", "+s.Note)), nil
		}).
		AddEdge(engine.Start, "ask").
		Compile(engine.WithSaver(engine.NewMemorySaver()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, thread := context.Background(), engine.OnThread("t")
	var in state
	if _, err := g.Run(ctx, typed.Write(&in, typed.Set(&in.Note, "first")), thread); err != nil {
		t.Fatal(err)
	}
	var u state
	res, err := g.ResumeWith(ctx, "yes", typed.Write(&u, typed.Set(&u.Note, "edited")), thread)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusDone || res.State.Draft != "yes, edited" {
		t.Fatalf("%v %q, want done and %q", res.Status, res.State.Draft, "yes, edited")
	}
}
