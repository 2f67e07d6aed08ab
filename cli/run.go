package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
	"github.com/superstep/superstep/termtext"
)

func (a *App) runCommand(g *globals) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run GRAPH",
		Short: "Run a graph headless on a thread of the database",
		Long: `Run GRAPH on a thread until it finishes, is interrupted, or fails.

A new thread starts from --input, or from the graph's example input. An
existing thread continues from its latest checkpoint, or takes --input as new
input. --resume answers the thread's pending interrupt with a JSON value (or
a JSON object keyed by interrupt id to answer several); an answer that is not
JSON, such as --resume approve, is taken as that string. --update adds a
JSON object of state keys to the answer, as LangGraph's Command(resume=...,
update={...}): it is written through the keys' reducers before the answered
node runs again, so that node, and every node after it, sees it. The update
goes to the graph the run resumes, the root, also when the interrupt was
raised in a subgraph; a key that is not one of its state keys is refused.

--checkpoint travels in time: the run continues from that checkpoint of the
thread (an id or any unique prefix of one) instead of the latest, on a new
branch, as the debugger's fork does. With --resume it answers the interrupt
waiting at that checkpoint, on a new branch from it, as the debugger's
answer box does there (LangGraph: Command(resume=...) with the checkpoint's
id in the config). An interrupt answered there already keeps its answer, as
in LangGraph: run from the checkpoint without --resume to be asked again on
a fork, then answer that.

With --json it prints one JSON object per line: task and checkpoint events as
they happen, interrupts, and last {"event":"done",...} or {"event":"error",...}.
A task its retry policy runs again says so first, with the failed attempt's
error ("retrying", {"event":"task","status":"retrying","message":..}). A
route or Command goto to a node the graph does not have is dropped, as
LangGraph drops it, and the run goes on without it (often to its end);
so is an update key that is no state key, and when it is close to one (a
typo: "finidngs" for "findings") run warns of both
({"event":"warning","name":..,"message":..}).

A run that fails exits 1 (2 when its input or answer is refused) and says
why once, on stderr, in one line naming the thread; stdout keeps what the
run printed until then, and with --json ends with the error event, so a
reader of the lines always gets how the run ended there.

A run stopped by a breakpoint (interrupt_before/after) says so and how to go
on. When the breakpoint held a node's Task call (the node is in
interrupt_after, or the called task in interrupt_before, as in LangGraph),
the call returned nothing and the step's writes wait, saved, until the run
continues; the run names the call ("held_calls" in the done event).

Ctrl-C (or SIGTERM) stops a run as the debugger's X does: the tasks still
running are cancelled and record the cancellation, finished tasks keep their
writes, and running the thread again goes on from there. The run exits 1
("cancelled" on stderr, with the command that goes on; and
{"event":"error","kind":"Canceled"} last on stdout with --json). When a
superstep's commit is waiting on a PostgreSQL server that stopped answering
(frozen, cut off), the run waits for it at most the connect timeout (10s,
or --timeout if longer), then says which checkpoint and writes of the
thread may or may not be saved, and how to see which once the server is
back (kind "CommitUnknown"). A second Ctrl-C ends the process at once, for
a stop that waits on something that does not answer, such as a node that
ignores its context.

--stream MODE,... prints LangGraph's stream modes instead of the task and
checkpoint events: values, updates, custom, messages, tasks, checkpoints,
debug; with --json each chunk is {"event":"stream","mode":..,"ns":[..],
"data":..}. --subgraphs adds the chunks of subgraphs, with their namespace.

--durability is LangGraph's run durability, for the run and for the
database: sync (the default) checkpoints every superstep and each reaches
the disk before the next superstep starts, so a crash loses nothing; async
checkpoints every superstep and writes them in the background; exit writes
one checkpoint (and its tasks' pending writes) when the run ends, so the
thread keeps no per-step history of the run, as in LangGraph.`,
		Example: `  superstep run research
  superstep run research --thread t1 --input '{"question":"why?"}' --json
  superstep run research --json --stream updates,custom
  superstep run research --thread t1 --resume '{"action":"approve"}'
  superstep run research --thread t1 --resume '{"action":"approve"}' --update '{"question":"why not?"}'
  superstep run ./my-scenario.json --thread s1
  superstep run research --thread t1 --checkpoint e2c3cb43
  superstep run research --thread t1 --checkpoint e2c3cb43 --resume '{"action":"approve"}'
  superstep run perf/chain_1000.json --durability exit`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := f.check()
			if err != nil {
				return err
			}
			req.limitGiven = cmd.Flags().Changed("recursion-limit")
			return a.runGraph(cmd.Context(), g, args[0], req)
		},
	}
	cmd.Flags().StringVar(&f.thread, "thread", "", "thread id (default: a new thread)")
	cmd.Flags().StringVar(&f.input, "input", "", "input as a JSON object of state keys")
	cmd.Flags().StringVar(&f.resume, "resume", "", "answer to the pending interrupt, as JSON")
	cmd.Flags().StringVar(&f.update, "update", "", "with --resume: state keys to write with the answer, as a JSON object (Command update)")
	cmd.Flags().StringVar(&f.durability, "durability", "sync", "LangGraph's durability: sync, async or exit (one checkpoint when the run ends)")
	cmd.Flags().BoolVar(&f.force, "force", false, "continue a thread whose recorded graph differs incompatibly")
	cmd.Flags().StringVar(&f.checkpoint, "checkpoint", "", "continue from this checkpoint of the thread (time travel: a new branch)")
	cmd.Flags().IntVar(&f.recursionLimit, "recursion-limit", engine.DefaultRecursionLimit, "most supersteps the run may take; a scenario's own limit when it sets one")
	cmd.Flags().StringVar(&f.streamModes, "stream", "", "stream modes to print, comma-separated: values, updates, custom, messages, tasks, checkpoints, debug")
	cmd.Flags().BoolVar(&f.subgraphs, "subgraphs", false, "with --stream: include subgraphs' chunks")
	addLintFlag(cmd, &f.lint)
	return cmd
}

