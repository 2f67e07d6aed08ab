package persist

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Errors returned when opening a store.
var (
	// ErrLocked is returned by Open when another process (or another Store in
	// this process) holds the database file's lock for longer than
	// Options.Timeout. It comes wrapped in an *OpenError naming the file,
	// and the superstep process holding it when its lock file says so.
	ErrLocked = errors.New("database is locked by another process")
	// ErrNotDatabase is returned by Open when the file is not a bbolt
	// database at all: neither of its meta pages has bbolt's marker. (A
	// bbolt file whose meta pages are damaged, or that is shorter than they
	// say, is ErrCorrupt.)
	ErrNotDatabase = errors.New("not a superstep database: not a bbolt file")
	// ErrIsExport is returned by Open when the file is not a database but
	// a thread export (the JSON Export writes, its header first): the one
	// file of superstep's that is not a database, and easily given where
	// one goes. Import reads it. It matches ErrNotDatabase too.
	ErrIsExport error = notDatabaseError("not a superstep database: a superstep thread export (JSON)")
	// ErrForeign is returned by Open when the file is a bbolt database
	// written by another program: it lacks superstep's meta bucket.
	ErrForeign = errors.New("not a superstep database: a bbolt file of another program")
	// ErrNotSetUp is returned by a read-only Open of a bbolt file that holds
	// nothing at all: a store whose first open was interrupted (killed)
	// before it created its layout. A writable Open sets it up.
	ErrNotSetUp = errors.New("an empty database: its first open was interrupted before superstep set it up (a command that writes will)")
	// ErrIsDirectory is returned by Open when the path names a directory.
	ErrIsDirectory = errors.New("is a directory, not a database file")
	// ErrNewerFormat is returned by Open when the file was written by a newer
	// superstep, in a layout this version cannot read. The concrete error is
	// a *FormatError.
	ErrNewerFormat = errors.New("database written by a newer superstep")
	// ErrSharedUnsupported is returned by OpenShared on a platform without
	// the file locks it needs; Open still works there.
	ErrSharedUnsupported = errors.New("shared sessions are not supported on this platform")
)

// Errors returned by operations on an open store.
var (
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("store is closed")
	// ErrReadOnly is returned by writes on a store opened with
	// Options.ReadOnly.
	ErrReadOnly = errors.New("store is read-only")
	// ErrInvalidID is returned when a thread id, namespace, checkpoint id,
	// task id or channel name is empty where it must not be, too long, or
	// (for Export) not valid UTF-8.
	ErrInvalidID = errors.New("invalid id")
	// ErrInvalidCheckpoint is returned by Put when a checkpoint is
	// inconsistent, e.g. a channel has a value but no version.
	ErrInvalidCheckpoint = errors.New("invalid checkpoint")
	// ErrCorrupt is returned when the file is damaged: truncated, a page
	// out of place, stored bytes that fail their checksum, cannot be
	// decoded or refer to records that do not exist. Open returns it for
	// damage it finds in the file's page structure; Check returns it
	// wrapping every problem found.
	ErrCorrupt = errors.New("database is damaged")
	// ErrUnknownValueFormat is returned when a stored record starts with a
	// format byte this version does not know (written by a newer superstep).
	ErrUnknownValueFormat = errors.New("stored record has an unknown format version")
	// ErrAsyncWrite is returned by writes, Flush and Close after a write
	// that nobody waited for (durability async or exit) failed; it wraps
	// that first failure. The store accepts no more writes. The concrete
	// error is a *LostWritesError saying what was not saved.
	ErrAsyncWrite = errors.New("an earlier buffered write failed")
	// ErrThreadNotFound is returned by Export for a thread with no
	// checkpoints.
	ErrThreadNotFound = errors.New("thread not found")
)

// Errors returned by Import.
var (
	// ErrThreadExists is returned by Import when the thread is already in
	// the store and ImportOptions.Overwrite is false.
	ErrThreadExists = errors.New("thread already exists (import with overwrite to replace it)")
	// ErrWouldDiscard is returned by Import with ImportOptions.Overwrite
	// when the thread it would replace holds checkpoints or pending writes
	// the import lacks, or was recorded with another graph, and
	// ImportOptions.Discard is not set. The concrete error is a
	// *ReplaceError saying what would be lost.
	ErrWouldDiscard = errors.New("replacing the thread would discard what only it holds")
	// ErrBadImport is returned by Import for input that is not a valid
	// export: malformed JSON, wrong format or version, bad ids, missing
	// parents, undecodable values. It is wrapped with the reason.
	ErrBadImport = errors.New("invalid thread export")
	// ErrImportTooLarge is returned by Import when the input is longer than
	// ImportOptions.MaxBytes.
	ErrImportTooLarge = errors.New("thread export too large")
)

// notDatabaseError is a more telling ErrNotDatabase.
type notDatabaseError string

func (e notDatabaseError) Error() string { return string(e) }

// Is reports whether target is ErrNotDatabase.
func (e notDatabaseError) Is(target error) bool { return target == ErrNotDatabase }

// OpenError is returned by Open; it names the file and wraps the cause
// (ErrLocked, ErrNotDatabase or ErrIsExport, ErrForeign, a *FormatError, or
// an I/O error).
type OpenError struct {
	Path    string        // the database file
	Timeout time.Duration // the lock timeout, reported with ErrLocked
	Err     error         // why: ErrLocked, ErrNotDatabase, ErrForeign, a *FormatError, an I/O error
	// Holder is who holds the lock, with ErrLocked, when it is known.
	Holder *Holder
}

