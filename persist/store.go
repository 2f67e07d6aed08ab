package persist

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/superstep/superstep/engine"
)

// Durability says when a write reaches the disk, for the store as a whole
// (the names are LangGraph's durability modes). Which checkpoints a run
// writes at all is the engine's run option (engine.Durability).
type Durability int

const (
	// DurabilitySync commits every write (Put, PutWrites, ...), with
	// fsync, before it returns. Writes made while a commit runs share the
	// next one (see the package doc).
	DurabilitySync Durability = iota
	// DurabilityAsync queues writes for a background goroutine that commits
	// them in order, in batches. Reads, Flush and Close wait for them.
	DurabilityAsync
	// DurabilityExit keeps writes in memory until Flush or Close (or a read,
	// which must see them) commits them.
	//
	// Under async and exit a process that ends without Close or Flush
	// loses what is still buffered, a whole run's checkpoints under exit:
	// os.Exit and log.Fatal skip deferred calls, so a program that opens
	// its store with them closes it before it exits.
	DurabilityExit
)

// String returns "sync", "async" or "exit".
func (d Durability) String() string {
	switch d {
	case DurabilitySync:
		return "sync"
	case DurabilityAsync:
		return "async"
	case DurabilityExit:
		return "exit"
	}
	return fmt.Sprintf("Durability(%d)", int(d))
}

// ParseDurability parses "sync", "async" or "exit".
func ParseDurability(s string) (Durability, error) {
	for _, d := range []Durability{DurabilitySync, DurabilityAsync, DurabilityExit} {
		if s == d.String() {
			return d, nil
		}
	}
	return 0, fmt.Errorf("persist: unknown durability %q (want sync, async or exit)", s)
}

// Options configures Open. The zero value is a writable store with
// synchronous durability and a one-second lock timeout.
type Options struct {
	// Timeout bounds the wait for the file lock another process holds
	// (default 1s). Open then fails with ErrLocked instead of hanging.
	Timeout time.Duration
	// ReadOnly opens the file with a shared lock; every write returns
	// ErrReadOnly. The file must already be a superstep database.
	ReadOnly bool
	// Durability says when writes reach the disk.
	Durability Durability
	// NoSync skips fsync on commit. A crash can then lose or corrupt
	// recent writes: for tests and benchmarks only.
	NoSync bool
	// Now is the clock for ThreadInfo.Updated (default time.Now).
	Now func() time.Time
	// MaxBuffered bounds the memory that writes not yet committed may
	// take under async and exit durability, in bytes of their encoded
	// values and metadata (default DefaultMaxBuffered, 64 MiB). A write
	// that would pass it first commits everything buffered and waits for
	// that commit, as under sync durability. The values behind the bytes
	// are not kept: a buffered write holds only its encoding.
	MaxBuffered int

	// writerHeld: the caller (OpenShared) already holds the writer lock.
	writerHeld bool
}

// layoutVersion is the version of the bucket layout, kept in the meta
// bucket, that new files get. Layout 2 seals every record (sealed.go);
// layout 3 keeps a namespace's records in one bucket (ordered.go). Files
// of layouts 1 and 2 are read and written in their own layout.
const layoutVersion uint32 = 3

// appName marks a bbolt file as superstep's.
const appName = "superstep"

// Bucket and key names. Top-level buckets are created once, at Open.
var (
	bucketMeta    = []byte("meta")    // keyApp, keyLayout
	bucketThreads = []byte("threads") // one bucket per thread id
	keyApp        = []byte("app")
	keyLayout     = []byte("layout")
	keyLayoutSeal = []byte("seal") // layout 2 on: the seal of app and layout

	// Inside a thread's bucket: plain keys, and one bucket per namespace
	// named nsBucketName(ns).
	keyFingerprint = []byte("fingerprint")
	keyUpdated     = []byte("updated") // unix nanoseconds, big-endian

	// Inside a namespace's bucket, in layouts 1 and 2.
	bucketCheckpoints = []byte("cp")   // checkpointKey -> cpRecord
	bucketBlobs       = []byte("blob") // blobKey -> value
	bucketWrites      = []byte("w")    // writeKey -> write
	bucketChildren    = []byte("kids") // childKey -> empty

	nsBucketNames = [][]byte{bucketCheckpoints, bucketBlobs, bucketWrites, bucketChildren}
)

// fillPercent is how full bbolt packs a page before splitting it.
const fillPercent = 0.9

// Limits on the names a store keeps, the same in every store (this one
// and persist/postgres), so that a thread copied between them (Import,
// pull, push) fits: thread, checkpoint and task ids and channel and node
// names MaxIDLen bytes, namespaces, which nest, MaxNSLen. They keep
// bbolt's keys far below its 32 KiB key limit.
const (
	MaxIDLen = 1024
	MaxNSLen = 4096
)

// Store is a checkpoint store in one bbolt file. It implements
// engine.Saver and adds what the debugger needs to browse threads.
// A Store is safe for concurrent use. Values it returns are owned by the
// caller and stay valid after the call.
type Store struct {
	db       *bolt.DB
	path     string
	w        *writer
	mode     Durability
	readOnly bool
	wl       *writerLock // nil for read-only and shared opens
	cache    *cache
	now      func() time.Time
	closed   atomic.Bool
	// imports holds the sequence numbers of the "importing" buckets this
	// store's imports are writing (importstage.go): only one store writes
	// a file at a time, so any other such bucket was left by one that
	// stopped mid-import, and the next import drops it.
	imports sync.Map // uint64 → struct{}
	// encoded counts the bytes of values Put and PutWrites encoded, for
	// tests that a superstep costs what it changed.
	encoded atomic.Int64
}

var _ engine.Saver = (*Store)(nil)

