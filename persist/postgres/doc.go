// Package postgres stores superstep's checkpoints in a PostgreSQL database,
// for services that run the engine on many machines against one store.
// It is the only package that links pgx: programs that keep to the bbolt
// store (package persist) do not.
//
// Store implements engine.Saver (and passes enginetest.SaverSuite in all
// three durabilities) and the browsing methods of persist.Store the command
// line uses: Threads, Fingerprint, SetFingerprint, Check, and Export and
// Import in persist's export format, so a thread moves between the two
// stores unchanged (superstep pull and push).
//
// # Layout
//
// Tables live in one schema (DefaultSchema, or the URL's "schema"
// parameter), created and migrated on first use; migrations are numbered,
// applied in one transaction under an advisory lock, and a database that a
// newer superstep migrated is refused (ErrNewerSchema). Identifiers are
// bytea: thread ids need not be UTF-8 and may hold NUL bytes.
//
//   - threads: one row per thread: its graph fingerprint, and the sequence
//     number and last writer behind the many-writers check.
//   - checkpoints: one row per (thread, namespace, id) with its parent and
//     a record holding metadata, timestamp, updated channels, and channel
//     versions and versions_seen as a delta from the parent (a full image
//     every 64 records; base names it, so a read fetches the chain with one
//     range scan).
//   - blobs: channel values keyed (thread, namespace, channel, version,
//     hash of the stored bytes): written once and shared by every
//     checkpoint with that version; the hash keeps apart the values two
//     branches of a fork gave one version. A list that only grew since the
//     parent's value is stored as the added elements, with a full copy
//     every 256 versions; root names that copy, so one range scan reads a
//     list's whole chain.
//   - writes: pending writes keyed (thread, namespace, checkpoint, task,
//     slot); special writes have LangGraph's negative slots and sort
//     first.
//
// # Writes, durability and many writers
//
// A thread's queued writes go to the server in one pipelined batch, run
// as one transaction: the claim below, then one statement per checkpoint
// holding its values, its row and the task writes queued just before it.
// Different threads commit on different connections
// at once and share the server's WAL flushes. DurabilitySync returns after
// the commit, for a task's writes (PutWrites) as for a checkpoint, so a
// task's result is stored before the engine reports it; writes of the
// thread queued while a commit runs share the next one, and a superstep of
// one task costs two commits. DurabilityAsync commits in the background;
// DurabilityExit at Flush, Close or a read.
//
// Every commit first claims the thread's row (the claim function): it
// locks the row for the transaction and advances the thread's sequence.
// A store remembers the sequence it last read or wrote for each thread;
// when another store advanced the thread since, the commit is refused with
// a *ConflictError naming the thread and the other writer (host, pid,
// store). So two processes that advance one thread at once never both
// succeed, while processes writing different threads never wait on each
// other.
package postgres
