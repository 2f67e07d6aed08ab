// Package cli is superstep's command line: every command's parsing, output
// and exit code lives here so it can be tested without a terminal, and
// main.go only wires it to the process.
//
// The package owns how a GRAPH argument is resolved (a built-in name or a
// scenario file), how the checkpoint database, a persist (bbolt) file, is
// opened and how its errors become exit codes (openStore and storeError),
// how a thread's graph is recorded and checked (resolve.go, topology.go),
// and how a recorded thread is replayed against the current graph
// (replay.go, exec.go: the original run is what replay compares with,
// --rerun reuses recorded writes). The interactive debugger is
// reached through the Debugger function type, so the terminal UI can be
// plugged in by main without this package importing it.
//
// Exit codes: 0 success; 1 a run that failed, a replay that diverged or a
// check that found damage; 2 a usage or input error (bad flags, missing
// files, malformed JSON, unknown graph, node, thread or checkpoint, a
// database that is not superstep's, that another process holds for longer
// than --timeout, or a PostgreSQL server that cannot be reached).
package cli
