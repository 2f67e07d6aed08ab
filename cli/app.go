package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/termtext"
)

// App is one invocation of the command line. The zero value uses the
// process's standard streams and the headless debugger.
type App struct {
	// Name is the program's name as its user types it: help, errors and
	// the hints that name a command to run use it (default "superstep").
	// A program of the user's own that embeds the command line has its
	// own; Main takes it from os.Args[0].
	Name           string
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	// Debugger opens the interactive debugger for the program without
	// arguments and its tui command (default: Headless).
	Debugger Debugger
	// storeOpener opens the database (nil: openStore); tests wrap it to
	// count what a command reads.
	storeOpener func(db string, o storeOptions) (Store, error)
}

// DebugOptions is what the command line hands the debugger.
type DebugOptions struct {
	// Thread to open; it is created from Input when it does not exist.
	Thread string
	// Input of a new thread; nil continues an existing one.
	Input map[string]any
	// GraphName is how the user named the graph, as typed (for hints that
	// repeat the command).
	GraphName string
	// Title is the graph's readable name for headers: its own name, else
	// the scenario file's base name (default: GraphName).
	Title string
	// GraphKey finds the graph again: a built-in's name or the scenario
	// file's absolute path. The debugger keeps the graph's breakpoints,
	// watches and run settings under it (default: GraphName).
	GraphKey string
	// Saver is the open database; it stays open until the debugger returns.
	Saver engine.Saver
	// Threads lists the database's threads, for the thread picker.
	Threads func(ctx context.Context) ([]persist.ThreadInfo, error)
	// RecursionLimit is the graph's own (a scenario file's first invoke's,
	// as run uses it); 0 for the engine's default.
	RecursionLimit int
	// RuntimeContext is the graph's runs' runtime context (a scenario
	// file's first invoke's, as run uses it); nil: none.
	RuntimeContext any
	// CheckThread says why this graph may not open a thread (another
	// graph's), in the words the tui command itself uses; nil when it may.
	CheckThread func(ctx context.Context, thread string) error
	// Program is the running program's name, for hints that name a
	// command (App.Name).
	Program string
	// Notice is what the debugger's status line says first, in place of
	// its own note: that a thread named with --thread was not in the
	// database and starts as a new one.
	Notice string
	// CloseThreads are the database's threads whose ids are close to a
	// Thread named with --thread that the database lacks (a typo, as
	// likely as not); the debugger lists them on the new thread's screen.
	CloseThreads []string
	// Warning says the same on stderr, for a debugger that has no screen
	// to show Notice on (headless). The terminal debugger does not print
	// it: written before the full screen takes the terminal, it was
	// hidden behind it and read only after quitting, when it was stale.
	Warning string
	// Stdout and Stderr are the command's streams.
	Stdout, Stderr io.Writer
	// Scenario is the scenario file the graph was built from (nil for a
	// built-in graph): a run's failure and warnings point at the
	// expression in it that made them (scenario.File.Where).
	Scenario *scenario.File
}

// program is o.Program, or superstep when the caller gave none.
func (o DebugOptions) program() string {
	if o.Program == "" {
		return defaultProgram
	}
	return o.Program
}

// Debugger runs an interactive session on g until the user quits. main
// installs the terminal UI here; the default, Headless, runs the thread and
// prints what happened.
type Debugger func(ctx context.Context, g *engine.Graph, o DebugOptions) error

// Main runs the command line on the process's streams and returns the exit
// code. A program that registers its own graphs (graphs.Register) can end
// its main with os.Exit(cli.Main(ctx, os.Args[1:])); help, errors and hints
// then name that program (os.Args[0]'s base name), not superstep. Ctrl-C
// stops a run there as it does superstep's (WithSignals).
func Main(ctx context.Context, args []string) int {
	ctx, stop := WithSignals(ctx)
	defer stop()
	return (&App{Name: programName(os.Args[0]), Debugger: TUI}).Run(ctx, args)
}

