package engine

import "maps"

// Managed values are state keys that no node writes and no checkpoint
// stores: each PULL task's input gets them computed from the run's step
// counter (LangGraph Python's managed values, managed/is_last_step.py, read
// in pregel/_algo.py:1348 _proc_input). LangGraph.js 1.7.3 has none.

const (
	managedRemainingSteps = "remaining_steps"
	managedIsLastStep     = "is_last_step"
)

// RemainingStepsKey declares a managed key whose value, in a node's input,
// is how many supersteps the run may still take before the recursion limit
// stops it (LangGraph's RemainingSteps: stop - step). An agent reads it to
// answer before running out of steps.
func RemainingStepsKey(name string) KeySpec {
	return KeySpec{Name: name, managed: managedRemainingSteps, ReducerName: "RemainingSteps"}
}

// IsLastStepKey declares a managed key that is true in the input of the
// nodes of the last superstep the recursion limit allows (LangGraph's
// IsLastStep: step == stop - 1).
func IsLastStepKey(name string) KeySpec {
	return KeySpec{Name: name, managed: managedIsLastStep, ReducerName: "IsLastStep"}
}

// addManagedValues puts the managed values into the input of the planned
// PULL tasks of user nodes (a Send's task gets its argument only, and
// __start__ its raw input). The tasks share one copy of the state view
// with them: the view itself is the state, which has no managed keys.
func (l *loop) addManagedValues(tasks []*task) {
	if len(l.g.managed) == 0 {
		return
	}
	var in map[string]any
	for _, t := range tasks {
		if _, ok := t.input.(map[string]any); t.kind != pullTask || t.node.start || !ok {
			continue
		}
		if in != nil {
			t.input = in
			continue
		}
		in = maps.Clone(t.input.(map[string]any))
		t.input = in
		l.putManaged(in)
	}
}

// putManaged sets the managed values of the current superstep in state.
func (l *loop) putManaged(state map[string]any) {
	for _, k := range l.g.managed {
		switch k.managed {
		case managedRemainingSteps:
			state[k.Name] = float64(l.stop - l.step)
		case managedIsLastStep:
			state[k.Name] = l.step == l.stop-1
		}
	}
}

// withManaged is the state a route reads, managed values included: a
// branch's reader selects the schema's keys, managed ones among them
// (LangGraph Python graph/state.py attach_branch), and local_read computes
// those from the task's scratchpad (pregel/_algo.py:188-225). state is the
// route's own copy when own is true; otherwise it is shared, and copied.
func (l *loop) withManaged(state map[string]any, own bool) map[string]any {
	if len(l.g.managed) == 0 {
		return state
	}
	if !own {
		state = maps.Clone(state)
	}
	l.putManaged(state)
	return state
}

// ManagedKeys returns the graph's managed value keys in declaration order.
func (g *Graph) ManagedKeys() []string {
	out := make([]string, len(g.managed))
	for i, k := range g.managed {
		out[i] = k.Name
	}
	return out
}
