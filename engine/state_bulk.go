package engine

import (
	"context"
	"fmt"
	"slices"
)

// StateUpdate is one update of a bulk update: Values written as if AsNode
// had returned them (a map of state keys, or a Command with update and
// goto).
type StateUpdate struct {
	Values any    // a map of state keys, or a Command
	AsNode string // the node it is written as ("" in the first update: inferred, as UpdateState does)
	// taskID, when set, is the id of the update's task (a copy with
	// updates gives each update the id of the task it stands for).
	taskID string
}

// BulkUpdateState applies several supersteps of updates at once, starting
// at cfg's checkpoint (the latest when cfg.CheckpointID is empty): each
// superstep's updates run as the tasks of one superstep — applied together,
// in order, with one new version — and write one "update" checkpoint, the
// next superstep starting from it (LangGraph's bulk_update_state). With
// several updates in a superstep each must name its node. It returns the
// config of the last checkpoint written.
func (g *Graph) BulkUpdateState(ctx context.Context, cfg Config, supersteps [][]StateUpdate) (Config, error) {
	// Both refusals come before anything is written, and are not
	// InvalidUpdateErrors: LangGraph.js checks every superstep first and
	// throws a plain Error (pregel/index.js:638-639).
	if len(supersteps) == 0 {
		return Config{}, fmt.Errorf("%w: no supersteps", ErrNoUpdates)
	}
	if i := slices.IndexFunc(supersteps, func(u []StateUpdate) bool { return len(u) == 0 }); i >= 0 {
		return Config{}, fmt.Errorf("%w: superstep %d has no updates", ErrNoUpdates, i)
	}
	for _, updates := range supersteps {
		out, err := g.updateSuperstep(ctx, cfg, updates)
		if err != nil {
			return Config{}, err
		}
		cfg = out
	}
	return cfg, nil
}
