package engine_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
)

// The state map a node gets is lent to it: the loop changes the same map
// in place for later supersteps unless something may still read it after
// the superstep (stateview.go). These tests hand the map back to the engine
// by every route it keeps values through, then change the state, and
// check that the map handed back still holds the state it was given with.

// lendChain is first → second → third over keys a and kept: first runs
// body on the state {a: 1}, second writes a = 3, third a = 4, so the state
// changes twice after first returned.
func lendChain(t *testing.T, body engine.NodeFunc, opts ...engine.CompileOption) *engine.Graph {
	t.Helper()
	b := engine.NewStateGraph(engine.LastValueKey("a"), engine.LastValueKey("kept"))
	b.AddNode("first", body).
		AddNode("second", func(context.Context, any) (any, error) { return engine.Pairs("a", 3), nil }).
		AddNode("third", func(context.Context, any) (any, error) { return engine.Pairs("a", 4), nil }).
		AddEdge(engine.Start, "first").AddEdge("first", "second").AddEdge("second", "third")
	return mustCompile(t, b, opts...)
}

// wantFrozen fails unless m is a state map holding a = 1, as first got it.
func wantFrozen(t *testing.T, what string, m any) {
	t.Helper()
	st, ok := m.(map[string]any)
	if !ok {
		t.Fatalf("%s: got %T, want the state map", what, m)
	}
	if st["a"] != float64(1) || len(st) != 1 {
		t.Errorf("%s: the state map handed back changed after the node returned: %v, want map[a:1]", what, st)
	}
}

func TestStateView_ChangedInPlaceWhenNothingKeepsIt(t *testing.T) {
	// The rule for node code (NodeFunc): the map is valid until the node
	// returns. A node breaking it sees later states: proof that nothing was
	// copied for the next supersteps.
	var kept map[string]any
	g := lendChain(t, func(_ context.Context, in any) (any, error) {
		kept = in.(map[string]any)
		return engine.Pairs("a", 2), nil
	})
	if _, err := g.Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if kept["a"] != float64(4) {
		t.Errorf("kept past its node: a = %v, want 4 (the map is changed in place)", kept["a"])
	}
}

func TestStateView_KeptValueHoldingItIsNotChanged(t *testing.T) {
	type holder struct{ State map[string]any }
	type hidden struct{ p *struct{ m any } }
	cases := []struct {
		name string
		body func(ctx context.Context, in map[string]any) (any, error)
		// got returns the map handed back, after the run.
		got func(res *engine.Result) any
	}{
		{"written to a state key",
			func(_ context.Context, in map[string]any) (any, error) {
				return engine.Pairs("a", 2, "kept", in), nil
			},
			func(res *engine.Result) any { return res.Values["kept"] }},
		{"nested in a written list",
			func(_ context.Context, in map[string]any) (any, error) {
				return engine.Pairs("a", 2, "kept", []any{map[string]any{"s": in}}), nil
			},
			func(res *engine.Result) any { return res.Values["kept"].([]any)[0].(map[string]any)["s"] }},
		{"inside a Go value of another type",
			func(_ context.Context, in map[string]any) (any, error) {
				return engine.Pairs("a", 2, "kept", &holder{State: in}), nil
			},
			func(res *engine.Result) any { return res.Values["kept"].(*holder).State }},
		{"in an unexported field behind a pointer",
			func(_ context.Context, in map[string]any) (any, error) {
				return engine.Pairs("a", 2, "kept", hidden{p: &struct{ m any }{m: in}}), nil
			},
			func(res *engine.Result) any { return res.Values["kept"].(hidden).p.m }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := lendChain(t, func(ctx context.Context, in any) (any, error) { return c.body(ctx, in.(map[string]any)) })
			res, err := g.Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Values["a"] != float64(4) {
				t.Fatalf("a = %v, want 4", res.Values["a"])
			}
			wantFrozen(t, c.name, c.got(res))
		})
	}
}