// runFlags are run's flags as given.
type runFlags struct {
	thread, input, resume, update, durability, checkpoint, streamModes string
	recursionLimit                                                     int
	force, subgraphs                                                   bool
	lint                                                               lintMode
}

// runRequest is what run's flags ask for, checked and decoded.
type runRequest struct {
	runFlags
	in     any // --input, nil without
	answer any // --resume's answer
	// update is --update's state keys, written with the answer (nil
	// without).
	update map[string]any
	// storeDur and runDur are --durability for the database (when its
	// writes reach the disk) and for the run (what it checkpoints).
	storeDur persist.Durability
	runDur   engine.Durability
	modes    []engine.StreamMode
	// limitGiven: --recursion-limit was given, so it wins over a
	// scenario's own limit.
	limitGiven bool
}

// check checks the flags on their own, before anything is opened.
func (f runFlags) check() (*runRequest, error) {
	r := &runRequest{runFlags: f}
	if f.update != "" && f.input != "" {
		return nil, usagef("--update and --input cannot be combined: --update goes with --resume's answer, --input starts a new run")
	}
	if f.update != "" && f.resume == "" {
		return nil, usagef("--update needs --resume: it is written with the answer to the pending interrupt (superstep update writes state on its own)")
	}
	if f.input != "" && f.resume != "" {
		return nil, usagef("--input and --resume cannot be combined: resume answers an interrupt, input starts a new run")
	}
	if f.input != "" {
		v, err := decodeJSON("--input", []byte(f.input))
		if err != nil {
			return nil, err
		}
		r.in = v
	}
	var err error
	if r.storeDur, err = parseDurability(f.durability); err != nil {
		return nil, err
	}
	// The same word names what the run checkpoints (the engine's) and
	// when the database's writes reach the disk (the store's).
	if r.runDur, err = engine.ParseDurability(f.durability); err != nil {
		return nil, usagef("--durability %q: want sync, async or exit", f.durability)
	}
	if err := checkThreadFlag(f.thread); err != nil {
		return nil, err
	}
	if r.modes, err = parseStreamModes(f.streamModes); err != nil {
		return nil, err
	}
	if f.subgraphs && r.modes == nil {
		return nil, usagef("--subgraphs needs --stream: it adds subgraphs' stream chunks")
	}
	if f.resume != "" {
		if f.thread == "" {
			return nil, usagef("--resume needs --thread: the thread whose interrupt it answers")
		}
		if r.answer, err = resumeAnswer(f.resume); err != nil {
			return nil, err
		}
	}
	if f.update != "" {
		v, err := decodeJSON("--update", []byte(f.update))
		if err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, usagef("--update: want a JSON object of state keys, got %s", engine.MustEncode(v))
		}
		r.update = m
	}
	if f.recursionLimit < 1 {
		return nil, usagef("--recursion-limit %d: want a positive number of supersteps", f.recursionLimit)
	}
	return r, nil
}

