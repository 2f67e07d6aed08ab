package typed_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/typed"
)

// The four perf workloads (testdata/perf: chain_1000, fanout_1000,
// loop_5000, wide_state), each written twice in Go — with the map API as a
// map user writes it, and with the typed API — and run on the same engine.
// The difference is the typed layer's cost: decoding the state into a
// struct for every task and route, and encoding each update.

func num(s any, key string) float64 { n, _ := s.(map[string]any)[key].(float64); return n }

// chain_1000: 1000 nodes in a row, each adds 1 to n.

type Chain struct {
	N int `json:"n"`
}

func chainMap(opts ...engine.CompileOption) (*engine.Graph, error) {
	g := engine.NewStateGraph(engine.LastValueKey("n"))
	prev := engine.Start
	for i := range 1000 {
		name := fmt.Sprint("n", i)
		g.AddNode(name, func(_ context.Context, s any) (any, error) {
			return engine.Pairs("n", num(s, "n")+1), nil
		}).AddEdge(prev, name)
		prev = name
	}
	return g.Compile(opts...)
}

func chainTyped(opts ...engine.CompileOption) (*typed.Graph[Chain], error) {
	g := typed.NewGraph[Chain]("chain_1000")
	prev := engine.Start
	for i := range 1000 {
		name := fmt.Sprint("n", i)
		g.AddNode(name, func(_ context.Context, s *Chain) (typed.Update[Chain], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).AddEdge(prev, name)
		prev = name
	}
	return g.Compile(opts...)
}

// fanout_1000: split sends 1000 tasks to work, each appends x*2 to
// results; join counts them.

type Fanout struct {
	Items   []int                 `json:"items"`
	Results typed.AppendList[int] `json:"results"`
	Total   int                   `json:"total"`
}

type Item struct {
	X int `json:"x"`
}

func fanoutMap(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("items"), engine.AppendKey("results"), engine.LastValueKey("total")).
		AddNode("split", func(context.Context, any) (any, error) { return nil, nil }).
		AddNode("work", func(_ context.Context, arg any) (any, error) {
			return engine.Pairs("results", []any{num(arg, "x") * 2}), nil
		}).
		AddNode("join", func(_ context.Context, s any) (any, error) {
			r, _ := s.(map[string]any)["results"].([]any)
			return engine.Pairs("total", len(r)), nil
		}).
		AddEdge(engine.Start, "split").
		AddConditionalEdges("split", func(_ context.Context, s map[string]any) (any, error) {
			items, _ := s["items"].([]any)
			sends := make([]any, len(items))
			for i, it := range items {
				sends[i] = engine.Send{Node: "work", Arg: map[string]any{"x": it}}
			}
			return sends, nil
		}, "work").
		AddEdge("work", "join").AddEdge("join", engine.End).
		Compile(opts...)
}

func fanoutTyped(opts ...engine.CompileOption) (*typed.Graph[Fanout], error) {
	g := typed.NewGraph[Fanout]("fanout_1000").
		AddNode("split", func(context.Context, *Fanout) (typed.Update[Fanout], error) { return typed.Update[Fanout]{}, nil })
	typed.AddSendNode(g, "work", func(_ context.Context, it Item, out *Fanout) (typed.Update[Fanout], error) {
		return typed.Write(out, typed.Append(&out.Results, it.X*2)), nil
	})
	g.AddNode("join", func(_ context.Context, s *Fanout) (typed.Update[Fanout], error) {
		return typed.Write(s, typed.Set(&s.Total, len(s.Results))), nil
	}).
		AddEdge(engine.Start, "split")
	typed.AddFanOut(g, "split", "work", func(_ context.Context, s *Fanout) ([]Item, error) {
		items := make([]Item, len(s.Items))
		for i, x := range s.Items {
			items[i] = Item{x}
		}
		return items, nil
	})
	return g.AddEdge("work", "join").AddEdge("join", engine.End).Compile(opts...)
}

// loop_5000: ping adds 1 to n, pong copies it to m and routes back to ping
// while n < 2500.

type PingPong struct {
	N int `json:"n"`
	M int `json:"m"`
}

func loopMap(opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("n"), engine.LastValueKey("m")).
		AddNode("ping", func(_ context.Context, s any) (any, error) { return engine.Pairs("n", num(s, "n")+1), nil }).
		AddNode("pong", func(_ context.Context, s any) (any, error) { return engine.Pairs("m", num(s, "n")), nil }).
		AddEdge(engine.Start, "ping").AddEdge("ping", "pong").
		AddConditionalEdges("pong", func(_ context.Context, s map[string]any) (any, error) {
			if num(s, "n") < 2500 {
				return "ping", nil
			}
			return engine.End, nil
		}, "ping", engine.End).
		Compile(opts...)
}

