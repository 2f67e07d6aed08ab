package persist

import (
	"fmt"
	"testing"
)

// TestParentsFirst_ManyRoots is item 9 of issue 17: ordering an import's
// checkpoints sorted every ready set again (O(n² log n) with n roots; 11.7 s
// at 40k). The comparisons are counted: with a heap they stay within
// a small multiple of n log n for many roots and for many siblings.
func TestParentsFirst_ManyRoots(t *testing.T) {
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
		items := make([]importItem, n)
		for i := range items {
			// Reverse id order, so that no input order helps.
			items[i] = importItem{id: fmt.Sprintf("%08d", n-1-i)}
			items[i].parent = parent(n - 1 - i)
		}
		compares := 0
		order, err := parentsFirst(items, func(a, b *importItem) int {
			compares++
			return compareItems(a, b)
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, j := range order {
			if want := fmt.Sprintf("%08d", i); items[j].id != want {
				t.Fatalf("%s: position %d is %s, want %s", name, i, items[j].id, want)
			}
		}
		// log2(20000) < 15; a heap does about 2 log n per push and pop.
		if limit := 4 * n * 15; compares > limit {
			t.Errorf("%s: %d comparisons to order %d checkpoints, want at most %d (n log n)", name, compares, n, limit)
		}
	}
}