// Error names the file and why it did not open; for a lock, the process
// that holds it when that is known.
func (e *OpenError) Error() string {
	if errors.Is(e.Err, ErrLocked) && e.Holder != nil && e.Holder.PID == os.Getpid() {
		// Not another process: this one opened the file twice.
		return fmt.Sprintf("database %s is already open in this process, %s (waited %v for its lock): a Store holds the file until its Close; open it once and share that Store, which is safe for concurrent use", e.Path, e.Holder, e.Timeout)
	}
	if errors.Is(e.Err, ErrLocked) && e.Holder != nil {
		return fmt.Sprintf("database %s is in use by another superstep process, %s (waited %v for its lock)", e.Path, e.Holder, e.Timeout)
	}
	if errors.Is(e.Err, ErrLocked) {
		// No live superstep recorded itself in the lock file: any program
		// may hold bbolt's lock on the file, so do not guess which.
		return fmt.Sprintf("database %s is locked by another process (waited %v for its lock)", e.Path, e.Timeout)
	}
	return fmt.Sprintf("open database %s: %v", e.Path, e.Err)
}

// Unwrap returns Err.
func (e *OpenError) Unwrap() error { return e.Err }

// FormatError is returned by Open for a database whose layout version is
// newer than this build reads. It matches ErrNewerFormat with errors.Is.
type FormatError struct {
	Found     uint32 // the file's layout version
	Supported uint32 // the newest layout this build reads
}

// Error names both versions and says to upgrade.
func (e *FormatError) Error() string {
	return fmt.Sprintf("database layout version %d is newer than this superstep reads (%d): upgrade superstep", e.Found, e.Supported)
}

// Is reports whether target is ErrNewerFormat.
func (e *FormatError) Is(target error) bool { return target == ErrNewerFormat }

// corruptf returns an error wrapping ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// badImportf returns an error wrapping ErrBadImport.
func badImportf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadImport, fmt.Sprintf(format, args...))
}

// unknownFormat returns an error wrapping ErrUnknownValueFormat.
func unknownFormat(what string, b byte) error {
	return fmt.Errorf("%w: %s format %d (written by a newer superstep?)", ErrUnknownValueFormat, what, b)
}

// LostWritesError is returned by writes, Flush and Close after writes
// nobody waited for (durability async or exit, and sync's pending task
// writes) failed to commit: it says how many of each were not saved and
// wraps the first failure. It matches ErrAsyncWrite with errors.Is.
type LostWritesError struct {
	Checkpoints int   // Put calls not saved
	Writes      int   // PutWrites calls (one task's writes each) not saved
	Other       int   // other writes not saved (fingerprints, deletions)
	Err         error // the first commit failure
}

// Error says how many writes of each kind were lost, and the first failure.
func (e *LostWritesError) Error() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{e.Checkpoints, "checkpoint"}, {e.Writes, "set of task writes"}, {e.Other, "other write"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.what)
		case c.n > 1 && c.what == "set of task writes":
			parts = append(parts, fmt.Sprintf("%d sets of task writes", c.n))
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c.n, c.what))
		}
	}
	return fmt.Sprintf("buffered writes were lost (%s not saved): %v", strings.Join(parts, ", "), e.Err)
}

// Unwrap returns Err.
func (e *LostWritesError) Unwrap() error { return e.Err }

// Is reports whether target is ErrAsyncWrite.
func (e *LostWritesError) Is(target error) bool { return target == ErrAsyncWrite }

// DamagedRecordError is returned when a stored record does not open: its
// seal (sealed.go) does not match what was read, so the file changed
// after it was written. It matches ErrCorrupt with errors.Is.
type DamagedRecordError struct {
	Thread    string // "" for a record outside threads (a setting)
	Namespace string // the checkpoint namespace ("" for the root)
	Record    string // what the record is: "the record of checkpoint \"…\""
	Reason    string // "fails its checksum", ...
}

// Error names the thread, namespace and record, and what is wrong with it.
func (e *DamagedRecordError) Error() string {
	where := ""
	if e.Thread != "" {
		where = ThreadPlace(e.Thread, e.Namespace) + ": "
	}
	return fmt.Sprintf("%v: %s%s %s", ErrCorrupt, where, e.Record, e.Reason)
}

// ThreadPlace is how the stores' errors and check reports name a thread's
// checkpoint namespace: `thread "t"` for its root namespace, `thread "t"
// namespace "ns"` for a subgraph's.
func ThreadPlace(thread, ns string) string {
	if ns == "" {
		return fmt.Sprintf("thread %q", thread)
	}
	return fmt.Sprintf("thread %q namespace %q", thread, ns)
}

// Is reports whether target is ErrCorrupt.
func (e *DamagedRecordError) Is(target error) bool { return target == ErrCorrupt }

// damageList is what Check found: "database is damaged: " and one problem
// a line. It matches ErrCorrupt and each problem with errors.Is and As.
type damageList struct{ errs []error }

func (e *damageList) Error() string {
	lines := make([]string, len(e.errs))
	prefix := ErrCorrupt.Error() + ": "
	for i, err := range e.errs {
		lines[i] = strings.ReplaceAll(err.Error(), prefix, "")
	}
	return prefix + strings.Join(lines, "\n")
}

func (e *damageList) Unwrap() []error { return append([]error{ErrCorrupt}, e.errs...) }

// errLeadNext is no failure: the writer sends it on a waiting op's done
// channel to hand that op's goroutine the lead (writer.leadRounds).
var errLeadNext = errors.New("persist: lead the next round")
