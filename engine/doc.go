// Package engine is superstep's Pregel runtime: a faithful Go reimplementation
// of LangGraph's execution model for agent graphs.
//
// It owns the StateGraph builder, the compiled graph (channels, nodes with
// triggers, reads and writers), the pure superstep algorithm, the loop that
// drives it phase by phase, checkpoints and the Saver contract, and the
// in-memory reference saver. It imports the standard library only: storage,
// terminals and expression languages live in other packages.
//
// # Using it
//
// Declare the state keys and their channels (LastValueKey, AppendKey,
// MessagesKey, ReducerKey), add nodes and edges to a StateGraph, and
// Compile it; WithSaver makes runs checkpoint, which interrupts, resume,
// GetState, History and UpdateState need. A node gets the state as a map
// (or a Send's argument) and returns an Update (Pairs), a map, a Command or
// nil. Invoke runs a thread to its end or its next interrupt; Stream does
// the same as events; Start gives a Stepper that advances one phase at a
// time, and StreamModes yields LangGraph's stream modes. The examples show
// one concept each: a first graph (Graph.Invoke), reducer keys
// (ReducerKey), conditional edges (StateGraph.AddConditionalEdges), Send
// fan-out (Send), Interrupt and resume, a fork (Graph.UpdateState), the
// Stepper (Graph.Start) and the debugger on your own graph (the package
// example).
//
// Values are JSON's: nil, bool, float64, string, []any and map[string]any
// (Normalize turns Go numbers into float64; a whole number beyond ±2^53
// stays exact as a json.Number, see Number). A node must not modify the
// state map it is given: the tasks of a superstep share it. The map is
// valid until the node returns (the engine changes it in place for later
// supersteps, rather than copying a wide state each time): to keep it, keep
// a copy (see NodeFunc). Code that turns that map into something costly
// to build asks StateChanges which keys changed since it last read, and
// reads them by their position in StateKeys (StateByKey, and
// Result.ValuesByKey for a run's result) rather than by name, as package
// typed does to decode a struct state incrementally.
//
// The functional API is the other way to write a graph: NewEntrypoint
// compiles one function as a graph (its input in, its return value out,
// Previous for what the thread's last run returned), and Task, called from
// any running node, runs a function as a checkpointed task whose finished
// result a resumed node gets back instead of calling it again.
//
// A node function may also run a compiled graph itself (InvokeSubgraph);
// declaring it on the node (UsesSubgraph) makes its state readable and
// updatable by namespace, as a subgraph node's (AddSubgraph) is.
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
//     writes, writer by writer. The first failure cancels the tasks still
//     working through their context; each saves what it wrote plus its
//     error, and a finished task keeps everything (LangGraph's runners).
//     With MemorySaver the loop's goroutine saves each finished task's
//     writes as it arrives (fanout.commitFinished).
//     turns.go orders sibling subgraphs' checkpoints on request; Sleep and
//     WaitingOnTime tell that order when a node waits on time.
//   - saved.go: what a checkpoint's saved writes mean — per task its
//     output, interrupts, answers, error, whether it finished or waits —
//     and a checkpoint's status. The CLI, the debugger and the stores ask
//     here instead of reading reserved channels themselves.
//   - stepper.go: the caller-driven API (Plan, Execute, Update one phase at
//     a time) that the debugger uses; run.go's Invoke and Stream loop over it.
//   - functional.go: the functional API — entrypoints, Task calls as
//     PUSH tasks of the running superstep, Final and Previous.
//   - state.go: GetState, History and UpdateState (a subgraph's namespace
//     included; state_bulk.go several supersteps at once). declared.go
//     finds which declared subgraph (UsesSubgraph) ran in a namespace.
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
//     map for graphs read that way (StateByKey, Result.ValuesByKey).
package engine