// WithSignals returns ctx cancelled by Ctrl-C (SIGINT) or SIGTERM: a run
// then cancels the tasks still running, saves what finished and says how
// to go on. Once one has come, both take their default action again, so
// a second Ctrl-C ends the process at once when stopping waits on
// something that does not answer (a node that ignores its context, a
// database server that stopped answering). stop releases the signals.
func WithSignals(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// Run executes args (without the program name) and returns the exit code.
// Errors are printed to Stderr as one line.
func (a *App) Run(ctx context.Context, args []string) int {
	a.defaults()
	// Names from files superstep did not write reach the output; each is
	// printed through termtext.Name, and these writers catch any escape
	// sequence that slips past in a message.
	stdout, stderr := a.Stdout, a.Stderr
	out, errOut := termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	a.Stdout, a.Stderr = out, errOut
	defer func() {
		out.Flush()
		errOut.Flush()
		a.Stdout, a.Stderr = stdout, stderr
	}()
	root := a.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(withInvocation(ctx, a.Name, ""))
	for _, line := range errorLines(err) {
		fmt.Fprintln(a.Stderr, a.Name+": "+termtext.Name(line))
	}
	return exitCode(err)
}

func (a *App) defaults() {
	if a.Name == "" {
		a.Name = defaultProgram
	}
	if a.Stdout == nil {
		a.Stdout = os.Stdout
	}
	if a.Stderr == nil {
		a.Stderr = os.Stderr
	}
	if a.Stdin == nil {
		a.Stdin = os.Stdin
	}
	if a.Debugger == nil {
		a.Debugger = Headless
	}
}

// oneLine keeps an error to one line: a panic stack or a joined error
// should not flood the terminal.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.ReplaceAll(s, "\n", "; ")
}

// globals are the persistent flags.
type globals struct {
	db      string
	json    bool
	timeout time.Duration
}

const rootLong = `superstep runs and debugs agent graphs on an embedded Pregel engine, a Go
reimplementation of LangGraph's runtime. Without arguments it opens the
debugger on the built-in "research" graph with the default database.

GRAPH is a built-in graph name (see superstep graphs) or a scenario file.
A scenario file with a likely mistake that LangGraph would run anyway (an
update key that is no state key, a Send or route to no node) is refused,
before anything is written, by the commands that run its nodes (run, tui,
replay, exec) and by graph; their --lint=warn warns of each instead and
goes on (docs/scenario-format.md).

The database is --db, else $SUPERSTEP_DB, else
$XDG_DATA_HOME/superstep/superstep.db (when that path is absolute), else
~/.local/share/superstep/superstep.db.
It is a bbolt file, or a PostgreSQL server when it is a postgres:// URL
(postgres://user:password@host:5432/database?schema=superstep), which many
processes may write at once; pull and push copy threads between the two.
One process at a time may write to it; commands that only read it share it
with each other. A command that finds the database in use waits --timeout
for it, then gives up with exit code 2.

Exit codes:
  0  success
  1  a run failed, a replay diverged, or a check found damage
  2  usage or input error, or nothing could be done: bad flags, missing
     file, malformed JSON, unknown graph, node, thread or checkpoint, a
     database that is not superstep's, is in use by another process, or
     cannot be reached (a PostgreSQL server that does not answer, a wrong
     password); a server lost while a command runs and not back
     within 30 seconds fails it (1)`

