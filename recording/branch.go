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

// MetaReplay is the metadata key (engine.Metadata.Extra) a replay tags
// each checkpoint it writes with: the id of the recorded checkpoint the
// replay started from. It tells a replay's branch from a fork or a run a
// person made (both are source fork, then loop), for the tree, history,
// and a command that goes on from the thread's latest checkpoint.
const MetaReplay = "superstep_replay"

// ReplayMetadata is the metadata a replay from recorded checkpoint from
// runs with (engine.WithMetadata).
func ReplayMetadata(from string) map[string]any {
	return map[string]any{MetaReplay: from}
}

// ReplayOf returns the recorded checkpoint the replay that wrote a
// checkpoint with metadata md started from, and whether a replay wrote it.
func ReplayOf(md engine.Metadata) (string, bool) {
	from, ok := md.Extra[MetaReplay].(string)
	return from, ok && from != ""
}

// RecordedEnd is the last checkpoint of the thread's original run (what a
// replay compares with by default, OriginalRun from its oldest root), ""
// when heads has none. heads are the thread's checkpoints, in any order.
func RecordedEnd(heads []engine.CheckpointHead) string {
	root := ""
	for _, h := range heads {
		if h.ParentID == "" && (root == "" || h.ID < root) {
			root = h.ID
		}
	}
	if root == "" {
		return ""
	}
	chain := OriginalRun(heads, root)
	return chain[len(chain)-1]
}
