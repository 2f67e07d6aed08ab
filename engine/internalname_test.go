package engine_test

import (
	"context"
	"testing"

	"github.com/superstep/superstep/engine"
)

// IsInternalName is the rule NewStateGraph refuses state keys by: the
// engine's reserved names and the channels that trigger nodes, and no
// other name, however it starts.
func TestIsInternalName(t *testing.T) {
	for name, internal := range map[string]bool{
		engine.Start: true, engine.End: true, engine.InterruptChannel: true, engine.TasksChannel: true,
		"branch:to:write": true, "join:a+b:c": true,
		"findings": false, "__meta": false, "branch": false, "to:x": false,
	} {
		if got := engine.IsInternalName(name); got != internal {
			t.Errorf("IsInternalName(%q) = %v, want %v", name, got, internal)
		}
		_, err := engine.NewStateGraph(engine.LastValueKey(name)).
			AddNode("n", func(context.Context, any) (any, error) { return nil, nil }).
			AddEdge(engine.Start, "n").Compile()
		if refused := err != nil; refused != internal {
			t.Errorf("a state key %q: compile error %v, want refused %v", name, err, internal)
		}
	}
}

// A write to a node's trigger channel reads as the node it routes to.
func TestWrite_RoutesTo(t *testing.T) {
	if node, ok := (engine.Write{Channel: engine.BranchPrefix + "edit"}).RoutesTo(); !ok || node != "edit" {
		t.Fatalf("RoutesTo = %q, %v", node, ok)
	}
	if _, ok := (engine.Write{Channel: "messages"}).RoutesTo(); ok {
		t.Fatal("a state key's write routes")
	}
}
