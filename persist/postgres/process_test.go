//go:build unix

package postgres_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/engine/enginetest"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// The crash and concurrency tests run graphs in helper processes: this
// test binary again, with TestProcessHelper selected and these variables
// set. A side file of lines ("enter fast1", "saved fast1", ...) tells the
// parent what a helper did, across the kill.
const (
	helperEnv  = "SUPERSTEP_PG_HELPER" // "fan" or "workers"
	helperURL  = "SUPERSTEP_PG_HELPER_URL"
	helperSide = "SUPERSTEP_PG_HELPER_SIDE"
	helperArg  = "SUPERSTEP_PG_HELPER_ARG"
)

// concurrencyThreads is how many threads each of the concurrency test's
// four processes runs: the 50, or 12 under the race detector,
// which make test uses (make test-postgres runs 50 with it).
var concurrencyThreads = flag.Int("pg.threads", map[bool]int{false: 50, true: 12}[raceEnabled], "threads per process in TestStore_Concurrent_FourProcesses")

// TestProcessHelper is the helper process; run on its own it skips.
func TestProcessHelper(t *testing.T) {
	kind := os.Getenv(helperEnv)
	if kind == "" {
		t.Skip("the helper of the crash and concurrency tests; runs only when they start it")
	}
	side := &enginetest.SideLog{Path: os.Getenv(helperSide)}
	s, err := postgres.Open(ctx, os.Getenv(helperURL), postgres.Options{Durability: persist.DurabilitySync})
	if err != nil {
		t.Fatalf("helper: Open: %v", err)
	}
	switch kind {
	case "fan":
		g, err := enginetest.FanGraph(s, side, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := g.Invoke(ctx, map[string]any{"log": []any{"input"}}, engine.OnThread("t"), engine.WithEvents(side.Events))
		t.Fatalf("helper: run ended before the kill: %v, %v", res.Status, err)
	case "workers":
		g, err := loopGraph(s)
		if err != nil {
			t.Fatal(err)
		}
		prefix := os.Getenv(helperArg)
		n, _ := strconv.Atoi(strings.SplitN(prefix, ":", 2)[1])
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				th := fmt.Sprintf("%s-%03d", prefix, i)
				res, err := g.Invoke(ctx, map[string]any{"n": 0.0}, engine.OnThread(th))
				if err == nil && res.Status != engine.StatusDone {
					err = fmt.Errorf("thread %s: status %v", th, res.Status)
				}
				if err != nil {
					errs <- fmt.Errorf("thread %s: %w", th, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		side.Add("done %s", prefix)
	}
}

// startHelper runs TestProcessHelper in a new process: kind says what it
// runs, against the database at u.
func startHelper(t *testing.T, kind, u, side, arg string) *enginetest.Helper {
	return enginetest.StartHelper(t, "TestProcessHelper", helperEnv+"="+kind, helperURL+"="+u, helperSide+"="+side, helperArg+"="+arg)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStore_Crash_KilledMidSuperstep: a helper runs the fan graph with sync
// durability and is SIGKILLed while slow blocks, after fast1 and fast2 were
// saved. The database passes Check, the thread shows slow as the only task
// left, and resuming reuses fast1 and fast2 and ends where a clean run
// ends, with the same checkpoints.
func TestStore_Crash_KilledMidSuperstep(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	open(t, u, postgres.Options{}).Close() // migrate before the helper starts
	dir := t.TempDir()
	side := &enginetest.SideLog{Path: filepath.Join(dir, "side.txt")}
	h := startHelper(t, "fan", u, side.Path, "")
	h.WaitFor(t, side, time.Minute, "saved fast1", "saved fast2", "enter slow")
	// A task's writes are committed before it is reported saved
	// (Store.PutWrites under sync): no wait.
	h.Kill(t)

	s := open(t, u, postgres.Options{})
	if err := s.Check(); err != nil {
		t.Fatalf("Check after the kill: %v", err)
	}
	g, err := enginetest.FanGraph(s, side, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := g.GetState(ctx, engine.Config{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Next, []string{"slow"}) {
		t.Errorf("Next after the kill = %v, want [slow]", st.Next)
	}
	var reused []string
	res, err := g.Invoke(ctx, nil, engine.OnThread("t"), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventTask && e.Reused {
			reused = append(reused, e.Node)
		}
	}))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: %v, %v", res.Status, err)
	}
	slices.Sort(reused)
	if !slices.Equal(reused, []string{"fast1", "fast2"}) {
		t.Errorf("resume reused %v, want [fast1 fast2]", reused)
	}
	for node, want := range map[string]int{"fast1": 1, "fast2": 1, "slow": 2, "after": 1} {
		if got := side.Count("enter " + node); got != want {
			t.Errorf("%s entered %d times across both processes, want %d", node, got, want)
		}
	}

	clean := open(t, schemaURL(t), postgres.Options{})
	cg, err := enginetest.FanGraph(clean, &enginetest.SideLog{Path: filepath.Join(dir, "clean.txt")}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cg.Invoke(ctx, map[string]any{"log": []any{"input"}}, engine.OnThread("t"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, res.Values), mustJSON(t, want.Values); got != want {
		t.Errorf("resumed final state = %s\nclean run's        = %s", got, want)
	}
	if got, want := historyShape(t, g), historyShape(t, cg); !slices.Equal(got, want) {
		t.Errorf("history after the crash = %v\nclean run's history    = %v", got, want)
	}
}

// historyShape lists a thread's checkpoints oldest first as "source step".
func historyShape(t *testing.T, g *engine.Graph) []string {
	t.Helper()
	hist, err := g.History(ctx, engine.Config{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range slices.Backward(hist) {
		out = append(out, fmt.Sprintf("%s %d", s.Metadata.Source, s.Metadata.Step))
	}
	return out
}

// TestStore_Concurrent_FourProcesses: four processes run their own threads
// at once against one database (-pg.threads each; see concurrencyThreads).
// Every thread ends done with its whole history, and
// Check finds nothing.
func TestStore_Concurrent_FourProcesses(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	s := open(t, u, postgres.Options{}) // migrate before the helpers start
	dir := t.TempDir()
	side := filepath.Join(dir, "side.txt")
	const procs = 4
	var hs []*enginetest.Helper
	for p := range procs {
		hs = append(hs, startHelper(t, "workers", u, side, fmt.Sprintf("p%d:%d", p, *concurrencyThreads)))
	}
	for p, h := range hs {
		if out, err := h.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", p, err, out)
		}
	}
	threads, err := s.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(threads) != procs**concurrencyThreads {
		t.Fatalf("%d threads stored, want %d", len(threads), procs**concurrencyThreads)
	}
	g, err := loopGraph(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		st, err := g.GetState(ctx, engine.Config{ThreadID: th.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Next) != 0 || st.Values["n"] != float64(loopSteps) || len(st.Values["log"].([]any)) != loopSteps {
			t.Fatalf("thread %s ends at %v with next %v", th.ID, st.Values, st.Next)
		}
		tups := mustList(t, s, th.ID)
		// input, the start step, then one per inc.
		if len(tups) != loopSteps+2 {
			t.Fatalf("thread %s has %d checkpoints, want %d", th.ID, len(tups), loopSteps+2)
		}
		for i, tup := range tups[:len(tups)-1] {
			if tup.ParentID != tups[i+1].Config.CheckpointID {
				t.Fatalf("thread %s: checkpoint %s has parent %s, want %s", th.ID, tup.Config.CheckpointID, tup.ParentID, tups[i+1].Config.CheckpointID)
			}
		}
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
}
