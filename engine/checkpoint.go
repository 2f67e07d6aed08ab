package engine

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Version is a channel version. Versions are a logical clock shared by all
// channels of a thread: one superstep gives every channel it changes the same
// next version (max of all versions + 1), as LangGraph.js does with its
// in-memory saver.
type Version = int64

// CheckpointFormat is the version of the Checkpoint layout (LangGraph's "v").
const CheckpointFormat = 4

// Checkpoint sources, as in LangGraph's checkpoint metadata.
const (
	SourceInput  = "input"
	SourceLoop   = "loop"
	SourceUpdate = "update"
	SourceFork   = "fork"
)

// Checkpoint is the plain-data state of a thread between supersteps.
//
// A Checkpoint is immutable once built: the engine never modifies one it
// handed to a Saver or got from one, savers may keep it as it is, and its
// inner VersionsSeen maps and values may be shared with other checkpoints.
// Use Clone for a copy to modify.
type Checkpoint struct {
	V  int       // format version of the checkpoint
	ID string    // fixed-width, time-ordered: ids sort as they were made
	TS time.Time // when it was written (the graph's Clock)
	// ChannelValues holds the checkpointed value of every channel that has a
	// version and a value.
	ChannelValues map[string]any
	// ChannelVersions holds every channel's current version.
	ChannelVersions map[string]Version
	// VersionsSeen maps a node (or __input__, __start__, __interrupt__) to the
	// versions of its trigger channels when it last ran.
	VersionsSeen map[string]map[string]Version
	// UpdatedChannels lists the channels the last superstep updated (sorted);
	// nil means "unknown", and planning then scans every node.
	UpdatedChannels []string
	// Appends describes list channels whose last update only appended:
	// their value is their value at version From followed by the elements
	// from index Len on, so a saver that already stored the value at From
	// need store only those (see AppendedTail). The engine fills it; it may
	// list channels that did not change since the parent (still true of
	// them), and nil only means nothing is known. Savers may ignore it.
	Appends map[string]ListAppend

	// lazy holds the engine's O(1) snapshot of the maps above until they
	// are filled; see Materialize.
	lazy *lazyRef
}

// lazyRef is a Checkpoint's link to the engine's snapshot behind it, with
// the once that fills the Checkpoint's maps from it: in the Checkpoint's
// allocation, not the snapshot's, because a MemorySaver keeps the
// snapshots of every checkpoint of a run and makes their Checkpoints only
// when they are read.
type lazyRef struct {
	once sync.Once
	lz   *lazyCheckpoint
}

// lazyCheckpoint is a checkpoint's state as the engine snapshotted it,
// turned into the plain maps on first need. Writing a checkpoint then costs
// what its superstep changed; only a reader pays for the maps.
type lazyCheckpoint struct {
	// g is the graph whose channel ids and versions_seen slots values
	// and versions index (see channelState.verIndexLen); seen is
	// versions_seen of the names that are not g's nodes.
	g        *Graph
	values   idFrozen[any]
	versions idFrozen[Version]
	more     *lazyMore                     // nil: none
	seen     map[string]map[string]Version // shared: see namedSeen
	// Room for a usual superstep's changes, when the snapshots are deltas
	// (see idLog.snapshotTo), and its updated channels: the checkpoint is
	// then one allocation. A MemorySaver keeps every one of a run, carved
	// from slabs (channelState.newCheckpoint).
	valuesRoom   [3]idEntry[any]
	versionsRoom [5]idEntry[Version]
	updatedRoom  [2]int32
	// updated is 1 + how many channels the superstep updated, when a
	// kept run's checkpoint holds them as ids (keepUpdated): in
	// updatedRoom, or at more.updated when more than it holds; 0 when
	// UpdatedChannels is the checkpoint's own.
	updated int32
}

// lazyMore is what a checkpoint's snapshot holds beyond the usual, behind
// one pointer (nil for a usual checkpoint): a MemorySaver keeps every
// checkpoint of a run, and a field of each kind was 8 bytes in each.
type lazyMore struct {
	// extraVer are the versions of channels the graph lacks (from a
	// checkpoint it restored); extraSeen: see channelState.extraSeen.
	extraVer  map[string]Version
	extraSeen map[string]map[string]Version
	// updated holds the updated channels' ids when more than updatedRoom
	// holds (in a chunk with no pointer).
	updated *int32
	// Of a keptCheckpoint: its appends, and its id when not the usual
	// fixed width (keptCheckpoint.idAt is nil).
	appends map[string]ListAppend
	id      string
}

