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
	Fingerprint   string    `json:"fingerprint,omitempty"`
	Updated       time.Time `json:"updated,omitzero"`
	Error         string    `json:"error,omitempty"`
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
	return t
}

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

// Both stores of this package serve ExportHandler's list.
var (
	_ ThreadLister = (*Store)(nil)
	_ ThreadLister = (*Shared)(nil)
)
