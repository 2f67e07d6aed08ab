package persist

import (
	"context"
	"fmt"
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
	// held is the file kept open while the durability is async or exit
	// (SetDurability): writes are buffered in it, so it cannot be closed
	// after each call, and other processes wait until it is.
	held *Store
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
	if s.held != nil {
		return fn(s.held)
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

// Close commits what an async or exit durability buffered and lets go of
// the writer lock. Closing twice is a no-op.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.held != nil {
		err = s.held.Close()
		s.held = nil
	}
	s.wl.release()
	return err
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

// Durability is DurabilitySync unless SetDurability changed it: every call
// commits before it closes the file, which is what lets other processes
// read it meanwhile.
func (s *Shared) Durability() Durability {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != nil {
		return s.held.Durability()
	}
	return DurabilitySync
}

// SetDurability changes when writes reach the disk. Async and exit buffer
// writes, so the file stays open (bbolt's lock held) until the durability
// is set back to sync or the Shared is closed: meanwhile other processes
// cannot read it and wait, as for any writer. Setting sync commits what is
// buffered and closes the file again.
func (s *Shared) SetDurability(d Durability) error {
	if d != DurabilitySync && d != DurabilityAsync && d != DurabilityExit {
		return fmt.Errorf("persist: unknown durability %v", d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.held != nil && d == DurabilitySync:
		err := s.held.Close()
		s.held = nil
		return err
	case s.held != nil:
		return s.held.SetDurability(d)
	case d == DurabilitySync:
		return nil
	}
	o := s.opts
	o.Timeout = max(o.Timeout, sharedWriteWait)
	o.Durability = d
	st, err := Open(s.path, o)
	if err != nil {
		return err
	}
	s.held = st
	return nil
}

// Check verifies the file (see Store.Check).
func (s *Shared) Check() error {
	return s.do(true, func(st *Store) error { return st.Check() })
}

var _ engine.Saver = (*Shared)(nil)
