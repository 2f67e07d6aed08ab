package engine

import "context"

// Outliner is a Saver that lists checkpoints without their state values
// (persist.Store does): each tuple has its metadata, parent, pending
// writes and every channel's version, and the values of only the channels
// keep accepts (nil: none). Reading a thread's outline costs time linear in
// its checkpoints and writes, not in the size of its values times their
// number.
type Outliner interface {
	Outline(ctx context.Context, cfg Config, opt ListOptions, keep func(channel string) bool) ([]*CheckpointTuple, error)
}

// HistoryOutline is History for drawing a thread's tree: every snapshot
// has its config, parent, metadata, tasks, next nodes and interrupts, and
// its checkpoint every channel's version, but with a saver that is an
// Outliner no state values (Values is empty; the checkpoint keeps only the
// internal channels — triggers, branches, joins, the tasks channel — that
// planning the next tasks reads). GetState reads one checkpoint whole. With
// another saver it is History.
func (g *Graph) HistoryOutline(ctx context.Context, cfg Config, opt ListOptions) ([]*StateSnapshot, error) {
	o, ok := g.saver.(Outliner)
	if !ok {
		return g.History(ctx, cfg, opt)
	}
	owner, err := g.graphForNamespace(cfg.CheckpointNS)
	if err != nil {
		return nil, err
	}
	keep := func(ch string) bool { return !owner.IsStateKey(ch) }
	tuples, err := o.Outline(ctx, Config{ThreadID: cfg.ThreadID, CheckpointNS: owner.ownNamespace(cfg.CheckpointNS)}, opt, keep)
	if err != nil {
		return nil, err
	}
	return owner.snapshots(tuples)
}

// snapshots builds the snapshots of stored tuples, pending writes not
// applied, as History lists them.
func (g *Graph) snapshots(tuples []*CheckpointTuple) ([]*StateSnapshot, error) {
	out := make([]*StateSnapshot, 0, len(tuples))
	for _, t := range tuples {
		s, err := g.snapshot(t, false)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
