package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/superstep/superstep/engine"
)

// ThreadSummary is one thread of a database as the thread list shows it.
// Zero fields are unknown and left blank.
type ThreadSummary struct {
	ID string // the thread's id
	// Step and Source describe the thread's latest checkpoint.
	Step    int
	Source  string    // how it came to be (input, loop, update, fork)
	Updated time.Time // when the store last wrote to the thread
	// Graph is the name of the graph the thread was recorded with.
	Graph string
	// Status is the thread's status at its head: done, pending (work left
	// to step), interrupted or error. The debugger fills it in for the
	// threads it can open; the caller may set it for a thread it refuses
	// ("subgraphs only"), else such a thread reads "other graph".
	Status string
	// Refused is why this graph cannot open the thread (the caller's
	// CheckThread said so); empty when it can.
	Refused string
}

// Options configure Run. Only the graph is required; the zero Options open
// a thread called "default".
type Options struct {
	// Thread is the thread to open. If it has checkpoints the debugger opens
	// at its latest one; otherwise a new run starts on it with Input, paused
	// after the input checkpoint, before the first Plan (with
	// DeferNewThread, the input checkpoint is written by the first step).
	// Empty means a new thread with a generated id when Input is set, else
	// "default".
	Thread string
	// Input is the example input of a new thread (state keys). It also fills
	// the "new thread" form.
	Input map[string]any
	// DeferNewThread shows a new Thread without writing it: the screen
	// says the thread is new, and its input checkpoint is written by the
	// first step (n, s or c), so a thread opened by a mistyped id and
	// left leaves nothing in the database. The command line sets it;
	// when false the input checkpoint is written as the debugger opens.
	DeferNewThread bool
	// CloseThreads are the database's threads whose ids are close to
	// Thread when it is not in the database (a mistyped id, most likely):
	// the new thread's screen lists them until it is written.
	CloseThreads []string
	// GraphName is shown in the header, the graph pane's title and the
	// subgraph breadcrumb (default: the graph's own name).
	GraphName string
	// SettingsKey names the graph for the breakpoints, watches and run
	// settings kept in Settings (default: GraphName). The command line
	// passes the name that finds the graph again (a built-in's name, a
	// scenario file's absolute path), so a short title shown for two files
	// of the same base name never mixes their settings.
	SettingsKey string
	// Saver is the store the graph was compiled with (default: g.Saver()).
	// The debugger needs one: history, resume and forks all read it.
	Saver engine.Saver
	// Threads lists the database's threads for the thread picker (T). When
	// nil, a Saver implementing engine.ThreadLister (engine.MemorySaver) is
	// asked instead; otherwise the picker only offers a new thread.
	Threads func(ctx context.Context) ([]ThreadSummary, error)
	// CheckThread, when set, is asked before another thread is opened from
	// the thread picker; its error (say, the thread was recorded with
	// another graph, in the words the command line uses) is shown and the
	// thread is not opened.
	CheckThread func(ctx context.Context, thread string) error
	// Compile compiles the expressions of conditional breakpoints and
	// watches (the command line passes the scenario files' language). Nil
	// leaves node breakpoints and watchpoints on channels only.
	Compile func(src string) (Condition, error)
	// Settings keeps each graph's breakpoints, watches and run settings
	// (default: the Saver, when it implements SettingsStore; a caller that
	// wraps its store passes the store here).
	Settings SettingsStore
	// Durability and SetDurability, when both are set, let the run
	// settings (S) show and change when checkpoints reach the disk: "sync",
	// "async" or "exit", LangGraph's durability run option (the command
	// line passes the bbolt store's). SetDurability commits what is
	// buffered before it switches.
	Durability    func() string           // the store's durability now
	SetDurability func(mode string) error // switch it
	// Notice replaces the status line's first note, once the thread is
	// open: what the caller has to say about it that the alternate screen
	// would hide (the command line: a thread named on it was not in the
	// database, so a new run started on it).
	Notice string
	// Answers suggest replies to the graph's interrupts; the first is the
	// answer box's placeholder (graphs.Example.Answers).
	Answers []string
	// RecursionLimit is the graph's own recursion limit (a scenario
	// file's, as `superstep run` uses it) for runs and `e` when the run
	// settings (S) set none; 0: the engine's default.
	RecursionLimit int
	// RuntimeContext is the runs' runtime context (a scenario file's, as
	// `superstep run` uses it; engine.WithRuntimeContext); nil: none.
	RuntimeContext any
	// In and Out replace the terminal (tests). With Out set the program does
	// not take the alternate screen.
	In  io.Reader // keys (default: the terminal)
	Out io.Writer // the screen (default: the terminal)
}

// ErrNoSaver is returned by Run when neither Options.Saver nor the graph has
// a Saver.
var ErrNoSaver = errors.New("tui: the debugger needs a Saver (compile the graph with engine.WithSaver)")

// Run opens the debugger on g and blocks until the person quits or ctx is
// cancelled. It returns ErrNoSaver, or the terminal's error; a run that
// fails inside the debugger is shown there, not returned. Cancelling ctx
// stops any engine call in flight.
func Run(ctx context.Context, g *engine.Graph, opts Options) error {
	if g == nil {
		return errors.New("tui: nil graph")
	}
	if opts.Saver == nil {
		opts.Saver = g.Saver()
	}
	if opts.Saver == nil {
		return ErrNoSaver
	}
	m := newModel(ctx, newEngineSession(g, opts), opts)
	// Clicks focus panes and select rows, the wheel scrolls; hold shift
	// to select text with the terminal as usual.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithMouseCellMotion()}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	} else {
		popts = append(popts, tea.WithAltScreen())
		m.clipboard = func() io.Writer { return os.Stdout }
	}
	_, err := tea.NewProgram(m, popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}
