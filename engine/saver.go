package engine

import (
	"context"
	"reflect"
)

// Saver stores checkpoints and pending writes. It is LangGraph's checkpointer
// contract (BaseCheckpointSaver): implementations must pass
// enginetest.SaverSuite.
//
// Savers are called from the goroutine that owns the run, except PutWrites,
// which may be called from task goroutines as each task finishes and must be
// safe for concurrent use.
type Saver interface {
	// Put stores cp with md. cfg.CheckpointID is the parent's id ("" for
	// none). newVersions holds the channels whose version changed since the
	// parent; a saver may store only those channels' values. It returns the
	// config of the stored checkpoint.
	Put(ctx context.Context, cfg Config, cp *Checkpoint, md Metadata, newVersions map[string]Version) (Config, error)
	// PutWrites stores a task's writes against the checkpoint cfg names.
	// Regular writes are idempotent per (task, index): the first stored wins.
	// Special writes (__error__, __interrupt__, __resume__, __scheduled__)
	// replace the ones stored before. NullTaskID is a task like any other:
	// a second Command on the same checkpoint (a node that asks again) keeps
	// the first one's update writes in the saver, its resume the second's
	// (LangGraph.js MemorySaver.putWrites, langgraph-checkpoint
	// dist/memory.js:252-256, skips a stored (task, index) of any task; the
	// loop keeps only the second in memory, pregel/loop.js:538).
	PutWrites(ctx context.Context, cfg Config, taskID string, writes []Write) error
	// GetTuple returns the checkpoint cfg names (the latest of the thread and
	// namespace when cfg.CheckpointID is empty), or nil and no error when
	// there is none.
	GetTuple(ctx context.Context, cfg Config) (*CheckpointTuple, error)
	// List returns the checkpoints of cfg's thread and namespace, newest
	// first, filtered by opt.
	List(ctx context.Context, cfg Config, opt ListOptions) ([]*CheckpointTuple, error)
	// DeleteThread removes every checkpoint and write of a thread.
	DeleteThread(ctx context.Context, threadID string) error
}

// WriteDeferrer is the optional Saver capability of taking a task's writes
// without waiting for them to be durable, because the checkpoint Put that
// follows commits them together (one fsync where PutWrites and Put would
// take two). The engine uses it only for the last task of a superstep to
// finish, when Update follows at once, and reports that task's result only
// after wait returns (which it calls after the Put): a task reported
// finished is still on disk. wait commits the writes itself if nothing has.
type WriteDeferrer interface {
	// DeferWrites queues a task's writes for the saver's next commit
	// (PutWrites' contract otherwise); wait returns once they are stored.
	DeferWrites(ctx context.Context, cfg Config, taskID string, writes []Write) (wait func() error, err error)
}

// ThreadLister is the optional Saver capability of listing its threads.
type ThreadLister interface {
	// Threads returns the ids of the stored threads, sorted.
	Threads(ctx context.Context) ([]string, error)
}

// isMemorySaver reports whether s is the engine's own MemorySaver, whose
// shortcuts the loop may take: it stores a checkpoint's lazy snapshot as
// it is and materializes it only when read, reads a root run's Parents
// without changing them, and its PutWrites does no I/O. The test is on the
// concrete type, not a marker method, because a saver that embeds
// *MemorySaver and puts checkpoints or writes its own way would inherit
// a marker it does not honour.
func isMemorySaver(s Saver) bool {
	_, ok := s.(*MemorySaver)
	return ok
}

// newVersionsFor returns the channels changed since the last stored
// checkpoint for s, forgetting them: a saver that keeps the engine's
// snapshots whole has no use for the list and gets nil.
func (cs *channelState) newVersionsFor(s Saver) map[string]Version {
	if keepsSnapshots(s) {
		cs.forgetDirty()
		return nil
	}
	return cs.takeDirty()
}

// keepsSnapshots reports whether s keeps the engine's checkpoint
// snapshots whole (then the channels each one changed need not be listed:
// channelState.dirtyOff).
func keepsSnapshots(s Saver) bool { return isMemorySaver(s) }

// noParents is the Parents of a root run's checkpoints for a saver that
// keeps an empty map as a mark (MemorySaver); nothing writes to it.
var noParents = map[string]string{}

// rootParents returns the Parents of a root run's checkpoint for s, when
// no listener sees its metadata: shared for MemorySaver, which only reads
// it, a map of its own for any other saver.
func rootParents(s Saver) map[string]string {
	if keepsSnapshots(s) {
		return noParents
	}
	return map[string]string{}
}

// forSaver returns cp ready for s: materialized, unless s keeps engine
// snapshots as they are.
func forSaver(s Saver, cp *Checkpoint) *Checkpoint {
	if keepsSnapshots(s) {
		return cp
	}
	return cp.Materialize()
}

// ListOptions narrows Saver.List.
type ListOptions struct {
	// Before keeps only checkpoints with an id sorting before it.
	Before string
	// Limit caps the number returned (0: no cap).
	Limit int
	// Filter keeps checkpoints whose metadata has these values: "source",
	// "step" and keys of Metadata.Extra.
	Filter map[string]any
	// AllNamespaces lists every namespace of the thread, not just
	// cfg.CheckpointNS.
	AllNamespaces bool
}

// NullTaskID is the task id of writes that belong to no task: Command input
// and resume values.
const NullTaskID = "00000000-0000-0000-0000-000000000000"

// WriteSlot returns the fixed index of a special write, or idx for a regular
// one (LangGraph's WRITES_IDX_MAP).
func WriteSlot(channel string, idx int) int {
	switch channel {
	case ErrorChannel:
		return -1
	case ScheduledChannel:
		return -2
	case InterruptChannel:
		return -3
	case ResumeChannel:
		return -4
	}
	return idx
}

// MatchesFilter reports whether md has every key/value of filter.
func MatchesFilter(md Metadata, filter map[string]any) bool {
	for k, want := range filter {
		var got any
		switch k {
		case "source":
			got = md.Source
		case "step":
			got = float64(md.Step)
			want = Normalize(want)
		default:
			got = md.Extra[k]
		}
		if !reflect.DeepEqual(Normalize(got), Normalize(want)) {
			return false
		}
	}
	return true
}
