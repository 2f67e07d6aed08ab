package main

import (
	"context"
	"fmt"

	lg "github.com/smallnest/langgraphgo/graph"
)

// smallnestSystem runs the workloads on smallnest/langgraphgo's StateGraph
// with a MapSchema (reducers per key). It has no Send: the fan-out is 1000
// static nodes picked by a Command's Goto, each doubling its own item, so it
// is marked unfaithful. It keeps no channel versions and no checkpoints.
type smallnestSystem struct{}

func (smallnestSystem) name() string { return "smallnest-langgraphgo" }

func (smallnestSystem) faithful(wl string) bool { return wl != "fanout_1000" }

func (smallnestSystem) describe(wl string) string {
	if wl == "fanout_1000" {
		return "no Send: 1000 static nodes chosen by Command.Goto"
	}
	return ""
}

func (smallnestSystem) prepare(wl string) (func() error, error) {
	g := lg.NewStateGraph()
	schema := lg.NewMapSchema()
	var input func() map[string]any
	switch wl {
	case "chain_1000":
		for i := 0; i < chainNodes; i++ {
			g.AddNode(fmt.Sprint("n", i), "", func(_ context.Context, s any) (any, error) {
				return map[string]any{"n": s.(map[string]any)["n"].(int) + 1}, nil
			})
			if i > 0 {
				g.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
			}
		}
		g.AddEdge(fmt.Sprint("n", chainNodes-1), lg.END)
		g.SetEntryPoint("n0")
		input = func() map[string]any { return map[string]any{"n": 0} }
	case "fanout_1000":
		schema.RegisterReducer("results", lg.AppendReducer)
		targets := make([]string, fanoutN)
		for i := range targets {
			targets[i] = fmt.Sprint("work", i)
			g.AddNode(targets[i], "", func(_ context.Context, s any) (any, error) {
				x := s.(map[string]any)["items"].([]any)[i].(int)
				return map[string]any{"results": []any{x * 2}}, nil
			})
			g.AddEdge(targets[i], "join")
		}
		g.AddNode("split", "", func(context.Context, any) (any, error) {
			return &lg.Command{Update: map[string]any{}, Goto: targets}, nil
		})
		g.AddNode("join", "", func(_ context.Context, s any) (any, error) {
			return map[string]any{"total": len(s.(map[string]any)["results"].([]any))}, nil
		})
		g.AddEdge("join", lg.END)
		g.SetEntryPoint("split")
		input = func() map[string]any {
			items := make([]any, fanoutN)
			for i := range items {
				items[i] = i
			}
			return map[string]any{"items": items, "results": []any{}}
		}
	case "loop_5000":
		g.AddNode("ping", "", func(_ context.Context, s any) (any, error) {
			return map[string]any{"n": s.(map[string]any)["n"].(int) + 1}, nil
		})
		g.AddNode("pong", "", func(_ context.Context, s any) (any, error) {
			return map[string]any{"m": s.(map[string]any)["n"]}, nil
		})
		g.AddEdge("ping", "pong")
		g.AddConditionalEdge("pong", func(_ context.Context, s any) string {
			if s.(map[string]any)["n"].(int) < loopRounds {
				return "ping"
			}
			return lg.END
		})
		g.SetEntryPoint("ping")
		input = func() map[string]any { return map[string]any{"n": 0} }
	case "wide_state":
		for i := 0; i < wideNodes; i++ {
			g.AddNode(fmt.Sprint("w", i), "", func(_ context.Context, s any) (any, error) {
				st := s.(map[string]any)
				upd := make(map[string]any, widePer)
				for j := 0; j < widePer; j++ {
					k := wideName(wideKey(i, j))
					upd[k] = st[k].(int) + i + 1
				}
				return upd, nil
			})
			if i > 0 {
				g.AddEdge(fmt.Sprint("w", i-1), fmt.Sprint("w", i))
			}
		}
		g.AddEdge(fmt.Sprint("w", wideNodes-1), lg.END)
		g.SetEntryPoint("w0")
		input = func() map[string]any {
			in := make(map[string]any, wideKeys)
			for k := 0; k < wideKeys; k++ {
				in[wideName(k)] = 0
			}
			return in
		}
	default:
		return nil, fmt.Errorf("unknown workload %q", wl)
	}
	g.SetSchema(schema)
	r, err := g.Compile()
	if err != nil {
		return nil, err
	}
	return func() error {
		out, err := r.Invoke(context.Background(), input())
		if err != nil {
			return err
		}
		st, ok := out.(map[string]any)
		if !ok {
			return fmt.Errorf("final state is %T", out)
		}
		return checkFinal(wl, st)
	}, nil
}
