package engine

import "maps"

// namedSeen is versions_seen of the names that have no slots (see
// channelState.seenV): the input, __start__, __interrupt__, a node without
// triggers, and names a restored checkpoint has that the graph lacks. They
// are few and change rarely, so a checkpoint shares the map itself, and
// the first change after that copies it (a handful of entries); the
// versions and the nodes' slots, which change every superstep, are
// snapshotted by idLog. Inner maps are never changed once a checkpoint
// may share them (channelState.seenOwned).
type namedSeen struct {
	m      map[string]map[string]Version
	shared bool // a checkpoint shares m
}

// get returns name's versions_seen.
func (s *namedSeen) get(name string) (map[string]Version, bool) {
	v, ok := s.m[name]
	return v, ok
}

// set makes seen name's versions_seen.
func (s *namedSeen) set(name string, seen map[string]Version) {
	if s.shared || s.m == nil {
		s.m = maps.Clone(s.m)
		if s.m == nil {
			s.m = map[string]map[string]Version{}
		}
		s.shared = false
	}
	s.m[name] = seen
}

// snapshot returns the map as it is now, to keep: later changes copy it.
func (s *namedSeen) snapshot() map[string]map[string]Version {
	s.shared = true
	return s.m
}

// sharing returns a namedSeen that starts from a snapshot.
func sharing(snap map[string]map[string]Version) namedSeen {
	return namedSeen{m: snap, shared: true}
}

// toMap returns the contents in a new outer map (inner maps are shared).
func (s *namedSeen) toMap() map[string]map[string]Version { return copySeen(s.m) }

// copySeen is a snapshot's map in a new outer map, never nil (inner maps
// are shared: nothing changes them).
func copySeen(snap map[string]map[string]Version) map[string]map[string]Version {
	out := maps.Clone(snap)
	if out == nil {
		out = map[string]map[string]Version{}
	}
	return out
}