// runGraph is run: it opens the database and the graph, works out the
// run's input and options for the thread, and runs it.
func (a *App) runGraph(ctx context.Context, g *globals, graphArg string, req *runRequest) (err error) {
	// --resume and --checkpoint continue a stored thread: its database
	// must exist (a new run may create one).
	st, rec, res, err := a.openGraph(ctx, g, storeOptions{Durability: req.storeDur, Existing: req.resume != "" || req.checkpoint != ""}, graphArg, req.lint, func(res *resolvedGraph) error {
		// Before the database opens: a refused input creates none.
		if err := a.checkInput(res, req.in); err != nil {
			return err
		}
		if req.in == nil && req.resume == "" && req.checkpoint == "" && res.example == nil && (req.thread == "" || noDatabaseYet(g)) {
			return noExampleInput(graphArg) // a new thread, with nothing to start from
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer closeStore(st, &err)
	gr, name := res.g, res.recordName
	if req.update != nil {
		// Refused, not warned of as --input's are: the engine would drop
		// the key, and the answer would go with an update short of it.
		if err := checkKeys(gr, req.update, "--update"); err != nil {
			return err
		}
	}
	thread := req.thread
	if thread == "" {
		thread = newThreadID()
	}
	exists, err := a.checkThread(ctx, st, thread, gr, req.force)
	if err != nil {
		return err
	}
	var from checkpointFlag
	if req.checkpoint != "" {
		// Resolved first: a --resume answers what waits there.
		if from, err = fromCheckpoint(ctx, st, thread, exists, req.checkpoint); err != nil {
			if !exists {
				return withCloseThreads(ctx, st, thread, err)
			}
			return err
		}
	}
	in, err := runInput(ctx, gr, graphArg, thread, from, exists, req, res.example)
	if err != nil {
		if errors.Is(err, ErrThreadNotFound) {
			return withCloseThreads(ctx, st, thread, err)
		}
		return err
	}

	if err := rec.recordFor(ctx, thread, exists, func(ctx context.Context) error { return recordGraph(ctx, st, thread, gr, name) }); err != nil {
		return storeError(err, "recording the graph of thread %q", thread)
	}
	r := &runner{g: gr, st: rec, thread: thread, graphArg: graphArg, json: g.json, out: a.Stdout, warn: a.warn, stream: req.modes, subgraphs: req.subgraphs, file: res.file}
	r.opts = append(r.opts, engine.WithDurability(req.runDur))
	if req.limitGiven || res.recursionLimit == 0 {
		r.opts = append(r.opts, engine.WithRecursionLimit(req.recursionLimit))
	} else {
		r.opts = append(r.opts, engine.WithRecursionLimit(res.recursionLimit))
	}
	if res.runtimeContext != nil {
		// The file's runtime context, as trace runs it: its nodes and
		// routes read it (context.k), and no flag gives another.
		r.opts = append(r.opts, engine.WithRuntimeContext(res.runtimeContext))
	}
	if from.id != "" {
		r.opts = append(r.opts, engine.FromCheckpoint(from.id))
	}
	if exists && req.checkpoint == "" && req.in == nil {
		// Going on from the head, which a replay moved onto its branch:
		// say so, and how to go on from where the recorded run ended.
		if note := replayHeadNote(ctx, gr, thread, "this run goes on from the replay's branch", func(end string) string {
			return "--checkpoint " + end + " goes on from there"
		}); note != "" {
			a.warn(note)
		}
	}
	if !exists && req.thread != "" {
		// A new thread is what run is for; a --thread a letter away from
		// one the database has is more likely a typo of it, unless only
		// its number differs (suspectedTypos).
		if close := suspectedTypos(threadIDs(ctx, st), thread); len(close) > 0 {
			a.warn(fmt.Sprintf("thread %q is not in the database %s, so this run starts it; close ids there: %s", thread, dbLabel(g), closeThreadsText(close)))
		}
	}
	return r.run(ctx, in, exists)
}

// openGraph opens the graph arg names and the database, the graph
// compiled to checkpoint into it through a recorder of the graph's
// threads. The graph comes first, and check (when not nil) on it: a file
// that does not load or compile, or a refused input, leaves no new,
// empty database behind. The caller closes the store
// (closeStore) when err is nil; on an error nothing is left open.
func (a *App) openGraph(ctx context.Context, g *globals, o storeOptions, arg string, lint lintMode, check func(*resolvedGraph) error) (st Store, rec *graphRecorder, res *resolvedGraph, err error) {
	// Compiling only keeps the saver; the recorder gets its store below,
	// before anything runs.
	rec = &graphRecorder{}
	if res, err = resolveGraph(ctx, arg, a.lintWith(lint), engine.WithSaver(rec)); err != nil {
		return nil, nil, nil, err
	}
	if check != nil {
		if err := check(res); err != nil {
			return nil, nil, nil, err
		}
	}
	if st, err = a.openWith(g, o); err != nil {
		return nil, nil, nil, err
	}
	rec.Store = st
	return st, rec, res, nil
}

// checkInput checks --input against the graph: a graph takes an object
// of state keys (unknown keys are warned of), whose values a scenario
// file's reducers take; an entrypoint any JSON value.
func (a *App) checkInput(res *resolvedGraph, in any) error {
	gr := res.g
	if gr.IsEntrypoint() || in == nil {
		return nil
	}
	m, ok := in.(map[string]any)
	if !ok {
		return usagef("--input: want a JSON object of state keys, got %s", engine.MustEncode(in))
	}
	if res.file != nil {
		if err := res.file.CheckInput(m); err != nil {
			return usagef("--input: %v", err)
		}
	}
	if err := checkKeys(gr, m, "--input"); err != nil {
		// The engine ignores such keys, as LangGraph does; a typo
		// should not pass unseen.
		ignored := "; it is ignored"
		var uk *engine.UnknownKeysError
		if errors.As(err, &uk) && len(uk.Keys) > 1 {
			ignored = "; they are ignored"
		}
		a.warn(err.Error() + ignored)
	}
	return nil
}

// noExampleInput refuses a new thread of a graph with no example input
// and no --input.
func noExampleInput(graphArg string) error {
	return usagef("graph %s has no example input (no invoke op with an input): pass --input", graphArg)
}

// noExampleHeadless refuses a new thread of a graph with no example input
// in the headless debugger, which has no --input: run has.
func noExampleHeadless(ctx context.Context, graphArg string) error {
	return usagef("graph %s has no example input (no invoke op with an input), and without a terminal the debugger runs headless, with no way to ask for one: %s --input '{...}' starts a thread (or add an input to the file's first invoke op)", graphArg, hintLine(ctx, "run", shellWord(graphArg)))
}

// noDatabaseYet reports whether --db names a database file that does not
// exist yet: no thread is stored in it.
func noDatabaseYet(g *globals) bool {
	path, err := dbPath(g)
	if err != nil || !isFileName(path) {
		return false
	}
	_, err = os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// runInput is what the run starts with: --resume's answer to the
// interrupt pending at the thread's latest checkpoint, or at from's (with
// --update's state keys), --input, or for a new thread without it the
// graph's example input.
func runInput(ctx context.Context, gr *engine.Graph, graphArg, thread string, from checkpointFlag, exists bool, req *runRequest, example map[string]any) (any, error) {
	switch {
	case req.resume != "":
		if !exists {
			return nil, usagef("%w: %q has nothing to resume", ErrThreadNotFound, thread)
		}
		if err := checkPending(ctx, gr, thread, graphArg, from); err != nil {
			return nil, err
		}
		cmd := engine.Command{Resume: req.answer}
		if req.update != nil {
			cmd.Update = req.update
		}
		return cmd, nil
	case req.in == nil && !exists:
		if example == nil {
			// (A map, not an any: a scenario without an invoke input
			// has a nil map, which as an any is not nil and ran as {}.)
			return nil, noExampleInput(graphArg)
		}
		return example, nil
	}
	return req.in, nil
}

// checkpointFlag is --checkpoint resolved on its thread: the run goes on
// from checkpoint id (engine.FromCheckpoint: time travel, or with
// --resume the answer to what waits there). The zero value is no
// --checkpoint: the thread's latest.
type checkpointFlag struct {
	id string
	// older: id is not the thread's latest checkpoint, so the run starts
	// a branch beside the ones that follow it.
	older bool
}

// fromCheckpoint resolves the checkpoint prefix names on thread
// (--checkpoint).
func fromCheckpoint(ctx context.Context, st Store, thread string, exists bool, prefix string) (checkpointFlag, error) {
	if !exists {
		return checkpointFlag{}, usagef("%w: %q: --checkpoint needs an existing thread", ErrThreadNotFound, thread)
	}
	list, err := threadCheckpoints(ctx, st, thread)
	if err != nil {
		return checkpointFlag{}, err
	}
	t, err := findCheckpoint(ctx, list, thread, prefix)
	if err != nil {
		return checkpointFlag{}, err
	}
	// list is newest first; its first is what the engine loads as latest.
	return checkpointFlag{id: t.Checkpoint.ID, older: t.Checkpoint.ID != list[0].Checkpoint.ID}, nil
}

// resumeAnswer reads --resume: JSON when it parses; else a bare word, such
// as approve, is taken as that string, as the debugger's answer box takes
// it. Text that looks like JSON (an object, a list, a quoted string, a
// number) but does not parse is an error naming where, with the quoting.
func resumeAnswer(s string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return engine.FromJSON(v), nil
	}
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t[:1], "{[\"-0123456789") {
		_, err := decodeJSON("--resume", []byte(s))
		return nil, usagef("%v (a plain string answer needs no quotes: --resume approve; JSON needs shell quotes: --resume '{\"action\":\"approve\"}')", err)
	}
	return s, nil
}

func (a *App) tuiCommand(g *globals) *cobra.Command {
	var thread string
	var force bool
	var lint lintMode
	cmd := &cobra.Command{
		Use:   "tui GRAPH",
		Short: "Open the debugger on a graph",
		Long: `Open the interactive debugger on GRAPH and a thread of the database (a new
thread from the graph's example input unless --thread names an existing one).`,
		Example: `  superstep tui research
  superstep tui research --thread t1
  superstep tui ./my-scenario.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.debug(cmd.Context(), g, args[0], thread, force, lint)
		},
	}
	addLintFlag(cmd, &lint)
	cmd.Flags().BoolVar(&force, "force", false, "open a thread whose recorded graph differs incompatibly")
	cmd.Flags().StringVar(&thread, "thread", "", "thread id (default: the graph's name for a built-in graph, a new thread for a file)")
	return cmd
}

// debug opens the debugger on graph arg and thread.
func (a *App) debug(ctx context.Context, g *globals, arg, thread string, force bool, lint lintMode) (err error) {
	if err := checkThreadFlag(thread); err != nil {
		return err
	}
	// Shared: commands that read the database work in another terminal
	// while the debugger is open; other writers are kept out.
	st, rec, res, err := a.openGraph(ctx, g, storeOptions{Shared: true}, arg, lint, func(res *resolvedGraph) error {
		// Without a terminal the debugger runs headless, which has no
		// way to ask for an input (the debugger's T has): a new thread
		// with nothing to start from is refused before the database
		// opens, so none is created.
		if res.example == nil && (thread == "" || noDatabaseYet(g)) && !hasTerminal() {
			return noExampleHeadless(ctx, arg)
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer closeStore(st, &err)
	gr, example, name := res.g, res.example, res.recordName
	named := thread != ""
	switch {
	case named:
	case res.builtin:
		thread = arg
	default: // a scenario path, relative or not, makes a poor thread id
		thread = newThreadID()
	}
	exists, err := a.checkThread(ctx, st, thread, gr, force)
	if err != nil {
		return err
	}
	o := DebugOptions{Program: a.Name, Thread: thread, GraphName: arg, Title: graphTitle(gr.Name(), name), GraphKey: name, Saver: rec, Threads: st.Threads, Stdout: a.Stdout, Stderr: a.Stderr, RecursionLimit: res.recursionLimit, RuntimeContext: res.runtimeContext, Scenario: res.file,
		// The switcher's check: the same as the command line's, with the
		// note of a compatible change left out (it would garble the screen).
		CheckThread: func(checkCtx context.Context, t string) error {
			err := checkTopology(checkCtx, st, t, gr, force, func(string) {})
			if errors.Is(err, engine.ErrGraphChanged) {
				return pickerRefusal(ctx, st, t, name, err)
			}
			return err
		}}
	if !exists {
		o.Input = example
		if named {
			// A typo would otherwise open an empty new thread unseen.
			o.CloseThreads = closeThreads(ctx, st, thread)
			close := ""
			if len(o.CloseThreads) > 0 {
				close = "close ids there: " + closeThreadsText(o.CloseThreads) + "; "
			}
			o.Warning = fmt.Sprintf("thread %q is not in the database %s: starting it as a new thread (%s%s lists those there)", thread, dbLabel(g), close, hintLine(ctx, "threads"))
			o.Notice = fmt.Sprintf("thread %q is not in the database: a new thread, written when you step (n s c); T lists the threads", thread)
		}
	}
	if exists {
		// The head a replay moved onto its branch is where the debugger
		// opens: say so, and where the recorded run ended.
		how := "the debugger goes on from the replay's branch"
		o.Notice = replayHeadNotice(ctx, gr, thread)
		o.Warning = replayHeadNote(ctx, gr, thread, how, func(end string) string {
			return hintLine(ctx, "run", shellWord(arg), "--thread", shellWord(thread), "--checkpoint", end) + " goes on from there"
		})
	}
	if err := rec.recordFor(ctx, thread, exists, func(ctx context.Context) error { return recordGraph(ctx, st, thread, gr, name) }); err != nil {
		return storeError(err, "recording the graph of thread %q", thread)
	}
	// Threads the debugger starts itself (T, then a new thread) run gr
	// too: they are recorded as the one named here is. A thread that
	// has a record already (one of subgraph checkpoints only) keeps it.
	rec.recordNew = func(ctx context.Context, t string) error {
		if fp, err := st.Fingerprint(ctx, t); err != nil || fp != "" {
			return err
		}
		return recordGraph(ctx, st, t, gr, name)
	}
	return a.Debugger(ctx, gr, o)
}

// Headless is the debugger used until a terminal UI is installed: it runs
// the thread to its next stop and prints a readable log.
func Headless(ctx context.Context, g *engine.Graph, o DebugOptions) error {
	if o.Warning != "" { // it has no screen to show o.Notice on
		fmt.Fprintf(o.Stderr, "%s: warning: %s\n", o.program(), o.Warning)
	}
	st, _ := o.Saver.(Store)
	if o.Input == nil {
		// No input: the thread must exist, for there is nothing to start
		// it from (the engine's own error names its __start__ channel).
		exists, err := threadExists(ctx, o.Saver, o.Thread)
		if err != nil {
			return err
		}
		if !exists {
			return noExampleHeadless(ctx, o.GraphName)
		}
	}
	r := &runner{g: g, st: st, thread: o.Thread, graphArg: o.GraphName, out: o.Stdout, warn: func(string) {}, file: o.Scenario}
	if o.RecursionLimit > 0 {
		r.opts = append(r.opts, engine.WithRecursionLimit(o.RecursionLimit))
	}
	var in any
	if o.Input != nil {
		in = o.Input
	}
	return r.run(ctx, in, o.Input == nil)
}

func newThreadID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "t-" + hex.EncodeToString(b[:])
}

func threadExists(ctx context.Context, s engine.Saver, thread string) (bool, error) {
	t, err := s.GetTuple(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return false, storeError(err, "reading thread %q", thread)
	}
	return t != nil, nil
}

// checkPending refuses a resume with no interrupt to answer, before the
// engine writes anything: at the thread's latest checkpoint, or at
// from's, whose interrupt the run answers on a new branch from it, as the
// debugger's answer box does there and as LangGraph resumes a config that
// names a checkpoint_id (the engine runs it so).
func checkPending(ctx context.Context, g *engine.Graph, thread, graphArg string, from checkpointFlag) error {
	cfg := engine.Config{ThreadID: thread}
	if from.older {
		// The latest is read as the latest (its finished tasks' writes
		// applied) whether --checkpoint names it or not.
		cfg.CheckpointID = from.id
	}
	snap, err := g.GetState(ctx, cfg)
	if err != nil {
		return asUsage(err)
	}
	if len(snap.Interrupts()) > 0 {
		return nil
	}
	if from.older {
		return nothingPendingAt(ctx, snap, thread, graphArg)
	}
	where := fmt.Sprintf("thread %q", thread)
	if from.id != "" {
		where = fmt.Sprintf("checkpoint %s of thread %q", engine.ShortID(from.id), thread)
	}
	goOn := hintLine(ctx, "run", shellWord(graphArg), "--thread", shellWord(thread))
	for _, t := range snap.Tasks {
		if t.Answered && t.Error != "" {
			// LangGraph keeps a saved answer: re-running the node feeds it
			// the same one, so a new --resume would be ignored. A run
			// addressed at the latest checkpoint resumes it; a fork from
			// the one before asks again.
			return usagef("%w: %s: node %s was answered %s and failed with it (%s); the saved answer is kept, as LangGraph keeps it, so a new --resume would be ignored. Continue with it: %s; or be asked again on a fork from the checkpoint before: %s, then --resume",
				engine.ErrNothingPending, where, t.Name, engine.MustEncode(t.Answers), oneLine(t.Error), goOn,
				hintLine(ctx, "run", shellWord(graphArg), "--thread", shellWord(thread), "--checkpoint", engine.ShortID(snap.ParentID)))
		}
	}
	hint := "it has finished"
	if len(snap.Next) > 0 {
		hint = fmt.Sprintf("it is paused before %s; continue it with: %s", strings.Join(snap.Next, ", "), goOn)
	}
	return usagef("%w: %s (%s)", engine.ErrNothingPending, where, hint)
}

// nothingPendingAt is checkPending's refusal at snap, a checkpoint older
// than its thread's latest, where nothing waits for an answer. A question
// answered there keeps its answer, as LangGraph keeps a saved answer: a
// resume from there would feed it to the node again (whether the node
// then went on or failed), so a new one would be ignored. A run from
// there without --resume travels in time: a fork that asks again.
func nothingPendingAt(ctx context.Context, snap *engine.StateSnapshot, thread, graphArg string) error {
	id := engine.ShortID(snap.Config.CheckpointID)
	where := fmt.Sprintf("checkpoint %s of thread %q", id, thread)
	fromThere := hintLine(ctx, "run", shellWord(graphArg), "--thread", shellWord(thread), "--checkpoint", id)
	for _, t := range snap.Tasks {
		if t.Answered && len(t.Interrupts) > 0 {
			return usagef("%w: %s: node %s was answered there (%s); the saved answer is kept, as LangGraph keeps it, so a new --resume would be ignored. Be asked again on a fork from it: %s, then --resume",
				engine.ErrNothingPending, where, t.Name, engine.MustEncode(t.Answers), fromThere)
		}
	}
	hint := "its run ended there"
	if len(snap.Next) > 0 {
		hint = fmt.Sprintf("none of its tasks asked: it plans %s; go on from it with: %s", strings.Join(snap.Next, ", "), fromThere)
	}
	return usagef("%w: %s (%s)", engine.ErrNothingPending, where, hint)
}

// checkThreadFlag refuses a --thread that is not an id a person may give
// (persist.CheckThreadID: control characters, not UTF-8, too long, blank,
// white space at an end) before anything runs.
func checkThreadFlag(thread string) error {
	if thread == "" {
		return nil
	}
	if err := persist.CheckThreadID(thread); err != nil {
		return usagef("--thread: %s", storeMessage(err))
	}
	return nil
}

// runner runs one graph invocation and reports its events.
type runner struct {
	g        *engine.Graph
	st       Store // nil: nothing is recorded
	thread   string
	graphArg string
	json     bool
	out      io.Writer
	warn     func(string)
	opts     []engine.RunOption // more options for Invoke
	// file is the scenario file the graph was built from (nil for a
	// built-in): a run's error and warnings point at its expression.
	file *scenario.File
	// reported marks failed tasks whose failure a task event reported.
	reported  map[string]bool
	stream    []engine.StreamMode // --stream: print these modes' chunks
	subgraphs bool

	mu sync.Mutex
}

// runEvent is one line of run --json.
type runEvent struct {
	Event   string         `json:"event"`
	Step    *int           `json:"step,omitempty"`
	Name    string         `json:"name,omitempty"`
	Status  string         `json:"status,omitempty"`
	ID      string         `json:"id,omitempty"`
	Source  string         `json:"source,omitempty"`
	Node    string         `json:"node,omitempty"`
	Value   any            `json:"value,omitempty"`
	Values  map[string]any `json:"values,omitempty"`
	Thread  string         `json:"thread,omitempty"`
	Kind    string         `json:"kind,omitempty"`
	Message string         `json:"message,omitempty"`
	Mode    string         `json:"mode,omitempty"`
	NS      []string       `json:"ns,omitempty"`
	Data    any            `json:"data,omitempty"`
	// Output is what an entrypoint's run returned (its output, null
	// until set), in place of values: an entrypoint has no state keys.
	Output json.RawMessage `json:"output,omitempty"`
	// HeldCalls are the Task calls a breakpoint kept from running, when
	// they stopped the run (engine.Result.HeldCalls).
	HeldCalls []heldCall `json:"held_calls,omitempty"`
}

// heldCall is an engine.HeldCall in run --json.
type heldCall struct {
	Caller string `json:"caller"`
	Task   string `json:"task"`
	// Breakpoint is "interrupt_after" (on Caller) or "interrupt_before"
	// (on Task).
	Breakpoint string `json:"breakpoint"`
	// Namespace is the subgraph run's whose breakpoint held it, "" (left
	// out) at the root.
	Namespace string `json:"namespace,omitempty"`
}

func heldCalls(held []engine.HeldCall) []heldCall {
	var out []heldCall
	for _, h := range held {
		bp := "interrupt_before"
		if h.After {
			bp = "interrupt_after"
		}
		out = append(out, heldCall{Caller: h.Caller, Task: h.Task, Breakpoint: bp, Namespace: h.Namespace})
	}
	return out
}

func (r *runner) emit(e runEvent, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json {
		b, err := json.Marshal(e)
		if err != nil {
			b, _ = json.Marshal(runEvent{Event: "error", Kind: "Encoding", Message: err.Error()})
		}
		fmt.Fprintf(r.out, "%s\n", b)
		return
	}
	fmt.Fprintln(r.out, text)
}

func (r *runner) run(ctx context.Context, input any, existed bool) error {
	if !r.json {
		state := "new"
		if existed {
			state = "continued"
		}
		fmt.Fprintf(r.out, "thread %s (%s) on graph %s\n", termtext.Name(r.thread), state, termtext.Name(r.g.Name()))
	}
	opts := []engine.RunOption{engine.OnThread(r.thread)}
	if r.stream != nil {
		opts = append(opts, engine.WithStreamParts(r.g, r.stream, r.onPart))
		if r.subgraphs {
			opts = append(opts, engine.WithSubgraphs())
		}
	} else {
		opts = append(opts, engine.WithEvents(r.onEvent))
	}
	res, err := r.g.Invoke(ctx, input, append(opts, r.opts...)...)
	if err != nil {
		var ne *engine.NodeError
		if errors.As(engine.FirstFailure(err), &ne) && !r.reported[ne.TaskID] {
			// Reported here only when no task event did (a failure in
			// the writers, or before the task started).
			step := ne.Step
			r.emit(runEvent{Event: "task", Step: &step, Name: ne.Node, Status: "error"}, fmt.Sprintf("step %-3d %-20s error", step, termtext.Name(ne.Node)))
		}
		if errors.Is(err, engine.ErrEmptyInput) && input != nil && !r.g.IsEntrypoint() {
			// LangGraph's words name an internal channel: say what the
			// input lacks, and where an input comes from.
			return usagef("thread %s: the input %s writes no state key of graph %s (%s): pass --input with one", r.thread,
				engine.MustEncode(plainValue(input)), termtext.Name(r.g.Name()), strings.Join(termtext.Names(r.g.StateKeys()), ", "))
		}
		if errors.Is(err, engine.ErrEmptyInput) || errors.Is(err, engine.ErrNoCheckpoint) {
			return asUsage(err)
		}
		if badInput(err) {
			// The input or the answer given, refused before anything
			// was saved: the command's input, exit 2.
			return r.failed(errorKind(err), err.Error(), asUsage(fmt.Errorf("thread %s: %w", r.thread, err)))
		}
		var unknown *postgres.CommitUnknownError
		if errors.As(err, &unknown) {
			return r.commitUnknown(ctx, unknown)
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return r.cancelled(ctx)
		}
		msg, hint := err.Error(), ""
		var limit *engine.GraphRecursionError
		if errors.As(err, &limit) {
			// The engine's words name its Go option; here it is a flag.
			msg = limit.Reached() + "; --recursion-limit raises it"
		} else if errors.As(engine.FirstFailure(err), new(*engine.NodeError)) {
			// For the person reading stderr; --json's message is the
			// error alone, as a program matches it.
			hint = r.failedNodeHint(ctx, err)
		}
		return r.failed(errorKind(err), msg, failf("%s%s", r.placed(err, fmt.Sprintf("thread %s: %s", r.thread, msg)), hint))
	}
	if err := flushStore(r.st); err != nil {
		// Under --durability async or exit the checkpoints are stored
		// now: the run's end is reported once they are, or as the
		// failure it is (another process advanced the thread meanwhile).
		return r.failed(errorKind(err), err.Error(), failf("thread %s: saving its checkpoints: %s", r.thread, storeMessage(err)))
	}
	for _, in := range res.Interrupts {
		r.emit(runEvent{Event: "interrupt", Node: in.Node, ID: in.ID, Value: plainValue(in.Value)},
			fmt.Sprintf("interrupt in %s (id %s): %s", termtext.Name(in.Node), termtext.Name(in.ID), engine.MustEncode(in.Value)))
	}
	status := res.Status.String()
	// What the run returned: an entrypoint's output (Result.Output), a
	// StateGraph's state.
	var returned any = plainMap(res.Values)
	if r.g.IsEntrypoint() {
		returned = plainValue(res.Output)
	}
	if r.json {
		done := runEvent{Event: "done", Status: status, Thread: r.thread, HeldCalls: heldCalls(res.HeldCalls)}
		if r.g.IsEntrypoint() {
			done.Output = json.RawMessage(engine.MustEncode(res.Output))
		} else {
			done.Values = plainMap(res.Values)
		}
		r.emit(done, "")
		return nil
	}
	fmt.Fprintf(r.out, "%s: %s\n", status, indentJSON(returned))
	if res.Status == engine.StatusInterrupted && len(res.Interrupts) > 0 {
		// Without an example answer for the graph, no answer is guessed:
		// the node reads the answer into its own type, and a wrong guess
		// ("yes" for a bool) fails the node and is kept as its answer.
		answer, what := "ANSWER", "  (ANSWER is the value the node expects, as JSON — true, 3, '{\"ok\":true}' — or a bare word, taken as a string)\n"
		if ex, ok := graphs.Get(r.graphArg); ok && len(ex.Answers) > 0 {
			answer, what = "'"+ex.Answers[0]+"'", ""
		}
		fmt.Fprintf(r.out, "answer with: %s\n%s", hintLine(ctx, "run", shellWord(r.graphArg), "--thread", shellWord(r.thread), "--resume", answer), what)
	}
	if res.Status == engine.StatusInterrupted && len(res.Interrupts) == 0 {
		why := "stopped at a breakpoint (interrupt_before/after)"
		if len(res.HeldCalls) > 0 {
			held := make([]string, len(res.HeldCalls))
			for i, h := range res.HeldCalls {
				held[i] = h.String()
			}
			why = "a breakpoint held " + strings.Join(held, ", ") + ", which returned nothing: the step's writes are saved, not yet applied"
		}
		fmt.Fprintf(r.out, "%s; continue it with: %s\n", termtext.Name(why), hintLine(ctx, "run", shellWord(r.graphArg), "--thread", shellWord(r.thread)))
	}
	return nil
}

// placed is msg, the line that reports err, a run's failure, for a
// person: at the place in the scenario file of the expression that made
// err (file:line:column and its field first, as a compiler prints it),
// or as it is when err names none or the graph is a built-in.
func (r *runner) placed(err error, msg string) string {
	if r.file == nil {
		return msg
	}
	if at, ok := r.file.Where(err, msg); ok {
		return at.Error()
	}
	return msg
}

// failedNodeHint is what follows a node's failure: the command that runs
// the thread again (the failed step's finished tasks keep their saved
// writes, as the debugger's n does), and for a panic the one that prints
// where it panicked (its frames are saved with the task's error).
func (r *runner) failedNodeHint(ctx context.Context, err error) string {
	again := hintLine(ctx, "run", shellWord(r.graphArg), "--thread", shellWord(r.thread))
	if engine.PanicStack(err) != "" {
		return fmt.Sprintf("; %s prints where it panicked, and %s runs it again", hintLine(ctx, "show", shellWord(r.thread)), again)
	}
	return fmt.Sprintf("; %s runs it again, the step's finished tasks keeping their writes", again)
}

// badInput reports a run refused for its input or resume value (too deep
// or too large), which the run checks before it saves anything.
func badInput(err error) bool {
	var le *engine.ValueLimitError
	return errors.As(err, &le) && le.Node == engine.InputTask && (le.Key == engine.Start || le.Key == engine.ResumeChannel)
}

// cancelled reports a run that Ctrl-C or SIGTERM stopped (main's signal
// context): the engine cancelled the tasks still running, which record the
// cancellation as their error while finished tasks keep their writes, as
// after a failure, so running the thread again goes on from there.
func (r *runner) cancelled(ctx context.Context) error {
	const what = "the run was stopped: the tasks still running were cancelled, the finished ones' writes are kept"
	return r.failed("Canceled", what, failf("thread %s: cancelled: %s; continue it with: %s", r.thread, what,
		hintLine(ctx, "run", shellWord(r.graphArg), "--thread", shellWord(r.thread))))
}

// commitUnknown reports a run stopped (Ctrl-C) while its commit waited on
// a PostgreSQL server that stopped answering: the store gave up on it
// after its connect timeout, and what it sent may or may not be stored.
// The message is the store's, which names the thread and the checkpoint
// and writes in flight, with the commands that tell and that go on.
func (r *runner) commitUnknown(ctx context.Context, ue *postgres.CommitUnknownError) error {
	what := "stopped"
	if ue.Cause != nil {
		what = "cancelled"
	}
	msg := fmt.Sprintf("%s while its commit was in flight: %s: %s, then continue it with: %s", what, ue.Error(),
		hintLine(ctx, "history", shellWord(r.thread)), hintLine(ctx, "run", shellWord(r.graphArg), "--thread", shellWord(r.thread)))
	return r.failed("CommitUnknown", msg, failf("thread %s: %s", r.thread, msg))
}

// failed reports a run that ended in err, which the command returns:
// App.Run prints its one line on stderr, once, for a person, and its exit
// code says the run failed. Stdout keeps the run's own output: the events
// as they happened, and with --json a last {"event":"error","kind":..,
// "message":..} in place of "done", so a machine reader of the lines
// always gets the run's end there; plain text gets no copy of the error.
func (r *runner) failed(kind, message string, err error) error {
	if r.json {
		r.emit(runEvent{Event: "error", Kind: kind, Message: oneLine(message)}, "")
	}
	return err
}

func (r *runner) onEvent(e engine.Event) {
	step := e.Step
	switch e.Kind {
	case engine.EventTask:
		if e.Reused {
			r.emit(runEvent{Event: "task", Step: &step, Name: e.Node, Status: "reused"}, fmt.Sprintf("step %-3d %-20s reused", step, termtext.Name(e.Node)))
		}
	case engine.EventTaskResult:
		if e.Err != nil {
			r.mu.Lock()
			if r.reported == nil {
				r.reported = map[string]bool{}
			}
			r.reported[e.TaskID] = true
			r.mu.Unlock()
		}
		status := "ran"
		switch {
		case engine.IsCancellation(e.Err):
			status = "cancelled" // a sibling's failure or Ctrl-C stopped it
		case e.Err != nil:
			status = "error"
		case len(e.Interrupts) > 0:
			status = "interrupted"
		}
		r.emit(runEvent{Event: "task", Step: &step, Name: e.Node, Status: status}, fmt.Sprintf("step %-3d %-20s %s", step, termtext.Name(e.Node), status))
	case engine.EventRetry:
		if e.Namespace != "" {
			return
		}
		msg := oneLine(e.Err.Error())
		r.emit(runEvent{Event: "task", Step: &step, Name: e.Node, Status: "retrying", Message: msg},
			fmt.Sprintf("step %-3d %-20s retrying: attempt %d failed: %s", step, termtext.Name(e.Node), e.Attempt, termtext.Name(msg)))
	case engine.EventUnknownNode, engine.EventUnknownKey:
		msg, text := e.Warning(), e.Warning()
		if r.file != nil {
			if at, ok := r.file.WhereTask(e.TaskID, msg); ok {
				text = at.Error() // the expression that named it
			}
		}
		r.emit(runEvent{Event: "warning", Step: &step, Name: e.Node, Message: msg},
			fmt.Sprintf("step %-3d %-20s warning: %s", step, termtext.Name(e.Node), termtext.Name(text)))
	case engine.EventCheckpoint:
		if e.Namespace != "" {
			return
		}
		r.emit(runEvent{Event: "checkpoint", Step: &step, ID: e.Checkpoint.ID, Source: e.Metadata.Source},
			fmt.Sprintf("checkpoint %s step %d (%s)", termtext.Name(engine.ShortID(e.Checkpoint.ID)), step, termtext.Name(e.Metadata.Source)))
	}
}

// onPart prints one stream chunk (--stream).
func (r *runner) onPart(p engine.StreamPart) {
	data := plainValue(p.Data)
	text := fmt.Sprintf("%-11s %s", p.Mode, engine.MustEncode(data))
	if len(p.Namespace) > 0 {
		text = fmt.Sprintf("%-11s [%s] %s", p.Mode, termtext.Name(strings.Join(p.Namespace, " ")), engine.MustEncode(data))
	}
	r.emit(runEvent{Event: "stream", Mode: string(p.Mode), NS: p.Namespace, Data: data}, text)
}

// parseStreamModes reads --stream: comma-separated mode names (nil for "").
func parseStreamModes(s string) ([]engine.StreamMode, error) {
	if s == "" {
		return nil, nil
	}
	var out []engine.StreamMode
	for _, name := range strings.Split(s, ",") {
		m, ok := engine.ParseStreamMode(strings.TrimSpace(name))
		if !ok {
			return nil, usagef("--stream: unknown mode %q (expected values, updates, custom, messages, tasks, checkpoints or debug)", name)
		}
		out = append(out, m)
	}
	return out, nil
}

// errorKind names a run's failure for run --json: the kind of the failure
// that ended its superstep, not of a call that failed after it.
func errorKind(err error) string {
	err = engine.FirstFailure(err)
	var ne *engine.NodeError
	var gr *engine.GraphRecursionError
	var iu *engine.InvalidUpdateError
	switch {
	case errors.As(err, &ne):
		return "NodeError"
	case errors.As(err, &gr):
		return "GraphRecursionError"
	case errors.As(err, &iu):
		return "InvalidUpdateError"
	case errors.Is(err, postgres.ErrCommitUnknown):
		return "CommitUnknown"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "Canceled"
	}
	return "Error"
}

// plainValue turns an engine value into data encoding/json prints the way
// the engine's codec does (Sends and interrupts tagged).
func plainValue(v any) any {
	b, err := engine.EncodeValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return string(b)
	}
	return out
}

func plainMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = plainValue(v)
	}
	return out
}

func indentJSON(v any) string {
	// For people: "<html>" and "a & b" as written, not as \u003c and
	// \u0026 (encoding/json's escaping for HTML pages).
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkThread reports whether thread exists and, when it does, checks the
// graph against the topology it was recorded with (checkTopology).
func (a *App) checkThread(ctx context.Context, st Store, thread string, gr *engine.Graph, force bool) (bool, error) {
	exists, err := threadExists(ctx, st, thread)
	if err != nil || !exists {
		return false, err
	}
	return true, checkTopology(ctx, st, thread, gr, force, a.warn)
}

// dbLabel names the database for a message.
func dbLabel(g *globals) string {
	p, err := dbPath(g)
	if err != nil {
		return "(unknown)"
	}
	return displayDB(p) // a URL's password is never shown
}
