package persist

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/superstep/superstep/engine"
)

// ThreadLister is a store whose threads ExportHandler lists: Store,
// Shared and the PostgreSQL store all are.
type ThreadLister interface {
	// Threads summarises every thread (Store.Threads).
	Threads(ctx context.Context) ([]ThreadInfo, error)
}

// threadListFormat names the document ExportHandler answers to GET
// ExportPath, so that a client refuses anything else (a proxy's page, a
// newer layout) instead of listing nothing.
const (
	threadListFormat  = "superstep-threads"
	threadListVersion = 1
)

// threadList is the list document: the threads a service could hand to
// `superstep pull`, the one written last first.
type threadList struct {
	Format  string         `json:"format"`
	Version int            `json:"version"`
	Total   int            `json:"total"` // threads with checkpoints, before the limit
	Threads []listedThread `json:"threads"`
}

// listedThread is one ThreadInfo on the wire; Err travels as its message.
type listedThread struct {
	ID            string    `json:"thread"`
	Checkpoints   int       `json:"checkpoints"`
	Namespaces    int       `json:"namespaces"`
	LastID        string    `json:"latest,omitempty"`
	LastStep      int       `json:"step"`
	LastSource    string    `json:"source,omitempty"`
	LastTS        time.Time `json:"last_checkpoint,omitzero"`
	PendingWrites int       `json:"pending_writes"`
	Interrupted   bool      `json:"interrupted"`
	Failed        bool      `json:"failed"`
	Failure       string    `json:"failure,omitempty"`
	// Status is ThreadInfo.Status when StatusKnown. Added in version 1
	// without a new version: an older reader skips the field, and a
	// document without it (an older service's) lists no status.
	Status      string    `json:"status,omitempty"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	Updated     time.Time `json:"updated,omitzero"`
	Error       string    `json:"error,omitempty"`
}

func listed(t ThreadInfo) listedThread {
	l := listedThread{
		ID: t.ID, Checkpoints: t.Checkpoints, Namespaces: t.Namespaces, LastID: t.LastID, LastStep: t.LastStep,
		LastSource: t.LastSource, LastTS: t.LastTS, PendingWrites: t.PendingWrites, Interrupted: t.Interrupted,
		Failed: t.Failed, Failure: t.Failure, Fingerprint: t.Fingerprint, Updated: t.Updated,
	}
	if t.Err != nil {
		l.Error = t.Err.Error()
	}
	if t.StatusKnown {
		l.Status = t.Status.String()
	}
	return l
}

func (l listedThread) info() ThreadInfo {
	t := ThreadInfo{
		ID: l.ID, Checkpoints: l.Checkpoints, Namespaces: l.Namespaces, LastID: l.LastID, LastStep: l.LastStep,
		LastSource: l.LastSource, LastTS: l.LastTS, PendingWrites: l.PendingWrites, Interrupted: l.Interrupted,
		Failed: l.Failed, Failure: l.Failure, Fingerprint: l.Fingerprint, Updated: l.Updated,
	}
	if l.Error != "" {
		t.Err = &ListedThreadError{Thread: l.ID, Message: l.Error}
	}
	// A word this build does not know (a newer service's) is no status.
	for _, st := range listedStatuses {
		if l.Status != "" && l.Status == st.String() {
			t.Status, t.StatusKnown = st, true
		}
	}
	return t
}

// listedStatuses are the statuses a list document names, by their
// engine names.
var listedStatuses = [...]engine.CheckpointStatus{engine.CheckpointDone, engine.CheckpointPending, engine.CheckpointInterrupted, engine.CheckpointFailed}

// ListedThreadError is ThreadInfo.Err of a thread a list document
// (ReadThreadList) says its store could not read: the store's own error
// is on the service, only its message came along.
type ListedThreadError struct {
	Thread  string // the thread's id
	Message string // the store's error, as the service wrote it
}

// Error is the store's message.
func (e *ListedThreadError) Error() string { return e.Message }

// newestFirst orders threads as a list of them is read: the one written
// last (ThreadInfo.Updated) first, ties by id.
func newestFirst(threads []ThreadInfo) {
	slices.SortStableFunc(threads, func(a, b ThreadInfo) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// writeThreadList writes the list document of threads: those with a
// checkpoint (a thread SetFingerprint alone made has nothing to pull),
// newest first, at most limit of them (0: all).
func writeThreadList(w io.Writer, threads []ThreadInfo, limit int) error {
	kept := slices.DeleteFunc(threads, func(t ThreadInfo) bool { return t.Err == nil && t.Checkpoints == 0 && t.Namespaces == 0 })
	newestFirst(kept)
	doc := threadList{Format: threadListFormat, Version: threadListVersion, Total: len(kept), Threads: []listedThread{}}
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
	}
	for _, t := range kept {
		doc.Threads = append(doc.Threads, listed(t))
	}
	return json.NewEncoder(w).Encode(doc)
}

// ErrNotThreadList is ReadThreadList's error for a document that is not a
// list of threads ExportHandler wrote.
var ErrNotThreadList = errors.New("not a superstep list of threads")

// ReadThreadList reads the list document ExportHandler answers to GET
// ExportPath: its threads (newest first; a thread the service could not
// read has Err, a *ListedThreadError) and how many the service has, which
// exceeds len(threads) when the request asked for fewer (?limit=N).
// Anything else, a newer version included, is ErrNotThreadList.
func ReadThreadList(r io.Reader) (threads []ThreadInfo, total int, err error) {
	var doc threadList
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrNotThreadList, err)
	}
	if doc.Format != threadListFormat {
		return nil, 0, fmt.Errorf("%w: format %q", ErrNotThreadList, doc.Format)
	}
	if doc.Version != threadListVersion {
		return nil, 0, fmt.Errorf("%w: version %d, this build reads version %d (a newer superstep made it)", ErrNotThreadList, doc.Version, threadListVersion)
	}
	threads = make([]ThreadInfo, 0, len(doc.Threads))
	for _, l := range doc.Threads {
		if l.ID == "" {
			return nil, 0, fmt.Errorf("%w: a thread without an id", ErrNotThreadList)
		}
		threads = append(threads, l.info())
	}
	return threads, doc.Total, nil
}

// recordedPlans caches, by graph record as a thread stores it, what a
// listing plans its threads' latest checkpoints with: one
// engine.RecordedPlan for the many threads of one graph, nil for a record
// that cannot decide (no record, a bare fingerprint, a topology this build
// cannot read).
type recordedPlans map[string]*engine.RecordedPlan

// of is the plan of record, read once.
func (ps recordedPlans) of(record string) *engine.RecordedPlan {
	if p, ok := ps[record]; ok {
		return p
	}
	var p *engine.RecordedPlan
	if rec, ok := engine.DecodeGraphRecord(record); ok {
		p, _ = engine.PlanFromRecord(rec) // ErrUndecided: nil, no status
	}
	ps[record] = p
	return p
}

// ThreadPlans plans the latest checkpoints of a listing's threads from
// their graph records, one engine.RecordedPlan per distinct record, so
// that every store's Threads says the same Status of a thread (Store's
// plans in its read of the thread; the PostgreSQL store's after its one
// query). Not safe for concurrent use.
type ThreadPlans struct{ plans recordedPlans }

// NewThreadPlans returns a ThreadPlans with no record read yet.
func NewThreadPlans() *ThreadPlans { return &ThreadPlans{plans: recordedPlans{}} }

// Reads returns which channels' values planning t's latest checkpoint
// reads (an engine.Outliner's keep), or nil when t's record cannot decide
// (no record, a bare fingerprint, a topology this build cannot read): its
// status stays unknown, and nothing need be read for it.
func (p *ThreadPlans) Reads(t *ThreadInfo) func(channel string) bool {
	if plan := p.plans.of(t.Fingerprint); plan != nil {
		return plan.Reads
	}
	return nil
}

// SetStatus sets t.Status and t.StatusKnown from latest, t's latest root
// checkpoint (t.LastID) with its saved writes, read with the values Reads
// accepts at least.
func (p *ThreadPlans) SetStatus(t *ThreadInfo, latest *engine.CheckpointTuple) {
	t.Status, t.StatusKnown = 0, false
	if plan := p.plans.of(t.Fingerprint); plan != nil {
		t.setRecordedStatus(plan, latest)
	}
}

// setRecordedStatus sets Status from plan, the thread's recorded graph,
// and latest, its latest root checkpoint with its saved writes (the
// values plan.Reads accepts are enough). A checkpoint the record cannot
// decide (engine.ErrUndecided), or whose saved input does not apply, as
// GetState's would not, leaves it unknown.
func (t *ThreadInfo) setRecordedStatus(plan *engine.RecordedPlan, latest *engine.CheckpointTuple) {
	t.Status, t.StatusKnown = 0, false
	if st, err := plan.Status(latest); err == nil {
		t.Status, t.StatusKnown = st, true
	}
}

// listedState is loadState for a listing, which rebuilds one checkpoint of
// each of many threads: the writer's cached state of the thread's newest
// checkpoint when it has it (a thread being written), else the delta chain
// read newest first into one state, its records' names shared through
// names across threads. loadState instead copies the state once per
// record of the chain (it keeps each in a memo for List's other
// checkpoints), which a listing of one checkpoint a thread has no use for.
//
// A record's delta applies its Dropped before its Versions (applyDelta):
// newest first, the first record that names a channel or node, in its
// versions or its dropped ones, decides it, its versions winning.
func listedState(c *cache, cps *records, thread, id string, rec *cpRecord, names map[string]string) (*cpState, error) {
	if st := c.state(thread, "", id); st != nil {
		return st, nil
	}
	st := &cpState{refs: map[string]chanRef{}, seen: map[string]map[string]int64{}, depth: rec.Depth}
	decidedRef, decidedSeen := map[string]bool{}, map[string]bool{}
	cur := rec
	for n := 0; ; n++ {
		for ch, v := range cur.Versions {
			if !decidedRef[ch] {
				decidedRef[ch] = true
				st.refs[ch] = chanRef{v, cur.Seqs[ch]}
			}
		}
		for node, m := range cur.Seen {
			if !decidedSeen[node] {
				decidedSeen[node] = true
				st.seen[node] = m
			}
		}
		if !cur.Delta {
			return st, nil
		}
		for _, ch := range cur.Dropped {
			decidedRef[ch] = true
		}
		for _, node := range cur.SeenDropped {
			decidedSeen[node] = true
		}
		switch {
		case n >= maxChain:
			return nil, corruptf("checkpoint %q: delta chain longer than %d", id, maxChain)
		case cur.Parent == "":
			return nil, corruptf("checkpoint %q: a delta without a parent", id)
		}
		data, err := cps.Get(checkpointKey(cur.Parent))
		if err != nil {
			return nil, err
		}
		if data == nil {
			return nil, corruptf("checkpoint %q: delta base %q is missing", id, cur.Parent)
		}
		if cur, err = decodeRecordNames(data, names); err != nil {
			return nil, err
		}
	}
}

// Both stores of this package serve ExportHandler's list.
var (
	_ ThreadLister = (*Store)(nil)
	_ ThreadLister = (*Shared)(nil)
)
