package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs/scenario"
	"github.com/superstep/superstep/persist"
)

func (a *App) traceCommand(_ *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "trace FILE",
		Short: "Run a scenario file and print its normalized trace",
		Long: `Run every op of the scenario FILE on a fresh in-memory database and print
the trace (shared/conformance/TRACE-FORMAT.md) that the conformance suite
compares with LangGraph.js's.`,
		Example: "  superstep trace scenarios/interrupt_approve.json > got.trace.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notAURL("scenario", args[0], "FILE is a scenario file"); err != nil {
				return err
			}
			// TraceFile, not Load+Trace: a graph LangGraph refuses to compile
			// is a compile_error trace, as the reference runner prints it.
			// An op's error is part of the trace, by its kind alone, as
			// LangGraph.js's runner prints it; the person running it
			// wants the message too.
			opError := func(op scenario.Op, err error) {
				if at := (*scenario.Error)(nil); errors.As(err, &at) {
					// At the expression that made it, as run prints it.
					placed := *at
					placed.Msg = fmt.Sprintf("ops[%d] (%s) failed: %s", op.Index, op.Kind, at.Msg)
					a.warn(placed.Error())
					return
				}
				a.warn(fmt.Sprintf("%s: ops[%d] (%s) failed: %v", args[0], op.Index, op.Kind, err))
			}
			t, err := scenario.TraceFile(cmd.Context(), args[0], scenario.RunOptions{OpError: opError})
			if err != nil {
				if os.IsNotExist(err) {
					return usagef("scenario %s: no such file", args[0])
				}
				return usagef("%v", err)
			}
			if _, ok := t["compile_error"]; ok {
				// The trace keeps the normalized kind LangGraph.js prints;
				// the person running it wants the message.
				for _, line := range compileMessages(args[0]) {
					a.warn(fmt.Sprintf("scenario %s does not compile: %s", args[0], line))
				}
			}
			a.Stdout.Write(scenario.Canonical(t, 1))
			_, err = fmt.Fprintln(a.Stdout)
			return err
		},
	}
}

func loadScenario(path string) (*scenario.File, error) {
	if err := notAURL("scenario", path, "FILE is a scenario file"); err != nil {
		return nil, err
	}
	f, err := scenario.Load(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, usagef("scenario %s: no such file", path)
		}
		return nil, usagef("%v", err)
	}
	return f, nil
}

type benchResult struct {
	Name       string  `json:"name"`
	Runs       int     `json:"runs"`
	MedianMS   float64 `json:"median_ms"`
	MinMS      float64 `json:"min_ms"`
	MaxMS      float64 `json:"max_ms"`
	Supersteps int     `json:"supersteps"`
	Tasks      int     `json:"tasks"`
	// Saver is none, memory, or bbolt and its durability ("bbolt sync").
	Saver string `json:"saver"`
	OK    bool   `json:"ok"`
}

// benchFlags are bench's flags.
type benchFlags struct {
	runs, warmup                              int
	saver, durability, cpuProfile, memProfile string
}

// check refuses flags that cannot go together, before anything is loaded,
// and returns the bbolt durability.
func (fl *benchFlags) check(cmd *cobra.Command) (persist.Durability, error) {
	if fl.runs < 1 || fl.warmup < 0 {
		return 0, usagef("--runs must be at least 1 and --warmup at least 0")
	}
	if fl.runs > maxBenchRuns || fl.warmup > maxBenchRuns {
		// Each timed run keeps its time: a count past this is a typo,
		// and allocating for it ran out of memory or panicked.
		return 0, usagef("--runs and --warmup must be at most %d", maxBenchRuns)
	}
	dur, err := parseDurability(fl.durability)
	if err != nil {
		return 0, err
	}
	if fl.saver != "bbolt" && cmd.Flags().Changed("durability") {
		return 0, usagef("--durability applies to --saver bbolt, not %s", fl.saver)
	}
	return dur, nil
}

