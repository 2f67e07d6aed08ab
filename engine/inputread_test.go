package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestInvoke_OnlyReadsItsInput: a run, with a saver or without, leaves the
// caller's input map as it was, small (sorted pairs) or large (walked by
// name), so the same map can be passed again (typed's Run reuses one).
func TestInvoke_OnlyReadsItsInput(t *testing.T) {
	for _, n := range []int{3, 40} {
		var keys []KeySpec
		in := map[string]any{"extra": "not a key"}
		for i := range n {
			k := fmt.Sprintf("k%02d", i)
			keys = append(keys, LastValueKey(k))
			in[k] = []any{float64(i)}
		}
		want := map[string]any{}
		for k, v := range in {
			if l, ok := v.([]any); ok {
				want[k] = append([]any{}, l...)
			} else {
				want[k] = v
			}
		}
		for _, saver := range []Saver{nil, NewMemorySaver()} {
			var opts []CompileOption
			if saver != nil {
				opts = append(opts, WithSaver(saver))
			}
			g, err := NewStateGraph(keys...).
				AddNode("a", func(_ context.Context, s any) (any, error) {
					return Update{{Key: "k00", Value: "changed"}}, nil
				}).
				AddEdge(Start, "a").AddEdge("a", End).Compile(opts...)
			if err != nil {
				t.Fatal(err)
			}
			for run := range 2 {
				res, err := g.Invoke(context.Background(), in, OnThread(fmt.Sprint("t", run)))
				if err != nil {
					t.Fatal(err)
				}
				res.Values["k01"] = "the result is the caller's"
				if !reflect.DeepEqual(in, want) {
					t.Fatalf("%d keys, saver %v, run %d: input became %v", n, saver != nil, run, in)
				}
			}
		}
	}
}