// moreOf returns lz.more, made by cs (newMore) if lz has none.
func (lz *lazyCheckpoint) moreOf(cs *channelState) *lazyMore {
	if lz.more == nil {
		lz.more = cs.newMore()
	}
	return lz.more
}

// keptCheckpoint is a checkpoint of a run whose saver keeps every one
// (channelState.kept: MemorySaver), as that saver keeps it: the engine's
// snapshot with the checkpoint's id, time and appends, but not the public
// Checkpoint's fields, which stay empty until someone reads it (112 bytes
// a superstep for the whole history). The public Checkpoint is made when
// first read (public), once: its lazy part is this one's.
type keptCheckpoint struct {
	lazy lazyCheckpoint
	// idAt is the id's bytes, when it has the usual width (in the run's
	// chunk of ids, or the string's own): 8 bytes where a string is 16;
	// nil: lazy.more.id.
	idAt *[idLen]byte
	ts   time.Time
	pub  atomic.Pointer[Checkpoint]
}

// setID makes id k's id (cs made k).
func (k *keptCheckpoint) setID(id string, cs *channelState) {
	if len(id) == idLen {
		k.idAt = (*[idLen]byte)(unsafe.Pointer(unsafe.StringData(id))) // read only: never written through
		return
	}
	k.lazy.moreOf(cs).id = id
}

// id is k's id.
func (k *keptCheckpoint) id() string {
	if k.idAt != nil {
		return unsafe.String(&k.idAt[0], idLen)
	}
	return k.lazy.more.id
}

// appends is k's Appends.
func (k *keptCheckpoint) appends() map[string]ListAppend {
	if k.lazy.more == nil {
		return nil
	}
	return k.lazy.more.appends
}

// idOr is k's id, or cp's when k is nil.
func (k *keptCheckpoint) idOr(cp *Checkpoint) string {
	if k != nil {
		return k.id()
	}
	return cp.ID
}

// public returns the checkpoint as a Checkpoint, made on the first call;
// every call returns the same one. Safe for concurrent use.
func (k *keptCheckpoint) public() *Checkpoint {
	if cp := k.pub.Load(); cp != nil {
		return cp
	}
	both := &publicAlloc{cp: Checkpoint{V: CheckpointFormat, ID: k.id(), TS: k.ts, Appends: k.appends()}}
	both.ref.lz = &k.lazy
	cp := &both.cp
	cp.lazy = &both.ref
	if k.pub.CompareAndSwap(nil, cp) {
		return cp
	}
	return k.pub.Load()
}

// publicAlloc is a kept checkpoint's public Checkpoint and its link to
// the snapshot, in one allocation.
type publicAlloc struct {
	cp  Checkpoint
	ref lazyRef
}

// extras returns the versions of channels and versions_seen of names
// that are not the graph's (either may be nil).
func (lz *lazyCheckpoint) extras() (map[string]Version, map[string]map[string]Version) {
	if lz.more == nil {
		return nil, nil
	}
	return lz.more.extraVer, lz.more.extraSeen
}

// Materialize fills ChannelValues, ChannelVersions and VersionsSeen (and,
// for a checkpoint a MemorySaver keeps, UpdatedChannels) of a checkpoint
// the engine built, if they are not filled yet, and returns c.
// The engine materializes every checkpoint it hands to a Saver other than
// MemorySaver and to event listeners, and MemorySaver every checkpoint it
// returns, so readers of those see plain maps. It is safe for concurrent
// use.
func (c *Checkpoint) Materialize() *Checkpoint {
	if c == nil || c.lazy == nil {
		return c
	}
	c.lazy.once.Do(func() {
		lz := c.lazy.lz
		extraVer, extraSeen := lz.extras()
		names := lz.g.channelOrder
		values, all := lz.values.flat(), lz.versions.flat()
		c.ChannelValues = make(map[string]any, len(values))
		for id, v := range values {
			if v != absent {
				c.ChannelValues[names[id]] = v
			}
		}
		c.ChannelVersions = make(map[string]Version, len(names)+len(extraVer))
		for name, v := range extraVer {
			c.ChannelVersions[name] = v
		}
		for id, v := range all[:len(names)] {
			if v != 0 {
				c.ChannelVersions[names[id]] = v
			}
		}
		c.VersionsSeen = copySeen(lz.seen)
		seenFromIndexed(lz.g, all, extraSeen, c.VersionsSeen)
		if names, ok := lz.updatedNames(); ok {
			c.UpdatedChannels = names
		}
	})
	return c
}

