package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/superstep/superstep/engine/enginetest"
)

// TestCommands_Damage is the damage test of the command line: a real
// database made by superstep run is damaged at random (a flipped bit, a
// damaged page header, a truncation) and every command that reads or
// writes a database runs on it, each in its own process. None may crash
// (a signal, a panic: runProgram fails on those), hang (runProgram's
// timeout) or exit other than 0, 1 (damage) or 2 (not a database). When
// check says the file is sound, export, threads and history must print
// exactly what they printed before the damage: check saw every change.
//
// make test runs 3 trials; make damage DAMAGE_TRIALS (with the store's
// damage test). DAMAGE_SEED repeats a run.
func TestCommands_Damage(t *testing.T) {
	t.Parallel()
	trials := 3
	if n, err := strconv.Atoi(os.Getenv("DAMAGE_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	seed, _ := strconv.ParseUint(os.Getenv("DAMAGE_SEED"), 10, 64)
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with DAMAGE_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 2))

	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.db")
	runApproved(t, basePath)
	superstep(t, "", "run", testdata("killloop.json"), "--db", basePath, "--thread", "k").want(t, 0, "done")
	base, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(superstep(t, "", "history", "k", "--db", basePath, "--json").stdout), &rows); err != nil || len(rows) < 2 {
		t.Fatalf("history of the base thread: %v", err)
	}
	a, b := rows[0].ID, rows[len(rows)/2].ID
	export := filepath.Join(dir, "t1.json")
	if err := os.WriteFile(export, []byte(superstep(t, "", "export", "t1", "--db", basePath).stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	// What check vouches for: these must not change while check says ok.
	sound := [][]string{{"export", "t1"}, {"export", "k"}, {"threads", "--json"}, {"history", "k", "--json"}, {"show", "t1", "--json"}}
	want := map[string]string{}
	for _, args := range sound {
		want[strings.Join(args, " ")] = superstep(t, "", append(args, "--db", basePath)...).stdout
	}
	reads := [][]string{
		{"check"}, {"threads"}, {"history", "t1"}, {"history", "k"}, {"show", "k"}, {"show", "k", "--checkpoint", b},
		{"diff", "k", a, b}, {"export", "k"}, {"replay", "t1"}, {"exec", "k", "plan"},
	}
	writes := [][]string{
		{"run", testdata("killloop.json"), "--thread", "new"},
		{"run", testdata("approve.json"), "--thread", "t1", "--resume", "no"},
		{"import", "--overwrite", export},
		{"copy", "k", "k2"},
		{"update", "k", "--values", `{"n": 3}`},
		{"delete", "k"},
	}
	reported := 0
	for trial := range trials {
		data, what := enginetest.Damage(rng, base)
		path := filepath.Join(dir, fmt.Sprintf("trial-%d.db", trial))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		check := superstep(t, "", "check", "--db", path)
		if check.code == 0 {
			for _, args := range sound {
				got := superstep(t, "", append(args, "--db", path)...)
				if k := strings.Join(args, " "); got.stdout != want[k] {
					t.Fatalf("trial %d (%s): check says ok, but %s changed:\nbefore:\n%s\nafter:\n%s%s\n%s",
						trial, what, k, want[k], got.stdout, got.stderr, keepFiles(t, base, data))
				}
			}
		} else {
			reported++
		}
		for _, args := range reads {
			exitsCleanly(t, trial, what, superstep(t, "", append(args, "--db", path)...), args)
		}
		for _, args := range writes {
			w := path + ".w"
			if err := os.WriteFile(w, data, 0o600); err != nil {
				t.Fatal(err)
			}
			exitsCleanly(t, trial, what, superstep(t, "", append(args, "--db", w)...), args)
			os.Remove(w)
		}
		os.Remove(path)
	}
	t.Logf("%d trials, %d reported by check", trials, reported)
}

// keepFiles saves the undamaged and the damaged file where they outlive
// the test, and says where.
func keepFiles(t *testing.T, base, damaged []byte) string {
	dir, err := os.MkdirTemp("", "superstep-damage-")
	if err != nil {
		return err.Error()
	}
	os.WriteFile(filepath.Join(dir, "base.db"), base, 0o600)
	os.WriteFile(filepath.Join(dir, "damaged.db"), damaged, 0o600)
	return "the files are kept in " + dir
}

// exitsCleanly fails the test unless r ended with exit 0, 1 or 2 (a
// signal is -1); panics and hangs runProgram reports itself.
func exitsCleanly(t *testing.T, trial int, what string, r result, args []string) {
	t.Helper()
	if r.code < 0 || r.code > 2 || strings.Contains(r.stderr, "fatal error") {
		t.Fatalf("trial %d (%s): superstep %s ended with code %d:\n%s%s", trial, what, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
}
