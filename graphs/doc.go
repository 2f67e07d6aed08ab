// Package graphs holds superstep's built-in example graphs — the graphs of
// the articles the project grew from, written with package typed — and a
// registry that lists them (and any graph a program adds) by name for the
// command line and the debugger.
package graphs
