package postgres

import (
	"errors"
	"fmt"
	"time"

	"github.com/superstep/superstep/persist"
)

// Errors returned by Open. They come wrapped in an *OpenError that names
// the server and database. Errors that mean the same as the bbolt store's
// (a closed store, an unknown thread, a bad import, corruption) are
// persist's sentinels, so callers handle both stores alike.
var (
	// ErrUnreachable is returned when nothing answers at the server's
	// address: no server listens there, or the host does not answer.
	ErrUnreachable = errors.New("cannot reach the PostgreSQL server")
	// ErrAuth is returned when the server refuses the user or password.
	ErrAuth = errors.New("PostgreSQL authentication failed")
	// ErrNoDatabase is returned when the URL names a database the server
	// does not have.
	ErrNoDatabase = errors.New("PostgreSQL database does not exist")
	// ErrPermission is returned when the user may not create or use
	// superstep's schema and tables.
	ErrPermission = errors.New("permission denied on superstep's schema")
	// ErrNewerSchema is returned when a newer superstep migrated the
	// database past what this one knows. The concrete error is a
	// *SchemaError.
	ErrNewerSchema = errors.New("database schema written by a newer superstep")
	// ErrNoSchema is returned by a read-only Open when the database has no
	// superstep schema (or an older one) yet.
	ErrNoSchema = errors.New("no superstep schema in the database")
	// ErrBadURL is returned for a URL that cannot be parsed.
	ErrBadURL = errors.New("bad PostgreSQL URL")
)

// ErrThreadConflict is returned by writes when another process advanced the
// thread after this store read it: two writers raced on one thread and this
// one lost. The concrete error is a *ConflictError naming the thread and
// the winner.
var ErrThreadConflict = errors.New("thread was advanced by another writer")

// ErrConnectionLost is returned by an open store's operations when the
// connection broke under the request: the server shut down or restarted,
// ended the session, or the network dropped it. Reads have been tried once
// more on a fresh connection first. The next operation connects afresh; if
// the server is still gone, it returns ErrUnreachable.
var ErrConnectionLost = errors.New("lost the connection to the PostgreSQL server")

// ErrCommitUnknown is returned by a write whose caller stopped waiting
// (its context ended) and by Close, when a commit they waited for had
// been sent and the server then stopped answering (frozen, or cut off
// without a reset): the writes may or may not be stored. The concrete
// error is a *CommitUnknownError naming them.
var ErrCommitUnknown = errors.New("the PostgreSQL server did not answer a commit")

// OpenError is an Open failure with the address and database it concerns.
type OpenError struct {
	Addr     string // host:port or socket directory
	Database string // the database name
	User     string // the user connecting
	Err      error  // ErrBadURL, ErrUnreachable, ErrAuth, ErrNoDatabase, ErrPermission, a *SchemaError, or the server's error
}

// Error names the server and the database, and why Open failed.
func (e *OpenError) Error() string {
	if e.Addr == "" || e.Addr == "?" {
		return fmt.Sprintf("postgres: %v", e.Err) // the URL did not parse: no address to name
	}
	return fmt.Sprintf("postgres %s/%s: %v", e.Addr, e.Database, e.Err)
}

// Unwrap returns Err.
func (e *OpenError) Unwrap() error { return e.Err }

// SchemaError reports a schema version this superstep cannot use.
type SchemaError struct {
	Schema    string // the schema's name
	Found     int    // its version in the database
	Supported int    // the newest version this build knows
}

// Error names the schema and both versions and says to upgrade.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("%v: schema %q is at version %d, this superstep knows versions up to %d (upgrade superstep)",
		ErrNewerSchema, e.Schema, e.Found, e.Supported)
}

// Is reports whether target is ErrNewerSchema.
func (e *SchemaError) Is(target error) bool { return target == ErrNewerSchema }

// ConflictError is a write refused because another writer advanced the
// thread since this store last read or wrote it.
type ConflictError struct {
	Thread string // the thread refused
	// Holder describes the process that wrote last: host, pid and store.
	Holder string
	// At is when it wrote.
	At time.Time
	// Deleted: another process deleted the thread (or replaced it, by a
	// push or an import) after this one read it; Holder and At are not
	// known.
	Deleted bool
}

// Error names the thread and the writer that advanced it, and says what to do.
func (e *ConflictError) Error() string {
	if e.Deleted {
		return fmt.Sprintf("thread %q was deleted by another process after this process read it; nothing of this write was stored — reload it and try again", e.Thread)
	}
	return fmt.Sprintf("thread %q was advanced by %s at %s after this process read it; two processes are running it — reload it and try again",
		e.Thread, e.Holder, e.At.Format(time.RFC3339))
}

// Is reports whether target is ErrThreadConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrThreadConflict }

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", persist.ErrCorrupt, fmt.Sprintf(format, args...))
}

func unknownFormat(what string, b byte) error {
	return fmt.Errorf("%w: %s format %d", persist.ErrUnknownValueFormat, what, b)
}