func loopTyped(opts ...engine.CompileOption) (*typed.Graph[PingPong], error) {
	return typed.NewGraph[PingPong]("loop_5000").
		AddNode("ping", func(_ context.Context, s *PingPong) (typed.Update[PingPong], error) {
			return typed.Write(s, typed.Set(&s.N, s.N+1)), nil
		}).
		AddNode("pong", func(_ context.Context, s *PingPong) (typed.Update[PingPong], error) {
			return typed.Write(s, typed.Set(&s.M, s.N)), nil
		}).
		AddEdge(engine.Start, "ping").AddEdge("ping", "pong").
		AddConditionalEdges("pong", func(_ context.Context, s *PingPong) (string, error) {
			if s.N < 2500 {
				return "ping", nil
			}
			return engine.End, nil
		}, "ping", engine.End).
		Compile(opts...)
}

// wide_state: 200 keys; a chain of 100 nodes, node i adds i+1 to ten keys
// (the typed nodes are in wide_state_test.go).

func wideMap(opts ...engine.CompileOption) (*engine.Graph, error) {
	return wideMapOf(wideMapNode, opts...)
}

// wideMapNode is node i of wideMap: one closure's code for every node,
// the keys it writes in a list.
func wideMapNode(i int) engine.NodeFunc {
	written := make([]string, 10)
	for j := range written {
		written[j] = fmt.Sprint("k", (i*10)%200+j)
	}
	inc := float64(i + 1)
	return func(_ context.Context, s any) (any, error) {
		m := s.(map[string]any)
		u := make(engine.Update, len(written))
		for j, k := range written {
			n, _ := m[k].(float64)
			u[j] = engine.KV{Key: k, Value: n + inc}
		}
		return u, nil
	}
}

// wideMapPerNode is wideMap with its nodes written one by one
// (wideMapNodes), the shape wideTyped's nodes have.
func wideMapPerNode(opts ...engine.CompileOption) (*engine.Graph, error) {
	return wideMapOf(func(i int) engine.NodeFunc { return wideMapNodes[i] }, opts...)
}

// wideMapOf is wide_state's map graph with node(i) as node i.
func wideMapOf(node func(i int) engine.NodeFunc, opts ...engine.CompileOption) (*engine.Graph, error) {
	keys := make([]engine.KeySpec, 200)
	for i := range keys {
		keys[i] = engine.LastValueKey(fmt.Sprint("k", i))
	}
	g := engine.NewStateGraph(keys...)
	prev := engine.Start
	for i := range 100 {
		name := fmt.Sprint("w", i)
		g.AddNode(name, node(i)).AddEdge(prev, name)
		prev = name
	}
	return g.Compile(opts...)
}

func wideTyped(opts ...engine.CompileOption) (*typed.Graph[Wide], error) {
	g := typed.NewGraph[Wide]("wide_state")
	prev := engine.Start
	for i, fn := range wideNodes {
		name := fmt.Sprint("w", i)
		g.AddNode(name, fn).AddEdge(prev, name)
		prev = name
	}
	return g.Compile(opts...)
}

func wideMapInput() map[string]any {
	in := make(map[string]any, 200)
	for i := range 200 {
		in[fmt.Sprint("k", i)] = 0.0
	}
	return in
}

func itemsInput() (map[string]any, typed.Update[Fanout]) {
	items := make([]any, 1000)
	ints := make([]int, 1000)
	for i := range items {
		items[i], ints[i] = float64(i), i
	}
	var in Fanout
	return map[string]any{"items": items, "results": []any{}}, typed.Write(&in, typed.Set(&in.Items, ints), typed.Set(&in.Results, typed.AppendList[int]{}))
}

type runFunc = func(ctx context.Context, opts ...engine.RunOption) error

type perfWorkload struct {
	name  string
	limit int
	mapG  func(...engine.CompileOption) (runFunc, error)
	typG  func(...engine.CompileOption) (runFunc, error)
}

func perfWorkloads() []perfWorkload {
	fanoutIn, fanoutTypedIn := itemsInput()
	var chainIn Chain
	var loopIn PingPong
	return []perfWorkload{
		{"chain_1000", 1010, mapRun(chainMap, map[string]any{"n": 0.0}), typedRun(chainTyped, typed.Write(&chainIn, typed.Set(&chainIn.N, 0)))},
		{"fanout_1000", 25, mapRun(fanoutMap, fanoutIn), typedRun(fanoutTyped, fanoutTypedIn)},
		{"loop_5000", 5010, mapRun(loopMap, map[string]any{"n": 0.0}), typedRun(loopTyped, typed.Write(&loopIn, typed.Set(&loopIn.N, 0)))},
		{"wide_state", 110, mapRun(wideMap, wideMapInput()), typedRun(wideTyped, wideInput())},
		// The same, the map graph's nodes written one by one as the typed
		// graph's are: wideMap's hundred nodes share one closure's code,
		// the typed graph's are a hundred functions, and a run through a
		// hundred functions misses the instruction cache more.
		{"wide_state_pernode", 110, mapRun(wideMapPerNode, wideMapInput()), typedRun(wideTyped, wideInput())},
	}
}

