package engine

import (
	"context"
	"reflect"
	"testing"
)

// testGraph compiles a small graph for algorithm tests: start→a, a→b, a→c,
// [b,c]→j, with key "x" LastValue and "log" appended.
func testGraph(t *testing.T) *Graph {
	t.Helper()
	nop := func(context.Context, any) (any, error) { return nil, nil }
	g, err := NewStateGraph(LastValueKey("x"), AppendKey("log")).
		AddNode("a", nop).AddNode("b", nop).AddNode("c", nop).AddNode("j", nop).
		AddEdge(Start, "a").AddEdge("a", "b").AddEdge("a", "c").
		AddJoin([]string{"b", "c"}, "j").
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func names(ts []*task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.name)
	}
	return out
}

func TestPrepareNextTasks_TriggerRule(t *testing.T) {
	g := testGraph(t)
	tests := []struct {
		name     string
		versions map[string]Version
		seen     map[string]map[string]Version
		avail    []string // ephemeral channels holding a value
		want     []string
	}{
		{"nothing versioned plans nothing", nil, nil, nil, nil},
		{"never-run node fires on an available trigger", map[string]Version{"branch:to:a": 2}, nil, []string{"branch:to:a"}, []string{"a"}},
		{"seen version blocks", map[string]Version{"branch:to:a": 2}, map[string]map[string]Version{"a": {"branch:to:a": 2}}, []string{"branch:to:a"}, nil},
		{"newer version fires", map[string]Version{"branch:to:a": 3}, map[string]map[string]Version{"a": {"branch:to:a": 2}}, []string{"branch:to:a"}, []string{"a"}},
		{"unavailable trigger never fires", map[string]Version{"branch:to:a": 9}, nil, nil, nil},
		{"siblings in declaration order", map[string]Version{"branch:to:b": 3, "branch:to:c": 3}, nil, []string{"branch:to:c", "branch:to:b"}, []string{"b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := newChannelState(g, nil)
			for _, c := range tt.avail {
				cs.channel(c).update([]any{nil})
				cs.refresh(cs.g.chanIDs[c])
			}
			for c, v := range tt.versions {
				cs.setVersion(cs.g.chanIDs[c], v)
			}
			for n, m := range tt.seen {
				cs.setSeen(n, m)
			}
			got := names(prepareNextTasks(cs, "cp", "", 1, planHint{}))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("planned %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPrepareNextTasks_PushBeforePullAndHint(t *testing.T) {
	g := testGraph(t)
	cs := newChannelState(g, nil)
	cs.channel(TasksChannel).update([]any{Send{Node: "b", Arg: 1.0}, Send{Node: "ghost"}, Send{Node: "c", Arg: 2.0}})
	cs.channel("branch:to:a").update([]any{nil})
	cs.refresh(cs.g.chanIDs["branch:to:a"])
	cs.setVersion(cs.g.chanIDs["branch:to:a"], 1)
	cs.setVersion(cs.g.chanIDs[TasksChannel], 1)
	tasks := prepareNextTasks(cs, "cp", "", 1, planHint{})
	if got := names(tasks); !reflect.DeepEqual(got, []string{"b", "c", "a"}) {
		t.Fatalf("planned %v, want Sends first (unknown node skipped), then a", got)
	}
	if tasks[0].input != 1.0 || tasks[0].triggers[0] != Push || tasks[1].index != 2 {
		t.Fatalf("push task fields wrong: %+v", tasks[1])
	}
	// A known hint restricts PULL candidates to the nodes it triggers.
	if got := names(prepareNextTasks(cs, "cp", "", 1, planHint{known: true, channels: []string{"log"}})); !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Fatalf("with an unrelated hint planned %v, want only the Sends", got)
	}
	// Task ids are stable for the same checkpoint and step, and differ otherwise.
	again := prepareNextTasks(cs, "cp", "", 1, planHint{})
	other := prepareNextTasks(cs, "cp2", "", 1, planHint{})
	if again[2].id() != tasks[2].id() || other[2].id() == tasks[2].id() {
		t.Fatal("task ids must derive from checkpoint id, step and path")
	}
}

func TestApplyWrites_VersionsAndClearing(t *testing.T) {
	g := testGraph(t)
	cs := newChannelState(g, nil)
	// Superstep that ran a: a wrote x and its edges.
	cs.channel("branch:to:a").update([]any{nil})
	cs.refresh(cs.g.chanIDs["branch:to:a"])
	cs.setVersion(cs.g.chanIDs["branch:to:a"], 2)
	cs.setVersion(cs.g.chanIDs["__start__"], 2)
	a := &task{name: "a", triggers: []string{"branch:to:a"}, writes: []Write{{"x", 1.0}, {"branch:to:b", nil}, {"branch:to:c", nil}, {"ghost", 1.0}, {InterruptChannel, "ignored"}}}
	updated, err := applyWrites(cs, []*task{a})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"branch:to:b", "branch:to:c", "x"}; !reflect.DeepEqual(updated, want) {
		t.Fatalf("updated %v, want %v", updated, want)
	}
	wantV := map[string]Version{"__start__": 2, "branch:to:a": 3, "branch:to:b": 3, "branch:to:c": 3, "x": 3}
	if got := cs.versionMap(); !reflect.DeepEqual(got, wantV) {
		t.Fatalf("versions %v, want %v (one version per superstep; the consumed trigger is cleared and bumped)", got, wantV)
	}
	if seen, _ := cs.seen.get("a"); seen["branch:to:a"] != 2 {
		t.Fatalf("versions_seen records the pre-step version, got %v", seen)
	}
	if cs.available("branch:to:a") {
		t.Fatal("an ephemeral trigger nobody wrote must be cleared")
	}

	// b and c run; c's writes sort after b's whatever order they finished in.
	c := &task{name: "c", triggers: []string{"branch:to:c"}, writes: []Write{{"log", []any{"c"}}, {"join:b+c:j", "c"}}}
	b := &task{name: "b", triggers: []string{"branch:to:b"}, writes: []Write{{"log", []any{"b"}}, {"join:b+c:j", "b"}}}
	if _, err := applyWrites(cs, []*task{c, b}); err != nil {
		t.Fatal(err)
	}
	if got := cs.state["log"]; !reflect.DeepEqual(got, []any{"b", "c"}) {
		t.Fatalf("log = %v, want writes in task-path order [b c]", got)
	}
	if v, _ := cs.versionOf("join:b+c:j"); !cs.available("join:b+c:j") || v != 4 {
		t.Fatal("the join must be complete at version 4")
	}
	// j runs: its trigger (the barrier) is consumed first (v5), then its
	// writes get v6, as LangGraph.js numbers them.
	j := &task{name: "j", triggers: []string{"join:b+c:j"}, writes: []Write{{"x", 2.0}}}
	if _, err := applyWrites(cs, []*task{j}); err != nil {
		t.Fatal(err)
	}
	if v := cs.versionMap(); v["join:b+c:j"] != 5 || v["x"] != 6 || cs.available("join:b+c:j") {
		t.Fatalf("after the join ran: versions %v", v)
	}
}

func TestApplyWrites_LastValueConflict(t *testing.T) {
	g := testGraph(t)
	cs := newChannelState(g, nil)
	_, err := applyWrites(cs, []*task{
		{name: "b", triggers: []string{"branch:to:b"}, writes: []Write{{"x", 1.0}}},
		{name: "c", triggers: []string{"branch:to:c"}, writes: []Write{{"x", 2.0}}},
	})
	var iu *InvalidUpdateError
	if !asError(err, &iu) || iu.Channel != "x" {
		t.Fatalf("want InvalidUpdateError naming x, got %v", err)
	}
}

func TestApplyWrites_InputTaskDoesNotBump(t *testing.T) {
	g := testGraph(t)
	cs := newChannelState(g, nil)
	if _, err := applyWrites(cs, []*task{{name: InputTask, writes: []Write{{Start, map[string]any{"x": 1.0}}}}}); err != nil {
		t.Fatal(err)
	}
	if v := cs.versionMap(); v[Start] != 1 || len(v) != 1 {
		t.Fatalf("input gives __start__ version 1 and nothing else, got %v", v)
	}
	if _, ok := cs.seen.get(InputTask); !ok {
		t.Fatal("the input pseudo-task gets an (empty) versions_seen entry")
	}
}

func TestShouldInterrupt(t *testing.T) {
	g := testGraph(t)
	cs := newChannelState(g, nil)
	cs.setVersion(cs.g.chanIDs["x"], 3)
	ts := []*task{{name: "b"}, {name: Start}}
	if !shouldInterrupt(cs, []string{"b"}, ts) {
		t.Fatal("a changed channel and a listed node must interrupt")
	}
	if shouldInterrupt(cs, []string{"c"}, ts) {
		t.Fatal("an unlisted node must not interrupt")
	}
	if shouldInterrupt(cs, []string{"*"}, []*task{{name: Start}}) {
		t.Fatal(`"*" never stops before the hidden __start__ task`)
	}
	cs.seen.set(InterruptChannel, map[string]Version{"x": 3})
	if shouldInterrupt(cs, []string{"b"}, ts) {
		t.Fatal("nothing newer than the versions seen at the last interrupt: no interrupt (the resume dedupe rule)")
	}
}

func asError[T error](err error, target *T) bool {
	for err != nil {
		if e, ok := err.(T); ok {
			*target = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}
