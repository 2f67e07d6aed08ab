package main

import (
	"context"
	"fmt"
	"sync"
)

// plainSystem is the floor: a Go loop that calls node functions over a
// map[string]any state and merges their updates in place, with goroutines
// and a WaitGroup for the fan-out. No channels, versions, checkpoints or
// isolation between supersteps.
type plainSystem struct{}

func (plainSystem) name() string           { return "plain-go" }
func (plainSystem) faithful(string) bool   { return true }
func (plainSystem) describe(string) string { return "" }

type plainNode func(ctx context.Context, st map[string]any) map[string]any

func merge(st, upd map[string]any) {
	for k, v := range upd {
		st[k] = v
	}
}

func runPlainChain(ctx context.Context, st map[string]any, nodes []plainNode) {
	for _, n := range nodes {
		merge(st, n(ctx, st))
	}
}

func (plainSystem) prepare(wl string) (func() error, error) {
	ctx := context.Background()
	switch wl {
	case "chain_1000":
		nodes := make([]plainNode, chainNodes)
		for i := range nodes {
			nodes[i] = func(_ context.Context, st map[string]any) map[string]any {
				return map[string]any{"n": st["n"].(int) + 1}
			}
		}
		return func() error {
			st := map[string]any{"n": 0}
			runPlainChain(ctx, st, nodes)
			return checkFinal(wl, st)
		}, nil
	case "fanout_1000":
		work := func(_ context.Context, x any) map[string]any { return map[string]any{"results": []any{x.(int) * 2}} }
		return func() error {
			items := make([]any, fanoutN)
			for i := range items {
				items[i] = i
			}
			st := map[string]any{"items": items, "results": []any{}}
			outs := make([]map[string]any, len(items))
			var wg sync.WaitGroup
			for i, x := range items {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outs[i] = work(ctx, x)
				}()
			}
			wg.Wait()
			results := st["results"].([]any)
			for _, o := range outs {
				results = append(results, o["results"].([]any)...)
			}
			st["results"] = results
			st["total"] = len(results)
			return checkFinal(wl, st)
		}, nil
	case "loop_5000":
		ping := func(_ context.Context, st map[string]any) map[string]any {
			return map[string]any{"n": st["n"].(int) + 1}
		}
		pong := func(_ context.Context, st map[string]any) map[string]any { return map[string]any{"m": st["n"]} }
		return func() error {
			st := map[string]any{"n": 0}
			for {
				merge(st, ping(ctx, st))
				merge(st, pong(ctx, st))
				if st["n"].(int) >= loopRounds {
					break
				}
			}
			return checkFinal(wl, st)
		}, nil
	case "wide_state":
		nodes := make([]plainNode, wideNodes)
		for i := range nodes {
			nodes[i] = func(_ context.Context, st map[string]any) map[string]any {
				upd := make(map[string]any, widePer)
				for j := 0; j < widePer; j++ {
					k := wideName(wideKey(i, j))
					upd[k] = st[k].(int) + i + 1
				}
				return upd
			}
		}
		return func() error {
			st := make(map[string]any, wideKeys)
			for k := 0; k < wideKeys; k++ {
				st[wideName(k)] = 0
			}
			runPlainChain(ctx, st, nodes)
			return checkFinal(wl, st)
		}, nil
	}
	return nil, fmt.Errorf("unknown workload %q", wl)
}
