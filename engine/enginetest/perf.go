package enginetest

import (
	"context"
	"fmt"

	"github.com/superstep/superstep/engine"
)

// PerfWorkload is one of the perf workloads of testdata/perf (gen_perf.py
// there) written with Go node functions, for benchmarks: the engine's own
// and bench/peers, which runs the same workloads on other runtimes.
type PerfWorkload struct {
	Name  string
	Graph *engine.Graph
	// Input returns a fresh input for one run.
	Input func() any
	// RecursionLimit lets the run reach its end.
	RecursionLimit int
	// Supersteps is the run's count of supersteps, LangGraph's, the hidden
	// __start__ one included.
	Supersteps int
	// Check reports how a run's final state differs from the expected one.
	Check func(values map[string]any) error
}

// PerfWorkloadNames lists the workloads PerfGraph builds.
var PerfWorkloadNames = []string{"chain_1000", "fanout_1000", "loop_5000", "wide_state"}

// FanoutRecordArgs is a variant PerfGraph also builds: fanout_1000 with the
// Send arguments testdata/perf/fanout_1000.json gives its Sends (its
// sendEach('work', state.items, 'x') sends {x: item}, as LangGraph.js runs
// it), where the fanout_1000 of PerfWorkloadNames sends the bare item, as
// a Go program would. The scenario path's cost against Go node functions
// (graphs/scenario's BenchmarkScenarioVsNative) reads on both: against this
// one it is the cost of the expressions alone, since both build the same
// record for each Send.
const FanoutRecordArgs = "fanout_1000_record_args"

// Sizes of the workloads, as in gen_perf.py.
const (
	perfChain      = 1000
	perfFanout     = 1000
	perfLoopSteps  = 5000
	perfLoopRounds = perfLoopSteps / 2
	perfWideKeys   = 200
	perfWideNodes  = 100
	perfWidePer    = 10
)

// PerfGraph builds workload name with opts (a saver, say). Numbers are
// float64 in the engine, as in JSON; nodes use the ordered Update form.
func PerfGraph(name string, opts ...engine.CompileOption) (*PerfWorkload, error) {
	var build func() (*engine.StateGraph, *PerfWorkload)
	switch name {
	case "chain_1000":
		build = perfChainGraph
	case "fanout_1000":
		build = func() (*engine.StateGraph, *PerfWorkload) { return perfFanoutGraph(false) }
	case FanoutRecordArgs:
		build = func() (*engine.StateGraph, *PerfWorkload) { return perfFanoutGraph(true) }
	case "loop_5000":
		build = perfLoopGraph
	case "wide_state":
		build = perfWideGraph
	default:
		return nil, fmt.Errorf("enginetest: unknown perf workload %q", name)
	}
	sg, w := build()
	w.Name = name
	g, err := sg.Compile(opts...)
	if err != nil {
		return nil, fmt.Errorf("enginetest: %s: %w", name, err)
	}
	w.Graph = g
	return w, nil
}

// chainEdges wires Start → prefix0 → … → prefix(n-1) → End.
func chainEdges(sg *engine.StateGraph, prefix string, n int) {
	sg.AddEdge(engine.Start, prefix+"0")
	for i := 1; i < n; i++ {
		sg.AddEdge(fmt.Sprint(prefix, i-1), fmt.Sprint(prefix, i))
	}
	sg.AddEdge(fmt.Sprint(prefix, n-1), engine.End)
}

func perfChainGraph() (*engine.StateGraph, *PerfWorkload) {
	sg := engine.NewStateGraph(engine.LastValueKey("n"))
	inc := func(_ context.Context, in any) (any, error) {
		return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
	}
	for i := 0; i < perfChain; i++ {
		sg.AddNode(fmt.Sprint("n", i), inc)
	}
	chainEdges(sg, "n", perfChain)
	return sg, &PerfWorkload{
		Input:          func() any { return map[string]any{"n": 0} },
		RecursionLimit: perfChain + 10,
		Supersteps:     perfChain + 1,
		Check:          func(v map[string]any) error { return wantNumber(v, "n", perfChain) },
	}
}

