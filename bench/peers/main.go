// Command peers runs the four perf workloads of testdata/perf on superstep
// and on the Go graph runtimes it is measured against, side by side in one
// process, and prints medians, ratios and allocations per superstep.
//
//	go run . [-rounds N] [-workloads a,b] [-systems a,b] [--json]
//
// Runs are interleaved: each round runs every workload on every system once,
// in a rotating order, so drift of a shared machine spreads over all
// systems alike. Every run asserts its final state; a wrong state stops the
// program with an error. It lives in its own module so that the main module
// never depends on the peers.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// system is one runtime under test. prepare builds a workload once and
// returns a function that runs it once and checks its final state.
type system interface {
	name() string
	prepare(workload string) (func() error, error)
	// faithful reports whether the system expresses the workload as
	// written (same graph shape and mechanisms); describe says what it runs
	// instead when it does not.
	faithful(workload string) bool
	describe(workload string) string
}

func allSystems(scenarioDir string) []system {
	out := []system{
		&superstepSystem{},
		&superstepSystem{withSaver: true},
		einoSystem{},
		trpcSystem{},
		smallnestSystem{},
		plainSystem{},
	}
	if scenarioDir != "" {
		out = append(out, &scenarioSystem{dir: scenarioDir})
	}
	return out
}

// sample is one timed run.
type sample struct {
	d      time.Duration
	allocs uint64
}

// result is one (workload, system) cell, as printed with --json.
type result struct {
	Workload           string  `json:"workload"`
	System             string  `json:"system"`
	MedianMS           float64 `json:"median_ms"`
	AllocsPerSuperstep float64 `json:"allocs_per_superstep"`
	Faithful           bool    `json:"faithful"`
	note               string
}

func main() {
	rounds := flag.Int("rounds", 11, "timed runs of each workload on each system (after one warm-up)")
	jsonOut := flag.Bool("json", false, "print one JSON object per line instead of tables")
	wlFlag := flag.String("workloads", "", "comma-separated workloads (default: all)")
	sysFlag := flag.String("systems", "", "comma-separated systems (default: all)")
	scenario := flag.Bool("scenario", false, "also run superstep-scenario: the workloads' scenario files (expression nodes)")
	dir := flag.String("testdata", "../../testdata/perf", "directory of the workloads' scenario files (with -scenario)")
	flag.Parse()
	scenarioDir := ""
	if *scenario {
		scenarioDir = *dir
	}
	if err := run(os.Stdout, *rounds, *jsonOut, split(*wlFlag), split(*sysFlag), scenarioDir); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

type cell struct {
	wl      workload
	sys     system
	run     func() error
	samples []sample
}

func run(w io.Writer, rounds int, jsonOut bool, wlNames, sysNames []string, scenarioDir string) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds must be at least 1, got %d", rounds)
	}
	var cells []*cell
	for _, wl := range workloads {
		if wlNames != nil && !slices.Contains(wlNames, wl.name) {
			continue
		}
		for _, sys := range allSystems(scenarioDir) {
			if sysNames != nil && !slices.Contains(sysNames, sys.name()) {
				continue
			}
			fn, err := sys.prepare(wl.name)
			if err != nil {
				return fmt.Errorf("%s on %s: build: %w", wl.name, sys.name(), err)
			}
			// Warm-up run, also the first check of the final state.
			if err := fn(); err != nil {
				return fmt.Errorf("%s on %s: %w", wl.name, sys.name(), err)
			}
			cells = append(cells, &cell{wl: wl, sys: sys, run: fn})
		}
	}
	if len(cells) == 0 {
		return fmt.Errorf("no workload and system selected")
	}
	for r := 0; r < rounds; r++ {
		for i := range cells {
			c := cells[(i+r)%len(cells)]
			s, err := timeOnce(c.run)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", c.wl.name, c.sys.name(), err)
			}
			c.samples = append(c.samples, s)
		}
	}
	var results []result
	for _, c := range cells {
		d, a := medians(c.samples)
		results = append(results, result{
			Workload:           c.wl.name,
			System:             c.sys.name(),
			MedianMS:           float64(d.Microseconds()) / 1000,
			AllocsPerSuperstep: float64(int(10*float64(a)/float64(c.wl.supersteps)+0.5)) / 10,
			Faithful:           c.sys.faithful(c.wl.name),
			note:               c.sys.describe(c.wl.name),
		})
	}
	if jsonOut {
		enc := json.NewEncoder(w)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	return printTables(w, results)
}

// timeOnce runs fn once after a GC, so one run's garbage is not billed to
// the next, and counts the heap allocations of the whole process meanwhile
// (task goroutines included).
func timeOnce(fn func() error) (sample, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := fn()
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return sample{d: d, allocs: after.Mallocs - before.Mallocs}, err
}

func medians(ss []sample) (time.Duration, uint64) {
	ds := make([]time.Duration, len(ss))
	as := make([]uint64, len(ss))
	for i, s := range ss {
		ds[i], as[i] = s.d, s.allocs
	}
	slices.Sort(ds)
	slices.Sort(as)
	return ds[len(ds)/2], as[len(as)/2]
}

func printTables(w io.Writer, results []result) error {
	var wls, syss []string
	byKey := map[[2]string]result{}
	for _, r := range results {
		if !slices.Contains(wls, r.Workload) {
			wls = append(wls, r.Workload)
		}
		if !slices.Contains(syss, r.System) {
			syss = append(syss, r.System)
		}
		byKey[[2]string{r.Workload, r.System}] = r
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	section := func(title string, cellText func(r, base result, hasBase bool) string) {
		fmt.Fprintf(tw, "%s\t", title)
		for _, wl := range wls {
			fmt.Fprintf(tw, "%s\t", wl)
		}
		fmt.Fprintln(tw)
		for _, sys := range syss {
			fmt.Fprintf(tw, "%s\t", sys)
			for _, wl := range wls {
				r, ok := byKey[[2]string{wl, sys}]
				base, hasBase := byKey[[2]string{wl, "superstep"}]
				txt := ""
				if ok {
					txt = cellText(r, base, hasBase)
					if !r.Faithful {
						txt += "*"
					}
				}
				fmt.Fprintf(tw, "%s\t", txt)
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, "\t")
	}
	section("median ms", func(r, _ result, _ bool) string { return fmt.Sprintf("%.3f", r.MedianMS) })
	section("ratio to superstep", func(r, base result, ok bool) string {
		if !ok || base.MedianMS == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3gx", r.MedianMS/base.MedianMS)
	})
	section("allocs/superstep", func(r, _ result, _ bool) string { return fmt.Sprintf("%.1f", r.AllocsPerSuperstep) })
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if !r.Faithful {
			fmt.Fprintf(w, "* %s on %s is not faithful: %s\n", r.Workload, r.System, r.note)
		}
	}
	return nil
}