// Open opens (creating it and its directory if needed, unless
// opts.ReadOnly) the database at path.
//
// Errors are *OpenError values wrapping ErrLocked when another process
// holds the file longer than opts.Timeout, ErrNotDatabase for a file that
// is not bbolt, ErrForeign for another program's bbolt file,
// ErrNewerFormat (a *FormatError) for a newer layout, or the I/O error.
func Open(path string, opts Options) (s *Store, err error) {
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	fail := func(err error) (*Store, error) {
		return nil, &OpenError{Path: path, Timeout: opts.Timeout, Err: err}
	}
	wl, err := lockForWriting(path, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if s == nil {
			wl.discard()
		}
	}()
	fi, statErr := os.Stat(path)
	if statErr == nil && fi.IsDir() {
		return fail(ErrIsDirectory)
	}
	if !opts.ReadOnly && errors.Is(statErr, fs.ErrNotExist) {
		// This open creates the file. If setting it up fails (a full
		// disk), no empty or half-written file may stay behind for the
		// next command to call damaged. The writer lock, released after
		// this (defers run last first), keeps other writers out meanwhile.
		defer func() {
			if s == nil {
				_ = os.Remove(path)
			}
		}()
	}
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	s = &Store{db: db, path: path, wl: wl, cache: newCache(), mode: opts.Durability, readOnly: opts.ReadOnly, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if !opts.ReadOnly {
		s.w = newWriter(db, opts.Durability, opts.MaxBuffered)
		s.w.now = s.now
		s.w.onCommit = s.cache.merge
	}
	return s, nil
}

// lockForWriting makes path's directory and takes the writer lock for a
// writable open, unless the caller (OpenShared) holds it already: nil for
// a read-only open. Its error is the *OpenError Open returns.
func lockForWriting(path string, opts Options) (*writerLock, error) {
	if opts.ReadOnly {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, &OpenError{Path: path, Timeout: opts.Timeout, Err: err}
	}
	if opts.writerHeld {
		return nil, nil
	}
	wl, holder, err := acquireWriterLock(path, opts.Timeout)
	if err != nil {
		return nil, &OpenError{Path: path, Timeout: opts.Timeout, Err: err, Holder: holder}
	}
	return wl, nil
}

// openBolt opens path with bbolt and checks superstep's layout in it,
// creating the layout in a new writable file. Its error is the
// *OpenError Open returns.
//
// bbolt trusts the header it validated; a damaged file past the header
// could still make it panic, and Open must fail instead: the panic is
// reported as damage, and the file closed.
func openBolt(path string, opts Options) (db *bolt.DB, err error) {
	defer faultSafe()()
	defer func() {
		if r := recover(); r != nil {
			closeAfterPanic(db)
			db, err = nil, &OpenError{Path: path, Timeout: opts.Timeout, Err: corruptf("%v", r)}
		}
	}()
	if opts.ReadOnly {
		// bbolt would try to initialise an empty file, which read-only
		// cannot: say what the file is instead of the write error.
		if fi, statErr := os.Stat(path); statErr == nil && fi.Size() == 0 {
			return nil, &OpenError{Path: path, Timeout: opts.Timeout, Err: fmt.Errorf("%w (the file is empty)", ErrNotDatabase)}
		}
	}
	db, err = bolt.Open(path, 0o600, &bolt.Options{
		Timeout:  opts.Timeout,
		ReadOnly: opts.ReadOnly,
		NoSync:   opts.NoSync,
		// The freelist is rebuilt at Open instead of being written by
		// every commit: fewer pages per commit, a smaller file.
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		OpenFile:       openChecked(opts.ReadOnly, opts.Timeout),
	})
	if err != nil {
		return nil, boltOpenError(path, opts, err)
	}
	if opts.ReadOnly {
		err = db.View(func(tx *bolt.Tx) error { return checkLayout(tx, true) })
	} else {
		err = db.Update(func(tx *bolt.Tx) error { return checkLayout(tx, false) })
	}
	if err != nil {
		db.Close()
		return nil, &OpenError{Path: path, Timeout: opts.Timeout, Err: err}
	}
	return db, nil
}

// closeAfterPanic closes a database a panic left open (nil: none was), and
// keeps a second panic of its close from replacing the first's report.
func closeAfterPanic(db *bolt.DB) {
	if db == nil {
		return
	}
	defer func() { _ = recover() }()
	_ = db.Close()
}

// boltOpenError is the *OpenError for bbolt's refusal of path.
func boltOpenError(path string, opts Options, err error) error {
	fail := func(err error) error {
		if errors.Is(err, ErrNotDatabase) && isExport(path) {
			err = ErrIsExport
		}
		return &OpenError{Path: path, Timeout: opts.Timeout, Err: err}
	}
	var pathErr *fs.PathError
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		// The lock file names the writer; when this open holds the writer
		// lock it names this process, which is not who holds the file.
		var holder *Holder
		if opts.ReadOnly {
			holder, _ = ReadHolder(path)
		}
		return &OpenError{Path: path, Timeout: opts.Timeout, Err: ErrLocked, Holder: holder}
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrNotDatabase):
		return fail(err)
	case !errors.As(err, &pathErr):
		// bbolt refused the header (no marker, bad checksums, "file size
		// too small"): say whether it is damage or not a database at all.
		if verr := verifyFile(path, false); verr != nil && !errors.Is(verr, fs.ErrNotExist) {
			return fail(verr)
		}
		return fail(fmt.Errorf("%w (%w)", ErrNotDatabase, err))
	default:
		return fail(err)
	}
}

// openChecked returns the function bbolt opens the file with. It takes
// the file lock bbolt is about to take and walks every page of a non-empty
// file (verifyReader) before bbolt reads any: bbolt follows page ids and
// offsets without checking them, partly in a goroutine of its own that no
// recover reaches (the free-list rebuild of a writable open), so a damaged
// page must never get that far. The lock keeps the file as checked.
func openChecked(readOnly bool, timeout time.Duration) func(string, int, os.FileMode) (*os.File, error) {
	return func(path string, flag int, mode os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(path, flag, mode)
		if err != nil {
			return nil, err
		}
		if err := flockWait(f, readOnly, timeout); err != nil {
			f.Close()
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil && fi.Size() > 0 {
			err = verifyReader(f, fi.Size(), false)
		}
		if err != nil {
			f.Close() // releases the lock
			return nil, err
		}
		return f, nil
	}
}

// checkLayout verifies the meta bucket, creating the layout in an empty
// file.
func checkLayout(tx *bolt.Tx, readOnly bool) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		empty := true
		tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		switch {
		case !empty:
			return ErrForeign
		case readOnly:
			return ErrNotSetUp
		}
		var err error
		if meta, err = tx.CreateBucket(bucketMeta); err != nil {
			return err
		}
		if err := meta.Put(keyApp, []byte(appName)); err != nil {
			return err
		}
		layout := binary.BigEndian.AppendUint32(nil, layoutVersion)
		if err := meta.Put(keyLayout, layout); err != nil {
			return err
		}
		if err := meta.Put(keyLayoutSeal, layoutSeal([]byte(appName), layout)); err != nil {
			return err
		}
		if err := meta.Put(keyDigest, digest{}.encode()); err != nil {
			return err
		}
		_, err = tx.CreateBucket(bucketThreads)
		return err
	}
	if string(meta.Get(keyApp)) != appName && meta.Get(keyLayoutSeal) == nil {
		return ErrForeign
	}
	if err := checkLayoutSeal(meta); err != nil {
		return err
	}
	v := meta.Get(keyLayout)
	if len(v) != 4 {
		return corruptf("meta bucket: bad layout version")
	}
	if found := binary.BigEndian.Uint32(v); found > layoutVersion {
		return &FormatError{Found: found, Supported: layoutVersion}
	}
	if tx.Bucket(bucketThreads) == nil {
		return corruptf("threads bucket missing")
	}
	return nil
}

// layoutSeal is the seal of the meta bucket's app and layout values. It
// makes a damaged layout number damage, not a file of another layout
// (whose records would then be misread).
func layoutSeal(app, layout []byte) []byte {
	r := newRecords(nil, kindMeta, "", "", true)
	return binary.BigEndian.AppendUint32(nil, r.seal(app, layout))
}

// checkLayoutSeal checks the meta bucket's seal: every sealed layout has
// one, a layout 1 file none.
func checkLayoutSeal(meta *bolt.Bucket) error {
	app, layout, seal := meta.Get(keyApp), meta.Get(keyLayout), meta.Get(keyLayoutSeal)
	sealed := len(layout) == 4 && binary.BigEndian.Uint32(layout) >= sealedLayout
	switch {
	case seal == nil && !sealed:
		return nil
	case seal == nil:
		return corruptf("meta bucket: the layout's checksum is missing")
	case !bytes.Equal(seal, layoutSeal(app, layout)):
		return corruptf("meta bucket: the app name and layout version fail their checksum")
	}
	return nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Durability returns the store's durability mode.
func (s *Store) Durability() Durability {
	if s.w == nil {
		return s.mode
	}
	return s.w.durability()
}

// SetDurability changes when the writes from now on reach the disk, as
// LangGraph's durability run option does for one invocation (the
// debugger's run settings offer it). Writes buffered so far are committed
// first. A read-only store has nothing to commit and keeps its mode.
func (s *Store) SetDurability(d Durability) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if d != DurabilitySync && d != DurabilityAsync && d != DurabilityExit {
		return fmt.Errorf("persist: unknown durability %v", d)
	}
	if s.w == nil {
		return ErrReadOnly
	}
	return s.w.setMode(d)
}

