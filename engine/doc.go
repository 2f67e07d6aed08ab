// Package engine is superstep's Pregel runtime: a faithful Go reimplementation
// of LangGraph's execution model for agent graphs.
//
// It owns the StateGraph builder, the compiled graph (channels, nodes with
// triggers, reads and writers), the pure superstep algorithm, the loop that
// drives it phase by phase, checkpoints and the Saver contract, and the
// in-memory reference saver. It imports the standard library only: storage,
// terminals and expression languages live in other packages.
//
// # Reading the source
//
//   - channel*.go: one file per channel kind, each a small state machine
//     with update/consume/finish and checkpoint/restore.
//   - graph.go, compile.go, describe.go: the builder, its compiled and
//     immutable form, and its description for tools (Describe, Mermaid).
//   - algo.go: pure functions — plan the next tasks, apply a superstep's
//     writes, decide breakpoints. No clock, no goroutines, no storage.
//     cowmap.go holds the copy-on-write maps that let a checkpoint be
//     snapshotted in O(1).
//   - loop.go: one thread's run as a state machine over checkpoints
//     (LangGraph's _first, tick and after_tick); pending.go its saved writes.
//   - runner.go, task.go: run one superstep's tasks concurrently, with
//     retries, interrupts and the writers that turn a node's result into
//     writes; turns.go orders sibling subgraphs' checkpoints on request.
//   - stepper.go: the caller-driven API (Plan, Execute, Update one phase at
//     a time) that the debugger uses; run.go's Invoke and Stream loop over it.
//   - state.go: GetState, History and UpdateState.
//   - checkpoint.go, saver.go, memsaver.go: plain-data checkpoints, the
//     storage contract and its in-memory implementation.
//   - value.go, reducers.go, ids.go: the value codec, the built-in reducers,
//     checkpoint and task ids.
package engine
