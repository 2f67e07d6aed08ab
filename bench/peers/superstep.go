package main

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// superstepSystem builds each workload with superstep's Go API (Go node
// functions, map state; the engine keeps numbers as float64, as JSON does); withSaver adds a MemorySaver, so every superstep
// writes a checkpoint as LangGraph does with a checkpointer.
type superstepSystem struct {
	withSaver bool
	runs      int
}

func (s *superstepSystem) name() string {
	if s.withSaver {
		return "superstep-memory"
	}
	return "superstep"
}

func (s *superstepSystem) faithful(string) bool { return true }

func (s *superstepSystem) prepare(wl string) (func() error, error) {
	var opts []engine.CompileOption
	var saver *engine.MemorySaver
	if s.withSaver {
		saver = engine.NewMemorySaver()
		opts = append(opts, engine.WithSaver(saver))
	}
	g, input, limit, err := superstepGraph(wl, opts)
	if err != nil {
		return nil, err
	}
	return func() error {
		s.runs++
		thread := fmt.Sprint("t", s.runs)
		res, err := g.Invoke(context.Background(), input(), engine.OnThread(thread), engine.WithRecursionLimit(limit))
		if err != nil {
			return err
		}
		if res.Status != engine.StatusDone {
			return fmt.Errorf("status %v", res.Status)
		}
		if err := checkFinal(wl, res.Values); err != nil {
			return err
		}
		if saver != nil {
			// Keep the saver's size constant across runs.
			return saver.DeleteThread(context.Background(), thread)
		}
		return nil
	}, nil
}

func superstepGraph(wl string, opts []engine.CompileOption) (*engine.Graph, func() any, int, error) {
	var sg *engine.StateGraph
	var input func() any
	limit := 25
	switch wl {
	case "chain_1000":
		sg = engine.NewStateGraph(engine.LastValueKey("n"))
		inc := func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
		}
		for i := 0; i < chainNodes; i++ {
			sg.AddNode(fmt.Sprint("n", i), inc)
		}
		sg.AddEdge(engine.Start, "n0")
		for i := 1; i < chainNodes; i++ {
			sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
		}
		sg.AddEdge(fmt.Sprint("n", chainNodes-1), engine.End)
		input = func() any { return map[string]any{"n": 0} }
		limit = chainNodes + 10
	case "fanout_1000":
		sg = engine.NewStateGraph(engine.LastValueKey("items"), engine.AppendKey("results"), engine.LastValueKey("total"))
		sg.AddNode("split", func(context.Context, any) (any, error) { return nil, nil })
		sg.AddNode("work", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "results", Value: []any{in.(float64) * 2}}}, nil
		})
		sg.AddNode("join", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "total", Value: len(in.(map[string]any)["results"].([]any))}}, nil
		})
		sg.AddEdge(engine.Start, "split")
		sg.AddConditionalEdges("split", func(_ context.Context, st map[string]any) (any, error) {
			items := st["items"].([]any)
			sends := make([]any, len(items))
			for i, x := range items {
				sends[i] = engine.Send{Node: "work", Arg: x}
			}
			return sends, nil
		}, "work")
		sg.AddEdge("work", "join")
		sg.AddEdge("join", engine.End)
		input = func() any {
			items := make([]any, fanoutN)
			for i := range items {
				items[i] = i
			}
			return map[string]any{"items": items, "results": []any{}}
		}
	case "loop_5000":
		sg = engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("m"))
		sg.AddNode("ping", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
		})
		sg.AddNode("pong", func(_ context.Context, in any) (any, error) {
			return engine.Update{{Key: "m", Value: in.(map[string]any)["n"]}}, nil
		})
		sg.AddEdge(engine.Start, "ping")
		sg.AddEdge("ping", "pong")
		sg.AddConditionalEdges("pong", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < loopRounds {
				return "ping", nil
			}
			return engine.End, nil
		}, "ping", engine.End)
		input = func() any { return map[string]any{"n": 0} }
		limit = loopSteps + 10
	case "wide_state":
		keys := make([]engine.KeySpec, wideKeys)
		for k := range keys {
			keys[k] = engine.LastValueKey(wideName(k))
		}
		sg = engine.NewStateGraph(keys...)
		for i := 0; i < wideNodes; i++ {
			sg.AddNode(fmt.Sprint("w", i), func(_ context.Context, in any) (any, error) {
				st := in.(map[string]any)
				upd := make(engine.Update, widePer)
				for j := range upd {
					k := wideName(wideKey(i, j))
					upd[j] = engine.KV{Key: k, Value: st[k].(float64) + float64(i+1)}
				}
				return upd, nil
			})
		}
		sg.AddEdge(engine.Start, "w0")
		for i := 1; i < wideNodes; i++ {
			sg.AddEdge(fmt.Sprint("w", i-1), fmt.Sprint("w", i))
		}
		sg.AddEdge(fmt.Sprint("w", wideNodes-1), engine.End)
		input = func() any {
			in := make(map[string]any, wideKeys)
			for k := 0; k < wideKeys; k++ {
				in[wideName(k)] = 0
			}
			return in
		}
		limit = wideNodes + 10
	default:
		return nil, nil, 0, fmt.Errorf("unknown workload %q", wl)
	}
	g, err := sg.Compile(opts...)
	return g, input, limit, err
}
