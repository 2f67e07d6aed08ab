package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/tui"
)

// TUI is the interactive debugger: tui.Run on the command's graph, thread
// and database. It is the Debugger of the superstep command. Without a
// terminal (a pipe, a CI log) it runs the thread headless instead, so
// scripts get output rather than a hang.
func TUI(ctx context.Context, g *engine.Graph, o DebugOptions) error {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		fmt.Fprintln(o.Stderr, "superstep: not a terminal, running headless (superstep run GRAPH is the scripted form)")
		return Headless(ctx, g, o)
	}
	opts := tui.Options{Thread: o.Thread, Input: o.Input, GraphName: o.GraphName, Saver: o.Saver, CheckThread: o.CheckThread, Compile: CompileCondition}
	if ex, ok := graphs.Get(o.GraphName); ok {
		opts.Answers = ex.Answers
	}
	if o.Threads != nil {
		opts.Threads = func(ctx context.Context) ([]tui.ThreadSummary, error) {
			infos, err := o.Threads(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]tui.ThreadSummary, 0, len(infos))
			for _, t := range infos {
				if t.Checkpoints == 0 && t.Namespaces == 0 && t.Err == nil { // nothing to open, as superstep threads skips it
					continue
				}
				rec, _ := decodeGraphRecord(t.Fingerprint)
				sum := tui.ThreadSummary{ID: t.ID, Step: t.LastStep, Source: t.LastSource, Updated: t.Updated, Graph: rec.Graph}
				switch {
				case t.Err != nil:
					sum.Refused = "cannot be read: " + storeMessage(t.Err)
				case t.Checkpoints == 0:
					// Listed by superstep threads too; the debugger opens a
					// thread at its own checkpoints.
					sum.Refused = "has checkpoints only in subgraph namespaces (superstep export writes them)"
				}
				out = append(out, sum)
			}
			return out, nil
		}
	}
	return tui.Run(ctx, g, opts)
}

// CompileCondition compiles a debugger breakpoint or watch expression in
// the scenario files' language, with state bound to the checkpoint's
// state (tui.Options.Compile).
func CompileCondition(src string) (tui.Condition, error) {
	e, err := scenario.Compile(src)
	if err != nil {
		return nil, err
	}
	return stateCondition{e}, nil
}

type stateCondition struct{ e *scenario.Expr }

func (c stateCondition) Eval(state map[string]any) (any, error) {
	return c.e.Eval(scenario.Env{State: state})
}
