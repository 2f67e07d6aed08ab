package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/superstep/superstep/engine"
)

// markLog keeps each node's StateChanges answer, asked against the mark
// the previous node saw (or a mark a test picks).
type markLog struct {
	mu    sync.Mutex
	marks map[string]engine.StateMark
	seen  map[string]stateChange
}

type stateChange struct {
	now         engine.StateMark
	changed     []string
	incremental bool
}

func (l *markLog) node(g **engine.Graph, name, since string, kv ...any) engine.NodeFunc {
	return func(ctx context.Context, in any) (any, error) {
		state, _ := in.(map[string]any)
		l.mu.Lock()
		defer l.mu.Unlock()
		now, changed, inc := engine.StateChanges(ctx, state, l.marks[since])
		keys := (*g).StateKeys()
		var names []string
		for _, i := range changed {
			names = append(names, keys[i])
		}
		slices.Sort(names)
		l.marks[name] = now
		l.seen[name] = stateChange{now, slices.Compact(names), inc}
		return engine.Pairs(kv...), nil
	}
}

func TestStateChanges_NamesTheKeysChangedSinceAnEarlierView(t *testing.T) {
	l := &markLog{marks: map[string]engine.StateMark{}, seen: map[string]stateChange{}}
	var g *engine.Graph
	b := engine.NewStateGraph(engine.LastValueKey("a"), engine.LastValueKey("b"), engine.AppendKey("c"))
	b.AddNode("x", l.node(&g, "x", "", "a", 1)).
		AddNode("y", l.node(&g, "y", "x", "b", 2, "c", []any{"y"})).
		AddNode("p1", l.node(&g, "p1", "y")).
		AddNode("p2", l.node(&g, "p2", "y")).
		AddNode("z", l.node(&g, "z", "x", "a", 3)).
		AddNode("w", l.node(&g, "w", "z")).
		AddEdge(engine.Start, "x").AddEdge("x", "y").
		AddEdge("y", "p1").AddEdge("y", "p2").
		AddJoin([]string{"p1", "p2"}, "z").AddEdge("z", "w")
	g = mustCompile(t, b)
	if _, err := g.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread("t1")); err != nil {
		t.Fatal(err)
	}
	s := l.seen
	if s["x"].now == (engine.StateMark{}) || s["x"].incremental {
		t.Errorf("x, the first reader: got %+v, want a mark and no increment", s["x"])
	}
	if !s["y"].incremental || !slices.Equal(s["y"].changed, []string{"a"}) {
		t.Errorf("y after x wrote a: got %+v", s["y"])
	}
	if s["p1"].now != s["p2"].now || !slices.Equal(s["p1"].changed, []string{"b", "c"}) {
		t.Errorf("siblings read one view, changed since y: %+v %+v", s["p1"], s["p2"])
	}
	// p1 and p2 wrote nothing: z reads their view, two after x's, so the
	// keys changed since x read are x's and y's.
	if s["z"].now != s["p1"].now || !s["z"].incremental || !slices.Equal(s["z"].changed, []string{"a", "b", "c"}) {
		t.Errorf("z since x: got %+v", s["z"])
	}
	if !s["w"].incremental || !slices.Equal(s["w"].changed, []string{"a"}) {
		t.Errorf("w since z: got %+v", s["w"])
	}

	// A mark of another run is never incremental.
	first := l.marks["w"]
	l.marks[""] = first // x asks since the first run's last mark
	if _, err := g.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread("t2")); err != nil {
		t.Fatal(err)
	}
	if s := l.seen["x"]; s.now == first || s.now == (engine.StateMark{}) || s.incremental {
		t.Errorf("a mark from another run: got %+v", s)
	}
}

func TestStateChanges_OnlyForTheSharedViewOfARunningTask(t *testing.T) {
	if now, _, inc := engine.StateChanges(ctx, map[string]any{}, engine.StateMark{}); now != (engine.StateMark{}) || inc {
		t.Errorf("outside a task: got %v %v", now, inc)
	}
	var got []engine.StateMark
	var mu sync.Mutex
	record := func(ctx context.Context, in any) (any, error) {
		m, _ := in.(map[string]any)
		now, _, _ := engine.StateChanges(ctx, m, engine.StateMark{})
		mu.Lock()
		got = append(got, now)
		mu.Unlock()
		return nil, nil
	}
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("a")).
		AddNode("fan", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", record).
		AddNode("copy", func(ctx context.Context, in any) (any, error) {
			m, _ := in.(map[string]any)
			return record(ctx, map[string]any{"a": m["a"]})
		}).
		AddEdge(engine.Start, "fan").AddEdge("fan", "copy").
		AddConditionalEdges("fan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "work", Arg: map[string]any{"a": 1.0}}}, nil
		}, "work"))
	if _, err := g.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (engine.StateMark{}) || got[1] != (engine.StateMark{}) {
		t.Errorf("a Send's argument and a copy of the state have no mark: got %v", got)
	}
}

func TestStateChanges_ForgetsOldGenerations(t *testing.T) {
	l := &markLog{marks: map[string]engine.StateMark{}, seen: map[string]stateChange{}}
	var g *engine.Graph
	b := engine.NewStateGraph(engine.LastValueKey("n"))
	prev := engine.Start
	for i := range 12 {
		name := fmt.Sprint("n", i)
		b.AddNode(name, l.node(&g, name, "n0", "n", i)).AddEdge(prev, name)
		prev = name
	}
	g = mustCompile(t, b)
	if _, err := g.Invoke(ctx, map[string]any{"n": 0}, engine.OnThread("t")); err != nil {
		t.Fatal(err)
	}
	if s := l.seen["n3"]; !s.incremental || !slices.Equal(s.changed, []string{"n"}) {
		t.Errorf("three views later: got %+v", s)
	}
	if s := l.seen["n11"]; s.incremental {
		t.Errorf("eleven views later the log has forgotten: got %+v", s)
	}
}

// Send tasks get their argument, not the state, so planning builds no
// state view for them; their routes read it from the tasks' goroutines.
// The view must exist before they start (go test -race finds two
// goroutines building it otherwise).
func TestStateView_BuiltBeforeConcurrentTasksRoute(t *testing.T) {
	nop := func(context.Context, any) (any, error) { return nil, nil }
	g := mustCompile(t, engine.NewStateGraph(engine.LastValueKey("a")).
		AddNode("fan", update("a", 1)).
		AddNode("work", nop).
		AddNode("end", nop).
		AddEdge(engine.Start, "fan").
		AddConditionalEdges("fan", func(context.Context, map[string]any) (any, error) {
			return []any{engine.Send{Node: "work", Arg: 1.0}, engine.Send{Node: "work", Arg: 2.0}, engine.Send{Node: "work", Arg: 3.0}}, nil
		}, "work").
		AddConditionalEdges("work", func(_ context.Context, s map[string]any) (any, error) {
			if s["a"] != 1.0 {
				return nil, fmt.Errorf("route saw a=%v", s["a"])
			}
			return "end", nil
		}, "end"))
	for i := range 10 {
		if _, err := g.Invoke(ctx, map[string]any{"a": 0}, engine.OnThread(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
}
