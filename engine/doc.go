// Package engine is superstep's Pregel runtime: a faithful Go reimplementation
// of LangGraph's execution model for agent graphs.
//
// It owns the StateGraph builder, the compiled graph (channels, nodes with
// triggers, reads and writers), the pure superstep algorithm, the loop that
// drives it phase by phase, checkpoints and the Saver contract, and the
// in-memory reference saver. It imports the standard library only: storage,
// terminals and expression languages live in other packages.
//
// The sections below follow a graph's life; each names the example that
// shows it (go doc -all does not print examples: read example_test.go, or
// the package's page in a documentation server).
//
// # Build a graph
//
// NewStateGraph takes the state keys (below); AddNode adds a NodeFunc, which
// gets the state as a map[string]any and returns the keys it changes as an
// Update (Pairs), a map, a Command or nil. AddEdge adds a fixed edge (from
// Start, to End), AddConditionalEdges a route that picks the next nodes after
// its node ran (example: StateGraph.AddConditionalEdges), AddJoin a node that
// waits until several others have all run. Compile checks the
// builder and returns an immutable *Graph, safe for concurrent use, or
// CompileErrors naming every problem: those of each declaration first (a
// name that is no node, say), then a missing entry and the nodes nothing
// reaches, leaving out what follows only from an earlier one.
//
// # Run it
//
// Invoke runs a thread (OnThread; a graph with a saver refuses a run
// without one, ErrNoThread) until it finishes, is
// interrupted, or fails, and returns a Result: the status and the final state
// (example: Graph.Invoke). A run is a series of supersteps: the nodes
// triggered by the last superstep's writes run concurrently, and their writes
// become visible together when all have finished. WithRecursionLimit bounds
// the supersteps of a run (DefaultRecursionLimit). A node or a route may
// return Sends to start one task of a node per Send, each with its own
// argument as its input (fan-out; example: Send), and a node may return a
// Command whose Goto names its next nodes itself (WithEnds declares them; example:
// Command).
//
// # State and channels
//
// Each state key is a channel, and its channel decides how the writes of one
// superstep combine: LastValueKey takes one write (two are an
// *InvalidUpdateError), AppendKey concatenates lists, MessagesKey merges chat
// messages by id (LangGraph's add_messages), and ReducerKey folds every write
// with your Reducer (example: ReducerKey).
//
// Values are JSON's: nil, bool, float64, string, []any and map[string]any
// (Normalize turns Go numbers into float64; a whole number beyond ±2^53
// stays exact as a json.Number, see Number). Other Go values (a struct, a
// []int, a time.Time) go through a run as they are, and a saver that
// encodes (persist, persist/postgres) gives them back as their JSON:
// write JSON's values, or use package typed, whose codec does that for
// Go types. The lists and maps inside the values the engine hands out
// (Result.Values, a StateSnapshot's, an Event's) are shared with the
// run's channels and with the checkpoints a MemorySaver keeps: read them,
// and change a copy. A node must not modify the
// state map it is given: the tasks of a superstep share it. The map is
// valid until the node returns (the engine changes it in place for later
// supersteps, rather than copying a wide state each time): to keep it, keep
// a copy (see NodeFunc). Code that turns that map into something costly
// to build asks StateChanges which keys changed since it last read, and
// reads them by their position in StateKeys (a graph compiled
// WithStateByKey; StateByKey, and Result.ValuesByKey for a run's result)
// rather than by name, as package typed does to decode a struct state
// incrementally.
//
// # Checkpoints and savers
//
// Compiled WithSaver, a graph writes a Checkpoint of its thread after every
// superstep, and each task's writes when the task finishes: a run that
// failed or was killed continues from its last checkpoint (Invoke with nil
// input on the same thread) without running again the tasks that had
// finished. GetState reads a thread's state at its latest
// checkpoint or any other, History lists them all (example: Graph.History).
// NewMemorySaver keeps checkpoints in memory; package persist stores them in
// a bbolt file and persist/postgres in PostgreSQL. All three implement the Saver
// interface, which a store of your own implements too (enginetest's
// SaverSuite checks it).
//
// A thread takes one run at a time: serialize the runs of a thread
// yourself (a service that serves a thread's requests concurrently takes
// a lock per thread id). Two runs started on one thread at once both go
// on from the checkpoint that was the thread's latest when each began,
// and each writes its own branch from there; the thread's latest
// checkpoint is then the newest one either wrote, and two resumes of one
// interrupt both run the interrupted node. LangGraph behaves the same.
// persist/postgres refuses the second of two processes that advance one
// thread at once (its ConflictError); two runs in one process share the
// store and are not refused.
//
// # Interrupts
//
// A node that calls Interrupt stops the run with a question: Invoke returns
// StatusInterrupted and the pending Interrupts, and saves them. Invoke with
// Command{Resume: answer} on the same thread runs that node again from its
// top, and this time Interrupt returns the answer (example: Interrupt).
// WithInterruptBefore and WithInterruptAfter (BreakBefore and BreakAfter for
// one run) stop every run before or after the named nodes instead.
// Interrupts need a Saver.
//
// # Time travel and forks
//
// Invoke with nil input and FromCheckpoint runs a thread again from one of
// its checkpoints (replay). UpdateState writes values as if a node had
// returned them, as a new checkpoint whose parent is the one it was applied
// to: applied to an old checkpoint, it forks the thread, and running from the
// fork leaves the original branch as it was (example: Graph.UpdateState).
// A replay reruns the checkpoint's tasks, and their subgraphs start from
// the state they had when that checkpoint was made, not from where a later
// run left them; only a run from the thread's latest checkpoint, when that
// one is not an update or a fork, resumes what it holds, as LangGraph does.
//
// An interrupt answered at a checkpoint keeps its answer there: a
// Command{Resume: …} run FromCheckpoint at it runs the task with the saved
// answer, not the new one (LangGraph reads a task's saved answer before the
// run's). To answer an old question differently, run on from its checkpoint
// with nil input, which asks it again on a new branch, and resume that
// (example: package typed's Graph.Resume, fork).
//
// # Streams
//
// Stream runs like Invoke and yields the run's Events as they happen: tasks
// starting and ending, each task's update, the state after each superstep,
// checkpoints (example: Graph.Stream). StreamModes yields LangGraph's stream
// modes instead (values, updates, messages, custom, tasks, checkpoints,
// debug), from subgraphs too with WithSubgraphs. A node adds its own events
// with Emit and StreamMessage.
//
// # The debugger hook
//
// Start begins a run and returns a Stepper, which advances it one phase at a
// time (Plan, Execute, Update) and shows everything the engine sees between
// phases as a StepView: tasks, channels and versions, versions_seen,
// interrupts (example: Graph.Start). WithHook gives any run — Invoke's
// included — a StepHook called at each phase boundary, which may block the
// run or stop it (example: WithHook). Package tui is the interactive
// debugger built on the Stepper: tui.Run opens it on your own compiled graph
// (example: the package's Debugger example).
//
// # More ways to write a graph
//
// The functional API is the other way to write a graph: NewEntrypoint
// compiles one function as a graph (its input in, its return value out,
// Previous for what the thread's last run returned), and Task, called from
// any running node, runs a function as a checkpointed task whose finished
// result a resumed node gets back instead of calling it again (example:
// NewEntrypoint).
//
// A compiled graph can be a node of another (AddSubgraph), and a node
// function may run one itself (InvokeSubgraph); declaring it on the node
// (UsesSubgraph) makes its state readable and updatable by namespace, as a
// subgraph node's is.
//
// This map API mirrors LangGraph's dictionaries; scenario files and graphs
// built at run time use it. Go programs usually want package typed instead
// (github.com/superstep/superstep/typed): a struct state, typed nodes and
// updates, compiled to the same Graph.
//
// # Reading the source
//
//   - channel*.go: one file per channel kind, each a small state machine
//     with update/consume/finish and checkpoint/restore.
//   - graph.go, compile.go, describe.go: the builder, its compiled and
//     immutable form, and its description for tools (Describe, Mermaid).
//   - algo.go: pure functions — plan the next tasks, apply a superstep's
//     writes, decide breakpoints. No clock, no goroutines, no storage.
//     idsnap.go snapshots versions, values and the nodes' versions_seen
//     by channel id, as deltas, so that a checkpoint costs what its
//     superstep changed; namedseen.go the few versions_seen kept by name.
//   - loop.go: one thread's run as a state machine over checkpoints
//     (LangGraph's _first, tick and after_tick); pending.go its saved writes.
//   - runner.go, task.go: run one superstep's tasks concurrently, with
//     retries, interrupts and the writers that turn a node's result into
//     writes, writer by writer. The first failure, or the caller's
//     cancellation, cancels the tasks still working through their context
//     and ends the superstep without waiting for them: each is settled as
//     failed by the loop and its goroutine drops what its node still does
//     (fanout.abandon, task.state); a finished task keeps everything
//     (LangGraph's runners). savederror.go: a task's error as saved, read
//     back for errors.Is and errors.As.
//     With MemorySaver the loop's goroutine saves each finished task's
//     writes as it arrives (fanout.commitOnLoop). Without a bound (and
//     without subgraph turns), a task's goroutine takes the next task not
//     yet taken when its own ends (fanout.startAll), so a fan-out's tasks
//     run on stacks already grown.
//     turns.go orders sibling subgraphs' checkpoints on request; Sleep and
//     WaitingOnTime tell that order when a node waits on time.
//   - saved.go: what a checkpoint's saved writes mean — per task its
//     output, interrupts, answers, error, whether it finished or waits —
//     and a checkpoint's status. The CLI, the debugger and the stores ask
//     here instead of reading reserved channels themselves.
//     pendingchannels.go: which channels those writes change, and what
//     each would hold with them applied (the debugger's "pending →").
//   - stepper.go: the caller-driven API (Plan, Execute, Update one phase at
//     a time) that the debugger uses; run.go's Invoke and Stream loop over it.
//   - functional.go: the functional API — entrypoints, Task calls as
//     PUSH tasks of the running superstep, Final and Previous.
//   - state.go: GetState, History and UpdateState (a subgraph's namespace
//     included; state_bulk.go several supersteps at once). declared.go
//     finds which declared subgraph (UsesSubgraph) ran in a namespace;
//     subgraphruns.go lists the namespaces a task's subgraph runs keep
//     their checkpoints in. recordedplan.go plans a stored checkpoint from
//     the topology a GraphRecord kept, with the same planning code on a
//     graph made of the recorded nodes and channels: a thread's status
//     where the compiled graph is not at hand.
//   - checkpoint.go, saver.go, memsaver.go: plain-data checkpoints, the
//     storage contract and its in-memory implementation.
//   - limits.go: the bounds on what runs write — the one value depth limit
//     (MaxValueDepth), the size of a write and of the state (Limits).
//   - value.go, reducers.go, ids.go: the value codec, the built-in reducers,
//     checkpoint and task ids.
//   - stateview.go: the state map lent to tasks (when the loop may change
//     it in place) and the log of which state keys each new generation of
//     it changed, behind StateChanges.
//   - statekeys.go: the state's values by key position, kept beside the
//     map for graphs compiled WithStateByKey (StateByKey,
//     Result.ValuesByKey).
package engine
