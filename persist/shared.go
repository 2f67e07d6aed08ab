package persist

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/superstep/superstep/engine"
)

// Shared is a database opened for a long session, such as the debugger's,
// that other processes may read meanwhile. It holds the database's writer
// lock (LockPath) for its whole life, so no other process writes, but
// bbolt's file lock only during each call: every call opens the file —
// read-only for reads, writable for writes — and closes it before it
// returns. Commands that only read (threads, history, show, export) work
// beside it; a second writer is refused with ErrLocked naming the session.
//
// Each call pays for opening the file, which is fine at a person's pace and
// not for a long batch: Open is the store for runs. Calls are serialized.
// A Shared is safe for concurrent use; values it returns are owned by the
// caller.
type Shared struct {
	path string
	opts Options
	wl   *writerLock
	mu   sync.Mutex
	// closed guards against use after Close, which returns ErrClosed.
	closed bool
}

// sharedWriteWait is how long a Shared's write waits for readers to let go
// of bbolt's lock: readers are short, and a debugger should not fail a step
// because someone exported a thread at that moment.
const sharedWriteWait = 10 * time.Second

// OpenShared opens (creating it if needed) the database at path for a
// session; see Shared. opts.ReadOnly is ignored; writes are committed
// before each call returns whatever opts.Durability says. Errors are those
// of Open: *OpenError wrapping ErrLocked (naming the holder when known)
// when another process holds the writer lock longer than opts.Timeout.
func OpenShared(path string, opts Options) (*Shared, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	opts.ReadOnly = false
	opts.Durability = DurabilitySync
	if !haveWriterLock {
		// No separate writer lock on this platform: keep bbolt's.
		return nil, &OpenError{Path: path, Err: ErrSharedUnsupported}
	}
	// Open creates and checks the file and takes the writer lock; the
	// lock is kept and the file closed.
	st, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	wl := st.wl
	st.wl = nil
	if err := st.Close(); err != nil {
		wl.release()
		return nil, err
	}
	opts.writerHeld = true
	return &Shared{path: path, opts: opts, wl: wl}, nil
}

// do runs fn on the file opened for this call.
func (s *Shared) do(readOnly bool, fn func(st *Store) error) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	o := s.opts
	o.ReadOnly = readOnly
	if !readOnly {
		o.Timeout = max(o.Timeout, sharedWriteWait)
	}
	st, err := Open(s.path, o)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(st)
}

// Path returns the database file's path.
func (s *Shared) Path() string { return s.path }

// Close lets go of the writer lock. Closing twice is a no-op.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.wl.release()
	}
	return nil
}

// Put implements engine.Saver (see Store.Put).
func (s *Shared) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, nv map[string]engine.Version) (out engine.Config, err error) {
	err = s.do(false, func(st *Store) (err error) {
		out, err = st.Put(ctx, cfg, cp, md, nv)
		return err
	})
	return out, err
}

// PutWrites implements engine.Saver (see Store.PutWrites).
func (s *Shared) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	return s.do(false, func(st *Store) error { return st.PutWrites(ctx, cfg, taskID, writes) })
}

// GetTuple implements engine.Saver (see Store.GetTuple).
func (s *Shared) GetTuple(ctx context.Context, cfg engine.Config) (t *engine.CheckpointTuple, err error) {
	err = s.do(true, func(st *Store) (err error) {
		t, err = st.GetTuple(ctx, cfg)
		return err
	})
	return t, err
}

// List implements engine.Saver (see Store.List).
func (s *Shared) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) (l []*engine.CheckpointTuple, err error) {
	err = s.do(true, func(st *Store) (err error) {
		l, err = st.List(ctx, cfg, opt)
		return err
	})
	return l, err
}

// DeleteThread implements engine.Saver (see Store.DeleteThread).
func (s *Shared) DeleteThread(ctx context.Context, threadID string) error {
	return s.do(false, func(st *Store) error { return st.DeleteThread(ctx, threadID) })
}

// Threads lists the stored threads (see Store.Threads).
func (s *Shared) Threads(ctx context.Context) (l []ThreadInfo, err error) {
	err = s.do(true, func(st *Store) (err error) {
		l, err = st.Threads(ctx)
		return err
	})
	return l, err
}

// Fingerprint returns a thread's recorded fingerprint (see Store.Fingerprint).
func (s *Shared) Fingerprint(ctx context.Context, threadID string) (fp string, err error) {
	err = s.do(true, func(st *Store) (err error) {
		fp, err = st.Fingerprint(ctx, threadID)
		return err
	})
	return fp, err
}

// SetFingerprint records a thread's fingerprint (see Store.SetFingerprint).
func (s *Shared) SetFingerprint(ctx context.Context, threadID, fp string) error {
	return s.do(false, func(st *Store) error { return st.SetFingerprint(ctx, threadID, fp) })
}

// Export writes a thread as one document (see Store.Export).
func (s *Shared) Export(ctx context.Context, threadID string, w io.Writer, fingerprint string) error {
	return s.do(true, func(st *Store) error { return st.Export(ctx, threadID, w, fingerprint) })
}

// Import adds an exported thread (see Store.Import).
func (s *Shared) Import(ctx context.Context, r io.Reader, opts ImportOptions) (id string, err error) {
	err = s.do(false, func(st *Store) (err error) {
		id, err = st.Import(ctx, r, opts)
		return err
	})
	return id, err
}

// Setting returns a stored document (see Store.Setting): the debugger
// keeps each graph's breakpoints and run settings there.
func (s *Shared) Setting(ctx context.Context, key string) (doc []byte, err error) {
	err = s.do(true, func(st *Store) (err error) {
		doc, err = st.Setting(ctx, key)
		return err
	})
	return doc, err
}

// PutSetting stores a document (see Store.PutSetting).
func (s *Shared) PutSetting(ctx context.Context, key string, doc []byte) error {
	return s.do(false, func(st *Store) error { return st.PutSetting(ctx, key, doc) })
}

// Durability is always DurabilitySync: every call commits before it
// closes the file, which is what lets other processes read it meanwhile.
func (s *Shared) Durability() Durability { return DurabilitySync }

// Check verifies the file (see Store.Check).
func (s *Shared) Check() error {
	return s.do(true, func(st *Store) error { return st.Check() })
}

var _ engine.Saver = (*Shared)(nil)