// Flush commits every buffered write (durability async or exit) and waits
// for it. It returns ErrAsyncWrite wrapping the first buffered write that
// failed, if any.
func (s *Store) Flush() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.w == nil {
		return nil
	}
	return s.w.flush()
}

// Close flushes buffered writes and closes the file. It returns the first
// buffered write failure or the close error. Closing twice is a no-op.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	var err error
	if s.w != nil {
		err = s.w.close()
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	s.wl.release()
	return err
}

// writable checks that a write may be queued.
func (s *Store) writable(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.readOnly {
		return ErrReadOnly
	}
	return ctx.Err()
}

// view runs fn in a read transaction, after buffered writes are committed
// so that reads see them. Nothing fn returns may alias tx's bytes.
func (s *Store) view(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A failed buffered write is reported by writes and Flush; reads go
	// on showing what was committed. (Sync buffers pending writes briefly
	// too; see PutWrites.)
	if s.w != nil {
		_ = s.w.flush()
	}
	return s.read(fn)
}

// read runs fn in a read transaction of what is committed now.
func (s *Store) read(fn func(tx *bolt.Tx) error) (err error) {
	// bbolt trusts the pages it reads and panics on a damaged one (a bad
	// page type, an element offset out of range), or faults reading past
	// the end of a file shrunk under it; a read must report that as damage
	// instead of ending the program. View rolls the transaction back as
	// the panic passes.
	defer faultSafe()()
	defer func() {
		if r := recover(); r != nil {
			err = corruptf("reading the file: %v", r)
		}
	}()
	err = s.db.View(fn)
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// CheckName returns nil when id, a store's what ("thread id",
// "channel"), is 1 to max bytes long, or empty where allowEmpty; else an
// error wrapping ErrInvalidID that names what, the id (its start, when
// long) and the limit.
func CheckName(what, id string, max int, allowEmpty bool) error {
	if (id == "" && !allowEmpty) || len(id) > max {
		return fmt.Errorf("%w: %s %q must be 1 to %d bytes", ErrInvalidID, what, truncate(id, 40), max)
	}
	return nil
}

// CheckThreadID returns nil if id is a thread id a person may give: 1 to
// 1024 bytes of UTF-8 without control characters, not blank, and not
// starting or ending with white space. Otherwise it returns an error
// wrapping ErrInvalidID that says why. Import refuses other ids (the
// document's, or ImportOptions.Thread), and commands refuse them before
// they start. (The Saver methods take any id of 1 to 1024 bytes, as
// engine.Saver's contract asks: a program may use binary ids.)
func CheckThreadID(id string) error { return checkThreadID(id) }

// checkThreadID checks a thread id: 1 to MaxIDLen bytes of UTF-8 without
// control characters (NUL, escape, newline, ...), which no one types and
// which only serve to fool a terminal or a log that prints the id.
//
// Nor may it be blank or have white space at either end, though white
// space inside ("bug 42") is a name like any: a list of threads pads its
// columns with spaces, so " " shows as an empty row and " t1" as "t1",
// and the shell, a copy from that list or a script's trimming drops the
// spaces at the ends, so such an id cannot be typed back to the commands
// that read it.
func checkThreadID(id string) error {
	if err := CheckName("thread id", id, MaxIDLen, false); err != nil {
		return err
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%w: thread id %q is not UTF-8", ErrInvalidID, truncate(id, 40))
	}
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%w: thread id %q contains the control character %U", ErrInvalidID, truncate(id, 40), []rune(id[i:])[0])
	}
	switch trimmed := strings.TrimSpace(id); {
	case trimmed == "":
		return fmt.Errorf("%w: thread id %q is blank", ErrInvalidID, truncate(id, 40))
	case trimmed != id:
		return fmt.Errorf("%w: thread id %q starts or ends with white space (%q would do)", ErrInvalidID, truncate(id, 40), truncate(trimmed, 40))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// CheckCheckpoint refuses a Put of cp, with metadata md, at cfg (the
// parent's config) that a store could not keep as it is, or that an
// export could not carry back into a store. Both stores call it before
// they encode anything, and Import applies the same rules to each name
// (checkRecordName), so that any thread a store holds exports, imports
// and copies.
//
// The ids of cfg and cp are keys, any bytes within the limits on names
// (CheckConfig, CheckName). The names a checkpoint record keeps — cp's id
// and its parent's, the channel and node names of its versions,
// versions_seen and updated channels, its metadata's source and parent
// checkpoints — are JSON in the record and in an export, which cannot
// carry other bytes than UTF-8: encoding/json would store each such name
// with U+FFFD in place of its bad bytes, so the checkpoint would not read
// back (its values and its delta base named by names no one wrote), and
// two names could become one. A channel or node name is not empty.
//
// Errors wrap ErrInvalidID (a name) or ErrInvalidCheckpoint.
func CheckCheckpoint(cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata) error {
	if err := CheckConfig(cfg); err != nil {
		return err
	}
	if cp == nil {
		return fmt.Errorf("%w: nil checkpoint", ErrInvalidCheckpoint)
	}
	if err := checkRecordName("checkpoint id", cp.ID, MaxIDLen, false); err != nil {
		return err
	}
	if cp.ID == cfg.CheckpointID {
		return fmt.Errorf("%w: checkpoint %q is its own parent", ErrInvalidCheckpoint, truncate(cp.ID, 40))
	}
	if err := checkRecordName("parent checkpoint id", cfg.CheckpointID, MaxIDLen, true); err != nil {
		return err
	}
	if err := checkVersionNames(cp.ChannelVersions); err != nil {
		return err
	}
	if err := checkSeenNames(cp.VersionsSeen); err != nil {
		return err
	}
	if err := checkChannelNames("updated channel", cp.UpdatedChannels); err != nil {
		return err
	}
	if err := checkMetadataNames(md.Source, md.Parents); err != nil {
		return err
	}
	for k := range md.Extra {
		if err := checkRecordName("metadata key", k, MaxIDLen, true); err != nil {
			return err
		}
	}
	return nil
}

// CheckWrites refuses a PutWrites of task taskID's writes at cfg that a
// store could not keep: the ids are keys, any bytes within the limits on
// names, and each write's channel is named as a record names its
// channels (CheckCheckpoint), which the write's value goes to. Both
// stores call it before they encode anything. Errors wrap ErrInvalidID.
func CheckWrites(cfg engine.Config, taskID string, writes []engine.Write) error {
	if err := CheckConfig(cfg); err != nil {
		return err
	}
	if err := CheckName("task id", taskID, MaxIDLen, true); err != nil {
		return err
	}
	for _, w := range writes {
		if err := checkRecordName("channel", w.Channel, MaxIDLen, false); err != nil {
			return err
		}
	}
	return nil
}

// checkRecordName is CheckName for a name a record keeps as JSON, which
// must be UTF-8 too (CheckCheckpoint).
func checkRecordName(what, name string, max int, allowEmpty bool) error {
	if !utf8.ValidString(name) {
		return fmt.Errorf("%w: %s %q is not UTF-8", ErrInvalidID, what, truncate(name, 40))
	}
	return CheckName(what, name, max, allowEmpty)
}

// checkVersionNames checks the channel names of channel_versions.
func checkVersionNames(versions map[string]engine.Version) error {
	for ch := range versions {
		if err := checkRecordName("channel", ch, MaxIDLen, false); err != nil {
			return err
		}
	}
	return nil
}

// checkSeenNames checks the node and channel names of versions_seen.
func checkSeenNames(seen map[string]map[string]engine.Version) error {
	for node, m := range seen {
		if err := checkRecordName("node", node, MaxIDLen, false); err != nil {
			return err
		}
		if err := checkVersionNames(m); err != nil {
			return err
		}
	}
	return nil
}

// checkChannelNames checks a list of channel names, what they are.
func checkChannelNames(what string, channels []string) error {
	for _, ch := range channels {
		if err := checkRecordName(what, ch, MaxIDLen, false); err != nil {
			return err
		}
	}
	return nil
}

// maxSourceLen bounds a checkpoint's metadata source ("input", "loop",
// "update", "fork": LangGraph's few).
const maxSourceLen = 64

// checkMetadataNames checks a checkpoint's metadata source and parents
// (namespace → checkpoint id).
func checkMetadataNames(source string, parents map[string]string) error {
	if len(source) > maxSourceLen {
		return fmt.Errorf("%w: metadata source longer than %d bytes", ErrInvalidCheckpoint, maxSourceLen)
	}
	if !utf8.ValidString(source) {
		return fmt.Errorf("%w: metadata source %q is not UTF-8", ErrInvalidID, source)
	}
	for ns, id := range parents {
		if err := checkRecordName("metadata parent namespace", ns, MaxNSLen, true); err != nil {
			return err
		}
		if err := checkRecordName("metadata parent id", id, MaxIDLen, true); err != nil {
			return err
		}
	}
	return nil
}

// CheckConfig checks the thread id, namespace and checkpoint id of a
// Saver call's config with CheckName.
func CheckConfig(cfg engine.Config) error {
	if err := CheckName("thread id", cfg.ThreadID, MaxIDLen, false); err != nil {
		return err
	}
	if err := CheckName("namespace", cfg.CheckpointNS, MaxNSLen, true); err != nil {
		return err
	}
	return CheckName("checkpoint id", cfg.CheckpointID, MaxIDLen, true)
}

// nsBuckets are the record buckets of one thread's namespace.
type nsBuckets struct {
	cps, blobs, writes, kids *records
	// Set by writes that use the cache.
	thread, ns string
	cache      caches
}

// openNS returns the buckets of (thread, ns), creating them when create is
// set; otherwise it returns nil when they do not exist.
func openNS(tx *bolt.Tx, thread, ns string, create bool) (*nsBuckets, error) {
	tb := tx.Bucket(bucketThreads).Bucket([]byte(thread))
	if tb == nil && !create {
		return nil, nil
	}
	if tb == nil {
		var err error
		if tb, err = tx.Bucket(bucketThreads).CreateBucket([]byte(thread)); err != nil {
			return nil, err
		}
	}
	return nsIn(tb, thread, ns, create)
}

// openNSWrite is openNS(tx, thread, ns, true) for a write: a commit
// round opens a namespace once, however many of its ops write to it.
func openNSWrite(tx *bolt.Tx, thread, ns string) (*nsBuckets, error) {
	if r := roundOf(tx); r != nil {
		return r.openNS(tx, thread, ns)
	}
	return openNS(tx, thread, ns, true)
}

// nsIn is openNS in thread's bucket tb.
func nsIn(tb *bolt.Bucket, thread, ns string, create bool) (*nsBuckets, error) {
	if layoutOf(tb.Tx()) >= orderedLayout {
		return orderedNS(tb, thread, ns, create)
	}
	nb := tb.Bucket(nsBucketName(ns))
	if nb == nil && !create {
		return nil, nil
	}
	if nb == nil {
		var err error
		if nb, err = tb.CreateBucket(nsBucketName(ns)); err != nil {
			return nil, err
		}
		for _, name := range nsBucketNames {
			if _, err := nb.CreateBucket(name); err != nil {
				return nil, err
			}
		}
	}
	cps, blobs, writes, kids := nb.Bucket(bucketCheckpoints), nb.Bucket(bucketBlobs), nb.Bucket(bucketWrites), nb.Bucket(bucketChildren)
	if cps == nil || blobs == nil || writes == nil || kids == nil {
		return nil, corruptf("%s: buckets missing", ThreadPlace(thread, ns))
	}
	// Keys mostly arrive in ascending order (ids are time-ordered, versions
	// grow), so pages split at bbolt's default 50% would stay half empty.
	for _, bk := range []*bolt.Bucket{cps, blobs, writes, kids} {
		bk.FillPercent = fillPercent
	}
	return newNSBuckets([4]*bolt.Bucket{cps, blobs, writes, kids}, thread, ns, sealedTx(tb.Tx()), false), nil
}

// newNSBuckets returns the records of a namespace whose checkpoint
// records, values, writes and child edges are in bks (one bucket four
// times in the ordered layout).
func newNSBuckets(bks [4]*bolt.Bucket, thread, ns string, sealed, ordered bool) *nsBuckets {
	// One allocation for the four: a commit round opens a namespace per
	// thread it writes.
	all := &struct {
		b    nsBuckets
		recs [4]records
		// Room for each kind's ordered lookup key, so that a round's
		// first few keys need no allocation of their own.
		scratch [4][96]byte
	}{}
	for i, bk := range bks {
		all.recs[i] = newRecords(bk, [4]byte{kindCheckpoint, kindBlob, kindWrite, kindChild}[i], thread, ns, sealed)
		all.recs[i].ordered = ordered
		if ordered {
			all.recs[i].scratch = all.scratch[i][:0]
		}
	}
	all.b.cps, all.b.blobs, all.b.writes, all.b.kids = &all.recs[0], &all.recs[1], &all.recs[2], &all.recs[3]
	return &all.b
}

// threadKeys returns the records of a thread's own keys (fingerprint,
// updated) in its bucket tb.
func threadKeys(tb *bolt.Bucket, thread string) *records {
	r := newRecords(tb, kindThread, thread, "", sealedTx(tb.Tx()))
	return &r
}

// touch records when the store last wrote to a thread.
func (s *Store) touch(tx *bolt.Tx, thread string) error {
	if r := roundOf(tx); r != nil {
		r.touch(thread) // written once per round
		return nil
	}
	tb := tx.Bucket(bucketThreads).Bucket([]byte(thread))
	if tb == nil {
		return nil
	}
	return threadKeys(tb, thread).Put(keyUpdated, binary.BigEndian.AppendUint64(nil, uint64(s.now().UnixNano())))
}

// Put implements engine.Saver. cp must not be modified afterwards (the
// engine never does): with durability async or exit it is read when the
// write is committed.
//
// newVersions is not needed: the store compares cp's versions with its
// parent's and writes values only for channels whose version changed.
//
// Errors: ErrInvalidID, ErrInvalidCheckpoint (a value without a version, a
// value the engine's codec cannot encode), ErrReadOnly, ErrClosed,
// ErrAsyncWrite, or the commit's error.
func (s *Store) Put(ctx context.Context, cfg engine.Config, cp *engine.Checkpoint, md engine.Metadata, newVersions map[string]engine.Version) (engine.Config, error) {
	if err := s.writable(ctx); err != nil {
		return engine.Config{}, err
	}
	if err := CheckCheckpoint(cfg, cp, md); err != nil {
		return engine.Config{}, err
	}
	// A channel without a version was never updated: its value is the
	// channel's initial one (a reducer's default, an empty topic or
	// barrier), which the graph rebuilds on restore. Only versioned values
	// are stored.
	mdr, err := encodeMetadata(md)
	if err != nil {
		return engine.Config{}, fmt.Errorf("%w: metadata: %w", ErrInvalidCheckpoint, err)
	}
	pv, err := encodePut(cp, newVersions)
	if err != nil {
		return engine.Config{}, err
	}
	s.encoded.Add(int64(pv.size))
	pv.prep = s.preparePut(cfg, cp, mdr)
	// The queued write keeps the checkpoint without its values (pv holds
	// them), so a buffered write costs the bytes it counts.
	lite := &engine.Checkpoint{V: cp.V, ID: cp.ID, TS: cp.TS, ChannelVersions: cp.ChannelVersions, VersionsSeen: cp.VersionsSeen, UpdatedChannels: cp.UpdatedChannels}
	size := pv.size + mdr.size() + recordOverhead*(len(cp.ChannelVersions)+len(cp.VersionsSeen))
	err = s.w.submit(opCheckpoint, size, func(tx *bolt.Tx, rc *cache) error {
		if err := s.putTx(tx, rc, cfg.ThreadID, cfg.CheckpointNS, cfg.CheckpointID, lite, pv, mdr); err != nil {
			return err
		}
		return s.touch(tx, cfg.ThreadID)
	})
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cp.ID}, nil
}

// putResult is what a Put leaves in its round's cache.
type putResult struct {
	state  *cpState
	values map[string]cachedValue // the channels whose value was stored
}

// putTx stores a checkpoint record and the values that changed since its
// parent, and records what it learnt in rc.
func (s *Store) putTx(tx *bolt.Tx, rc *cache, thread, ns, parentID string, cp *engine.Checkpoint, pv *putValues, mdr mdRecord) error {
	res, err := s.putRecord(tx, caches{rc, s.cache}, thread, ns, parentID, cp, pv, mdr)
	s.encoded.Add(int64(pv.late))
	if err != nil {
		return err
	}
	rc.add(thread, ns, cp.ID, res)
	return nil
}

// putRecord stores cp (whose values pv holds) as a child of parentID.
func (s *Store) putRecord(tx *bolt.Tx, cc caches, thread, ns, parentID string, cp *engine.Checkpoint, pv *putValues, mdr mdRecord) (*putResult, error) {
	b, err := openNSWrite(tx, thread, ns)
	if err != nil {
		return nil, err
	}
	return putRecordIn(b, cc, thread, ns, parentID, cp, pv, mdr)
}

// putRecordIn is putRecord into the namespace's buckets b: a thread's, or
// a thread being imported (importstage.go).
func putRecordIn(b *nsBuckets, cc caches, thread, ns, parentID string, cp *engine.Checkpoint, pv *putValues, mdr mdRecord) (*putResult, error) {
	var err error
	b.thread, b.ns, b.cache = thread, ns, cc
	var key, kidKey []byte
	if p := pv.prep; p != nil {
		key, kidKey = p.key, p.kidKey
	} else {
		key = checkpointKey(cp.ID)
		if parentID != "" {
			kidKey = childKey(parentID, cp.ID)
		}
	}
	old, err := b.cps.Get(key)
	if err != nil {
		return nil, err
	}
	if old != nil {
		cc.dropState(thread, ns, cp.ID)
		if err := b.detach(cp.ID, old); err != nil {
			return nil, err
		}
	}
	parent, err := b.parentState(parentID)
	if err != nil {
		return nil, err
	}
	res := &putResult{values: map[string]cachedValue{}}
	var st *cpState
	var data []byte
	if p := pv.prep; p != nil && old == nil && parent == p.parent {
		// Worked out before the transaction from this parent: only the
		// values are left to store.
		if st, err = b.putPrepared(p, cp, pv, res); err != nil {
			return nil, err
		}
		if st == p.st {
			data = p.data
		}
	} else {
		if st, err = b.putChanged(cp, parent, pv, res); err != nil {
			return nil, err
		}
	}
	if data == nil {
		var depth int
		if data, depth, err = encodeRecordOf(cp, parentID, parent, st, mdr); err != nil {
			return nil, err
		}
		st.depth = depth
	}
	put := b.cps.Put
	if old == nil {
		put = b.cps.PutNew // looked up above
	}
	if err := put(key, data); err != nil {
		return nil, err
	}
	if parentID != "" {
		// No edge to cp.ID can be stored: the record was new, or detach
		// removed the edge from its old parent (a record without a parent
		// has none).
		if err := b.kids.PutNew(kidKey, []byte{}); err != nil {
			return nil, err
		}
	}
	res.state = st
	return res, nil
}

// parentState is the state of checkpoint parentID, which a Put's record
// and values are stored as a delta from: the cache's, else decoded from
// its stored record; nil when parentID is "" or not stored.
func (b *nsBuckets) parentState(parentID string) (*cpState, error) {
	if parentID == "" {
		return nil, nil
	}
	if st := b.cache.state(b.thread, b.ns, parentID); st != nil {
		return st, nil
	}
	data, err := b.cps.Get(checkpointKey(parentID))
	if err != nil || data == nil {
		return nil, err
	}
	rec, err := decodeRecord(data)
	if err != nil {
		return nil, err
	}
	return loadState(b.cps, parentID, rec, nil)
}

// putChanged stores the values of cp that changed since parent (nil: all
// of them) and returns cp's state.
func (b *nsBuckets) putChanged(cp *engine.Checkpoint, parent *cpState, pv *putValues, res *putResult) (*cpState, error) {
	st, changed := changedState(cp, parent)
	return b.storeChanged(cp, parent, st, changed, true, pv, res)
}

// putPrepared stores the values p found changed and returns cp's state:
// p's, unless a value went to another place than p assumed (a fork took
// its version with another value first); then a copy with the places
// the values went to, whose record the caller encodes anew.
func (b *nsBuckets) putPrepared(p *preparedPut, cp *engine.Checkpoint, pv *putValues, res *putResult) (*cpState, error) {
	return b.storeChanged(cp, p.parent, p.st, p.changed, false, pv, res)
}

// changedState is cp's state on top of parent's (nil: none): a channel at
// its parent's version shares the parent's stored value; the others,
// listed in changed, are placed at their version until storing them
// (storeChanged) says where they went.
func changedState(cp *engine.Checkpoint, parent *cpState) (st *cpState, changed []string) {
	st = &cpState{refs: make(map[string]chanRef, len(cp.ChannelVersions)), seen: make(map[string]map[string]int64, len(cp.VersionsSeen))}
	for ch, ver := range cp.ChannelVersions {
		if parent != nil {
			if ref, ok := parent.refs[ch]; ok && ref.Version == ver {
				st.refs[ch] = ref
				continue
			}
		}
		st.refs[ch] = chanRef{Version: ver}
		changed = append(changed, ch)
	}
	maps.Copy(st.seen, cp.VersionsSeen)
	return st, changed
}

// storeChanged stores the values of the changed channels (each after its
// parent's, for a list stored as appended parts) and returns st with the
// places they went to: st itself when the caller owns it, otherwise (a
// prepared state, whose encoded record assumed st's places) a copy made
// at the first place that differs.
func (b *nsBuckets) storeChanged(cp *engine.Checkpoint, parent, st *cpState, changed []string, owned bool, pv *putValues, res *putResult) (*cpState, error) {
	// The channels a superstep writes share one new version: one seek
	// finds it free for all of them, instead of a lookup each.
	var freeVer engine.Version
	free := false
	if len(changed) > 1 {
		v := cp.ChannelVersions[changed[0]]
		if has, known := b.blobs.HasVersion(v); known && !has {
			freeVer, free = v, true
		}
	}
	for _, ch := range changed {
		var prev *chanRef
		if parent != nil {
			if ref, ok := parent.refs[ch]; ok {
				prev = &ref
			}
		}
		ver := cp.ChannelVersions[ch]
		stored, err := b.putBlob(ch, ver, pv, prev, free && ver == freeVer)
		if err != nil {
			return nil, err
		}
		if stored.ref != st.refs[ch] {
			if !owned {
				st, owned = &cpState{refs: maps.Clone(st.refs), seen: st.seen}, true
			}
			st.refs[ch] = stored.ref
		}
		if stored.listLike() {
			res.values[ch] = stored
		}
	}
	return st, nil
}

// encodeRecordOf encodes cp's record, whose versions are st, as a delta of
// its parent's state when there is one and the chain of deltas is not at
// its bound, and returns it with its depth.
func encodeRecordOf(cp *engine.Checkpoint, parentID string, parent, st *cpState, mdr mdRecord) ([]byte, int, error) {
	rec := &cpRecord{V: cp.V, TS: cp.TS, Parent: parentID, Updated: cp.UpdatedChannels, Meta: mdr}
	if parent != nil && parent.depth+1 < fullEvery {
		rec.Delta, rec.Depth = true, parent.depth+1
		rec.setVersions(st, parent)
	} else {
		rec.setVersions(st, nil)
	}
	data, err := encodeRecord(rec)
	return data, rec.Depth, err
}

// preparedPut is the part of a Put worked out on the caller's goroutine
// before its write is queued, so that the single writer, which every
// thread's supersteps wait for under sync durability, only stores: the
// checkpoint's state and encoded record, from the parent's state in the
// store's cache. It holds if the transaction finds the same parent state
// (the same object: cached states are immutable), the checkpoint new, and
// each changed value stored at sequence 0 (putBlob); otherwise the
// transaction works the record out itself, as it would without one.
type preparedPut struct {
	parent  *cpState // nil: a checkpoint without a parent
	st      *cpState // depth set
	changed []string // the channels whose value is stored
	data    []byte   // the encoded record
	// key and kidKey are the record's and its parent's child edge's keys
	// (kidKey nil without a parent), whichever way the record goes.
	key, kidKey []byte
}

// preparePut works out cp's record ahead, or returns nil when the parent's
// state is not in the cache (a thread read back from the file, a fork
// from an old checkpoint, a parent still queued under async durability).
func (s *Store) preparePut(cfg engine.Config, cp *engine.Checkpoint, mdr mdRecord) *preparedPut {
	var parent *cpState
	if cfg.CheckpointID != "" {
		if parent = s.cache.state(cfg.ThreadID, cfg.CheckpointNS, cfg.CheckpointID); parent == nil {
			return nil
		}
	}
	p := &preparedPut{parent: parent, key: checkpointKey(cp.ID)}
	if cfg.CheckpointID != "" {
		p.kidKey = childKey(cfg.CheckpointID, cp.ID)
	}
	st, changed := changedState(cp, parent)
	p.changed = changed
	data, depth, err := encodeRecordOf(cp, cfg.CheckpointID, parent, st, mdr)
	if err != nil {
		return nil // the transaction reports it
	}
	st.depth = depth
	p.st, p.data = st, data
	return p
}

// detach prepares checkpoint id for being replaced: its children stored as
// deltas of it become full images (they must not change with it), and its
// edge from its old parent goes.
func (b *nsBuckets) detach(id string, oldData []byte) error {
	old, err := decodeRecord(oldData)
	if err != nil {
		return err
	}
	c := b.kids.Cursor()
	for k, _ := c.SeekPrefix(writePrefix(id)); k != nil; k, _ = c.Next() {
		_, child, err := parseChildKey(k)
		if err != nil {
			return corruptf("child index: %v", err)
		}
		cdata, err := b.cps.Get(checkpointKey(child))
		if err != nil {
			return err
		}
		if cdata == nil {
			continue
		}
		crec, err := decodeRecord(cdata)
		if err != nil {
			return err
		}
		if !crec.Delta {
			continue
		}
		st, err := loadState(b.cps, child, crec, nil)
		if err != nil {
			return err
		}
		crec.Delta, crec.Depth = false, 0
		crec.setVersions(st, nil)
		enc, err := encodeRecord(crec)
		if err != nil {
			return err
		}
		if err := b.cps.Put(checkpointKey(child), enc); err != nil {
			return err
		}
	}
	if err := c.Err(); err != nil {
		return err
	}
	if old.Parent != "" {
		return b.kids.Delete(childKey(old.Parent, id))
	}
	return nil
}

// PutWrites implements engine.Saver. Values are encoded before it returns,
// so writes may be reused by the caller. Under sync durability it returns
// once the writes are committed and synced, together with whatever other
// writes queued meanwhile (the task's siblings finishing at once): a
// task's result is on disk before the engine reports it.
//
// Errors: ErrInvalidID, ErrInvalidCheckpoint (a value the codec cannot
// encode), ErrReadOnly, ErrClosed, ErrAsyncWrite, or the commit's error.
func (s *Store) PutWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) error {
	_, err := s.putWrites(ctx, cfg, taskID, writes, false)
	return err
}

