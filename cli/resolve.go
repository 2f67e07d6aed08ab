package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
)

// ResolveGraph compiles the graph a GRAPH argument names: a built-in (or
// registered) graph by name, or else a scenario file by path. It returns the
// example input of a new thread (a built-in's Input, or a scenario's first
// invoke op's input), and the name recorded with a thread's fingerprint so a
// later command can find the graph again (the built-in's name or the
// scenario file's absolute path). Errors name the graph and, for a scenario,
// the file position. A scenario file with a finding of scenario.File.Lint
// is refused, each finding a line.
func ResolveGraph(nameOrPath string, opts ...engine.CompileOption) (g *engine.Graph, example map[string]any, fingerprintName string, err error) {
	r, err := resolveGraph(context.Background(), nameOrPath, linting{mode: lintError}, opts...)
	if err != nil {
		return nil, nil, "", err
	}
	return r.g, r.example, r.recordName, nil
}

// resolvedGraph is what a GRAPH argument names.
type resolvedGraph struct {
	g *engine.Graph
	// example is a new thread's input: a built-in's Input, or a scenario
	// file's first invoke op's input.
	example map[string]any
	// recursionLimit is the scenario's first invoke op's, 0 if none.
	recursionLimit int
	// runtimeContext is the scenario's first invoke op's context (nil
	// if none): what its nodes read as context.
	runtimeContext any
	// recordName finds the graph again: a built-in's name, or the
	// scenario file's absolute path.
	recordName string
	builtin    bool // a built-in graph, not a scenario file
	// file is the scenario file's model (nil for a built-in graph),
	// which checks a --input against its reducers.
	file *scenario.File
}

// resolveGraph is ResolveGraph; ctx names the program for the hint, and
// lint says what a scenario file's lint findings do (--lint).
func resolveGraph(ctx context.Context, nameOrPath string, lint linting, opts ...engine.CompileOption) (*resolvedGraph, error) {
	if nameOrPath == "" {
		return nil, usagef("no graph given: name a built-in graph (%s graphs) or a scenario file", program(ctx))
	}
	if ex, ok := graphs.Get(nameOrPath); ok {
		g, err := ex.Build(opts...)
		if err != nil {
			return nil, failf("graph %q does not compile: %v", nameOrPath, err)
		}
		return &resolvedGraph{g: g, example: maps.Clone(ex.Input), recordName: ex.Name, builtin: true}, nil
	}
	if err := notAURL("graph", nameOrPath, "GRAPH is a built-in graph or a scenario file (a database URL goes in --db)"); err != nil {
		return nil, err
	}
	if _, statErr := os.Stat(nameOrPath); statErr != nil {
		if errors.Is(statErr, os.ErrNotExist) {
			return nil, usagef("unknown graph %q: not a built-in graph (%s) and no such file", nameOrPath, strings.Join(builtinNames(), ", "))
		}
		return nil, usagef("graph %s: %v", nameOrPath, statErr)
	}
	f, err := scenario.Load(nameOrPath)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if f.Name == "" {
		// A file without a name is its graph's name: the debugger's
		// title, run's "on graph" and threads' GRAPH column say it.
		f.Name = strings.TrimSuffix(filepath.Base(nameOrPath), filepath.Ext(nameOrPath))
	}
	// A graph that does not compile is said first: LangGraph refuses it,
	// and --lint=warn cannot run it.
	g, _, err := scenario.Build(f, opts...)
	if err != nil {
		return nil, buildError(nameOrPath, err)
	}
	// Mistakes LangGraph would run with (a Send to no node, a misspelt
	// update key) are refused before anything is written, unless the
	// command's --lint=warn says they are meant; trace, which must show
	// what LangGraph does with them, does not lint.
	if err := lint.check(f); err != nil {
		return nil, err
	}
	r := &resolvedGraph{g: g, file: f}
	// The file's first invoke is its example: its input and its limit.
	for _, op := range f.Ops {
		if op.Kind != scenario.OpInvoke {
			continue
		}
		if m, ok := engine.Normalize(op.Input).(map[string]any); ok && op.HasInput {
			r.example = m
		}
		if op.HasRecursionLimit && op.RecursionLimit < 1 {
			// A trace records the op's failure, as LangGraph's; a run
			// of the file's example cannot start.
			return nil, usagef("%v", f.ErrorAt(fmt.Sprintf("ops[%d].recursion_limit", op.Index), "%d: want a positive number of supersteps, or leave it out for %d", op.RecursionLimit, engine.DefaultRecursionLimit))
		}
		r.recursionLimit = op.RecursionLimit
		r.runtimeContext = op.Context
		break
	}
	r.recordName, err = filepath.Abs(nameOrPath)
	if err != nil {
		r.recordName = nameOrPath
	}
	return r, nil
}

func builtinNames() []string {
	var names []string
	for _, e := range graphs.All() {
		names = append(names, e.Name)
	}
	return names
}

// graphRecord is what the command line stores as a thread's fingerprint,
// the engine's GraphRecord (the graph's name, its hash and the topology
// lines the hash was made from, so that a later replay can name what
// changed rather than only say that something did), which a run on a
// store records for a thread a service started too. Stores see it as an
// opaque string.
type graphRecord struct{ engine.GraphRecord }

func newGraphRecord(g *engine.Graph, name string) graphRecord {
	return graphRecord{g.Record(name)}
}

// displayName is the graph's name for a listing or a title: its own name,
// else the scenario file's base name without its extension rather than
// its whole path.
func (r graphRecord) displayName() string { return graphTitle(r.Name, r.Graph) }

// graphTitle is a graph's readable name from its own name and the name
// that finds it again (a built-in's name, a scenario file's path).
func graphTitle(own, recordName string) string {
	if own != "" || recordName == "" {
		return own
	}
	base := filepath.Base(recordName)
	if t := strings.TrimSuffix(base, filepath.Ext(base)); t != "" {
		return t
	}
	return base
}

func (r graphRecord) encode() string { return r.Encode() }

// decodeGraphRecord reads a stored fingerprint (engine.DecodeGraphRecord).
func decodeGraphRecord(s string) (graphRecord, bool) {
	r, ok := engine.DecodeGraphRecord(s)
	return graphRecord{r}, ok
}

// sameGraph reports whether two stored graph records name the same graph:
// the same engine fingerprint, wherever the scenario file lay. It is what
// a replace (import, pull, push --overwrite) compares.
func sameGraph(held, incoming string) bool {
	a, okA := decodeGraphRecord(held)
	b, okB := decodeGraphRecord(incoming)
	return okA == okB && a.Fingerprint == b.Fingerprint
}

// recordGraph stores g's record for thread when the thread has none yet or
// a different one.
func recordGraph(ctx context.Context, st Store, thread string, g *engine.Graph, name string) error {
	old, err := st.Fingerprint(ctx, thread)
	if err != nil {
		return err
	}
	rec := newGraphRecord(g, name)
	// A different record was checked by checkTopology, which said how it
	// changed; the thread goes on with the current graph, which it records.
	if prev, ok := decodeGraphRecord(old); ok && prev.Fingerprint == rec.Fingerprint {
		return nil
	}
	return st.SetFingerprint(ctx, thread, rec.encode())
}
