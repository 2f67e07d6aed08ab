package postgres

import (
	"context"
	"errors"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// The store serves persist.ExportHandler's list of threads too.
var _ persist.ThreadLister = (*Store)(nil)

// plannedStatuses sets the Status of each listed thread whose graph
// record decides it, as persist.Store.Threads does (persist.ThreadPlans):
// its latest root checkpoint, the one listed, is read without the state's
// values and planned. The listing's one query reads no versions, so this
// costs a query a thread whose record decides. A thread whose latest
// checkpoint does not read back is listed with ThreadInfo.Err, as one
// whose record does not decode; one that changed since it was listed
// keeps no status.
func (s *Store) plannedStatuses(ctx context.Context, threads []persist.ThreadInfo) error {
	plans := persist.NewThreadPlans()
	for i := range threads {
		t := &threads[i]
		reads := plans.Reads(t)
		if reads == nil || t.Err != nil || t.LastID == "" {
			continue
		}
		tuples, err := s.list(ctx, engine.Config{ThreadID: t.ID, CheckpointID: t.LastID}, engine.ListOptions{Limit: 1}, reads)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, persist.ErrCorrupt), errors.Is(err, persist.ErrUnknownValueFormat):
			t.Err = err
		case err != nil:
			return err
		case len(tuples) == 1 && tuples[0].Config.CheckpointID == t.LastID:
			plans.SetStatus(t, tuples[0])
		}
	}
	return nil
}
