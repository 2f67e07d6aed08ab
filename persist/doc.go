// Package persist stores superstep's checkpoints in one bbolt file.
//
// It owns the on-disk layout and nothing else: Store implements
// engine.Saver (and passes enginetest.SaverSuite), and adds what the
// debugger needs to browse a file — Threads, Tree, Children, PendingWrites,
// graph fingerprints, Check — plus Export and Import of a thread as
// self-contained JSON, each checkpoint a delta from its parent
// (docs/export-format.md; version 1 exports still import), which
// ExportHandler serves over HTTP from a running service.
//
// Start with Open and hand the Store to engine.WithSaver: every run of the
// graph then checkpoints into the file (example: Open). Close it when done;
// OpenShared is for a long session that must leave the file readable to
// other processes, as the debugger's.
//
// # Layout
//
// Top-level buckets, created once by Open: "meta" (the app name and the
// layout version, read by every open and written only when the file is
// created; a foreign file, or one of a newer layout, is refused with an
// error naming the file and both versions) and "threads", with one bucket
// per thread. A thread's bucket holds its fingerprint (the graph that
// wrote it: SetFingerprint, or the engine's record of a run that started
// the thread, engine.GraphRecorder, committed with its first checkpoint),
// the time it was last written, and its checkpoint namespaces' records,
// of four kinds (a thread being imported is built the same way in a
// third bucket, "importing", and moved into "threads" whole when it is
// complete: importstage.go):
//
//   - checkpoint records keyed by id. A record keeps metadata, parent,
//     timestamp and updated channels, and its channel versions and
//     versions_seen as a delta from its parent, with a full image every 64
//     records, so a record does not grow with the channels and nodes a
//     thread has touched.
//   - channel values keyed (channel, version, seq). A version's value is
//     written once and shared by every checkpoint that has that version. A
//     list that only grew since the parent's version (a message history) is
//     stored as the added elements, and whole again once the elements
//     added since its last full copy outweigh that copy: a superstep
//     costs what it appended, and a read joins at most twice the value.
//     Which elements a superstep appended is the engine's to say
//     (engine.Checkpoint.AppendedTail): only they are encoded. Values the
//     engine did not account for (imports, other reducers' lists) are
//     compared with the previous version's encoding.
//   - pending writes keyed (checkpoint, task, slot); special writes have
//     negative slots and sort first, as LangGraph's WRITES_IDX_MAP orders
//     them.
//   - child edges keyed (parent, child): the index behind Children and the
//     fork tree.
//
// Where they are stored is the layout version's:
//
//   - Layout 3, new files (ordered.go): a namespace's records share one
//     bucket, the thread's own bucket for the root namespace and a bucket
//     'n' + namespace for the others. A checkpoint record, a write or an
//     edge is stored under 'r' + its first key element (the checkpoint
//     id; the parent's for an edge) + its kind byte ('c', 'k', 'w') + the
//     rest, and a value under 'b' + version + channel + seq. Ids are
//     time-ordered and a superstep's versions exceed all before it, so
//     one superstep's records sort together and last: it rewrites about
//     3.4 pages where layout 2 rewrote 6 (BenchmarkLayoutPages), and the
//     pages of bbolt's one write transaction at a time are what bounds
//     how many threads share a commit.
//   - Layouts 1 and 2: a namespace's bucket 'n' + namespace holds four
//     buckets, cp, blob, w and kids, one per kind, keyed by the kind's
//     keys as they are.
//
// Files keep the layout they were made with: Open never rewrites a file,
// so a read-only open works on any of them and a build that knows only
// layout 2 still opens a layout 2 file. Export and Import into a new
// file move a thread to the current layout.
//
// Keys are tuples encoded so that byte order is tuple order (keys.go).
// In every layout the kind's own key is what a record's seal covers (below)
// and what the code above the records works with: sealed.go maps it to
// where the layout stores it. Every stored value starts with a format
// byte; an unknown one is reported as ErrUnknownValueFormat rather than
// misread.
//
// # Integrity
//
// From layout 2 on, every stored value ends with a seal, a CRC-32C of its
// kind, thread, namespace, key and value (sealed.go): every read checks
// it, and a record that fails is a DamagedRecordError naming the thread
// and record, never a misread value. A damaged key can also stop being
// any record's key (a separator changed): the reads that walk records
// refuse such a key where they meet it, and one just past the records a
// walk returns, as Check does, rather than step over the record under it
// (sealed.go, rawCursor). The meta bucket keeps the file's
// digest, the count and XOR of every seal, so that intact records rolled
// back to an older copy of their page, or lost with it, are found too.
// Check verifies the pages (pages.go), both meta pages (a damaged one
// makes bbolt silently open the commit before), the bucket layout, every
// seal, the digest, and that everything decodes. Layout 1 files, made
// before seals, are read and written without them so older builds still
// open them; Sealed reports which a file is.
//
// # Writes and durability
//
// All writes go through one queue and are committed in order. With
// DurabilitySync every write — Put (a checkpoint), PutWrites (a task's
// pending writes) — returns after its commit and fsync; calls that arrive
// while a commit runs share the next one (group commit), so the tasks of a
// wide superstep that finish together pay a few fsyncs, not one each, and
// many threads share their commits. No caller commits others' writes for
// longer than its own round: a leader hands the next round to a caller
// waiting in the queue, so a busy store holds no thread back. A Put
// works out its checkpoint record on the caller's goroutine before it
// queues, so the single write transaction only stores. A
// superstep is therefore on disk before the next one starts, as
// LangGraph's sync durability promises (main.py:2987 waits for the
// checkpoint), and a task's writes are on disk before the engine reports
// the task finished. The one window left is the commit itself: a crash
// after a node returns and before the commit holding its writes has
// synced (at most the commit in progress plus that one) runs the task
// again on resume. The last task of a superstep to finish, when Update
// follows at once (Invoke, not a debugger holding the run between
// phases), hands its writes over deferred (engine.WriteDeferrer): they are
// committed in the checkpoint's own round and the engine reports the task
// after that commit, so a superstep of one task still costs one fsync.
// (LangGraph hands a task's
// put_writes to a background executor and does not wait for it,
// pregel/_loop.py:481-493; waiting here is the store's own promise, not
// an engine rule: the engine calls PutWrites as LangGraph does.)
// DurabilityAsync commits in the background; DurabilityExit commits at
// Flush or Close. Reads first commit what is queued, so they always see
// every write made before them. Buffered writes hold their values
// encoded, and their bytes are bounded (Options.MaxBuffered, 64 MiB by
// default; and 16,384 writes): a write past the bound commits everything
// queued and waits for it, as under sync.
//
// No transaction outlives a call, and nothing returned aliases bbolt's
// memory map.
//
// # Who may write
//
// One process at a time may write. A writable Open takes the database's
// writer lock, a lock file beside it (LockPath) that records the holder's
// pid and command line so that a refused process can name it (Holder,
// OpenError.Holder), and then bbolt's own file lock, which it keeps until
// Close: readers (ReadOnly) wait for it. OpenShared, for a long session
// such as the debugger's, keeps the writer lock for the session but opens
// the file for each call, so readers in other processes work beside it.
package persist
