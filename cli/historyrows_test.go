package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/superstep/superstep/engine"
)

// TestRecordedRunHead_IsChooseBranchs: history marks the end of the
// recorded run from its rows, by index; it must be the checkpoint
// chooseBranch (what replay compares with) ends its default branch at, on
// threads with forks, updates, several roots and missing parents.
func TestRecordedRunHead_IsChooseBranchs(t *testing.T) {
	sources := []string{engine.SourceLoop, engine.SourceLoop, engine.SourceInput, engine.SourceUpdate, engine.SourceFork}
	for trial := range 300 {
		rng := rand.New(rand.NewPCG(uint64(trial), 5))
		n := 1 + rng.IntN(40)
		var rows []historyRow // oldest first while built
		for i := range n {
			r := historyRow{ID: fmt.Sprintf("%04d", i), Source: sources[rng.IntN(len(sources))]}
			switch {
			case i > 0 && rng.IntN(8) != 0:
				r.Parent = rows[rng.IntN(i)].ID
			case i > 0 && rng.IntN(4) == 0:
				r.Parent = "missing"
			}
			rows = append(rows, r)
		}
		slices.Reverse(rows)
		list := make([]*engine.CheckpointTuple, len(rows))
		for i, r := range rows {
			list[i] = &engine.CheckpointTuple{Config: engine.Config{ThreadID: "t", CheckpointID: r.ID}, Checkpoint: &engine.Checkpoint{ID: r.ID}, ParentID: r.Parent, Metadata: engine.Metadata{Source: r.Source}}
		}
		want := -1
		if chain, err := chooseBranch(context.Background(), list, &branchChoice{thread: "t"}); err == nil {
			want = slices.Index(list, chain[len(chain)-1])
		}
		if got := recordedRunHead(rows); got != want {
			t.Fatalf("trial %d: recordedRunHead = %d, chooseBranch ends at %d\n%+v", trial, got, want, rows)
		}
	}
}
