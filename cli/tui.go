package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/tui"
)

// TUI is the interactive debugger: tui.Run on the command's graph, thread
// and database. It is the Debugger of the superstep command and of Main. Without a
// terminal (a pipe, a CI log) it runs the thread headless instead, so
// scripts get output rather than a hang.
func TUI(ctx context.Context, g *engine.Graph, o DebugOptions) error {
	if !hasTerminal() {
		fmt.Fprintf(o.Stderr, "%[1]s: not a terminal, running headless (%[1]s run GRAPH is the scripted form)\n", o.program())
		return Headless(ctx, g, o)
	}
	return tui.Run(ctx, g, tuiOptions(ctx, o))
}

// hasTerminal reports whether the process reads and writes a terminal,
// where TUI opens the debugger (else it runs the thread headless).
func hasTerminal() bool { return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd()) }

// tuiOptions are the debugger's options for a command's database and
// graph: the database under the graph recorder keeps the settings and
// sets the durability. ctx is the command's: the hints the thread picker
// shows name the program and the --db it was given (hintLine).
func tuiOptions(ctx context.Context, o DebugOptions) tui.Options {
	opts := tui.Options{Thread: o.Thread, Input: o.Input, GraphName: o.Title, SettingsKey: o.GraphKey, Saver: o.Saver, CheckThread: o.CheckThread, Compile: CompileCondition, RecursionLimit: o.RecursionLimit, RuntimeContext: o.RuntimeContext, Notice: o.Notice,
		// A thread named on the command line that the database lacks is
		// shown, not written, until the first step: a typo leaves nothing.
		DeferNewThread: true, CloseThreads: o.CloseThreads}
	if opts.GraphName == "" {
		opts.GraphName = o.GraphName
	}
	if opts.SettingsKey == "" {
		opts.SettingsKey = o.GraphName
	}
	if ex, ok := graphs.Get(o.GraphName); ok {
		opts.Answers = ex.Answers
	}
	base := o.Saver
	if r, ok := base.(*graphRecorder); ok {
		base = r.Store // the recorder wraps the database for the engine only
	}
	if ss, ok := base.(tui.SettingsStore); ok {
		opts.Settings = ss // breakpoints, watches and run settings per graph
	}
	// The run settings (S) choose when checkpoints reach the disk: the
	// debugger's usual database is persist.Shared (async and exit keep it
	// open, so other commands wait), a bbolt file opened alone a Store.
	if d, ok := base.(durabilityStore); ok {
		opts.Durability = func() string { return d.Durability().String() }
		opts.SetDurability = func(mode string) error {
			m, err := persist.ParseDurability(mode)
			if err != nil {
				return err
			}
			return d.SetDurability(m)
		}
	}
	store, _ := base.(Store)
	if o.Threads != nil {
		opts.Threads = func(listCtx context.Context) ([]tui.ThreadSummary, error) {
			infos, err := o.Threads(listCtx)
			if err != nil {
				return nil, err
			}
			out := make([]tui.ThreadSummary, 0, len(infos))
			graphs := map[string]*engine.Graph{}
			for _, t := range infos {
				if t.Checkpoints == 0 && t.Namespaces == 0 && t.Err == nil { // nothing to open, as the threads command skips it
					continue
				}
				rec, _ := decodeGraphRecord(t.Fingerprint)
				sum := tui.ThreadSummary{ID: t.ID, Step: t.LastStep, Source: t.LastSource, Updated: t.Updated, Graph: rec.displayName()}
				switch {
				case t.Err != nil:
					sum.Status, sum.Refused = statusUnreadable, "cannot be read: "+storeMessage(t.Err)
				case t.Checkpoints == 0:
					// Listed by the threads command too; the debugger opens a
					// thread at its own checkpoints.
					sum.Status = statusSubgraphsOnly
					sum.Refused = "has checkpoints only in subgraph namespaces: " + subgraphsOnlyHint(ctx, t.ID)
				case store != nil:
					// With the graph it was recorded with, as the threads
					// command reads it: the debugger's own graph cannot
					// say how another graph's thread stands.
					if status, err := threadStatus(listCtx, store, t, graphs); err == nil {
						sum.Status = status
					}
				}
				out = append(out, sum)
			}
			return out, nil
		}
	}
	return opts
}

// pickerRefusal is the thread picker's word on a thread of another graph
// (checkTopology's refusal): its first line, all the picker shows, is the
// command that opens the thread, which the picker cannot (another graph;
// --force for the same graph changed incompatibly); the refusal with the
// topology's differences follows. ctx is the command's, for the program's
// name and --db; graphKey is the open graph's record name.
func pickerRefusal(ctx context.Context, st Store, thread, graphKey string, refusal error) error {
	fp, err := st.Fingerprint(ctx, thread)
	rec, ok := decodeGraphRecord(fp)
	if err != nil || !ok || rec.Graph == "" {
		return refusal
	}
	what := "recorded with " + rec.displayName() // the picker shows it through termtext.Name
	words := []string{shellWord(rec.Graph), "--thread", shellWord(thread)}
	if rec.Graph == graphKey {
		what = "the graph changed incompatibly since the thread was recorded"
		words = append(words, "--force")
	}
	return fmt.Errorf("%s: %s opens it\n%w", what, hintLine(ctx, "tui", words...), refusal)
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

func (c stateCondition) Eval(state map[string]any) (any, bool, error) {
	v, err := c.e.Eval(scenario.Env{State: state})
	if err != nil {
		return nil, false, err
	}
	return v, scenario.Truthy(v), nil
}

// durabilityStore is a bbolt database whose durability can change while it
// is open (persist.Store, persist.Shared).
type durabilityStore interface {
	Durability() persist.Durability
	SetDurability(persist.Durability) error
}