// lazyState returns the engine snapshot behind c, or nil.
func (c *Checkpoint) lazyState() *lazyCheckpoint {
	if c == nil || c.lazy == nil {
		return nil
	}
	return c.lazy.lz
}

// Clone returns a copy whose maps can be modified without touching c,
// without Appends.
func (c *Checkpoint) Clone() *Checkpoint {
	if c == nil {
		return nil
	}
	c.Materialize()
	out := Checkpoint{V: c.V, ID: c.ID, TS: c.TS, ChannelValues: c.ChannelValues, ChannelVersions: c.ChannelVersions, VersionsSeen: c.VersionsSeen, UpdatedChannels: c.UpdatedChannels}
	out.ChannelValues = maps.Clone(c.ChannelValues)
	// Appends is left out: it vouches for the engine's values, and a copy
	// is made to be changed.
	out.ChannelVersions = maps.Clone(c.ChannelVersions)
	out.VersionsSeen = make(map[string]map[string]Version, len(c.VersionsSeen))
	for k, v := range c.VersionsSeen {
		out.VersionsSeen[k] = maps.Clone(v)
	}
	if c.UpdatedChannels != nil {
		// Keep [] apart from nil: nil means "unknown" to the planner.
		out.UpdatedChannels = append([]string{}, c.UpdatedChannels...)
	}
	if out.ChannelValues == nil {
		out.ChannelValues = map[string]any{}
	}
	if out.ChannelVersions == nil {
		out.ChannelVersions = map[string]Version{}
	}
	return &out
}

// ListAppend says a list value is the channel's value at version From with
// elements appended after the first Len.
type ListAppend struct {
	From Version // the channel's version before the update that appended
	Len  int     // the list's length at From
}

// AppendedTail returns the elements channel's value in c adds to its value
// at version from, when the engine recorded that its last update only
// appended to that value. The slice is shared with c: do not modify it.
// Savers call it to store a growing list at the cost of what was added.
func (c *Checkpoint) AppendedTail(channel string, from Version) ([]any, bool) {
	a, ok := c.Appends[channel]
	if !ok || a.From != from || from == 0 {
		return nil, false
	}
	l, ok := c.Materialize().ChannelValues[channel].([]any)
	if !ok || a.Len > len(l) {
		return nil, false
	}
	return l[a.Len:], true
}

// Metadata describes how a checkpoint came to be.
type Metadata struct {
	Source string // input, loop, update or fork
	Step   int    // the superstep: -1 for an input checkpoint, then 0, 1, …
	// Parents maps ancestor namespaces to their checkpoint ids ({} at the root).
	Parents map[string]string
	// Extra holds free-form scalar metadata (run ids, user tags).
	Extra map[string]any
}

// TaskStep is the superstep the tasks planned from a checkpoint with this
// metadata run in, and the step a run's failure there names: one after
// the checkpoint's (LangGraph.js 1.7.3 dist pregel/loop.js:461, a run's
// step is the loaded checkpoint's plus one).
func (m Metadata) TaskStep() int { return m.Step + 1 }

// Config addresses a thread, a checkpoint namespace and optionally one
// checkpoint. An empty CheckpointID means "the latest".
type Config struct {
	ThreadID     string // the thread (one conversation, one history)
	CheckpointNS string // "" at the root; a subgraph's checkpoints have their own
	CheckpointID string // one checkpoint; "" means the latest
}

// PendingWrite is one write saved for a task against a checkpoint, before the
// superstep that produced it completed.
type PendingWrite struct {
	TaskID  string // the task that wrote it (NullTaskID: a Command given as run input)
	Channel string // the channel or reserved write name
	Value   any    // what was written
}

// CheckpointTuple is a checkpoint with everything stored beside it.
type CheckpointTuple struct {
	Config     Config      // addresses the checkpoint
	Checkpoint *Checkpoint // the checkpoint itself
	Metadata   Metadata    // how it came to be
	// ParentID is the id of the parent checkpoint in the same namespace, or "".
	ParentID string
	// PendingWrites are the writes saved against this checkpoint, in task
	// order with each task's writes in the order they were made.
	PendingWrites []PendingWrite
}