// DeferWrites implements engine.WriteDeferrer: under DurabilitySync the
// writes are queued without a commit of their own, and the checkpoint Put
// the engine makes next commits them in its round (one fsync for both);
// wait returns once they are on disk, committing them itself if no Put
// did. Other durabilities queue as PutWrites does.
func (s *Store) DeferWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write) (wait func() error, err error) {
	return s.putWrites(ctx, cfg, taskID, writes, true)
}

// putWrites is PutWrites, deferred or not (DeferWrites).
func (s *Store) putWrites(ctx context.Context, cfg engine.Config, taskID string, writes []engine.Write, deferred bool) (wait func() error, err error) {
	noWait := func() error { return nil }
	if err := s.writable(ctx); err != nil {
		return nil, err
	}
	if err := CheckWrites(cfg, taskID, writes); err != nil {
		return nil, err
	}
	if len(writes) == 0 {
		return noWait, nil
	}
	recs := make([][]byte, len(writes))
	for i, w := range writes {
		enc, err := engine.EncodeValue(w.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: write to %q: %w", ErrInvalidCheckpoint, w.Channel, err)
		}
		recs[i] = encodeWrite(w.Channel, enc)
	}
	channels := make([]string, len(writes))
	size := 0
	for i, w := range writes {
		channels[i] = w.Channel
		size += len(recs[i])
	}
	// A task's keys are known now, outside the single writer's
	// transaction.
	keys := make([][]byte, len(writes))
	for i, ch := range channels {
		keys[i] = writeKey(cfg.CheckpointID, taskID, int64(engine.WriteSlot(ch, i)))
	}
	s.encoded.Add(int64(size))
	store := func(tx *bolt.Tx, _ *cache) error {
		b, err := openNSWrite(tx, cfg.ThreadID, cfg.CheckpointNS)
		if err != nil {
			return err
		}
		// fresh: the task has no write stored yet (one seek for all its
		// slots instead of a lookup each), so each goes in as new.
		fresh := false
		// A special write's slot is fixed by its channel: a second one in
		// the batch replaces the first (Put), it is not new.
		var specialOnce slotSet
		if len(channels) > 1 {
			has, err := b.writes.HasPrefix(writePrefix(cfg.CheckpointID, taskID))
			if err != nil {
				return err
			}
			fresh = !has
		}
		for i, ch := range channels {
			slot := int64(engine.WriteSlot(ch, i))
			var err error
			if fresh && (slot >= 0 || !specialOnce.seen(slot)) {
				err = b.writes.PutNew(keys[i], recs[i])
			} else if slot >= 0 {
				_, err = b.writes.PutIfAbsent(keys[i], recs[i]) // regular writes: the first stored wins
			} else {
				err = b.writes.Put(keys[i], recs[i])
			}
			if err != nil {
				return err
			}
		}
		return s.touch(tx, cfg.ThreadID)
	}
	if deferred {
		return s.w.submitDeferred(opWrites, size, store)
	}
	return noWait, s.w.submit(opWrites, size, store)
}

