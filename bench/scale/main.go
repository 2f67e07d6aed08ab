// Command scale makes and reads the databases behind `make bench-scale`
// (issue 17's read-side benchmarks). Each subcommand is one process, so
// /usr/bin/time -v measures its own peak memory:
//
//	scale gen -n 100000 -db big.db       a thread "big" of n supersteps
//	scale tree -db big.db [-full]        load the debugger's tree
//	scale history -db big.db [-graph]    the history command, in process
//	                                     (-cpuprofile, -memprofile)
//	scale bigvalue -steps 22 -mb 10 -db v.db
//	                                     a thread whose 10 MB value changes
//	                                     each step (export size)
//	scale roots -n 40000 > roots.json    an export of n root checkpoints
//	                                     (version 1, which every build reads)
//
// The thread "big" is a real run of loopGraph: an agent node that rewrites
// a short message and a counter every superstep beside a 4 KiB document
// that never changes, with one saved task write per checkpoint.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/superstep/superstep/cli"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/graphs"
	"github.com/superstep/superstep/persist"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scale gen|tree|bigvalue|roots [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	n := fs.Int("n", 1000, "checkpoints (gen, roots)")
	db := fs.String("db", "", "database file")
	full := fs.Bool("full", false, "tree: load every checkpoint with its values (History, as before issue 17)")
	steps := fs.Int("steps", 22, "bigvalue: supersteps")
	mb := fs.Int("mb", 10, "bigvalue: size of the changing value in MB")
	plan := fs.Bool("graph", false, "history: plan each checkpoint's tasks with the thread's graph (--graph)")
	cpuProfile := fs.String("cpuprofile", "", "tree, history: write a CPU profile here")
	memProfile := fs.String("memprofile", "", "tree, history: write a heap profile here (after the load)")
	fs.Parse(os.Args[2:])
	stop, err := startProfile(*cpuProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
	heapProfile = *memProfile
	switch os.Args[1] {
	case "history":
		// The history command in this process, so it can be profiled;
		// with -graph it plans every checkpoint's tasks with loopGraph.
		args := []string{"history", "big", "--db", *db}
		if *plan {
			err = graphs.Register(graphs.Example{Name: "scale-loop", Build: func(opts ...engine.CompileOption) (*engine.Graph, error) { return loopGraphWith(0, opts...) }})
			args = append(args, "--graph", "scale-loop")
		}
		if err != nil {
			break
		}
		if code := cli.Main(context.Background(), args); code != 0 {
			err = fmt.Errorf("history exited %d", code)
		} else {
			err = writeHeapProfile()
			fmt.Fprintln(os.Stderr, "history:", rss())
		}
	case "gen":
		err = gen(*db, *n)
	case "tree":
		err = tree(*db, *full)
	case "bigvalue":
		err = bigValue(*db, *steps, *mb<<20)
	case "roots":
		err = roots(*n)
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// heapProfile is where writeHeapProfile writes ("" for nowhere).
var heapProfile string

func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeHeapProfile writes the live heap after a load, while what the load
// kept is still referenced by the caller.
func writeHeapProfile() error {
	if heapProfile == "" {
		return nil
	}
	f, err := os.Create(heapProfile)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}

// loopGraph is the agent loop of thread "big": it runs until step reaches
// n (or forever when n is 0: the tree only plans with it).
func loopGraph(saver engine.Saver, n int) (*engine.Graph, error) {
	return loopGraphWith(n, engine.WithSaver(saver))
}

func loopGraphWith(n int, opts ...engine.CompileOption) (*engine.Graph, error) {
	return engine.NewStateGraph(engine.LastValueKey("step"), engine.LastValueKey("last"), engine.LastValueKey("doc")).Named("scale-loop").
		AddNode("agent", func(_ context.Context, s any) (any, error) {
			step, _ := s.(map[string]any)["step"].(float64)
			return map[string]any{"step": step + 1, "last": fmt.Sprintf("message %d of a long conversation, a line or two of text", int(step)+1)}, nil
		}).
		AddEdge(engine.Start, "agent").
		AddConditionalEdges("agent", func(_ context.Context, s map[string]any) (any, error) {
			if step, _ := s["step"].(float64); n == 0 || int(step) < n {
				return "agent", nil
			}
			return engine.End, nil
		}, "agent", engine.End).
		Compile(opts...)
}

func gen(db string, n int) error {
	st, err := persist.Open(db, persist.Options{NoSync: true, Durability: persist.DurabilityAsync})
	if err != nil {
		return err
	}
	g, err := loopGraph(st, n-2) // input and first checkpoints, then one a step
	if err != nil {
		st.Close()
		return err
	}
	input := map[string]any{"step": 0.0, "doc": strings.Repeat("a 4 KiB document that never changes. ", 4096/38)}
	if _, err := g.Invoke(context.Background(), input, engine.OnThread("big"), engine.WithRecursionLimit(n+10)); err != nil {
		st.Close()
		return err
	}
	return st.Close()
}

// tree loads what the debugger's tree loads: the thread's checkpoint heads
// (or, with full, every checkpoint with its values, as before issue 17),
// the plans of a screenful of rows, and the latest checkpoint whole for
// the panes beside it.
func tree(db string, full bool) error {
	st, err := persist.Open(db, persist.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	g, err := loopGraph(st, 0)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cfg := engine.Config{ThreadID: "big"}
	start := time.Now()
	var ids []string
	tasks := 0
	if full {
		h, err := g.History(ctx, cfg, engine.ListOptions{})
		if err != nil {
			return err
		}
		for _, s := range h {
			ids = append(ids, s.Config.CheckpointID)
			tasks += len(s.Tasks)
		}
	} else {
		heads, err := g.HistoryHeads(ctx, cfg)
		if err != nil {
			return err
		}
		window, err := g.HistoryOutline(ctx, cfg, engine.ListOptions{Limit: treeScreen})
		if err != nil {
			return err
		}
		for _, s := range window {
			tasks += len(s.Tasks)
		}
		for _, h := range heads {
			ids = append(ids, h.ID)
		}
	}
	sel, err := g.GetState(ctx, engine.Config{ThreadID: "big", CheckpointID: ids[0]})
	if err != nil {
		return err
	}
	if err := writeHeapProfile(); err != nil {
		return err
	}
	fmt.Printf("tree: %d checkpoints, %d tasks planned, selected step %v, %.3f s, %s\n", len(ids), tasks, sel.Values["step"], time.Since(start).Seconds(), rss())
	return nil
}

// treeScreen is how many rows of the tree a tall terminal shows.
const treeScreen = 60

// rss says how much of the process's resident memory is its own (anon)
// and how much is the database file mapped by bbolt (file): peak RSS
// counts both, but the file's pages are the kernel's page cache.
func rss() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "RssAnon:") || strings.HasPrefix(line, "RssFile:") || strings.HasPrefix(line, "VmHWM:") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, ", ")
}

func bigValue(db string, steps, size int) error {
	st, err := persist.Open(db, persist.Options{NoSync: true, Durability: persist.DurabilityAsync})
	if err != nil {
		return err
	}
	ctx := context.Background()
	big := strings.Repeat("B", size)
	parent := ""
	for i := 1; i <= steps; i++ {
		id := fmt.Sprintf("1f0a3c00-%04x-6000-8000-000000000000", i)
		cp := &engine.Checkpoint{V: engine.CheckpointFormat, ID: id, TS: time.Unix(1700000000, int64(i)).UTC(),
			ChannelValues:   map[string]any{"doc": strings.Repeat(string(rune('a'+i%26)), size), "big": big},
			ChannelVersions: map[string]engine.Version{"doc": engine.Version(i), "big": 1},
			VersionsSeen:    map[string]map[string]engine.Version{"writer": {"doc": engine.Version(i - 1)}},
			UpdatedChannels: []string{"doc"}}
		if _, err := st.Put(ctx, engine.Config{ThreadID: "big", CheckpointID: parent}, cp, engine.Metadata{Source: engine.SourceLoop, Step: i - 1}, nil); err != nil {
			st.Close()
			return err
		}
		parent = id
	}
	return st.Close()
}

// roots writes a version 1 export of n checkpoints without parents.
func roots(n int) error {
	w := os.Stdout
	fmt.Fprint(w, `{"format":"superstep-thread","version":1,"thread":"roots","fingerprint":"","checkpoints":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		cp := map[string]any{"ns": "", "id": fmt.Sprintf("1f0a3c00-%08x-6000-8000-000000000000", n-i), "parent": "", "v": engine.CheckpointFormat,
			"ts": "2025-01-01T00:00:00Z", "metadata": map[string]any{"source": "input", "step": -1, "parents": map[string]any{}, "extra": nil},
			"values": map[string]any{"step": i}, "versions": map[string]any{"step": 1}, "versions_seen": map[string]any{},
			"updated_channels": []string{"step"}, "writes": []any{}}
		b, _ := json.Marshal(cp)
		fmt.Fprintf(w, "\n%s", b)
	}
	fmt.Fprintln(w, "\n]}")
	return nil
}
