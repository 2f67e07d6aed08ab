package engine

import (
	"context"
	"errors"
)

// Outliner is a Saver that lists checkpoints without their state values
// (persist.Store does): each tuple has its metadata, parent, pending
// writes and every channel's version, and the values of only the channels
// keep accepts (nil: none). A pending write keeps its value when it is a
// control write (IsControlWrite), the NullTaskID's, or to a channel keep
// accepts; another write's Value may be nil. Reading a thread's outline
// costs time linear in its checkpoints and writes, not in the size of its
// values times their number.
type Outliner interface {
	// Outline lists the checkpoints List would, values cut to keep's.
	Outline(ctx context.Context, cfg Config, opt ListOptions, keep func(channel string) bool) ([]*CheckpointTuple, error)
}

// outlinePage is how many checkpoints HistoryOutline reads at a time: the
// stored form of one page is held while its snapshots are built.
const outlinePage = 1024

// HistoryOutline is History for drawing a thread's tree. With a saver that
// is an Outliner it reads no state values and keeps little of each
// checkpoint: every snapshot has its config, parent, metadata, creation
// time, tasks (without their Result), next nodes, interrupts and pending
// writes, but no Values and no Checkpoint (GetState reads one checkpoint
// whole). The tasks are
// planned from the checkpoint's versions and internal channels (triggers,
// branches, joins, the tasks channel), which the outline keeps. The thread
// is read a page at a time, so a tree of 100k checkpoints costs memory for
// the snapshots, not for the stored checkpoints. With another saver it is
// History.
func (g *Graph) HistoryOutline(ctx context.Context, cfg Config, opt ListOptions) ([]*StateSnapshot, error) {
	o, ok := g.saver.(Outliner)
	if !ok {
		return g.History(ctx, cfg, opt)
	}
	owner, err := g.graphForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
	if err != nil {
		return nil, err
	}
	keep := func(ch string) bool { return !owner.IsStateKey(ch) }
	ncfg := Config{ThreadID: cfg.ThreadID, CheckpointNS: owner.ownNamespace(cfg.CheckpointNS)}
	var out []*StateSnapshot
	page := opt
	for {
		// Checkpoints of several namespaces may share an id, which paging
		// by id could skip: those are read at once.
		if !opt.AllNamespaces {
			page.Limit = outlinePage
			if opt.Limit > 0 {
				page.Limit = min(outlinePage, opt.Limit-len(out))
			}
		}
		tuples, err := o.Outline(ctx, ncfg, page, keep)
		if err != nil {
			return nil, err
		}
		snaps, err := owner.snapshots(tuples)
		if err != nil {
			return nil, err
		}
		for _, s := range snaps {
			s.Values, s.Checkpoint = nil, nil
			for i := range s.Tasks {
				s.Tasks[i].Result = nil
			}
		}
		out = append(out, snaps...)
		if opt.AllNamespaces || len(tuples) < page.Limit || (opt.Limit > 0 && len(out) >= opt.Limit) {
			return out, nil
		}
		page.Before = tuples[len(tuples)-1].Checkpoint.ID
	}
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

// CheckpointHead is a checkpoint as a thread's tree lists it before any of
// its state is read: its id, parent, step and source.
type CheckpointHead struct {
	// ID is the checkpoint's id.
	ID string
	// ParentID is its parent's id ("" for a root).
	ParentID string
	// Step is the metadata's step (-1 for an input checkpoint).
	Step int
	// Source is the metadata's source (SourceInput, SourceLoop, …).
	Source string
}

// HeadLister is a Saver that lists a namespace's checkpoint heads from the
// stored records alone (persist.Store does): no versions are rebuilt, no
// value or pending write is read, so listing 100k checkpoints costs a
// record decode each. A wrapper of a saver that may or may not be one (a
// Saver that adds to Put, say) returns errors.ErrUnsupported when the
// saver it wraps is not: the graph then reads with List.
type HeadLister interface {
	// Heads lists the heads of cfg's thread and namespace, newest first
	// (by id, as List orders them).
	Heads(ctx context.Context, cfg Config) ([]CheckpointHead, error)
}

// HistoryHeads lists the heads of the checkpoints History would list for
// cfg (every one of its namespace), newest first. The debugger's tree
// draws a thread from them and plans only the rows it shows
// (HistoryOutline over a window). With a saver that is not a HeadLister
// it reads the thread with List.
func (g *Graph) HistoryHeads(ctx context.Context, cfg Config) ([]CheckpointHead, error) {
	if g.saver == nil {
		return nil, ErrNoCheckpointer
	}
	owner, err := g.graphForNamespace(ctx, cfg.ThreadID, cfg.CheckpointNS)
	if err != nil {
		return nil, err
	}
	ncfg := Config{ThreadID: cfg.ThreadID, CheckpointNS: owner.ownNamespace(cfg.CheckpointNS)}
	if hl, ok := g.saver.(HeadLister); ok {
		heads, err := hl.Heads(ctx, ncfg)
		if !errors.Is(err, errors.ErrUnsupported) {
			return heads, err
		}
	}
	tuples, err := g.saver.List(ctx, ncfg, ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]CheckpointHead, len(tuples))
	for i, t := range tuples {
		out[i] = HeadOf(t)
	}
	return out, nil
}

// HeadOf is the head of a stored checkpoint, as HistoryHeads lists it.
func HeadOf(t *CheckpointTuple) CheckpointHead {
	return CheckpointHead{ID: t.Config.CheckpointID, ParentID: t.ParentID, Step: t.Metadata.Step, Source: t.Metadata.Source}
}
