package recording

import "github.com/superstep/superstep/engine"

// MadeByRun reports a checkpoint a run wrote (source input or loop), as
// opposed to one written later by time travel, update_state or a replay
// (source fork or update): a thread's original run is made of these.
func MadeByRun(source string) bool {
	return source == engine.SourceLoop || source == engine.SourceInput
}

// OriginalRun is the recorded branch a replay compares with, from
// checkpoint from down, oldest first: from, then at each checkpoint the
// child a run wrote, the oldest if several (forks, updates and replays
// branch off later, and a later run's ids sort after). heads are the
// thread's checkpoints (engine.CheckpointHead), in any order; nil when
// from is not among them.
func OriginalRun(heads []engine.CheckpointHead, from string) []string {
	found := false
	next := map[string]string{} // each checkpoint's original child
	for _, h := range heads {
		found = found || h.ID == from
		if !MadeByRun(h.Source) || h.ParentID == "" {
			continue
		}
		if c, ok := next[h.ParentID]; !ok || h.ID < c {
			next[h.ParentID] = h.ID
		}
	}
	if !found {
		return nil
	}
	var chain []string
	for cur := from; cur != ""; cur = next[cur] {
		chain = append(chain, cur)
	}
	return chain
}
