package engine

import (
	"context"
	"fmt"
	"testing"
)

// TestWriteIDs_ChangingKeys runs a node whose update names a different
// set of keys, in a different order, every superstep (with a key that is
// not in the state, and keys built at run time), beside a node that
// writes the same keys every time. Each must find the channels its names
// say whichever path it takes: a remembered list that matches, one that
// does not, or none once the node stopped remembering (writeids.go).
func TestWriteIDs_ChangingKeys(t *testing.T) {
	const rounds = 3 * maxIDMisses
	keys := []string{"a", "b", "c", "d", "e"}
	specs := []KeySpec{LastValueKey("n"), LastValueKey("s1"), LastValueKey("s2")}
	for _, k := range keys {
		specs = append(specs, LastValueKey(k))
	}
	// subset is what round r writes: keys chosen and ordered by r, and
	// "zz" (no such key) in some rounds.
	subset := func(r int) []string {
		var out []string
		for i := range keys {
			k := keys[(i+r)%len(keys)]
			if (r>>i)&1 == 1 || i == r%len(keys) {
				out = append(out, string([]byte(k))) // not the declared string
			}
		}
		if r%3 == 0 {
			out = append(out, "zz")
		}
		return out
	}
	g, err := NewStateGraph(specs...).
		AddNode("w", func(_ context.Context, in any) (any, error) {
			r := int(in.(map[string]any)["n"].(float64))
			upd := Update{{Key: "n", Value: r + 1}}
			for _, k := range subset(r) {
				upd = append(upd, KV{Key: k, Value: 10*r + len(k)})
			}
			return upd, nil
		}).
		AddNode("s", func(_ context.Context, in any) (any, error) {
			r := int(in.(map[string]any)["n"].(float64))
			return Update{{Key: "s1", Value: r}, {Key: "s2", Value: -r}}, nil
		}).
		AddEdge(Start, "w").
		AddEdge("w", "s").
		AddConditionalEdges("s", func(_ context.Context, st map[string]any) (any, error) {
			if st["n"].(float64) < rounds {
				return "w", nil
			}
			return End, nil
		}, "w", End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ { // the second run starts with what the first left
		res, err := g.Invoke(context.Background(), map[string]any{"n": 0}, WithRecursionLimit(3*rounds))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"n": float64(rounds), "s1": float64(rounds), "s2": float64(-rounds)}
		for r := 0; r < rounds; r++ {
			for _, k := range subset(r) {
				if k != "zz" {
					want[k] = float64(10*r + len(k))
				}
			}
		}
		if fmt.Sprint(res.Values) != fmt.Sprint(want) {
			t.Fatalf("run %d: state %v, want %v", run, res.Values, want)
		}
	}
	if g.nodes["w"].updateKeys.misses.Load() < maxIDMisses {
		t.Errorf("node w kept remembering its keys: the path without a list was not taken")
	}
	// s's route changes only in the last superstep of a run.
	if s := g.nodes["s"]; s.updateKeys.misses.Load() != 0 || s.writeIDs.last.Load() == nil || s.writeIDs.misses.Load() > 1 {
		t.Errorf("node s does not remember its keys and writes: %d, %d misses", s.updateKeys.misses.Load(), s.writeIDs.misses.Load())
	}
}
