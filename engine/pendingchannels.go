package engine

// PendingChannel is a channel that a checkpoint's saved writes change, as
// it would be with them applied.
type PendingChannel struct {
	Name      string  // the channel's name
	Version   Version // the new version applying the writes gives it
	Value     any     // the value it would hold, when Available
	Available bool    // it would hold a value (a cleared channel does not)
}

// PendingChannels says, for a stored checkpoint tuple with pending
// writes, which channels those writes change and what each would hold
// with them applied: the null task's writes (a Command given with a
// resume) first, then the writes the planned tasks saved, as the run
// that stopped there at an interrupt applied them in memory
// (LangGraph.js pregel/loop.ts: _first applies the null writes,
// 1432-1449; at the interrupt, 1172-1190 applies every task's writes).
//
// A channel changes when applying bumps its version: when its update
// reports a change (LangGraph.js pregel/algo.ts:378-397 _applyWrites,
// Python pregel/_algo.py:319-320 apply_writes), whatever the value. A write of a value
// equal to the saved one changes a LastValue channel, a reducer channel
// changes with any write, and an ephemeral channel nobody wrote clears.
// So a live run stopped at the interrupt and the same checkpoint read
// back from the store name the same channels, with the same versions.
//
// The receiver must be the graph whose checkpoint t is (as for
// SnapshotOf). The result is in channel order, state keys first; nil when
// t has no pending writes. The values are the caller's to read, not to
// change. An error is a write the graph's channels refuse.
func (g *Graph) PendingChannels(t *CheckpointTuple) ([]PendingChannel, error) {
	if t == nil || len(t.PendingWrites) == 0 {
		return nil, nil
	}
	cs := newChannelState(g, t.Checkpoint)
	type version struct {
		v  Version
		ok bool
	}
	before := make([]version, len(g.channelOrder))
	for i, name := range g.channelOrder {
		before[i].v, before[i].ok = cs.versionOf(name)
	}
	if err := applyNullWrites(cs, t.PendingWrites); err != nil {
		return nil, err
	}
	tasks := prepareNextTasks(cs, t.Checkpoint.ID, t.Config.CheckpointNS, t.Metadata.TaskStep(), planHint{})
	g.attachSavedWrites(tasks, t.PendingWrites)
	if _, err := applyWrites(cs, tasks); err != nil {
		return nil, err
	}
	var out []PendingChannel
	for i, name := range g.channelOrder {
		v, ok := cs.versionOf(name)
		if v == before[i].v && ok == before[i].ok {
			continue
		}
		val, avail := cs.channel(name).get()
		out = append(out, PendingChannel{Name: name, Version: v, Value: val, Available: avail})
	}
	return out, nil
}
