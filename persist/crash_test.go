//go:build unix

package persist_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
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
)

// The crash tests run a graph in a helper process (this test binary, re-run
// with TestCrashHelper selected and the variables below set), SIGKILL it
// mid-run, then reopen the file, check it and resume the thread here. The
// helper and the parent share a side file of lines ("enter fast1", "saved
// fast1", …) so the parent knows when to kill and can count how often each
// node ran across both processes.
const (
	crashHelperEnv = "SUPERSTEP_CRASH_HELPER" // the scenario: "fan" or "loop"
	crashDBEnv     = "SUPERSTEP_CRASH_DB"     // the bbolt file
	crashSideEnv   = "SUPERSTEP_CRASH_SIDE"   // the side file
	crashArgEnv    = "SUPERSTEP_CRASH_ARG"    // the loop's blocking step
	crashDurEnv    = "SUPERSTEP_CRASH_DUR"    // the loop's durability
)

// crashSeed replays the loop crash test's random kill point.
var crashSeed = flag.Uint64("crash.seed", 0, "seed of TestStore_Crash_Loop's kill points (0: random)")

// crashThread is the thread the helper runs and the parent resumes.
const crashThread = "t"

// blockFor is how long a blocking node waits (honouring its context) in the
// helper: far longer than the test, which kills the helper first.
const blockFor = 30 * time.Second

// block waits blockFor, or until ctx ends.
func block(ctx context.Context) error {
	select {
	case <-time.After(blockFor):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fanInput is the fan graph's input.
func fanInput() map[string]any { return map[string]any{"log": []any{"input"}} }

// loopSteps is how often the loop graph's node runs.
const loopSteps = 60

// loopGraph is START → inc, and inc → inc until n reaches loopSteps: one
// checkpoint per step, a counter and a growing list. inc blocks when it
// starts from n == blockAt (never, if blockAt < 0), after settled (if set)
// returned and it noted "durable".
func loopGraph(s engine.Saver, side *enginetest.SideLog, blockAt int, settled func(context.Context) error) (*engine.Graph, error) {
	inc := func(ctx context.Context, in any) (any, error) {
		n := asInt(in.(map[string]any)["n"])
		side.Add("enter inc %d", n)
		if n == blockAt {
			if settled != nil {
				// Every checkpoint written so far is committed.
				if err := settled(ctx); err != nil {
					return nil, err
				}
				side.Add("durable")
			}
			if err := block(ctx); err != nil {
				return nil, err
			}
		}
		return engine.Update{
			{Key: "n", Value: n + 1},
			{Key: "log", Value: []any{fmt.Sprintf("inc %d", n)}},
		}, nil
	}
	route := func(_ context.Context, st map[string]any) (any, error) {
		if asInt(st["n"]) < loopSteps {
			return "inc", nil
		}
		return engine.End, nil
	}
	return engine.NewStateGraph(engine.LastValueKey("n"), engine.AppendKey("log")).
		AddNode("inc", inc).
		AddEdge(engine.Start, "inc").
		AddConditionalEdges("inc", route, "inc", engine.End).
		Compile(engine.WithSaver(s))
}

// asInt reads a counter that is an int in memory and a float64 once loaded.
func asInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	}
	panic(fmt.Sprintf("counter is %T %v", v, v))
}

func loopInput() map[string]any { return map[string]any{"n": 0} }

func loopRunOptions(extra ...engine.RunOption) []engine.RunOption {
	return append([]engine.RunOption{engine.OnThread(crashThread), engine.WithRecursionLimit(loopSteps + 5)}, extra...)
}