// slotSet remembers the special (negative) write slots seen.
type slotSet uint64

// seen reports whether slot was seen before and marks it.
func (s *slotSet) seen(slot int64) bool {
	bit := slotSet(1) << (uint64(-slot) % 64)
	was := *s&bit != 0
	*s |= bit
	return was
}

// GetTuple implements engine.Saver. It returns nil, nil when the thread,
// namespace or checkpoint does not exist. Errors: ErrClosed, ErrCorrupt,
// ErrUnknownValueFormat, or the context's error.
func (s *Store) GetTuple(ctx context.Context, cfg engine.Config) (*engine.CheckpointTuple, error) {
	var out *engine.CheckpointTuple
	err := s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, cfg.ThreadID, cfg.CheckpointNS, false)
		if b == nil || err != nil {
			return err
		}
		id, data, err := b.find(cfg.CheckpointID)
		if data == nil || err != nil {
			return err
		}
		rec, err := decodeRecord(data)
		if err != nil {
			return err
		}
		out, err = b.tuple(cfg.ThreadID, cfg.CheckpointNS, id, rec, nil, nil)
		return err
	})
	return out, err
}

// find returns checkpoint id's record, or the latest one when id is "".
func (b *nsBuckets) find(id string) (string, []byte, error) {
	if id != "" {
		data, err := b.cps.Get(checkpointKey(id))
		return id, data, err
	}
	c := b.cps.Cursor()
	k, v := c.Last()
	if k == nil {
		return "", nil, c.Err()
	}
	id, err := parseCheckpointKey(k)
	if err != nil {
		return "", nil, corruptf("checkpoint key %x: %v", k, err)
	}
	return id, v, nil
}

