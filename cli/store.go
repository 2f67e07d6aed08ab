package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
)

// Store is what the command line needs of a checkpoint database: the
// engine's Saver plus thread listing, the per-thread graph record, export
// and import, and an integrity check. *persist.Store implements it; the
// interface names the part of it the commands rely on.
type Store interface {
	engine.Saver
	// Threads lists the stored threads, sorted by id.
	Threads(ctx context.Context) ([]persist.ThreadInfo, error)
	// Fingerprint returns what SetFingerprint stored for thread ("" if
	// nothing): the command line keeps a JSON graphRecord there.
	Fingerprint(ctx context.Context, thread string) (string, error)
	SetFingerprint(ctx context.Context, thread, fingerprint string) error
	// Export writes every checkpoint and pending write of thread, with
	// fingerprint, as one self-contained document.
	Export(ctx context.Context, thread string, w io.Writer, fingerprint string) error
	// Import reads an Export document and returns the thread id it held.
	Import(ctx context.Context, r io.Reader, o persist.ImportOptions) (string, error)
	// Check verifies the database's integrity.
	Check() error
	Close() error
}

var _ Store = (*persist.Store)(nil)

// storeOptions are how a command opens the database.
type storeOptions struct {
	// ReadOnly opens an existing database with a shared lock, without
	// creating or changing it.
	ReadOnly bool
	// Existing opens a database that must already exist, for writing: a
	// command that works on a stored thread (replay, update, copy,
	// delete) must not create an empty file at a mistyped path and then
	// report the thread missing.
	Existing bool
	// Timeout bounds the wait for another process's lock (--timeout).
	Timeout time.Duration
	// Durability says when writes reach the disk (run --durability).
	Durability persist.Durability
	// program and importDB make the hint for a thread export given
	// where a database goes: the program's name, and the database to
	// import it into ("" for the default: the export was --db itself).
	program, importDB string
	// pullInto: the database is where pull writes a thread (the hint
	// for a database another process holds says so).
	pullInto bool
	// Shared opens the database for a long session (the debugger) that
	// other processes can read meanwhile: persist.OpenShared.
	Shared bool
}

// Errors of the command line's own; persist's sentinels (ErrLocked,
// ErrNotDatabase, ErrForeign, ErrThreadExists, ErrBadImport, ...) come
// through wrapped.
var (
	// ErrNoDatabase is returned when a read-only command names a database
	// file that does not exist.
	ErrNoDatabase = errors.New("no database")
	// ErrThreadNotFound is returned for a thread with no checkpoints.
	ErrThreadNotFound = errors.New("thread not found")
	// ErrSubgraphsOnly is returned by show and history for a thread whose
	// checkpoints are all in subgraph namespaces.
	ErrSubgraphsOnly = errors.New("no checkpoints of the thread's own")
	// ErrUnknownNamespace is returned for a --ns the thread has no
	// checkpoints in.
	ErrUnknownNamespace = errors.New("unknown namespace")
)

// openBoltStore opens the bbolt database at path (openStore decides that
// it is a file). It is the one place that turns persist's open errors into
// exit codes and messages that name the file: a database locked by
// another process or a file that is not superstep's is an input error
// (exit 2), a damaged one a failure (exit 1).
func openBoltStore(path string, o storeOptions) (Store, error) {
	var s Store
	var err error
	if o.Existing && !o.ReadOnly {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return nil, usagef("%w at %s (run a graph first, or pass --db)", ErrNoDatabase, path)
		}
	}
	if o.Shared {
		s, err = persist.OpenShared(path, persist.Options{Timeout: o.Timeout})
	} else {
		s, err = persist.Open(path, persist.Options{Timeout: o.Timeout, ReadOnly: o.ReadOnly, Durability: o.Durability})
	}
	switch {
	case err == nil:
		return s, nil
	case o.Shared && errors.Is(err, persist.ErrSharedUnsupported):
		return openStore(path, storeOptions{Timeout: o.Timeout})
	case o.ReadOnly && errors.Is(err, fs.ErrNotExist):
		// A read-only open must not create the file; say how one is made.
		return nil, usagef("%w at %s (run a graph first, or pass --db)", ErrNoDatabase, path)
	case errors.Is(err, persist.ErrLocked) && o.pullInto:
		// The service's own file, as often as not: the handler is
		// where its threads come from, --db is where they go.
		return nil, usagef("%v; pull writes into --db: try again when that process is done, wait longer with --timeout, or pull into a database of your own (--db ./bug.db)", err)
	case errors.Is(err, persist.ErrLocked):
		// A service that runs its graph on the file (engine.WithSaver on
		// persist.Open) holds it as long as it runs: waiting does not
		// help there, and the README's first step, export on the server,
		// is then pulled from the handler it mounts.
		return nil, usagef("%v; try again when it is done, or wait longer with --timeout (a service that keeps the database open lets go only when it stops: pull its threads from the persist.ExportHandler it mounts)", err)
	case errors.Is(err, persist.ErrIsExport):
		return nil, usagef("%s; to read its thread into a database: %s", storeMessage(err), commandLine(cmp.Or(o.program, defaultProgram), o.importDB, "import", shellWord(path)))
	case errors.Is(err, persist.ErrCorrupt), diskFailure(err):
		return nil, failf("%s", storeMessage(err))
	}
	return nil, usagef("%s", storeMessage(err))
}

// diskFailure reports an error of the disk rather than of what the user
// named: it is full, the file may not grow, or it cannot be read.
func diskFailure(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EFBIG) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EIO)
}

// storeError gives an error of an open store its exit code and a message
// saying what was being done: what the user named or fed in (an unknown or
// invalid thread, a bad export) is an input error, exit 2; anything else,
// such as damage found in the file or a write that could not be committed,
// is a failure, exit 1.
func storeError(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf(format, args...) + ": " + storeMessage(err)
	for _, input := range []error{
		persist.ErrThreadNotFound, persist.ErrThreadExists, persist.ErrInvalidID,
		persist.ErrBadImport, persist.ErrImportTooLarge, persist.ErrReadOnly,
	} {
		if errors.Is(err, input) {
			return usagef("%s", msg)
		}
	}
	return failf("%s", msg)
}

// storeMessage is err's text without persist's package prefix: the command
// line prints "superstep: " before every error, and which Go package said
// it means nothing to its user.
func storeMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "persist: ")
}

// parseDurability reads a --durability flag.
func parseDurability(s string) (persist.Durability, error) {
	d, err := persist.ParseDurability(s)
	if err != nil {
		return 0, usagef("--durability %q: want sync, async or exit", s)
	}
	return d, nil
}
