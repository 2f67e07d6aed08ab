package engine

import "unsafe"

// A kept run's checkpoint (channelState.kept: MemorySaver keeps every
// one) holds the channels its superstep updated as channel ids, not
// names: in its own room when there are few (a usual superstep updates
// one or two), else in a chunk shared by the run's checkpoints, in memory
// the collector does not scan. Names, where each list was pointers the
// collector marked again in every cycle for a MemorySaver's whole history
// and wrote through the write barrier while it marked, are made when the
// checkpoint is read (Materialize), as its maps are.

// keepUpdated records in lz the channels a superstep updated, by their
// ids in the hint (planHint.ids, which planning trusts as well); it
// reports false, recording nothing, if the hint has no id for each.
func (cs *channelState) keepUpdated(lz *lazyCheckpoint, h planHint) bool {
	ids := h.ids
	if len(ids) != len(h.channels) || len(ids) >= 1<<30 {
		return false
	}
	room := lz.updatedRoom[:]
	if len(ids) > len(room) {
		room = cs.updatedIDsRoom(len(ids))
		lz.moreOf(cs).updated = unsafe.SliceData(room)
	}
	for i, id := range ids {
		room[i] = int32(id)
	}
	lz.updated = int32(len(ids)) + 1
	return true
}

// updatedIDsRoom returns room for n ids, carved from a chunk with no
// pointer (as many as about four a checkpoint for the checkpoints the
// next slab holds; a longer list alone).
func (cs *channelState) updatedIDsRoom(n int) []int32 {
	if len(cs.updatedIDs) < n {
		cs.updatedIDs = make([]int32, max(n, 4*min(max(cs.made, 2), checkpointSlabMax)))
	}
	out := cs.updatedIDs[:n:n]
	cs.updatedIDs = cs.updatedIDs[n:]
	return out
}

// updatedNames returns the updated channels keepUpdated recorded, by
// name (a new list; empty, not nil, when none), and whether it recorded
// them.
func (lz *lazyCheckpoint) updatedNames() ([]string, bool) {
	if lz.updated == 0 {
		return nil, false
	}
	n := int(lz.updated - 1)
	ids := lz.updatedRoom[:min(n, len(lz.updatedRoom))]
	if lz.more != nil && lz.more.updated != nil {
		ids = unsafe.Slice(lz.more.updated, n)
	}
	out := make([]string, n)
	for i, id := range ids {
		out[i] = lz.g.channelOrder[id]
	}
	return out, true
}
