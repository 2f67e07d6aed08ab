package engine

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
)

// CheckpointDiff is how two checkpoints of a thread differ, channel by
// channel: the one diff that `superstep diff` prints and the debugger
// draws. A is the older side by convention (the parent, or the marked
// checkpoint); nothing requires it.
type CheckpointDiff struct {
	A, B string // the checkpoint ids
	// Channels lists the channels whose version or value differs, sorted
	// by name.
	Channels []ChannelDiff
	// Unchanged counts the channels that are the same on both sides;
	// UnchangedInternal how many of them are the engine's own
	// (IsInternalName), so that a view that hides those counts the
	// state's alone.
	Unchanged, UnchangedInternal int
	// Seen lists the versions_seen entries that differ, sorted by node
	// then channel.
	Seen []SeenDiff
}

// ChannelDiff is one channel that differs between two checkpoints.
type ChannelDiff struct {
	Channel            string  // the channel's name
	VersionA, VersionB Version // its version on each side
	// HasVersionA and HasVersionB say whether each side has the channel
	// at all; HasValueA and HasValueB whether it holds a value.
	HasVersionA, HasVersionB bool
	ValueA, ValueB           any  // its value on each side
	HasValueA, HasValueB     bool // whether each side holds a value
	// Changes is the structural difference of the two values (see
	// DiffValues); empty when only the version moved.
	Changes []ValueChange
}

// SeenDiff is one versions_seen entry that differs: the version of
// channel that node had seen on each side (0 and false when unseen).
type SeenDiff struct {
	Node, Channel string  // whose entry, for which channel
	A, B          Version // the version seen on each side
	HasA, HasB    bool    // whether each side has the entry
}

// ChangeKind says what happened at one path of a value.
type ChangeKind int

// Change kinds.
const (
	Changed ChangeKind = iota // the path holds a different value
	Added                     // the path exists only on side B
	Removed                   // the path exists only on side A
)

// String names the kind as the debugger shows it: changed, added, removed.
func (k ChangeKind) String() string {
	return [...]string{"changed", "added", "removed"}[k]
}

// ValueChange is one difference inside a value, at Path: "" for the value
// itself, then `.key` or `["odd key"]` for map keys, `[3]` for list
// positions, `[id=m-2]` for messages matched by id and `[id=m-2→m-7]` for
// a message each side named with an id of its own (diffMessages).
type ValueChange struct {
	Path string     // where in the value
	Kind ChangeKind // what happened there
	A, B any        // A is nil for Added, B for Removed
}

// DiffCheckpoints compares a and b channel by channel, with the structural
// difference inside each changed value, and their versions_seen. The
// checkpoints are read, never changed; the returned diff shares their
// values (treat them as read-only).
func DiffCheckpoints(a, b *Checkpoint) *CheckpointDiff {
	a, b = a.Materialize(), b.Materialize()
	d := &CheckpointDiff{A: a.ID, B: b.ID}
	names := map[string]bool{}
	for _, m := range []map[string]Version{a.ChannelVersions, b.ChannelVersions} {
		for k := range m {
			names[k] = true
		}
	}
	for _, m := range []map[string]any{a.ChannelValues, b.ChannelValues} {
		for k := range m {
			names[k] = true
		}
	}
	for _, name := range sortedNames(names) {
		cd := ChannelDiff{Channel: name}
		cd.VersionA, cd.HasVersionA = a.ChannelVersions[name]
		cd.VersionB, cd.HasVersionB = b.ChannelVersions[name]
		cd.ValueA, cd.HasValueA = a.ChannelValues[name]
		cd.ValueB, cd.HasValueB = b.ChannelValues[name]
		if cd.HasValueA != cd.HasValueB {
			kind, v := Added, cd.ValueB
			if cd.HasValueA {
				kind, v = Removed, cd.ValueA
			}
			cd.Changes = []ValueChange{{Kind: kind, A: pick(kind == Removed, v), B: pick(kind == Added, v)}}
		} else {
			cd.Changes = DiffValues(cd.ValueA, cd.ValueB)
		}
		if len(cd.Changes) == 0 && cd.VersionA == cd.VersionB && cd.HasVersionA == cd.HasVersionB {
			d.Unchanged++
			if IsInternalName(name) {
				d.UnchangedInternal++
			}
			continue
		}
		d.Channels = append(d.Channels, cd)
	}
	d.Seen = diffSeen(a.VersionsSeen, b.VersionsSeen)
	return d
}

func pick(ok bool, v any) any {
	if ok {
		return v
	}
	return nil
}

func diffSeen(a, b map[string]map[string]Version) []SeenDiff {
	var out []SeenDiff
	nodes := map[string]bool{}
	for n := range a {
		nodes[n] = true
	}
	for n := range b {
		nodes[n] = true
	}
	for _, n := range sortedNames(nodes) {
		chans := map[string]bool{}
		for c := range a[n] {
			chans[c] = true
		}
		for c := range b[n] {
			chans[c] = true
		}
		for _, c := range sortedNames(chans) {
			va, okA := a[n][c]
			vb, okB := b[n][c]
			if va != vb || okA != okB {
				out = append(out, SeenDiff{Node: n, Channel: c, A: va, B: vb, HasA: okA, HasB: okB})
			}
		}
	}
	return out
}