// tuple rebuilds a checkpoint with its values, metadata and writes. keep,
// when not nil, says which channels' values to load; the others keep
// their versions and have no value.
func (b *nsBuckets) tuple(thread, ns, id string, rec *cpRecord, memo map[string]*cpState, keep func(channel string) bool) (*engine.CheckpointTuple, error) {
	st, err := loadState(b.cps, id, rec, memo)
	if err != nil {
		return nil, err
	}
	return b.tupleOf(thread, ns, id, rec, st, keep)
}

// tupleOf is tuple with the checkpoint's versions rebuilt already (st).
func (b *nsBuckets) tupleOf(thread, ns, id string, rec *cpRecord, st *cpState, keep func(channel string) bool) (*engine.CheckpointTuple, error) {
	cp := &engine.Checkpoint{
		V: rec.V, ID: id, TS: rec.TS,
		ChannelValues:   make(map[string]any, len(st.refs)),
		ChannelVersions: make(map[string]engine.Version, len(st.refs)),
		VersionsSeen:    make(map[string]map[string]engine.Version, len(st.seen)),
		UpdatedChannels: rec.Updated,
	}
	for ch, ref := range st.refs {
		cp.ChannelVersions[ch] = ref.Version
		if keep != nil && !keep(ch) {
			continue
		}
		blob, err := readBlob(b.blobs, ch, ref)
		if err != nil {
			return nil, err
		}
		if !blob.found {
			return nil, corruptf("checkpoint %q: value of %q at version %d is missing", id, ch, ref.Version)
		}
		if blob.has {
			v, err := engine.DecodeValue(blob.enc)
			if err != nil {
				return nil, corruptf("checkpoint %q: value of %q: %v", id, ch, err)
			}
			cp.ChannelValues[ch] = v
		}
	}
	for n, m := range st.seen {
		// States may be shared through the memo; the caller owns cp.
		seen := make(map[string]engine.Version, len(m))
		for k, v := range m {
			seen[k] = v
		}
		if m == nil {
			seen = nil
		}
		cp.VersionsSeen[n] = seen
	}
	md, err := decodeMetadata(rec.Meta)
	if err != nil {
		return nil, err
	}
	writes, err := b.pendingWrites(id, keep)
	if err != nil {
		return nil, err
	}
	return &engine.CheckpointTuple{
		Config:        engine.Config{ThreadID: thread, CheckpointNS: ns, CheckpointID: id},
		Checkpoint:    cp,
		Metadata:      md,
		ParentID:      rec.Parent,
		PendingWrites: writes,
	}, nil
}

