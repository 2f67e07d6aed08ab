package scenario

import (
	"context"

	"github.com/superstep/superstep/engine"
)

// bulkUpdate runs a bulk_update op: LangGraph's bulk_update_state, one
// update checkpoint per superstep. It records what update_state records.
func (r *Runner) bulkUpdate(ctx context.Context, op Op, rec map[string]any) {
	cfg := engine.Config{ThreadID: op.Thread}
	var out engine.Config
	var err error
	if op.AtStep != nil {
		cfg, err = r.checkpointAtStep(op.Thread, *op.AtStep)
	}
	if err == nil {
		steps := make([][]engine.StateUpdate, len(op.Supersteps))
		for i, st := range op.Supersteps {
			for _, u := range st {
				steps[i] = append(steps[i], engine.StateUpdate{Values: u.Values, AsNode: u.AsNode})
			}
		}
		out, err = r.graph.BulkUpdateState(ctx, cfg, steps)
	}
	r.recordUpdate(ctx, rec, out, err)
}