// TestCrashHelper is the helper process of the crash tests; run on its own
// it skips. It runs its scenario until the parent kills it.
func TestCrashHelper(t *testing.T) {
	scenario := os.Getenv(crashHelperEnv)
	if scenario == "" {
		t.Skip("the crash tests' helper process; runs only when they start it")
	}
	side := &enginetest.SideLog{Path: os.Getenv(crashSideEnv)}
	ctx := context.Background()
	var (
		g     *engine.Graph
		input map[string]any
		opts  = []engine.RunOption{engine.OnThread(crashThread), engine.WithEvents(side.Events)}
		mode  = persist.DurabilitySync
		err   error
	)
	if scenario == "loop" {
		if mode, err = persist.ParseDurability(os.Getenv(crashDurEnv)); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	s, err := persist.Open(os.Getenv(crashDBEnv), persist.Options{Durability: mode})
	if err != nil {
		t.Fatalf("helper: Open: %v", err)
	}
	switch scenario {
	case "fan":
		saved := newSavedNodes("fast1", "fast2")
		opts = append(opts, engine.WithEvents(func(e engine.Event) {
			side.Events(e)
			saved.events(e)
		}))
		g, err = enginetest.FanGraph(s, side, true, func(ctx context.Context) error {
			if err := saved.wait(ctx); err != nil {
				return err
			}
			return waitSettled(ctx, s)
		})
		input = fanInput()
	case "loop":
		blockAt, _ := strconv.Atoi(os.Getenv(crashArgEnv))
		g, err = loopGraph(s, side, blockAt, func(ctx context.Context) error { return waitSettled(ctx, s) })
		input = loopInput()
		opts = loopRunOptions(opts...)
	default:
		t.Fatalf("helper: unknown scenario %q", scenario)
	}
	if err != nil {
		t.Fatalf("helper: Compile: %v", err)
	}
	side.Add("started pid %d", os.Getpid())
	res, err := g.Invoke(ctx, input, opts...)
	// Only reached if nobody killed the helper: the parent sees it exit
	// and fails with this output.
	t.Fatalf("helper: run ended before the kill: %v, %v", res.Status, err)
}

// savedNodes lets a node of the helper wait until the named nodes' writes
// were saved (their task results emitted).
type savedNodes struct {
	mu   sync.Mutex
	left map[string]bool
	done chan struct{}
}

func newSavedNodes(names ...string) *savedNodes {
	n := &savedNodes{left: map[string]bool{}, done: make(chan struct{})}
	for _, name := range names {
		n.left[name] = true
	}
	return n
}

func (n *savedNodes) events(e engine.Event) {
	if e.Kind != engine.EventTaskResult || e.Err != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.left[e.Node] {
		delete(n.left, e.Node)
		if len(n.left) == 0 {
			close(n.done)
		}
	}
}

func (n *savedNodes) wait(ctx context.Context) error {
	select {
	case <-n.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitSettled polls until every write made to s so far is committed.
func waitSettled(ctx context.Context, s *persist.Store) error {
	for !persist.Settled(s) {
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// startHelper starts the helper for scenario (enginetest.StartHelper); it
// is killed when the test ends, if it still runs.
func startHelper(t *testing.T, scenario, db, side string, env ...string) *enginetest.Helper {
	t.Helper()
	return enginetest.StartHelper(t, "TestCrashHelper", append([]string{crashHelperEnv + "=" + scenario, crashDBEnv + "=" + db, crashSideEnv + "=" + side}, env...)...)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return string(b)
}

// historySteps lists a thread's checkpoints oldest first as "source step".
func historySteps(t *testing.T, g *engine.Graph) []string {
	t.Helper()
	hist, err := g.History(context.Background(), engine.Config{ThreadID: crashThread}, engine.ListOptions{})
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	var out []string
	for _, s := range slices.Backward(hist) {
		out = append(out, fmt.Sprintf("%s %d", s.Metadata.Source, s.Metadata.Step))
	}
	return out
}

// TestStore_Crash_KilledMidSuperstep is issue 4's crash test: a helper runs
// the fan graph with DurabilitySync and is SIGKILLed while slow blocks,
// after fast1 and fast2 finished and their writes were saved. The file
// reopens and passes Check; the thread shows slow as the only task left;
// resuming runs slow and after but reuses fast1 and fast2, and ends in the
// state of a clean run.
func TestStore_Crash_KilledMidSuperstep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a helper process")
	}
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "crash.db")
	side := &enginetest.SideLog{Path: filepath.Join(dir, "side.txt")}

	h := startHelper(t, "fan", db, side.Path)
	// "durable" is noted by slow in the helper once fast1 and fast2 were
	// saved and the store committed everything queued (under sync
	// durability PutWrites returns after its commit; see Store.PutWrites).
	h.WaitFor(t, side, 20*time.Second, "saved fast1", "saved fast2", "enter slow", "durable")
	h.Kill(t)

	s, err := persist.Open(db, persist.Options{Durability: persist.DurabilitySync, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Check(); err != nil {
		t.Fatalf("Check after the kill: %v", err)
	}
	g, err := enginetest.FanGraph(s, side, false, nil)
	if err != nil {
		t.Fatal(err)
	}

	st, err := g.GetState(ctx, engine.Config{ThreadID: crashThread})
	if err != nil {
		t.Fatalf("GetState after the kill: %v", err)
	}
	if !slices.Equal(st.Next, []string{"slow"}) {
		t.Errorf("Next after the kill = %v, want [slow]", st.Next)
	}
	results := map[string]string{}
	for _, tk := range st.Tasks {
		results[tk.Name] = mustJSON(t, tk.Result)
	}
	wantResults := map[string]string{
		"fast1": `{"log":["fast1"]}`,
		"fast2": `{"log":["fast2"]}`,
		"slow":  `null`,
	}
	if mustJSON(t, results) != mustJSON(t, wantResults) {
		t.Errorf("tasks after the kill = %v, want %v", results, wantResults)
	}
	if got, want := mustJSON(t, st.Values), `{"log":["input","fast1","fast2"]}`; got != want {
		t.Errorf("values after the kill (finished tasks applied) = %s, want %s", got, want)
	}

	var reused []string
	res, err := g.Invoke(ctx, nil, engine.OnThread(crashThread), engine.WithEvents(func(e engine.Event) {
		if e.Kind == engine.EventTask && e.Reused {
			reused = append(reused, e.Node)
		}
	}))
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: status %v, error %v", res.Status, err)
	}
	slices.Sort(reused)
	if !slices.Equal(reused, []string{"fast1", "fast2"}) {
		t.Errorf("resume reused %v, want [fast1 fast2]", reused)
	}
	for node, want := range map[string]int{"fast1": 1, "fast2": 1, "slow": 2, "after": 1} {
		if got := side.Count("enter " + node); got != want {
			t.Errorf("%s entered %d times across both processes, want %d; side file:\n%s",
				node, got, want, strings.Join(side.Lines(), "\n"))
		}
	}

	// A clean run of the same graph in a fresh file.
	cleanStore := openTemp(t, persist.Options{Durability: persist.DurabilitySync})
	cleanSide := &enginetest.SideLog{Path: filepath.Join(dir, "clean.txt")}
	clean, err := enginetest.FanGraph(cleanStore, cleanSide, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := clean.Invoke(ctx, fanInput(), engine.OnThread(crashThread))
	if err != nil {
		t.Fatalf("clean run: %v", err)
	}
	const wantFinal = `{"last":"after 4 entries, last slow","log":["input","fast1","fast2","slow","after"]}`
	if got := mustJSON(t, want.Values); got != wantFinal {
		t.Errorf("clean run's final state = %s, want %s", got, wantFinal)
	}
	if got, want := mustJSON(t, res.Values), mustJSON(t, want.Values); got != want {
		t.Errorf("resumed final state = %s\nclean run's        = %s", got, want)
	}
	// The same, read back from the files, and the same checkpoints.
	gotState, err := g.GetState(ctx, engine.Config{ThreadID: crashThread})
	if err != nil {
		t.Fatal(err)
	}
	wantState, err := clean.GetState(ctx, engine.Config{ThreadID: crashThread})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, gotState.Values), mustJSON(t, wantState.Values); got != want {
		t.Errorf("stored final state = %s, clean run's = %s", got, want)
	}
	if got, want := historySteps(t, g), historySteps(t, clean); !slices.Equal(got, want) {
		t.Errorf("checkpoints after resume = %v, clean run's = %v", got, want)
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check after resume: %v", err)
	}
}

// TestStore_Crash_Loop kills a helper that runs a 60-step loop, one
// checkpoint per step, and holds the reopened file to a prefix of a clean
// run: it passes Check, every checkpoint is readable, the parent chain is
// unbroken down to the input checkpoint, and each checkpoint's values are
// the clean run's at that step. Resuming must then end in the clean run's
// final state, through the same checkpoints.
//
// The cases:
//   - async/blocked: DurabilityAsync, killed in step 6, whose task blocks
//     once the background writer committed every checkpoint written before
//     it (the helper notes "durable"): all must be there.
//   - async/running: DurabilityAsync, killed at a random step while it runs
//     flat out; the kill may land between supersteps, inside one, or in the
//     middle of a commit, and any prefix is fine.
//   - sync/running: DurabilitySync, killed at a random step: every
//     checkpoint whose Put returned must be there (and at most one more).
//
// -crash.seed replays the random kill points.
func TestStore_Crash_Loop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a helper process")
	}
	seed := *crashSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	// The last step of a running case blocks, so the helper cannot finish
	// before the kill however far it gets.
	cases := []loopCrash{
		{name: "async/blocked", mode: persist.DurabilityAsync, killAt: 5, blockAt: 5, durable: true},
		{name: "async/running", mode: persist.DurabilityAsync, killAt: 1 + rng.IntN(loopSteps-2), blockAt: loopSteps - 1},
		{name: "sync/running", mode: persist.DurabilitySync, killAt: 1 + rng.IntN(loopSteps-2), blockAt: loopSteps - 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { crashLoop(t, c) })
	}
}

// loopCrash is a case of TestStore_Crash_Loop: the helper runs with mode
// and blocks when inc starts from n == blockAt; it is killed once inc
// started from n == killAt — with durable, once the helper noted that
// everything written before the block is committed.
type loopCrash struct {
	name            string
	mode            persist.Durability
	killAt, blockAt int
	durable         bool
}

// crashLoop runs one case: a clean run, the helper and its kill, the checks
// of the reopened file, and the resumed run.
func crashLoop(t *testing.T, c loopCrash) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "crash.db")
	side := &enginetest.SideLog{Path: filepath.Join(dir, "side.txt")}

	// The clean run first: its history is what every prefix is held to.
	cleanStore := openTemp(t, persist.Options{Durability: persist.DurabilitySync, NoSync: true})
	clean, err := loopGraph(cleanStore, &enginetest.SideLog{Path: filepath.Join(dir, "clean.txt")}, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := clean.Invoke(ctx, loopInput(), loopRunOptions()...)
	if err != nil {
		t.Fatalf("clean run: %v", err)
	}
	cleanHist, err := clean.History(ctx, engine.Config{ThreadID: crashThread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cleanByStep := map[int]string{}
	for _, s := range cleanHist {
		cleanByStep[s.Metadata.Step] = mustJSON(t, s.Values)
	}

	h := startHelper(t, "loop", db, side.Path, crashArgEnv+"="+strconv.Itoa(c.blockAt), crashDurEnv+"="+c.mode.String())
	ready := []string{fmt.Sprintf("enter inc %d", c.killAt)}
	if c.durable {
		ready = append(ready, "durable")
	}
	h.WaitFor(t, side, 20*time.Second, ready...)
	h.Kill(t)
	seen := 0
	for _, l := range side.Lines() {
		if strings.HasPrefix(l, "checkpoint ") {
			seen++
		}
	}

	s, err := persist.Open(db, persist.Options{Durability: c.mode, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Check(); err != nil {
		t.Fatalf("Check after the kill: %v", err)
	}
	g, err := loopGraph(s, side, -1, nil)
	if err != nil {
		t.Fatal(err)
	}

	tuples, err := s.List(ctx, engine.Config{ThreadID: crashThread}, engine.ListOptions{})
	if err != nil {
		t.Fatalf("List after the kill: %v", err)
	}
	t.Logf("killed after inc started from n=%d: %d of %d written checkpoints survived", c.killAt, len(tuples), seen)
	switch {
	case c.mode == persist.DurabilitySync && (len(tuples) < seen || len(tuples) > seen+1):
		// A Put may have committed without its event reaching the side
		// file, but none that returned may be lost.
		t.Errorf("%d checkpoints survived, but Put had returned for %d with DurabilitySync", len(tuples), seen)
	case c.durable && len(tuples) != seen:
		t.Errorf("%d of %d checkpoints written before the kill survived: the helper saw the background writer commit them all",
			len(tuples), seen)
	}
	// Newest first: each one's parent is the next, steps count down to the
	// input checkpoint at -1.
	for i, tup := range tuples {
		id := tup.Checkpoint.ID
		wantStep := len(tuples) - 2 - i
		if tup.Metadata.Step != wantStep {
			t.Errorf("checkpoint %d (%s) has step %d, want %d", i, id, tup.Metadata.Step, wantStep)
		}
		wantParent := ""
		if i+1 < len(tuples) {
			wantParent = tuples[i+1].Checkpoint.ID
		}
		if tup.ParentID != wantParent {
			t.Errorf("checkpoint %s (step %d) has parent %q, want %q", id, tup.Metadata.Step, tup.ParentID, wantParent)
		}
		cfg := engine.Config{ThreadID: crashThread, CheckpointID: id}
		got, err := g.GetState(ctx, cfg)
		if err != nil {
			t.Errorf("GetState(%s): %v", id, err)
			continue
		}
		if v, ok := cleanByStep[tup.Metadata.Step]; !ok || mustJSON(t, got.Values) != v {
			t.Errorf("checkpoint %s (step %d) holds %s, the clean run %s", id, tup.Metadata.Step, mustJSON(t, got.Values), v)
		}
	}

	var input any // nil: continue the thread
	if len(tuples) == 0 {
		input = loopInput() // nothing reached the file: start again
	}
	res, err := g.Invoke(ctx, input, loopRunOptions()...)
	if err != nil || res.Status != engine.StatusDone {
		t.Fatalf("resume: status %v, error %v", res.Status, err)
	}
	if got, want := mustJSON(t, res.Values), mustJSON(t, want.Values); got != want {
		t.Errorf("resumed final state = %s\nclean run's        = %s", got, want)
	}
	if got, want := historySteps(t, g), historySteps(t, clean); !slices.Equal(got, want) {
		t.Errorf("checkpoints after resume = %v\nclean run's = %v", got, want)
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check after resume: %v", err)
	}
}
