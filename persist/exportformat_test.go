package persist

import (
	"fmt"
	"testing"

	"github.com/superstep/superstep/engine"
)

// orderSink records the ids a streamOrder hands on.
type orderSink struct{ ids []string }

func (o *orderSink) checkpoint(it *importItem, _ *engine.Checkpoint) error {
	o.ids = append(o.ids, it.id)
	return nil
}

func (o *orderSink) begin(string) error { return nil }

func (o *orderSink) orphan(*importOrphan) error { return nil }

// TestStreamOrder_ParentsFirst is item 9 of issue 17 (ordering an
// import's checkpoints sorted every ready set again: O(n² log n) with n
// roots, 11.7 s at 40k), read as a stream: checkpoints in reverse id
// order, so that each waits for its parent, come out parents first and,
// among those ready together, least id first — for many roots, many
// siblings and one long chain.
func TestStreamOrder_ParentsFirst(t *testing.T) {
	const n = 20000
	shapes := map[string]func(i int) string{
		"roots":    func(int) string { return "" },
		"siblings": func(i int) string { return map[bool]string{true: "", false: fmt.Sprintf("%08d", 0)}[i == 0] },
		"chain": func(i int) string {
			if i == 0 {
				return ""
			}
			return fmt.Sprintf("%08d", i-1)
		},
	}
	for name, parent := range shapes {
		sink := &orderSink{}
		o := newStreamOrder(sink)
		for i := n - 1; i >= 0; i-- {
			it := &importItem{index: n - 1 - i, id: fmt.Sprintf("%08d", i), parent: parent(i)}
			if err := o.add(it); err != nil {
				t.Fatalf("%s: add %s: %v", name, it.id, err)
			}
		}
		if err := o.finish(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(sink.ids) != n {
			t.Fatalf("%s: %d checkpoints handed on, want %d", name, len(sink.ids), n)
		}
		for i, id := range sink.ids {
			want := fmt.Sprintf("%08d", i)
			if name == "roots" {
				want = fmt.Sprintf("%08d", n-1-i) // each ready as it is read
			}
			if id != want {
				t.Fatalf("%s: position %d is %s, want %s", name, i, id, want)
			}
		}
	}
}