// pendingWrites returns a checkpoint's writes in key order: by task, then
// special slots (negative) before regular ones by index. keep, when not
// nil, says which writes' values to decode (outlineWrite); the others
// have a nil Value.
func (b *nsBuckets) pendingWrites(id string, keep func(channel string) bool) ([]engine.PendingWrite, error) {
	var out []engine.PendingWrite
	err := b.eachWrite(id, func(task string, _ int64, v []byte) error {
		ch, enc, err := splitWrite(v)
		if err != nil {
			return err
		}
		w := engine.PendingWrite{TaskID: task, Channel: ch}
		if keep == nil || outlineWrite(task, ch, keep) {
			if w.Value, err = engine.DecodeValue(enc); err != nil {
				return corruptf("write record for %q: %v", ch, err)
			}
		}
		out = append(out, w)
		return nil
	})
	return out, err
}

// outlineWrite says whether an outline decodes a pending write's value:
// a control write (interrupts, answers, errors: what a checkpoint's tasks
// show), a write of the null task (an input Command, which planning
// applies), or a write to a channel keep accepts. A task's output to a
// state key is the bulk of a thread's writes and is left undecoded.
func outlineWrite(task, channel string, keep func(string) bool) bool {
	return engine.IsControlWrite(channel) || task == engine.NullTaskID || keep(channel)
}

// eachWrite calls fn for every write record of checkpoint id, in key order.
// v is valid only during the call.
func (b *nsBuckets) eachWrite(id string, fn func(task string, slot int64, v []byte) error) error {
	prefix := writePrefix(id)
	c := b.writes.Cursor()
	// A task's writes are adjacent: its id is decoded once (rawTask is
	// the encoded id of task, valid for the transaction).
	var rawTask []byte
	var task string
	for k, v := c.SeekPrefix(prefix); k != nil; k, v = c.Next() {
		rest := k[len(prefix):] // the task id, then the slot
		if rawTask == nil || len(rest) < 8 || !bytes.Equal(rest[:len(rest)-8], rawTask) {
			t, r, err := readString(rest)
			if err != nil || len(r) != 8 {
				return corruptf("write key %x: %v", k, errBadKey)
			}
			rawTask, task = rest[:len(rest)-8], t
		}
		slot, _, _ := readInt(rest[len(rest)-8:])
		if err := fn(task, slot, v); err != nil {
			return err
		}
	}
	return c.Err()
}

// List implements engine.Saver: newest first (by id, then namespace), with
// Before, Limit and Filter applied. Errors: ErrClosed, ErrCorrupt,
// ErrUnknownValueFormat, or the context's error.
func (s *Store) List(ctx context.Context, cfg engine.Config, opt engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	return s.list(ctx, cfg, opt, nil)
}

