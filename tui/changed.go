package tui

import (
	"context"

	"github.com/superstep/superstep/engine"
)

// Which channels a checkpoint changed: what * marks in the channels pane
// (the main view's and the tree's), what the tasks pane lists as "key =
// value" under a checkpoint, and what a channel watchpoint stops on.
//
// The loop records it with each checkpoint it writes
// (Checkpoint.UpdatedChannels: the channels the superstep's writes
// updated). update_state records nothing, as in LangGraph, whose
// update_state creates its checkpoint without updated_channels (Python's
// bulk_update_state) or records none for any checkpoint (LangGraph.js):
// a fork's checkpoint, an answer's state update and a copy read "not
// recorded" (nil), and the engine rightly does not make it up. The
// debugger works it out for them instead, from what every write does: it
// gives the channel a new version. A channel changed in such a checkpoint
// when its version differs from its parent checkpoint's.

// changedIn names the channels cp changed: those it recorded, or, when it
// recorded none, those whose version differs from parent's (every channel
// with a version when it has no parent: the thread's first checkpoint).
func changedIn(cp, parent *engine.Checkpoint) map[string]bool {
	out := map[string]bool{}
	if cp == nil {
		return out
	}
	if cp.UpdatedChannels != nil {
		for _, c := range cp.UpdatedChannels {
			out[c] = true
		}
		return out
	}
	for name, v := range cp.ChannelVersions {
		if was, ok := parentVersion(parent, name); !ok || was != v {
			out[name] = true
		}
	}
	return out
}

func parentVersion(parent *engine.Checkpoint, name string) (engine.Version, bool) {
	if parent == nil {
		return 0, false
	}
	v, ok := parent.ChannelVersions[name]
	return v, ok
}

// changedCache is the last answer of engineSession.changed: stepping
// through the phases of one superstep asks about the same checkpoint
// three times.
type changedCache struct {
	thread, ns, id string
	changed        map[string]bool
}

// changed is changedIn for checkpoint id of the thread's namespace ns,
// whose parent is parentID (savedThread.changed), remembered for the
// next ask about the same checkpoint.
func (s *engineSession) changed(ctx context.Context, ns, id, parentID string, cp *engine.Checkpoint) map[string]bool {
	if id == "" {
		return nil
	}
	if c := s.changedLast; c.changed != nil && c.thread == s.thread && c.ns == ns && c.id == id {
		return c.changed
	}
	out := s.savedThread().changed(ctx, ns, id, parentID, cp)
	if out != nil {
		s.changedLast = changedCache{thread: s.thread, ns: ns, id: id, changed: out}
	}
	return out
}

// changed is changedIn for checkpoint id of the thread's namespace ns,
// whose parent is parentID; cp is the checkpoint when the caller has it
// (nil: it is read). The parent is read only when the checkpoint recorded
// nothing; one that cannot be read counts as none, so that every channel
// with a version is marked rather than none. Nil when the checkpoint
// cannot be read.
func (t savedThread) changed(ctx context.Context, ns, id, parentID string, cp *engine.Checkpoint) map[string]bool {
	if id == "" {
		return nil
	}
	read := func(id string) *engine.Checkpoint {
		tu, err := t.saver.GetTuple(ctx, engine.Config{ThreadID: t.thread, CheckpointNS: ns, CheckpointID: id})
		if err != nil || tu == nil {
			return nil
		}
		return tu.Checkpoint
	}
	if cp == nil {
		if cp = read(id); cp == nil {
			return nil
		}
	}
	var parent *engine.Checkpoint
	if cp.UpdatedChannels == nil && parentID != "" {
		parent = read(parentID)
	}
	return changedIn(cp, parent)
}

// markChanged sets Updated on a live view's channels when the engine's
// planning hint does not know them (HintKnown false: a run that starts
// from a stored checkpoint, after a reopen, a fork or an answer), from
// the checkpoint the view stands at. A view whose hint is known already
// says what its checkpoint's superstep updated.
func (s *engineSession) markChanged(ctx context.Context, v *engine.StepView) *engine.StepView {
	if v == nil || v.HintKnown || v.CheckpointID == "" || v.Thread != s.thread {
		return v
	}
	changed := s.changed(ctx, v.Namespace, v.CheckpointID, v.ParentID, nil)
	for i := range v.Channels {
		v.Channels[i].Updated = changed[v.Channels[i].Name]
	}
	return v
}

// changedOf is changed for a checkpoint the session has read whole.
func (s *engineSession) changedOf(ctx context.Context, snap *engine.StateSnapshot) map[string]bool {
	return s.changed(ctx, snap.Config.CheckpointNS, snap.Config.CheckpointID, snap.ParentID, snap.Checkpoint)
}