func (a *App) benchCommand(g *globals) *cobra.Command {
	var fl benchFlags
	cmd := &cobra.Command{
		Use:   "bench FILE",
		Short: "Time a scenario's first invoke",
		Long: `Build the scenario FILE's graph once and run its first invoke op --runs
times, each on a fresh thread, after --warmup untimed runs; print the median,
fastest and slowest. --saver bbolt times the runs on a bbolt database in a
temporary directory, removed afterwards, with --durability sync, async or
exit; writes a run leaves buffered are committed after it, untimed. When
NAME.summary.json sits next to FILE, the scenario's summary trace must equal
it, and the file's perf counts must match the run (ok is false and the exit
code 1 otherwise).

The runs take the command's context, which Ctrl-C cancels, as a service's
request context would be: a superstep of one task then runs it on a
goroutine of its own, so that a cancelled run can leave a node that ignores
its context. That costs about a microsecond a superstep, which Go code
that runs a graph on context.Background does not pay (the engine's
BenchmarkPerfWorkloadCancellable against BenchmarkPerfWorkload).`,
		Example: `  superstep bench perf/chain_1000.json --runs 20
  superstep bench perf/fanout_1000.json --saver none --json
  superstep bench perf/chain_1000.json --saver bbolt --durability async
  superstep bench perf/loop_5000.json --cpuprofile cpu.out`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			dur, err := fl.check(cmd)
			if err != nil {
				return err
			}
			ctx, file := cmd.Context(), args[0]
			f, err := loadScenario(file)
			if err != nil {
				return err
			}
			b, err := newBench(file, f, fl.runs, fl.saver)
			if err != nil {
				return err
			}
			cleanup, err := b.useSaver(ctx, fl.saver, dur)
			if err != nil {
				return err
			}
			// Closed before its directory is removed, and after the timed
			// runs: with async or exit durability Close commits.
			defer func() {
				if cerr := cleanup(); cerr != nil && err == nil {
					err = failf("bench database: %v", cerr)
				}
			}()
			if b.graph, _, err = scenario.Build(f, b.opts...); err != nil {
				return buildError(file, err)
			}
			if err := a.checkBench(ctx, b, f); err != nil {
				return err
			}
			if err := b.timeRuns(ctx, &fl); err != nil {
				return err
			}
			if err := a.printBench(g, b.res); err != nil {
				return err
			}
			if !b.res.OK {
				return failf("%s: the run does not match its summary trace (%s) or its perf counts", file, summaryPath(file))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&fl.runs, "runs", 10, "timed runs")
	cmd.Flags().IntVar(&fl.warmup, "warmup", 1, "untimed runs before timing")
	cmd.Flags().StringVar(&fl.saver, "saver", "memory", "checkpoint store: none, memory or bbolt")
	cmd.Flags().StringVar(&fl.durability, "durability", "sync", "bbolt durability: sync, async or exit")
	cmd.Flags().StringVar(&fl.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed runs to this file")
	cmd.Flags().StringVar(&fl.memProfile, "memprofile", "", "write a heap profile after the timed runs to this file")
	return cmd
}

// maxBenchRuns bounds --runs and --warmup: each timed run keeps its time.
const maxBenchRuns = 1_000_000

// newBench is the bench of scenario f (read from file): its first invoke
// op, runs times.
func newBench(file string, f *scenario.File, runs int, saver string) (*bench, error) {
	b := &bench{file: file, res: benchResult{Name: f.Name, Runs: runs, OK: true, Saver: saver}}
	for i := range f.Ops {
		if f.Ops[i].Kind == scenario.OpInvoke {
			b.op = &f.Ops[i]
			return b, nil
		}
	}
	return nil, usagef("scenario %s has no invoke op to time", file)
}

// checkBench checks the scenario against its summary trace, when one sits
// beside it, and counts the supersteps and tasks of a run against the
// file's perf counts; a mismatch clears b.res.OK and is told on stderr.
func (a *App) checkBench(ctx context.Context, b *bench, f *scenario.File) (err error) {
	if _, serr := os.Stat(summaryPath(b.file)); serr == nil {
		// A traced run, before the timed ones: say where the time goes.
		fmt.Fprintf(a.Stderr, "%s: bench: checking the result against %s first (one traced run, not timed)\n", a.Name, summaryPath(b.file))
	}
	if b.res.OK, err = checkSummary(ctx, f, b.file); err != nil {
		return err
	}
	if err := b.count(ctx); err != nil {
		return err
	}
	if p := f.Perf; p != nil && (p.Supersteps != b.res.Supersteps || p.Tasks != b.res.Tasks) {
		b.res.OK = false
		fmt.Fprintf(a.Stderr, "%s: %s declares %d supersteps and %d tasks; the run made %d and %d\n", a.Name, b.file, p.Supersteps, p.Tasks, b.res.Supersteps, b.res.Tasks)
	}
	return nil
}

// timeRuns makes the warmup runs and then the timed ones, profiled as
// fl asks, and fills b.res's times.
func (b *bench) timeRuns(ctx context.Context, fl *benchFlags) error {
	for i := range fl.warmup {
		if err := b.run(ctx, fmt.Sprintf("bench-warmup-%d", i)); err != nil {
			return failf("%s: warmup run %d: %v", b.file, i, err)
		}
	}
	stopCPU, err := startCPUProfile(fl.cpuProfile)
	if err != nil {
		return err
	}
	times := make([]time.Duration, fl.runs)
	for i := range fl.runs {
		if times[i], err = b.timed(ctx, fmt.Sprintf("bench-%d", i)); err != nil {
			stopCPU()
			return failf("%s: run %d: %v", b.file, i, err)
		}
	}
	stopCPU()
	if err := writeMemProfile(fl.memProfile); err != nil {
		return err
	}
	b.res.setTimes(times)
	return nil
}

// bench times one scenario's first invoke op on a compiled graph.
type bench struct {
	file  string
	op    *scenario.Op
	graph *engine.Graph
	opts  []engine.CompileOption
	res   benchResult
	// settle commits what a run left buffered, untimed, so that each timed
	// run pays for its own writes and not its predecessor's.
	settle func() error
	// forget drops a finished run's thread, untimed, so every run starts
	// from the same saver: Go's collector scans what the earlier runs left
	// in memory, which would tax later runs.
	forget func(ctx context.Context, thread string) error
}

// useSaver sets up the checkpoint store the runs use; cleanup closes it
// (and removes a bbolt database's directory).
func (b *bench) useSaver(ctx context.Context, saver string, dur persist.Durability) (cleanup func() error, err error) {
	b.settle = func() error { return nil }
	b.forget = func(context.Context, string) error { return nil }
	cleanup = func() error { return nil }
	switch saver {
	case "none":
	case "memory":
		ms := engine.NewMemorySaver()
		b.opts = append(b.opts, engine.WithSaver(ms))
		b.forget = ms.DeleteThread
	case "bbolt":
		st, closeStore, err := tempStore(dur)
		if err != nil {
			return nil, err
		}
		b.opts = append(b.opts, engine.WithSaver(st))
		b.settle, cleanup = st.Flush, closeStore
		b.res.Saver += " " + dur.String()
	default:
		return nil, usagef("--saver %q: want none, memory or bbolt", saver)
	}
	return cleanup, nil
}

// runOpts are the options of a run on thread: the op's recursion limit.
func (b *bench) runOpts(thread string) []engine.RunOption {
	o := []engine.RunOption{engine.OnThread(thread)}
	if b.op.HasRecursionLimit {
		o = append(o, engine.WithRecursionLimit(b.op.RecursionLimit))
	}
	return o
}

// count makes one run, untimed (events cost time of their own), that
// counts the supersteps and tasks.
func (b *bench) count(ctx context.Context) error {
	counted := append(b.runOpts("bench-count"), engine.WithEvents(func(e engine.Event) {
		switch {
		case e.Kind == engine.EventCheckpoint && e.Namespace == "" && e.Metadata.Source == engine.SourceLoop:
			b.res.Supersteps++
		case e.Kind == engine.EventTask:
			b.res.Tasks++
		}
	}))
	if _, err := b.graph.Invoke(ctx, b.op.Input, counted...); err != nil {
		return failf("%s: %v", b.file, err)
	}
	return b.tidy(ctx, "bench-count")
}

// run makes one untimed run on thread and tidies after it.
func (b *bench) run(ctx context.Context, thread string) error {
	if _, err := b.graph.Invoke(ctx, b.op.Input, b.runOpts(thread)...); err != nil {
		return err
	}
	return b.tidy(ctx, thread)
}

// timed makes one run on thread and times it; tidying after it is not
// timed.
func (b *bench) timed(ctx context.Context, thread string) (time.Duration, error) {
	start := time.Now()
	_, err := b.graph.Invoke(ctx, b.op.Input, b.runOpts(thread)...)
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	return took, b.tidy(ctx, thread)
}

// tidy settles and forgets a finished run's thread.
func (b *bench) tidy(ctx context.Context, thread string) error {
	if err := b.settle(); err != nil {
		return failf("bench database: %v", err)
	}
	if err := b.forget(ctx, thread); err != nil {
		return failf("bench database: %v", err)
	}
	return nil
}

// setTimes fills the median, fastest and slowest of the timed runs.
func (r *benchResult) setTimes(times []time.Duration) {
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	r.MinMS, r.MaxMS = ms(times[0]), ms(times[len(times)-1])
	r.MedianMS = ms(times[len(times)/2])
	if len(times)%2 == 0 {
		r.MedianMS = ms((times[len(times)/2-1] + times[len(times)/2]) / 2)
	}
}

// printBench prints the result, as JSON with --json.
func (a *App) printBench(g *globals, res benchResult) error {
	if g.json {
		return writeJSON(a.Stdout, res)
	}
	verdict := "ok"
	if !res.OK {
		verdict = "MISMATCH with the summary trace"
	}
	fmt.Fprintf(a.Stdout, "%s: %d runs  median %.3f ms  min %.3f ms  max %.3f ms  (%d supersteps, %d tasks, saver %s)  %s\n",
		res.Name, res.Runs, res.MedianMS, res.MinMS, res.MaxMS, res.Supersteps, res.Tasks, res.Saver, verdict)
	return nil
}

// tempStore opens a bbolt database in a new temporary directory; cleanup
// closes it and removes the directory.
func tempStore(d persist.Durability) (st *persist.Store, cleanup func() error, err error) {
	dir, err := os.MkdirTemp("", "superstep-bench-")
	if err != nil {
		return nil, nil, failf("bench database: %v", err)
	}
	st, err = persist.Open(filepath.Join(dir, "bench.db"), persist.Options{Durability: d})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, failf("bench database: %v", err)
	}
	return st, func() error {
		err := st.Close()
		if rerr := os.RemoveAll(dir); err == nil {
			err = rerr
		}
		return err
	}, nil
}

func summaryPath(file string) string {
	return strings.TrimSuffix(file, ".json") + ".summary.json"
}

// checkSummary compares the scenario's summary trace with NAME.summary.json
// when that file exists (true when it does not).
func checkSummary(ctx context.Context, f *scenario.File, file string) (bool, error) {
	want, err := os.ReadFile(summaryPath(file))
	if os.IsNotExist(err) {
		return true, nil
	}
	if err != nil {
		return false, usagef("%v", err)
	}
	// Plain JSON, not engine values: Canonical compares tagged forms as data.
	var m map[string]any
	if err := json.Unmarshal(want, &m); err != nil {
		return false, usagef("%s: %s", summaryPath(file), jsonErrorAt(want, err))
	}
	if m == nil {
		return false, usagef("%s: want a JSON object with ops", summaryPath(file))
	}
	got, err := scenario.Trace(ctx, f, scenario.RunOptions{Summary: true})
	if err != nil {
		return false, failf("%s: %v", file, err)
	}
	return bytes.Equal(scenario.Canonical(got["ops"], 0), scenario.Canonical(m["ops"], 0)), nil
}

func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, failf("--cpuprofile: %v", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func writeMemProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return usagef("--memprofile: %v", err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		return failf("--memprofile: %v", err)
	}
	return nil
}

// compileMessages are why the scenario at path does not compile, one
// line a problem.
func compileMessages(path string) []string {
	f, err := scenario.Load(path)
	if err == nil {
		_, _, err = scenario.Build(f)
	}
	if err == nil {
		return []string{"(no message)"}
	}
	return errorLines(err)
}

// buildError is scenario.Build's error for the file at path, an input
// error: a graph that does not compile is its problems as they are, each
// naming the file and its place in it; any other error is prefixed by
// the file.
func buildError(path string, err error) error {
	var es scenario.Errors
	if errors.As(err, &es) {
		return asUsage(err)
	}
	return usagef("scenario %s: %v", path, err)
}
