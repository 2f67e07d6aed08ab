package postgres_test

import (
	"fmt"
	"testing"

	"github.com/superstep/superstep/persist/postgres"
)

// A group commit whose statement fails is stored thread by thread
// instead, so the tests of results alone would not notice a broken group
// statement: each variant (with and without task write rows, plain and
// safe) is run here directly and must claim its thread and store every
// row it was given.
func TestStore_GroupStatementVariants(t *testing.T) {
	t.Parallel()
	s := open(t, schemaURL(t), postgres.Options{})
	for _, safe := range []bool{false, true} {
		for _, writes := range []bool{false, true} {
			thread := fmt.Sprintf("safe=%v writes=%v", safe, writes)
			seq, rows, err := postgres.RunGroupOfOne(ctx, s, thread, safe, writes)
			if err != nil {
				t.Fatalf("%s: %v", thread, err)
			}
			want := [3]int{0, 1, 1}
			if writes {
				want[0] = 1
			}
			if seq != 1 || rows != want {
				t.Errorf("%s: sequence %d, rows (writes, blobs, checkpoints) %v; want 1, %v", thread, seq, rows, want)
			}
		}
	}
}
