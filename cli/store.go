package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/superstep/superstep/engine"
)

// Store is what the command line needs of a checkpoint database: the
// engine's Saver plus thread listing, the per-thread graph record, export
// and import, and an integrity check. It is the shape of persist.Store, so
// the bbolt store drops in behind openStore.
type Store interface {
	engine.Saver
	// Threads lists the stored threads, sorted by id.
	Threads(ctx context.Context) ([]ThreadInfo, error)
	// Fingerprint returns what SetFingerprint stored for thread ("" if
	// nothing).
	Fingerprint(ctx context.Context, thread string) (string, error)
	SetFingerprint(ctx context.Context, thread, fingerprint string) error
	// Export writes every checkpoint and pending write of thread, with
	// fingerprint, as one self-contained document.
	Export(ctx context.Context, thread string, w io.Writer, fingerprint string) error
	// Import reads an Export document and returns the thread id it held.
	Import(ctx context.Context, r io.Reader, overwrite bool) (string, error)
	// Check verifies the database's integrity.
	Check() error
	Close() error
}

// ThreadInfo summarizes one stored thread.
type ThreadInfo struct {
	ID          string    `json:"thread"`
	Checkpoints int       `json:"checkpoints"`
	Latest      string    `json:"latest"` // id of the newest checkpoint
	Step        int       `json:"step"`
	Source      string    `json:"source"`
	Updated     time.Time `json:"updated"`
}

// storeOptions are the knobs every store implementation understands.
type storeOptions struct {
	// ReadOnly opens an existing database without creating or changing it.
	ReadOnly bool
	// Durability is sync, async or exit (only the bbolt store differs).
	Durability string
}

// Errors a store returns; they map to exit code 2.
var (
	// ErrNoDatabase is returned when a read-only command names a database
	// file that does not exist.
	ErrNoDatabase = errors.New("no database")
	// ErrNotDatabase is returned for a file that is not a superstep database.
	ErrNotDatabase = errors.New("not a superstep database")
	// ErrThreadNotFound is returned for a thread with no checkpoints.
	ErrThreadNotFound = errors.New("thread not found")
	// ErrThreadExists is returned by an import without overwrite onto a
	// thread that is already stored.
	ErrThreadExists = errors.New("thread already exists (use --overwrite to replace it)")
	// ErrBadImport is returned for input that is not a thread export.
	ErrBadImport = errors.New("not a superstep thread export")
	// ErrReadOnly is returned by writes to a store opened read-only.
	ErrReadOnly = errors.New("database opened read-only")
)

// openStore opens the checkpoint database at path. It is the only place that
// chooses the store implementation: until the bbolt store is merged it is
// the JSON file store of this package.
func openStore(path string, o storeOptions) (Store, error) {
	if o.ReadOnly {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, usagef("%w at %s (run a graph first, or pass --db)", ErrNoDatabase, path)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, usagef("database %s: %v", path, err)
	}
	s, err := openFileStore(path, o)
	if err != nil {
		return nil, asUsage(err)
	}
	return s, nil
}

// defaultDBPath is where the database lives without --db: $SUPERSTEP_DB,
// else $XDG_DATA_HOME/superstep/superstep.db, else
// ~/.local/share/superstep/superstep.db (persist.DefaultPath's rule).
func defaultDBPath(getenv func(string) string) (string, error) {
	if p := getenv("SUPERSTEP_DB"); p != "" {
		return p, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "superstep", "superstep.db"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", usagef("no database path: set --db or SUPERSTEP_DB (%v)", err)
		}
	}
	return filepath.Join(home, ".local", "share", "superstep", "superstep.db"), nil
}
