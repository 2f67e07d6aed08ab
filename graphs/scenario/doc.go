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
// Load, Error), expressions (Compile, Expr, Env), the graph builder (Build)
// and the trace writer. An expression is checked and rewritten by expr-lang
// once, then runs as Go closures made from that tree (fastexpr.go), with
// expr-lang's VM as the authority for whatever they cannot compute.
package scenario
