package main

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"
)

// einoState is the one typed struct eino's nodes pass along and mutate in
// place: eino has no channels per key, so a node's "update" is a write to
// this struct, visible at once (no superstep isolation).
type einoState struct {
	N, M    int
	Items   []int
	Results []int
	Total   int
	Wide    [wideKeys]int
}

func init() {
	// Fan-in of the 1000 workers: every input is the same pointer.
	compose.RegisterValuesMergeFunc(func(vs []*einoState) (*einoState, error) { return vs[0], nil })
}

// einoSystem runs the workloads as cloudwego/eino Graphs in Pregel mode
// (AnyPredecessor triggers, cycles allowed) with Go lambdas. It has no
// Send: the fan-out is 1000 static worker nodes wired from split, each
// doubling its own item, so it is marked unfaithful.
type einoSystem struct{}

func (einoSystem) name() string { return "eino" }

func (einoSystem) faithful(wl string) bool { return wl != "fanout_1000" }

func (einoSystem) describe(wl string) string {
	if wl == "fanout_1000" {
		return "no Send: 1000 static worker nodes"
	}
	return ""
}

type einoGraph = compose.Graph[*einoState, *einoState]

func einoLambda(fn func(*einoState)) *compose.Lambda {
	return compose.InvokableLambda(func(_ context.Context, s *einoState) (*einoState, error) {
		fn(s)
		return s, nil
	})
}

func einoChain(g *einoGraph, prefix string, n int, body func(i int) func(*einoState)) error {
	for i := 0; i < n; i++ {
		if err := g.AddLambdaNode(fmt.Sprint(prefix, i), einoLambda(body(i))); err != nil {
			return err
		}
		from := compose.START
		if i > 0 {
			from = fmt.Sprint(prefix, i-1)
		}
		if err := g.AddEdge(from, fmt.Sprint(prefix, i)); err != nil {
			return err
		}
	}
	return g.AddEdge(fmt.Sprint(prefix, n-1), compose.END)
}

func (einoSystem) prepare(wl string) (func() error, error) {
	g := compose.NewGraph[*einoState, *einoState]()
	var input func() *einoState
	var check func(*einoState) error
	maxSteps := 50
	var err error
	switch wl {
	case "chain_1000":
		err = einoChain(g, "n", chainNodes, func(int) func(*einoState) { return func(s *einoState) { s.N++ } })
		input = func() *einoState { return &einoState{} }
		check = func(s *einoState) error { return checkFinal(wl, map[string]any{"n": s.N}) }
		maxSteps = 2*chainNodes + 10
	case "fanout_1000":
		err = einoFanout(g)
		input = func() *einoState {
			s := &einoState{Items: make([]int, fanoutN), Results: make([]int, fanoutN)}
			for i := range s.Items {
				s.Items[i] = i
			}
			return s
		}
		check = func(s *einoState) error {
			return checkFinal(wl, map[string]any{"results": s.Results, "total": s.Total})
		}
	case "loop_5000":
		err = einoLoop(g)
		input = func() *einoState { return &einoState{} }
		check = func(s *einoState) error { return checkFinal(wl, map[string]any{"n": s.N, "m": s.M}) }
		maxSteps = 2*loopSteps + 10
	case "wide_state":
		err = einoChain(g, "w", wideNodes, func(i int) func(*einoState) {
			return func(s *einoState) {
				for j := 0; j < widePer; j++ {
					s.Wide[wideKey(i, j)] += i + 1
				}
			}
		})
		input = func() *einoState { return &einoState{} }
		check = func(s *einoState) error {
			st := make(map[string]any, wideKeys)
			for k, v := range s.Wide {
				st[wideName(k)] = v
			}
			return checkFinal(wl, st)
		}
		maxSteps = 2*wideNodes + 10
	default:
		return nil, fmt.Errorf("unknown workload %q", wl)
	}
	if err != nil {
		return nil, err
	}
	r, err := g.Compile(context.Background(), compose.WithNodeTriggerMode(compose.AnyPredecessor), compose.WithMaxRunSteps(maxSteps))
	if err != nil {
		return nil, err
	}
	return func() error {
		out, err := r.Invoke(context.Background(), input())
		if err != nil {
			return err
		}
		return check(out)
	}, nil
}

func einoFanout(g *einoGraph) error {
	if err := g.AddLambdaNode("split", einoLambda(func(*einoState) {})); err != nil {
		return err
	}
	if err := g.AddLambdaNode("join", einoLambda(func(s *einoState) { s.Total = len(s.Results) })); err != nil {
		return err
	}
	for i := 0; i < fanoutN; i++ {
		name := fmt.Sprint("work", i)
		// Each worker writes its own slot: no two touch the same memory.
		if err := g.AddLambdaNode(name, einoLambda(func(s *einoState) { s.Results[i] = s.Items[i] * 2 })); err != nil {
			return err
		}
		if err := g.AddEdge("split", name); err != nil {
			return err
		}
		if err := g.AddEdge(name, "join"); err != nil {
			return err
		}
	}
	if err := g.AddEdge(compose.START, "split"); err != nil {
		return err
	}
	return g.AddEdge("join", compose.END)
}

func einoLoop(g *einoGraph) error {
	if err := g.AddLambdaNode("ping", einoLambda(func(s *einoState) { s.N++ })); err != nil {
		return err
	}
	if err := g.AddLambdaNode("pong", einoLambda(func(s *einoState) { s.M = s.N })); err != nil {
		return err
	}
	if err := g.AddEdge(compose.START, "ping"); err != nil {
		return err
	}
	if err := g.AddEdge("ping", "pong"); err != nil {
		return err
	}
	return g.AddBranch("pong", compose.NewGraphBranch(func(_ context.Context, s *einoState) (string, error) {
		if s.N < loopRounds {
			return "ping", nil
		}
		return compose.END, nil
	}, map[string]bool{"ping": true, compose.END: true}))
}
