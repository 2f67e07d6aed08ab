package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"trpc.group/trpc-go/trpc-agent-go/agent"
	tg "trpc.group/trpc-go/trpc-agent-go/graph"
)

// trpcSystem runs the workloads on trpc-agent-go's graph executor (BSP
// supersteps over channels, map state with a schema of reducers). The
// fan-out is its Send equivalent: split returns []*Command, each routing to
// work with its own item as a state overlay. Executor events and tracing
// are switched off (the cheapest configuration it offers); the final state
// is read from the completion event, where the executor serializes it.
type trpcSystem struct{}

func (trpcSystem) name() string { return "trpc-agent-go" }

// faithful is false for the fan-out: its results list comes out in the
// order the tasks finished, not in Send order as LangGraph's does.
func (trpcSystem) faithful(wl string) bool { return wl != "fanout_1000" }

func (trpcSystem) describe(wl string) string {
	if wl == "fanout_1000" {
		return "results in completion order, sorted before the check"
	}
	return ""
}

var anyType = reflect.TypeOf((*any)(nil)).Elem()

func trpcField(s *tg.StateSchema, name string, reducer tg.StateReducer) {
	s.AddField(name, tg.StateField{Type: anyType, Reducer: reducer})
}

func trpcChain(sg *tg.StateGraph, prefix string, n int, body func(i int) tg.NodeFunc) {
	for i := 0; i < n; i++ {
		sg.AddNode(fmt.Sprint(prefix, i), body(i))
		if i > 0 {
			sg.AddEdge(fmt.Sprint(prefix, i-1), fmt.Sprint(prefix, i))
		}
	}
	sg.SetEntryPoint(prefix + "0")
	sg.SetFinishPoint(fmt.Sprint(prefix, n-1))
}

func (trpcSystem) prepare(wl string) (func() error, error) {
	schema := tg.NewStateSchema()
	var sg *tg.StateGraph
	var input func() tg.State
	maxSteps := 50
	switch wl {
	case "chain_1000":
		trpcField(schema, "n", tg.CoverReducer)
		sg = tg.NewStateGraph(schema)
		trpcChain(sg, "n", chainNodes, func(int) tg.NodeFunc {
			return func(_ context.Context, s tg.State) (any, error) { return tg.State{"n": s["n"].(int) + 1}, nil }
		})
		input = func() tg.State { return tg.State{"n": 0} }
		maxSteps = chainNodes + 10
	case "fanout_1000":
		trpcField(schema, "items", tg.CoverReducer)
		trpcField(schema, "x", tg.CoverReducer)
		trpcField(schema, "results", tg.AppendReducer)
		trpcField(schema, "total", tg.CoverReducer)
		sg = tg.NewStateGraph(schema)
		sg.AddNode("split", func(_ context.Context, s tg.State) (any, error) {
			items := s["items"].([]any)
			cmds := make([]*tg.Command, len(items))
			for i, x := range items {
				cmds[i] = &tg.Command{Update: tg.State{"x": x}, GoTo: "work"}
			}
			return cmds, nil
		})
		sg.AddNode("work", func(_ context.Context, s tg.State) (any, error) {
			return tg.State{"results": []any{s["x"].(int) * 2}}, nil
		})
		sg.AddNode("join", func(_ context.Context, s tg.State) (any, error) {
			return tg.State{"total": len(s["results"].([]any))}, nil
		})
		sg.SetEntryPoint("split")
		sg.AddEdge("work", "join")
		sg.SetFinishPoint("join")
		input = func() tg.State {
			items := make([]any, fanoutN)
			for i := range items {
				items[i] = i
			}
			return tg.State{"items": items, "results": []any{}}
		}
	case "loop_5000":
		trpcField(schema, "n", tg.CoverReducer)
		trpcField(schema, "m", tg.CoverReducer)
		sg = tg.NewStateGraph(schema)
		sg.AddNode("ping", func(_ context.Context, s tg.State) (any, error) { return tg.State{"n": s["n"].(int) + 1}, nil })
		sg.AddNode("pong", func(_ context.Context, s tg.State) (any, error) { return tg.State{"m": s["n"]}, nil })
		sg.SetEntryPoint("ping")
		sg.AddEdge("ping", "pong")
		sg.AddConditionalEdges("pong", func(_ context.Context, s tg.State) (string, error) {
			if s["n"].(int) < loopRounds {
				return "ping", nil
			}
			return tg.End, nil
		}, map[string]string{"ping": "ping", tg.End: tg.End})
		input = func() tg.State { return tg.State{"n": 0} }
		maxSteps = loopSteps + 10
	case "wide_state":
		for k := 0; k < wideKeys; k++ {
			trpcField(schema, wideName(k), tg.CoverReducer)
		}
		sg = tg.NewStateGraph(schema)
		trpcChain(sg, "w", wideNodes, func(i int) tg.NodeFunc {
			return func(_ context.Context, s tg.State) (any, error) {
				upd := make(tg.State, widePer)
				for j := 0; j < widePer; j++ {
					k := wideName(wideKey(i, j))
					upd[k] = s[k].(int) + i + 1
				}
				return upd, nil
			}
		})
		input = func() tg.State {
			in := make(tg.State, wideKeys)
			for k := 0; k < wideKeys; k++ {
				in[wideName(k)] = 0
			}
			return in
		}
		maxSteps = wideNodes + 10
	default:
		return nil, fmt.Errorf("unknown workload %q", wl)
	}
	g, err := sg.Compile()
	if err != nil {
		return nil, err
	}
	exec, err := tg.NewExecutor(g, tg.WithMaxSteps(maxSteps))
	if err != nil {
		return nil, err
	}
	return func() error {
		inv := agent.NewInvocation(agent.WithInvocationRunOptions(agent.NewRunOptions(
			agent.WithDisableGraphExecutorEvents(true),
			agent.WithDisableTracing(true),
		)))
		ch, err := exec.Execute(context.Background(), input(), inv)
		if err != nil {
			return err
		}
		var final map[string]any
		var runErr error
		for evt := range ch {
			if evt.Error != nil && runErr == nil {
				runErr = fmt.Errorf("%s", evt.Error.Message)
			}
			if evt.Object == tg.ObjectTypeGraphExecution && evt.StateDelta != nil {
				final = make(map[string]any, len(evt.StateDelta))
				for k, raw := range evt.StateDelta {
					var v any
					if json.Unmarshal(raw, &v) == nil {
						final[k] = v
					}
				}
			}
		}
		if runErr != nil {
			return runErr
		}
		if final == nil {
			return fmt.Errorf("no completion event")
		}
		if wl == "fanout_1000" {
			if err := sortNumbers(final, "results"); err != nil {
				return err
			}
		}
		return checkFinal(wl, final)
	}, nil
}

// sortNumbers sorts the list of numbers state[key] in place.
func sortNumbers(state map[string]any, key string) error {
	list, ok := state[key].([]any)
	if !ok {
		return fmt.Errorf("%s is %T, not a list", key, state[key])
	}
	nums := make([]int, len(list))
	for i, v := range list {
		n, err := asInt(v)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		nums[i] = n
	}
	slices.Sort(nums)
	for i, n := range nums {
		list[i] = n
	}
	return nil
}
