package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The kill test: real `superstep run` processes on a real bbolt file, sync
// durability (the default), killed with SIGKILL at random moments and
// resumed, killed again, until the run ends. After every kill:
//
//   - check says the file is sound;
//   - every checkpoint the run reported is stored (none lost);
//   - no task the run reported finished runs again on resume: its saved
//     writes are reused (a repeated model call is the cost this prevents).
//
// And every thread, however often killed, ends in the state of a run never
// killed. make test kills 3 times; make killtest 60 (KILLS, KILL_SEED).

var (
	killCount = flag.Int("kills", 0, "SIGKILLs of TestRun_RandomKills (0: $KILLS or 3)")
	killSeed  = flag.Uint64("kill.seed", 0, "seed of TestRun_RandomKills (0: random)")
)

// killEvent is one line of `run --json`.
type killEvent struct {
	Event  string         `json:"event"`
	Step   int            `json:"step"`
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	Status string         `json:"status"`
	Values map[string]any `json:"values"`
}

// killedRun is what one run printed before it ended or was killed.
type killedRun struct {
	events []killEvent
	killed bool
}

// runAndKill starts run on thread and kills it after delay, unless it ends
// first. Every line it wrote before dying is in the result.
func runAndKill(t *testing.T, scenario, db, thread string, delay time.Duration) killedRun {
	t.Helper()
	cmd := exec.Command(binary, "run", scenario, "--db", db, "--thread", thread, "--json")
	cmd.Env = testEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var out killedRun
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run ended with %v before the kill:\n%s%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(delay):
		cmd.Process.Kill()
		<-done
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		out.killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
		if !out.killed && !cmd.ProcessState.Success() {
			t.Fatalf("run ended with %v:\n%s%s", cmd.ProcessState, stdout.String(), stderr.String())
		}
	}
	lines := bufio.NewScanner(&stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var e killEvent
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			continue // a line cut by the kill
		}
		out.events = append(out.events, e)
	}
	return out
}

// finishedSinceCheckpoint returns the tasks (step/name) the run reported
// finished after its last reported checkpoint.
func (r killedRun) finishedSinceCheckpoint() []string {
	var out []string
	for _, e := range r.events {
		switch {
		case e.Event == "checkpoint":
			out = nil
		case e.Event == "task" && e.Status == "ran":
			out = append(out, fmt.Sprintf(`"step":%d,"name":%q`, e.Step, e.Name))
		}
	}
	return out
}

func TestRun_RandomKills(t *testing.T) {
	t.Parallel()
	kills := *killCount
	if kills <= 0 {
		if n, err := strconv.Atoi(os.Getenv("KILLS")); err == nil && n > 0 {
			kills = n
		} else {
			kills = 3
		}
	}
	seed := *killSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -kill.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	scenario := testdata("killloop.json")
	dir := t.TempDir()
	db := filepath.Join(dir, "kill.db")

	// The state every thread must end in: a run never killed.
	ref := runAndKill(t, scenario, filepath.Join(dir, "ref.db"), "ref", time.Hour)
	want := ref.events[len(ref.events)-1]
	if want.Event != "done" {
		t.Fatalf("reference run ended with %+v", want)
	}
	// Kill times up to the length of a whole run, so kills land in every
	// phase: before the first checkpoint, between supersteps, while the
	// slow sibling works, after the end.
	start := time.Now()
	runAndKill(t, scenario, filepath.Join(dir, "timing.db"), "timing", time.Hour)
	runFor := time.Since(start)

	killed, threads, reused := 0, 0, 0
	for killed < kills {
		thread := fmt.Sprintf("t%d", threads)
		threads++
		for round := 0; ; round++ {
			if round > 10*kills+50 {
				t.Fatalf("thread %s: no end after %d runs", thread, round)
			}
			r := runAndKill(t, scenario, db, thread, time.Duration(rng.Int64N(int64(runFor))))
			if !r.killed {
				last := r.events[len(r.events)-1]
				if last.Event != "done" || fmt.Sprint(last.Values) != fmt.Sprint(want.Values) {
					t.Fatalf("thread %s ended with %+v, want %v", thread, last, want.Values)
				}
				break
			}
			killed++
			reused += afterKill(t, scenario, db, thread, r, want.Values)
		}
	}
	t.Logf("%d kills over %d threads, %d of them after a task reported finishing in an unfinished superstep, reused on resume; every resume reached %v",
		killed, threads, reused, want.Values["items"])
}

// afterKill checks the file and the thread after a kill, then resumes a
// copy of the thread to its end: it must reach want, and run no task again
// that the killed run reported finished. It returns 1 if there was such a
// task, else 0.
func afterKill(t *testing.T, scenario, db, thread string, r killedRun, want map[string]any) int {
	t.Helper()
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) && len(r.events) == 0 {
		// Killed before it created the file (the first run of the first
		// thread): nothing was written, and the next run creates it.
		return 0
	}
	check := superstep(t, "", "check", "--db", db)
	// A kill during the very first open, before the file was set up,
	// leaves an empty file that says so; the next run sets it up.
	if !(len(r.events) == 0 && check.code == 2 && strings.Contains(check.stderr, "first open was interrupted")) {
		check.want(t, 0, "ok")
	}
	var reported []string
	for _, e := range r.events {
		if e.Event == "checkpoint" {
			reported = append(reported, e.ID)
		}
	}
	if len(reported) > 0 {
		export := superstep(t, "", "export", thread, "--db", db)
		export.want(t, 0)
		for _, id := range reported {
			if !strings.Contains(export.stdout, `"`+id+`"`) {
				t.Fatalf("thread %s: checkpoint %s was reported, then lost by the kill", thread, id)
			}
		}
	}
	// Resume in a copy, to the end; the thread itself goes on being
	// killed.
	cp := db + ".resume"
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(cp)
	res := superstep(t, "", "run", scenario, "--db", cp, "--thread", thread, "--json")
	res.want(t, 0, `"event":"done"`)
	events := jsonLines(t, res.stdout)
	if got := events[len(events)-1]["values"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("thread %s: the resume after a kill ended with %v, want %v", thread, got, want)
	}
	finished := r.finishedSinceCheckpoint()
	for _, task := range finished {
		if strings.Contains(res.stdout, task+`,"status":"ran"`) {
			t.Fatalf("thread %s: task {%s} was reported finished before the kill, and ran again on resume:\n%s", thread, task, res.stdout)
		}
	}
	if len(finished) > 0 {
		return 1
	}
	return 0
}
