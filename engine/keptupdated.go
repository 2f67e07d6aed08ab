package engine

// keepUpdated returns a copy of updated, the channels a superstep
// updated, for a checkpoint of a kept run (channelState.kept). The copy
// is carved from a chunk shared by the run's checkpoints, where each
// list was an object of its own: the collector allocates, marks (again in
// every cycle, for a MemorySaver's whole history) and sweeps one object
// where it had one a superstep. applyWrites then reuses its own list, as
// it does when no checkpoint is made. Each copy's capacity is its length:
// an append to one cannot reach the next.
func (cs *channelState) keepUpdated(updated []string) []string {
	if len(updated) == 0 {
		return []string{} // not nil: nil is "unknown" to the planner
	}
	if len(cs.updatedRoom) < len(updated) {
		// As many as about four a checkpoint for the checkpoints the next
		// slab holds (newCheckpoint), a list longer than that alone.
		cs.updatedRoom = make([]string, max(len(updated), 4*min(max(cs.made, 2), checkpointSlabMax)))
	}
	out := cs.updatedRoom[:len(updated):len(updated)]
	cs.updatedRoom = cs.updatedRoom[len(updated):]
	for i, c := range updated {
		// One by one, not copy: while the collector marks, copying
		// strings into kept memory is a bulk barrier that walks the type.
		out[i] = c
	}
	return out
}
