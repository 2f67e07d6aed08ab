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
//   - channel_*.go: one file per channel kind, each a small state machine
//     with update/consume/finish and checkpoint/restore.
//   - graph.go, compile.go: the builder and its compiled, immutable form.
//   - algo.go: pure functions — plan the next tasks, apply a superstep's
//     writes, decide breakpoints. No clock, no goroutines, no storage.
//   - loop.go: one thread's run as a state machine over checkpoints.
//   - runner.go: runs one superstep's tasks concurrently, with retries.
//   - stepper.go: the caller-driven API (Plan, Execute, Update one phase at
//     a time) that the debugger uses; run.go's Invoke and Stream loop over it.
//   - checkpoint.go, saver.go, memsaver.go: plain-data checkpoints, the
//     storage contract and its in-memory implementation.
package engine