// perfFanoutGraph builds fanout_1000; records says whether each Send's
// argument is the record {x: item} (FanoutRecordArgs) or the bare item.
func perfFanoutGraph(records bool) (*engine.StateGraph, *PerfWorkload) {
	sg := engine.NewStateGraph(engine.LastValueKey("items"), engine.AppendKey("results"), engine.LastValueKey("total"))
	sg.AddNode("split", func(context.Context, any) (any, error) { return nil, nil })
	sg.AddNode("work", func(_ context.Context, x any) (any, error) {
		if records {
			x = x.(map[string]any)["x"]
		}
		return engine.Update{{Key: "results", Value: []any{x.(float64) * 2}}}, nil
	})
	sg.AddNode("join", func(_ context.Context, in any) (any, error) {
		return engine.Update{{Key: "total", Value: len(in.(map[string]any)["results"].([]any))}}, nil
	})
	sg.AddEdge(engine.Start, "split")
	sg.AddConditionalEdges("split", func(_ context.Context, st map[string]any) (any, error) {
		items := st["items"].([]any)
		sends := make([]any, len(items))
		for i, x := range items {
			if records {
				x = map[string]any{"x": x}
			}
			sends[i] = engine.Send{Node: "work", Arg: x}
		}
		return sends, nil
	}, "work")
	sg.AddEdge("work", "join")
	sg.AddEdge("join", engine.End)
	return sg, &PerfWorkload{
		Input: func() any {
			items := make([]any, perfFanout)
			for i := range items {
				items[i] = float64(i)
			}
			return map[string]any{"items": items, "results": []any{}}
		},
		RecursionLimit: 25,
		Supersteps:     4,
		Check: func(v map[string]any) error {
			res, ok := v["results"].([]any)
			if !ok || len(res) != perfFanout {
				return fmt.Errorf("results = %v, want %d items", v["results"], perfFanout)
			}
			for i, r := range res {
				if r != float64(2*i) {
					return fmt.Errorf("results[%d] = %v, want %d", i, r, 2*i)
				}
			}
			return wantNumber(v, "total", perfFanout)
		},
	}
}

func perfLoopGraph() (*engine.StateGraph, *PerfWorkload) {
	sg := engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("m"))
	sg.AddNode("ping", func(_ context.Context, in any) (any, error) {
		return engine.Update{{Key: "n", Value: in.(map[string]any)["n"].(float64) + 1}}, nil
	})
	sg.AddNode("pong", func(_ context.Context, in any) (any, error) {
		return engine.Update{{Key: "m", Value: in.(map[string]any)["n"]}}, nil
	})
	sg.AddEdge(engine.Start, "ping")
	sg.AddEdge("ping", "pong")
	sg.AddConditionalEdges("pong", func(_ context.Context, st map[string]any) (any, error) {
		if st["n"].(float64) < perfLoopRounds {
			return "ping", nil
		}
		return engine.End, nil
	}, "ping", engine.End)
	return sg, &PerfWorkload{
		Input:          func() any { return map[string]any{"n": 0} },
		RecursionLimit: perfLoopSteps + 10,
		Supersteps:     perfLoopSteps + 1,
		Check: func(v map[string]any) error {
			if err := wantNumber(v, "n", perfLoopRounds); err != nil {
				return err
			}
			return wantNumber(v, "m", perfLoopRounds)
		},
	}
}

// wideKey is the key node i writes as its j-th update.
func wideKey(i, j int) string { return fmt.Sprint("k", (i*perfWidePer+j)%perfWideKeys) }

func perfWideGraph() (*engine.StateGraph, *PerfWorkload) {
	keys := make([]engine.KeySpec, perfWideKeys)
	keyNames := make([]string, perfWideKeys) // made once: Input runs in the timed loop
	for k := range keys {
		keyNames[k] = fmt.Sprint("k", k)
		keys[k] = engine.LastValueKey(keyNames[k])
	}
	sg := engine.NewStateGraph(keys...)
	want := map[string]float64{}
	for i := 0; i < perfWideNodes; i++ {
		names := make([]string, perfWidePer)
		for j := range names {
			names[j] = wideKey(i, j)
			want[names[j]] += float64(i + 1)
		}
		sg.AddNode(fmt.Sprint("w", i), func(_ context.Context, in any) (any, error) {
			st := in.(map[string]any)
			upd := make(engine.Update, len(names))
			for j, k := range names {
				upd[j] = engine.KV{Key: k, Value: st[k].(float64) + float64(i+1)}
			}
			return upd, nil
		})
	}
	chainEdges(sg, "w", perfWideNodes)
	return sg, &PerfWorkload{
		Input: func() any {
			in := make(map[string]any, perfWideKeys)
			for _, k := range keyNames {
				in[k] = 0
			}
			return in
		},
		RecursionLimit: perfWideNodes + 10,
		Supersteps:     perfWideNodes + 1,
		Check: func(v map[string]any) error {
			for k, w := range want {
				if v[k] != w {
					return fmt.Errorf("%s = %v, want %v", k, v[k], w)
				}
			}
			return nil
		},
	}
}

func wantNumber(v map[string]any, key string, want int) error {
	var got float64
	switch x := v[key].(type) {
	case float64:
		got = x
	case int:
		got = float64(x)
	default:
		return fmt.Errorf("%s = %v (%T), want %d", key, v[key], v[key], want)
	}
	if got != float64(want) {
		return fmt.Errorf("%s = %v, want %d", key, got, want)
	}
	return nil
}