// DiffValues is the structural difference between two state values: maps
// key by key, lists position by position, and lists of messages (maps
// that all carry a string "id", as add_messages keeps them) message by
// message, matched by id as the add_messages reducer matches them. Values
// are compared after Normalize, so an int and the float64 it decodes to
// are equal. It returns nil when a and b are equal.
func DiffValues(a, b any) []ValueChange {
	var out []ValueChange
	diffAt("", a, b, &out)
	return out
}

func diffAt(path string, a, b any, out *[]ValueChange) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			diffMaps(path, x, y, out)
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			if ix, okx := messageIDs(x); okx {
				if iy, oky := messageIDs(y); oky {
					diffMessages(path, x, y, ix, iy, out)
					return
				}
			}
			diffLists(path, x, y, out)
			return
		}
	}
	// Leaves, and containers of other types (ordered maps, typed slices),
	// are normalized only here: equal big values cost a walk, not a copy.
	na, nb := Normalize(a), Normalize(b)
	if (!isPlain(a) || !isPlain(b)) && sameContainer(na, nb) {
		diffAt(path, na, nb, out)
		return
	}
	if !reflect.DeepEqual(na, nb) {
		*out = append(*out, ValueChange{Path: path, Kind: Changed, A: na, B: nb})
	}
}

// isPlain reports whether v is one of the container types diffAt walks.
func isPlain(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// sameContainer reports whether a and b are both maps or both lists.
func sameContainer(a, b any) bool {
	_, ma := a.(map[string]any)
	_, mb := b.(map[string]any)
	_, la := a.([]any)
	_, lb := b.([]any)
	return ma && mb || la && lb
}

func diffMaps(path string, a, b map[string]any, out *[]ValueChange) {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range sortedNames(keys) {
		p := path + keyPath(k)
		va, okA := a[k]
		vb, okB := b[k]
		switch {
		case !okA:
			*out = append(*out, ValueChange{Path: p, Kind: Added, B: vb})
		case !okB:
			*out = append(*out, ValueChange{Path: p, Kind: Removed, A: va})
		default:
			diffAt(p, va, vb, out)
		}
	}
}

func diffLists(path string, a, b []any, out *[]ValueChange) {
	for i := 0; i < max(len(a), len(b)); i++ {
		p := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case i >= len(a):
			*out = append(*out, ValueChange{Path: p, Kind: Added, B: b[i]})
		case i >= len(b):
			*out = append(*out, ValueChange{Path: p, Kind: Removed, A: a[i]})
		default:
			diffAt(p, a[i], b[i], out)
		}
	}
}

// messageIDs returns the ids of a list of messages, or false when some
// element is not a map with a string id (then it is a plain list). An
// empty list is not a message list.
func messageIDs(l []any) ([]string, bool) {
	if len(l) == 0 {
		return nil, false
	}
	ids := make([]string, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		id, ok := m["id"].(string)
		if !ok {
			return nil, false
		}
		ids[i] = id
	}
	return ids, true
}

// diffMessages reports messages removed (in a's order), then changed or
// added (in b's order). A message only a has and one only b has that are
// the same up to the names each side minted (mintedids.go: its id, its
// tool calls' ids, the call it answers) are one message named anew, as
// two branches of a thread name the same conversation when each ran its
// nodes (a replay, a fork run again): paired in order, the pair is
// diffed at `[id=a→b]`, where only the names differ.
func diffMessages(path string, a, b []any, ia, ib []string, out *[]ValueChange) {
	inB := make(map[string]int, len(ib))
	for i, id := range ib {
		inB[id] = i
	}
	inA := make(map[string]int, len(ia))
	var onlyA []int
	for i, id := range ia {
		inA[id] = i
		if _, ok := inB[id]; !ok {
			onlyA = append(onlyA, i)
		}
	}
	renamedFrom := map[int]int{} // b's index → a's, for messages named anew
	next := 0                    // onlyA's first message not yet paired
	var bareA []string           // onlyA's messages without their names, encoded once
	for j, id := range ib {
		if _, ok := inA[id]; ok || len(onlyA) == 0 {
			continue
		}
		if bareA == nil {
			bareA = make([]string, len(onlyA))
			for k, i := range onlyA {
				bareA[k] = string(MustEncode(WithoutMintedNames(a[i])))
			}
		}
		bare := string(MustEncode(WithoutMintedNames(b[j])))
		for k := next; k < len(onlyA); k++ {
			if bareA[k] == bare {
				renamedFrom[j], next = onlyA[k], k+1
				break
			}
		}
	}
	renamed := make(map[int]bool, len(renamedFrom))
	for _, i := range renamedFrom {
		renamed[i] = true
	}
	for _, i := range onlyA {
		if !renamed[i] {
			*out = append(*out, ValueChange{Path: path + "[id=" + ia[i] + "]", Kind: Removed, A: a[i]})
		}
	}
	for j, id := range ib {
		p := path + "[id=" + id + "]"
		if i, ok := inA[id]; ok {
			diffAt(p, a[i], b[j], out)
		} else if i, ok := renamedFrom[j]; ok {
			diffAt(path+"[id="+ia[i]+"→"+id+"]", a[i], b[j], out)
		} else {
			*out = append(*out, ValueChange{Path: p, Kind: Added, B: b[j]})
		}
	}
}

// keyPath is a map key as a path step: .key for identifiers, ["…"] else.
func keyPath(k string) string {
	ident := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return "." + k
	}
	return fmt.Sprintf("[%q]", k)
}

func sortedNames(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