// Outline is List without the channel values, except those of the
// channels keep accepts: each tuple has its metadata, parent, pending
// writes and every channel version. A pending write has its value only
// when it is a control write (engine.IsControlWrite), the null task's,
// or to a channel keep accepts; the others have a nil Value, so a thread's history (and the tasks
// each checkpoint plans, which need versions and the small internal
// channels: triggers, joins, the tasks channel)
// costs time linear in its checkpoints and writes, not in the size of its
// values times their number. A nil keep loads no value. Errors are List's.
func (s *Store) Outline(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(channel string) bool) ([]*engine.CheckpointTuple, error) {
	if keep == nil {
		keep = func(string) bool { return false }
	}
	return s.list(ctx, cfg, opt, keep)
}

// Heads implements engine.HeadLister: the id, parent, step and source of
// every checkpoint of cfg's thread and namespace, newest first, read from
// the checkpoint records alone (decodeHead) — no versions rebuilt, no
// value or pending write read. Errors: ErrClosed, ErrCorrupt,
// ErrUnknownFormat, or the context's error.
func (s *Store) Heads(ctx context.Context, cfg engine.Config) ([]engine.CheckpointHead, error) {
	var out []engine.CheckpointHead
	err := s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, cfg.ThreadID, cfg.CheckpointNS, false)
		if b == nil || err != nil || cfg.ThreadID == "" {
			return err
		}
		names := map[string]string{}
		c := b.cps.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			if len(out)%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			id, err := parseCheckpointKey(k)
			if err != nil {
				return corruptf("checkpoint key %x: %v", k, err)
			}
			h, err := decodeHead(v, names)
			if err != nil {
				return err
			}
			h.ID = id
			out = append(out, h)
		}
		return c.Err() // a record that fails its seal ends the cursor
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CheckpointIDs returns the ids of cfg's thread and namespace that start
// with prefix, in order, at most limit of them (limit <= 0: all). It reads
// keys only, so resolving an id prefix does not depend on the length of
// the thread. Errors: ErrClosed, ErrCorrupt, or the context's error.
func (s *Store) CheckpointIDs(ctx context.Context, cfg engine.Config, prefix string, limit int) ([]string, error) {
	var out []string
	err := s.view(ctx, func(tx *bolt.Tx) error {
		b, err := openNS(tx, cfg.ThreadID, cfg.CheckpointNS, false)
		if b == nil || err != nil || cfg.ThreadID == "" {
			return err
		}
		c := b.cps.Cursor()
		for k, _ := c.Seek(checkpointKey(prefix)); k != nil; k, _ = c.Next() {
			id, err := parseCheckpointKey(k)
			if err != nil {
				return corruptf("checkpoint key %x: %v", k, err)
			}
			if !strings.HasPrefix(id, prefix) || (limit > 0 && len(out) >= limit) {
				break
			}
			out = append(out, id)
		}
		return c.Err()
	})
	return out, err
}

func (s *Store) list(ctx context.Context, cfg engine.Config, opt engine.ListOptions, keep func(string) bool) ([]*engine.CheckpointTuple, error) {
	var out []*engine.CheckpointTuple
	err := s.view(ctx, func(tx *bolt.Tx) error {
		tb := tx.Bucket(bucketThreads).Bucket([]byte(cfg.ThreadID))
		if cfg.ThreadID == "" || tb == nil {
			return nil
		}
		var cands []listCand
		names := map[string]string{} // shared by the records read
		collect := func(ns string) error {
			b, err := nsIn(tb, cfg.ThreadID, ns, false)
			if b == nil || err != nil {
				return err
			}
			found, err := collectListed(ctx, ns, b, cfg, opt, names)
			cands = append(cands, found...)
			return err
		}
		if opt.AllNamespaces {
			if err := eachNamespace(tb, collect); err != nil {
				return err
			}
		} else if err := collect(cfg.CheckpointNS); err != nil {
			return err
		}
		slices.SortStableFunc(cands, func(a, b listCand) int {
			if c := strings.Compare(b.id, a.id); c != 0 {
				return c
			}
			return strings.Compare(a.ns, b.ns)
		})
		if opt.Limit > 0 && len(cands) > opt.Limit {
			cands = cands[:opt.Limit]
		}
		// Rebuild oldest first so each delta finds its base in the memo.
		out = make([]*engine.CheckpointTuple, len(cands))
		memos := map[string]map[string]*cpState{}
		for i := len(cands) - 1; i >= 0; i-- {
			c := cands[i]
			memo := memos[c.ns]
			if memo == nil {
				memo = map[string]*cpState{}
				memos[c.ns] = memo
			}
			tup, err := c.b.tuple(cfg.ThreadID, c.ns, c.id, c.rec, memo, keep)
			if err != nil {
				return err
			}
			out[i] = tup
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// listCand is a checkpoint record List chose, before its tuple is built.
type listCand struct {
	ns  string
	b   *nsBuckets
	id  string
	rec *cpRecord
}

// collectListed reads, newest first, the records of namespace ns that List
// with cfg and opt returns: the one cfg names, or those before opt.Before,
// matching opt.Filter, at most opt.Limit. names is shared by the records
// read (decodeRecordNames).
func collectListed(ctx context.Context, ns string, b *nsBuckets, cfg engine.Config, opt engine.ListOptions, names map[string]string) ([]listCand, error) {
	if cfg.CheckpointID != "" && opt.Before != "" && cfg.CheckpointID >= opt.Before {
		return nil, nil
	}
	c := b.cps.Cursor()
	k, v, err := listStart(c, b, cfg, opt)
	if err != nil {
		return nil, err
	}
	var out []listCand
	for ; k != nil && v != nil; k, v = c.Prev() {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		id, err := parseCheckpointKey(k)
		if err != nil {
			return out, corruptf("checkpoint key %x: %v", k, err)
		}
		rec, err := decodeRecordNames(v, names)
		if err != nil {
			return out, err
		}
		if len(opt.Filter) > 0 {
			md, err := decodeMetadata(rec.Meta)
			if err != nil {
				return out, err
			}
			if !engine.MatchesFilter(md, opt.Filter) {
				continue
			}
		}
		out = append(out, listCand{ns, b, id, rec})
		if cfg.CheckpointID != "" || (opt.Limit > 0 && len(out) >= opt.Limit) {
			break
		}
	}
	return out, c.Err()
}

// listStart places c on the newest record List can return: the one cfg
// names, the last before opt.Before, or the last.
func listStart(c *recordCursor, b *nsBuckets, cfg engine.Config, opt engine.ListOptions) (k, v []byte, err error) {
	switch {
	case cfg.CheckpointID != "":
		k = checkpointKey(cfg.CheckpointID)
		v, err = b.cps.Get(k)
		return k, v, err
	case opt.Before != "":
		if k, _ = c.Seek(checkpointKey(opt.Before)); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		return k, v, nil
	}
	k, v = c.Last()
	return k, v, nil
}

// DeleteThread implements engine.Saver: it removes every namespace,
// checkpoint, value and write of the thread, and its fingerprint.
// Deleting a missing thread is not an error. Errors: ErrReadOnly,
// ErrClosed, ErrAsyncWrite, or the commit's error.
func (s *Store) DeleteThread(ctx context.Context, threadID string) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	if threadID == "" {
		return nil
	}
	return s.w.submit(opOther, 0, func(tx *bolt.Tx, rc *cache) error {
		caches{rc, s.cache}.dropThread(threadID)
		return dropThread(tx, threadID)
	})
}