func TestStateView_SendArgumentIsTheStateWhenSent(t *testing.T) {
	// A Send of the state runs in the next superstep, after the sender's
	// own update changed the state: its argument is the state it was sent.
	var got any
	b := engine.NewStateGraph(engine.LastValueKey("a"))
	b.AddNode("first", func(_ context.Context, in any) (any, error) {
		return engine.Command{Update: engine.Pairs("a", 2), Goto: []any{engine.Send{Node: "sink", Arg: in}}}, nil
	}, engine.WithEnds("sink")).
		AddNode("sink", func(_ context.Context, in any) (any, error) { got = in; return engine.Pairs("a", 5), nil }).
		AddEdge(engine.Start, "first")
	if _, err := mustCompile(t, b).Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	wantFrozen(t, "Send from a node", got)

	// A route's Send of the state it was given (the shared view: its node
	// wrote nothing) while a sibling changes the state.
	got = nil
	b = engine.NewStateGraph(engine.LastValueKey("a"))
	b.AddNode("first", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("other", func(context.Context, any) (any, error) { return engine.Pairs("a", 2), nil }).
		AddNode("sink", func(_ context.Context, in any) (any, error) { got = in; return nil, nil }).
		AddEdge(engine.Start, "first").AddEdge(engine.Start, "other").
		AddConditionalEdges("first", func(_ context.Context, st map[string]any) (any, error) {
			return engine.Send{Node: "sink", Arg: st}, nil
		}, "sink")
	if _, err := mustCompile(t, b).Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	wantFrozen(t, "Send from a route", got)
}

func TestStateView_InterruptValueIsNotChanged(t *testing.T) {
	// A sibling's write is applied in the superstep that interrupts.
	b := engine.NewStateGraph(engine.LastValueKey("a"))
	b.AddNode("ask", func(ctx context.Context, in any) (any, error) {
		if _, err := engine.Interrupt(ctx, in); err != nil {
			return nil, err
		}
		return nil, nil
	}).
		AddNode("other", func(context.Context, any) (any, error) { return engine.Pairs("a", 2), nil }).
		AddEdge(engine.Start, "ask").AddEdge(engine.Start, "other")
	g := mustCompile(t, b, engine.WithSaver(engine.NewMemorySaver()))
	res, err := g.Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusInterrupted || len(res.Interrupts) != 1 || res.Values["a"] != float64(2) {
		t.Fatalf("got %v %v %v, want one interrupt and a = 2", res.Status, res.Interrupts, res.Values)
	}
	wantFrozen(t, "interrupt value", res.Interrupts[0].Value)
}

func TestStateView_PublishedIsNotChanged(t *testing.T) {
	var mu sync.Mutex
	var custom, input, call any
	listen := engine.WithEvents(func(e engine.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind == engine.EventCustom:
			custom = e.Value
		case e.Kind == engine.EventTask && e.Node == "first" && e.Input != nil:
			input = e.Input
		case e.Kind == engine.EventTask && e.IsCall:
			call = e.Input.([]any)[0]
		}
	})
	g := lendChain(t, func(ctx context.Context, in any) (any, error) {
		engine.Emit(ctx, in)
		f := engine.Task(ctx, "t", func(_ context.Context, st map[string]any) (float64, error) { return 1, nil }, in.(map[string]any))
		if _, err := f.Result(); err != nil {
			return nil, err
		}
		return engine.Pairs("a", 2), nil
	})
	if _, err := g.Invoke(ctx, map[string]any{"a": 1}, listen, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	wantFrozen(t, "custom event", custom)
	wantFrozen(t, "task event's input", input)
	wantFrozen(t, "Task argument", call)

	// A Stepper's view of the planned tasks.
	s, err := g.Start(ctx, map[string]any{"a": 1}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	var viewed any
	for viewed == nil {
		if err := s.Next(ctx); err != nil {
			t.Fatal(err)
		}
		for _, tv := range s.View().Tasks {
			if tv.Name == "first" {
				viewed = tv.Input
			}
		}
	}
	if res, err := s.Run(ctx); err != nil || res.Values["a"] != float64(4) {
		t.Fatalf("run: %v %v", err, res)
	}
	wantFrozen(t, "Stepper task view", viewed)
}

func TestStateView_StepperShowsTheInputATaskRead(t *testing.T) {
	// At the checkpoint of a superstep, a Stepper's view lists the tasks
	// that wrote it with the state they read, not the state they made.
	g := lendChain(t, func(context.Context, any) (any, error) { return engine.Pairs("a", 2), nil })
	s, err := g.Start(ctx, map[string]any{"a": 1}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	// Viewed only there: plan, execute and update __start__'s superstep,
	// then first's.
	for range 6 {
		if err := s.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	v := s.View()
	if v.Phase != engine.PhaseCheckpoint || len(v.Tasks) != 1 || v.Tasks[0].Name != "first" {
		t.Fatalf("at %v with tasks %v, want first's checkpoint", v.Phase, v.Tasks)
	}
	wantFrozen(t, "the input first read, at its superstep's checkpoint", v.Tasks[0].Input)
}

func TestStateView_RunStartedFromANodeKeepsItsInput(t *testing.T) {
	// A subgraph run from a node keeps its input (its __start__ channel,
	// checkpointed): the parent must not change that map afterwards.
	sb := engine.NewStateGraph(engine.LastValueKey("a"))
	sb.AddNode("inner", func(context.Context, any) (any, error) { return nil, nil }).AddEdge(engine.Start, "inner")
	sub := mustCompile(t, sb)
	var kept map[string]any
	g := lendChain(t, func(ctx context.Context, in any) (any, error) {
		kept = in.(map[string]any) // to look at it afterwards
		if _, err := engine.InvokeSubgraph(ctx, sub, in); err != nil {
			return nil, err
		}
		return engine.Pairs("a", 2), nil
	}, engine.WithSaver(engine.NewMemorySaver()))
	if _, err := g.Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	wantFrozen(t, "subgraph input", kept)
}

func TestStateView_UpdateStateFromANodeKeepsItsValues(t *testing.T) {
	// A node writes its state into another thread's checkpoint.
	ms := engine.NewMemorySaver()
	other := lendChain(t, func(context.Context, any) (any, error) { return nil, nil }, engine.WithSaver(ms))
	if _, err := other.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread("other")); err != nil {
		t.Fatal(err)
	}
	g := lendChain(t, func(ctx context.Context, in any) (any, error) {
		_, err := other.UpdateState(ctx, engine.Config{ThreadID: "other"}, map[string]any{"kept": in}, "third")
		return engine.Pairs("a", 2), err
	})
	if _, err := g.Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	snap, err := other.GetState(ctx, engine.Config{ThreadID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	wantFrozen(t, "value of an update", snap.Values["kept"])
}

func TestStateView_TimedOutNodeKeepsReadingItsState(t *testing.T) {
	// The first attempt times out and is abandoned while it still reads
	// its map; the retry succeeds and the run goes on changing the state.
	// Changing the abandoned attempt's map would be a concurrent map write
	// (go test -race reports it; the runtime may crash on it).
	abandoned := make(chan []any, 1)
	var attempts atomic.Int32
	first := func(ctx context.Context, in any) (any, error) {
		st := in.(map[string]any)
		if attempts.Add(1) > 1 {
			return engine.Pairs("a", 2), nil
		}
		var odd []any
		deadline := time.Now().Add(150 * time.Millisecond)
		for time.Now().Before(deadline) {
			for _, v := range st {
				if v != float64(1) {
					odd = append(odd, v)
				}
			}
			time.Sleep(time.Millisecond)
		}
		abandoned <- odd
		return nil, errors.New("too late")
	}
	b := engine.NewStateGraph(engine.LastValueKey("a"))
	b.AddNode("first", first,
		engine.WithTimeout(engine.TimeoutPolicy{Run: 20 * time.Millisecond}),
		engine.WithRetry(engine.RetryPolicy{MaxAttempts: 2, RetryOn: func(error) bool { return true }})).
		AddNode("second", func(context.Context, any) (any, error) { return engine.Pairs("a", 3), nil }).
		AddNode("third", func(context.Context, any) (any, error) { return engine.Pairs("a", 4), nil }).
		AddEdge(engine.Start, "first").AddEdge("first", "second").AddEdge("second", "third")
	res, err := mustCompile(t, b).Invoke(ctx, map[string]any{"a": 1}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Values["a"] != float64(4) {
		t.Errorf("a = %v, want 4", res.Values["a"])
	}
	if odd := <-abandoned; len(odd) > 0 {
		t.Errorf("the abandoned attempt read %v, want only a = 1 (no later state)", odd)
	}
}

func TestStateView_SiblingsReadWhileNothingWrites(t *testing.T) {
	// Siblings read the same map concurrently, superstep after superstep,
	// while the loop changes it in place between supersteps (go test
	// -race checks the hand-over).
	const rounds = 20
	b := engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("x"), engine.LastValueKey("y"))
	var mu sync.Mutex
	var bad []string
	read := func(name string) engine.NodeFunc {
		return func(_ context.Context, in any) (any, error) {
			st := in.(map[string]any)
			n := st["n"].(float64)
			for k, v := range st {
				if k != "n" && v != n {
					mu.Lock()
					bad = append(bad, name)
					mu.Unlock()
				}
			}
			return nil, nil
		}
	}
	b.AddNode("inc", func(_ context.Context, in any) (any, error) {
		n := in.(map[string]any)["n"].(float64) + 1
		return engine.Pairs("n", n, "x", n, "y", n), nil
	}).
		AddNode("r1", read("r1")).AddNode("r2", read("r2")).AddNode("r3", read("r3")).
		AddEdge(engine.Start, "inc").AddEdge("inc", "r1").AddEdge("inc", "r2").AddEdge("inc", "r3").
		AddJoin([]string{"r1", "r2", "r3"}, "loop").
		AddNode("loop", func(context.Context, any) (any, error) { return nil, nil }).
		AddConditionalEdges("loop", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) >= rounds {
				return engine.End, nil
			}
			return "inc", nil
		}, "inc", engine.End)
	res, err := mustCompile(t, b).Invoke(ctx, map[string]any{"n": 0, "x": 0, "y": 0}, engine.WithRecursionLimit(10*rounds), engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Values["n"] != float64(rounds) || len(bad) > 0 {
		t.Errorf("n = %v, inconsistent reads by %v", res.Values["n"], bad)
	}
}
