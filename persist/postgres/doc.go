// Package postgres stores superstep's checkpoints in a PostgreSQL database,
// for services that run the engine on many machines against one store.
// It is the only package that links pgx: programs that keep to the bbolt
// store (package persist) do not.
//
// Store implements engine.Saver (and passes enginetest.SaverSuite in all
// three durabilities) and the browsing methods of persist.Store the command
// line uses: Threads, Fingerprint, SetFingerprint, Check, and Export and
// Import in persist's export format, so a thread moves between the two
// stores unchanged (superstep pull and push). As engine.GraphRecorder it
// records the graph of each thread a run starts on it, so a service's
// thread names its graph when it is pulled.
//
// Start with Open, given a postgres:// URL, and hand the Store to
// engine.WithSaver (example: Open); IsURL tells a URL from a file name.
// persist.ExportHandler serves its threads to superstep pull as it
// serves a bbolt file's. docs/postgres-service.md walks a service on
// many machines through it, errors included, and examples/pgservice is
// one.
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
//     range scan). Parents are not indexed: replacing a checkpoint finds
//     its children among the later ids (ids are time-ordered), and the
//     rare child whose id sorts before its parent's through a partial
//     index.
//   - blobs: channel values keyed (thread, namespace, channel, version,
//     hash of the stored bytes): written once and shared by every
//     checkpoint with that version; the hash keeps apart the values two
//     branches of a fork gave one version. A list that only grew since the
//     parent's value is stored as the added elements, with a full copy
//     every 256 versions; root names that copy, so one range scan reads a
//     list's whole chain. The small values a checkpoint stores at one
//     version (a superstep gives every channel it updates the same one)
//     share one row, a pack, under the empty channel name: one row per
//     superstep instead of one per channel (pack.go).
//   - writes: pending writes keyed (thread, namespace, checkpoint, task,
//     slot); special writes have LangGraph's negative slots and sort
//     first. The regular writes of a superstep's last task, which the
//     engine commits with the checkpoint that follows, are instead held
//     in that checkpoint's pack (schema 5: no row, no index entry of
//     their own), found from their checkpoint among the packs of the two
//     versions above its highest; only the store that put the checkpoint,
//     for a task's first writes there, stores them so, and a slot found
//     both ways reads as the pack's, the first stored.
//
// # Writes, durability and many writers
//
// Writes wait in their thread's queue until a commit takes them.
// Threads that want a commit at the same moment share it (group commit):
// one statement claims all of them and stores all their rows, in one
// transaction, one round trip and one WAL flush, so under many threads a
// superstep costs the server its rows rather than a transaction. A store
// sends Options.ConcurrentCommits groups at once (2 unless set), a group
// that would join others under way once it holds its share of the
// threads committing at once; a thread is in one group at a time, so its
// commits stay in order, and a lone thread's commit leaves at once.
// DurabilitySync returns after the commit, for a task's writes
// (PutWrites) as for a checkpoint, so a task's result is stored before the
// engine reports it; the engine defers the last task's writes of a
// superstep to its checkpoint's commit (engine.WriteDeferrer).
// DurabilityAsync commits in the background; DurabilityExit at Flush,
// Close or a read. Their buffered writes are bounded in bytes
// (Options.MaxBuffered): a write past the bound commits them all and
// waits, as under sync.
//
// Every commit first claims the thread's row: it locks the row for the
// transaction and advances the thread's sequence.
// A store remembers the sequence it last read or wrote for each thread;
// when another store advanced the thread since, the commit is refused with
// a *ConflictError naming the thread and the other writer (host, pid,
// store); when another process deleted the thread since (delete, or a
// push or import that replaced it), the ConflictError says so (Deleted)
// and nothing is stored: a thread's first sequence is the time it was
// made, so one made again is never taken for the one a store read. So
// two processes that advance one thread at once never both succeed,
// while processes writing different threads never wait on each other. In a group, a thread whose claim is refused is stored nothing
// and gets the error alone: the group's statement fails whole when a
// thread's check does not pass, storing nothing, and each thread of the
// group is then committed in its own transaction, where the refused
// thread's claim (the claim function) names the other writer. A group
// creates the rows of new threads. A checkpoint that may replace a
// stored one (the first of a namespace the store knows nothing of yet, as
// a thread's first) is stored by the group when it is new; when it is
// stored, the group is sent again without it, and its own transaction
// replaces it, rewriting the children stored as deltas of it. Null-task
// writes also take their own transaction: they read what is stored.
//
// # Lost connections
//
// A store may stay open for hours while its server restarts, fails over or
// drops off the network. A request that cannot connect (nothing listens,
// the server is shutting down or starting up, no answer) waits for the
// server to come back, up to Options.Reconnect (DefaultReconnect, 30s),
// and is then sent: it never reached the server, so a run whose server
// restarts while a node works goes on as if nothing happened, and its
// node does not run again. A connection that breaks under a request (the
// server ended the session, or the connection closed or reset) drops the
// pool's other connections, which most likely broke with it. A read then
// runs once more on a fresh connection. A group's statement that broke is
// sent again as each thread's own transaction, as after any failure of
// it. What still fails is ErrConnectionLost at the store's address, saying
// what happened (and, for a write sent before the break, that it may or
// may not be stored), or ErrUnreachable when no server answered within
// Reconnect.
//
// A server that stops answering with its connections open (frozen by
// SIGSTOP, or cut off by a route that drops packets without a reset) gives
// a commit sent to it no answer, and TCP gives up only after many minutes.
// A write waits for its commit however long it takes while its caller
// wants it; once the caller's context ends (a run cancelled by Ctrl-C, a
// service shutting down; for a task's writes, which the engine saves with
// a context that does not end, its run's: engine.RunContext), and in
// Flush and Close, the wait goes on only while the
// server answers a new connection, and ends once one is left unanswered
// for Options.ConnectTimeout (unanswered.go). The write then fails with a
// *CommitUnknownError (ErrCommitUnknown) naming the thread and the
// checkpoints and tasks' writes in flight: they may or may not be stored,
// never reported stored when no answer came, nor lost when one might.
// The commit goes on in the background and is not sent again: once the
// server answers, a read of the thread waits for it and shows whether it
// was stored. Close after such a write does not wait a second time. What
// a save sends before its commit (the parent checkpoint an
// engine.DurabilityExit run's one checkpoint is stored against, when another
// store wrote it; the graph of a new thread) is bounded alike once the
// run's context ended, and then fails with ErrUnreachable saying what was
// not saved. A server that is down (connections refused) is still waited
// for up to Reconnect, as above.
package postgres
