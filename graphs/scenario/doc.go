// Package scenario loads scenario files: graphs as data, runs as scripts.
//
// A scenario file (shared/conformance/SCENARIO-FORMAT.md) describes a graph
// of scripted nodes and a script of operations to run against it. The same
// file runs on the JavaScript reference (LangGraph.js) and on superstep, and
// the two traces must match, so this package is strict: it rejects unknown
// fields and misspelled names with the file position and the field at fault,
// and it evaluates expressions with JavaScript's semantics.
//
// This package owns the file model (File, Graph, Node, Op), parsing (Parse,
// Load, Error) and expressions (Compile, Expr, Env). The graph builder and
// the trace writer are to be added here as well.
package scenario
