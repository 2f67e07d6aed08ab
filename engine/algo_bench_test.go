package engine

import (
	"context"
	"fmt"
	"testing"
)

// chainGraph is a chain of n nodes: start → n0 → n1 → … with one state key.
func chainGraph(b *testing.B, n int) *Graph {
	b.Helper()
	nop := func(context.Context, any) (any, error) { return nil, nil }
	sg := NewStateGraph(LastValueKey("x"))
	for i := 0; i < n; i++ {
		sg.AddNode(fmt.Sprint("n", i), nop)
	}
	sg.AddEdge(Start, "n0")
	for i := 1; i < n; i++ {
		sg.AddEdge(fmt.Sprint("n", i-1), fmt.Sprint("n", i))
	}
	g, err := sg.Compile()
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkPlan plans one superstep of a graph of 10, 1000 and 10000 nodes
// where one node is triggered: with the updated-channels hint the cost must
// not depend on the graph's size.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprint("nodes=", n), func(b *testing.B) {
			g := chainGraph(b, n)
			cs := newChannelState(g, nil)
			mid := fmt.Sprint("branch:to:n", n/2)
			cs.channel(mid).update([]any{nil})
			cs.refresh(cs.g.chanIDs[mid])
			cs.setVersion(cs.g.chanIDs[mid], 7)
			hint := planHint{known: true, channels: []string{mid}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if ts := prepareNextTasks(cs, "cp", "", 3, hint); len(ts) != 1 {
					b.Fatalf("planned %d tasks", len(ts))
				}
			}
		})
	}
}

// BenchmarkApplyWrites applies one task's writes (a state key and an edge)
// in graphs of 10, 1000 and 10000 nodes.
func BenchmarkApplyWrites(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprint("nodes=", n), func(b *testing.B) {
			g := chainGraph(b, n)
			cs := newChannelState(g, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				from := fmt.Sprint("n", i%(n-1))
				to := fmt.Sprint("branch:to:n", i%(n-1)+1)
				t := &task{name: from, triggers: []string{"branch:to:" + from}, writes: []Write{{"x", float64(i)}, {to, nil}}}
				if _, err := applyWrites(cs, []*task{t}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