func (a *App) rootCommand() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   a.Name,
		Short: "Run and debug agent graphs on an embedded Pregel engine",
		Long:  rootLong,
		Example: `  superstep                                   # debugger on the research graph
  superstep run research --json               # run headless, JSON lines
  superstep run research --thread t1 --resume '{"action":"approve"}'
  superstep replay t1 --graph research        # re-execute and compare`,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.debug(cmd.Context(), g, graphs.Default, "", false, lintError)
		},
		// Hints repeat the --db the command was given.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if g.db == "" && cmd.Flags().Changed("db") {
				// An empty --db (an unset variable: --db "$DB") would
				// quietly be the default database.
				return usagef("--db is empty: name a database file or a postgres:// URL, or leave --db out for $SUPERSTEP_DB or the default")
			}
			cmd.SetContext(withInvocation(cmd.Context(), a.Name, g.db))
			return nil
		},
	}
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SetIn(a.Stdin)
	root.PersistentFlags().StringVar(&g.db, "db", "", "database file or postgres:// URL (default $SUPERSTEP_DB or the user data directory)")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print data as JSON")
	root.PersistentFlags().DurationVar(&g.timeout, "timeout", time.Second, "how long to wait for a database another process is using")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usagef("%v%s", err, flagErrorHint(cmd, err)) })
	root.AddCommand(
		a.tuiCommand(g), a.runCommand(g), a.traceCommand(g), a.benchCommand(g),
		a.graphsCommand(g), a.graphCommand(g),
		a.threadsCommand(g), a.historyCommand(g), a.showCommand(g), a.diffCommand(g),
		a.exportCommand(g), a.importCommand(g), a.checkCommand(g),
		a.replayCommand(g), a.execCommand(g), a.updateCommand(g), a.deleteCommand(g), a.copyCommand(g),
		a.transferCommand(g, true), a.transferCommand(g, false),
	)
	for _, c := range append(root.Commands(), root) {
		c.SilenceErrors, c.SilenceUsage = true, true
		// cobra's own argument-count errors are usage errors, and name the
		// command and what it takes.
		if c.Args != nil {
			check := c.Args
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					if cmd == root {
						return usagef("%v; %s --help lists the commands", err, a.Name)
					}
					return usagef("%s: %v; usage: %s", strings.TrimPrefix(cmd.CommandPath(), root.Name()+" "), err, cmd.UseLine())
				}
				return nil
			}
		}
	}
	root.CompletionOptions.DisableDefaultCmd = true
	renameHelp(root, a.Name)
	return root
}

// dbPath is the database the command works on: --db, else persist's
// default ($SUPERSTEP_DB, else the user's data directory).
func dbPath(g *globals) (string, error) {
	if g.db != "" {
		return g.db, nil
	}
	p, err := persist.DefaultPath()
	if err != nil {
		return "", usagef("%s: pass --db or set SUPERSTEP_DB", storeMessage(err))
	}
	return p, nil
}

// open opens the database. Commands that only read it pass readOnly: they
// do not create it and share it with other readers.
func (a *App) open(g *globals, readOnly bool) (Store, error) {
	return a.openWith(g, storeOptions{ReadOnly: readOnly})
}

// openWith opens the database with o, adding the global --timeout.
func (a *App) openWith(g *globals, o storeOptions) (Store, error) {
	if g.timeout <= 0 {
		// Zero has no useful meaning: persist would read it as its default
		// and bbolt as "wait forever", and a user who typed it meant neither.
		return nil, usagef("--timeout %v: want a positive duration such as 1s or 500ms", g.timeout)
	}
	p, err := dbPath(g)
	if err != nil {
		return nil, err
	}
	o.Timeout = g.timeout
	o.program = a.Name
	if a.storeOpener != nil {
		return a.storeOpener(p, o)
	}
	return openStore(p, o)
}

// closeStore closes st and reports a failure to save, always: when the
// command failed too, both are reported (with the command's exit code), so
// checkpoints buffered by --durability async or exit are never lost
// silently behind the run's own error.
func closeStore(st Store, err *error) {
	cerr := st.Close()
	switch {
	case cerr == nil:
	case *err != nil && strings.Contains((*err).Error(), storeMessage(cerr)):
		// The same failure, reported already (a run's flush).
	case *err == nil:
		*err = failf("saving the database: %s", storeMessage(cerr))
	default:
		*err = &exitError{code: exitCode(*err), err: fmt.Errorf("%w; and saving the database failed: %s", *err, storeMessage(cerr))}
	}
}

func (a *App) warn(msg string) { fmt.Fprintln(a.Stderr, a.Name+": warning: "+msg) }
