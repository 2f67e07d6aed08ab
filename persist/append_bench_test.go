package persist

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
)

// BenchmarkAppendSuperstep is the cost of one superstep that appends a
// number to a list of 1,000 or 100,000 elements, checkpointed to bbolt
// (sync durability without fsync, so the disk does not hide the CPU cost).
// The goal is a cost independent of the list's length (issue 17 item 8).
func BenchmarkAppendSuperstep(b *testing.B) {
	for _, size := range []int{1000, 100000} {
		b.Run(fmt.Sprint("items=", size), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "db"), Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			g := enginetest.AppendLoop(b, s, b.N, func(n int) {
				if n == 0 {
					b.ResetTimer() // the input checkpoint stored the list whole
				}
			})
			b.ReportAllocs()
			items := zeros(size)
			if _, err := g.Invoke(context.Background(), map[string]any{"items": items, "n": 0}, engine.OnThread("t"), engine.WithRecursionLimit(b.N+10)); err != nil {
				b.Fatal(err)
			}
		})
	}
}