func saverOpts(saver string) []engine.CompileOption {
	if saver == "memory" {
		return []engine.CompileOption{engine.WithSaver(engine.NewMemorySaver())}
	}
	return nil
}

// BenchmarkWorkload_MapVsTyped runs each workload on a fresh thread per
// iteration, with no saver (the strictest comparison: the engine's own cost
// is smallest) and with a MemorySaver.
func BenchmarkWorkload_MapVsTyped(b *testing.B) {
	for _, w := range perfWorkloads() {
		for _, saver := range []string{"none", "memory"} {
			for _, api := range []string{"map", "typed"} {
				b.Run(w.name+"/"+saver+"/"+api, func(b *testing.B) {
					build := w.mapG
					if api == "typed" {
						build = w.typG
					}
					r, err := build(saverOpts(saver)...)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if err := r(context.Background(), engine.OnThread(fmt.Sprint("t", i)), engine.WithRecursionLimit(w.limit)); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func mapRun(build func(...engine.CompileOption) (*engine.Graph, error), input map[string]any) func(...engine.CompileOption) (func(context.Context, ...engine.RunOption) error, error) {
	return func(opts ...engine.CompileOption) (func(context.Context, ...engine.RunOption) error, error) {
		g, err := build(opts...)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, ro ...engine.RunOption) error {
			res, err := g.Invoke(ctx, input, ro...)
			if err == nil && res.Status != engine.StatusDone {
				err = fmt.Errorf("status %v", res.Status)
			}
			return err
		}, nil
	}
}

func typedRun[S any](build func(...engine.CompileOption) (*typed.Graph[S], error), input typed.Update[S]) func(...engine.CompileOption) (func(context.Context, ...engine.RunOption) error, error) {
	return func(opts ...engine.CompileOption) (func(context.Context, ...engine.RunOption) error, error) {
		g, err := build(opts...)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, ro ...engine.RunOption) error {
			res, err := g.Run(ctx, input, ro...)
			if err == nil && res.Status != engine.StatusDone {
				err = fmt.Errorf("status %v", res.Status)
			}
			return err
		}, nil
	}
}

// TestWorkloads_TypedAndMapAgree checks that each benchmark's two graphs
// compute the same final state, so the benchmark compares equal work.
func TestWorkloads_TypedAndMapAgree(t *testing.T) {
	ctx := context.Background()
	fanoutIn, fanoutTypedIn := itemsInput()
	var chainIn Chain
	var loopIn PingPong
	check := func(name string, mapG func() (*engine.Graph, error), mapIn map[string]any, typedValues func() (map[string]any, error), limit int) {
		g, err := mapG()
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Invoke(ctx, mapIn, engine.WithRecursionLimit(limit))
		if err != nil {
			t.Fatal(err)
		}
		got, err := typedValues()
		if err != nil {
			t.Fatal(err)
		}
		if a, b := engine.MustEncode(got), engine.MustEncode(want.Values); string(a) != string(b) {
			t.Errorf("%s: typed %s\n map %s", name, a, b)
		}
	}
	valuesOf := func(res *engine.Result, err error) (map[string]any, error) {
		if err != nil {
			return nil, err
		}
		return res.Values, nil
	}
	check("chain", func() (*engine.Graph, error) { return chainMap() }, map[string]any{"n": 0.0}, func() (map[string]any, error) {
		g, err := chainTyped()
		if err != nil {
			return nil, err
		}
		res, err := g.Run(ctx, typed.Write(&chainIn, typed.Set(&chainIn.N, 0)), engine.WithRecursionLimit(1010))
		return valuesOf(res.Result, err)
	}, 1010)
	check("fanout", func() (*engine.Graph, error) { return fanoutMap() }, fanoutIn, func() (map[string]any, error) {
		g, err := fanoutTyped()
		if err != nil {
			return nil, err
		}
		res, err := g.Run(ctx, fanoutTypedIn)
		return valuesOf(res.Result, err)
	}, 25)
	check("loop", func() (*engine.Graph, error) { return loopMap() }, map[string]any{"n": 0.0}, func() (map[string]any, error) {
		g, err := loopTyped()
		if err != nil {
			return nil, err
		}
		res, err := g.Run(ctx, typed.Write(&loopIn, typed.Set(&loopIn.N, 0)), engine.WithRecursionLimit(5010))
		return valuesOf(res.Result, err)
	}, 5010)
	check("wide_state_pernode", func() (*engine.Graph, error) { return wideMapPerNode() }, wideMapInput(), func() (map[string]any, error) {
		g, err := wideMap()
		if err != nil {
			return nil, err
		}
		res, err := g.Invoke(ctx, wideMapInput(), engine.WithRecursionLimit(110))
		return valuesOf(res, err)
	}, 110)
	check("wide", func() (*engine.Graph, error) { return wideMap() }, wideMapInput(), func() (map[string]any, error) {
		g, err := wideTyped()
		if err != nil {
			return nil, err
		}
		res, err := g.Run(ctx, wideInput(), engine.WithRecursionLimit(110))
		return valuesOf(res.Result, err)
	}, 110)
}
