package postgres_test

import (
	"fmt"
	"testing"
	"time"

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
			made := time.Now().Add(-time.Second).UnixMicro()
			seq, rows, err := postgres.RunGroupOfOne(ctx, s, thread, safe, writes)
			if err != nil {
				t.Fatalf("%s: %v", thread, err)
			}
			stored, err := postgres.ThreadSeq(ctx, s, thread)
			if err != nil {
				t.Fatal(err)
			}
			want := [3]int{0, 1, 1}
			if writes {
				want[0] = 1
			}
			// A new thread's first sequence is when it was made, in
			// microseconds (schema 6): no earlier observation equals it.
			if seq != stored || seq < made || rows != want {
				t.Errorf("%s: sequence %d (stored %d), rows (writes, blobs, checkpoints) %v; want a first sequence from %d on, %v", thread, seq, stored, rows, made, want)
			}
		}
	}
}
