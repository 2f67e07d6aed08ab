package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput drives every kind of bad input through the binary: each must
// exit non-zero with a one-line message that says what and where.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "good.db")
	superstep(t, "", "run", testdata("approve.json"), "--db", db, "--thread", "t1").want(t, 0)
	superstep(t, "", "run", "linear", "--db", db, "--thread", "finished").want(t, 0)

	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := write("garbage.db", "\x00\x01 this is not a database")
	jsonFile := write("foreign.db", `{"some": "other program"}`)
	badExport := write("bad-export.json", "{\n  \"format\": \"superstep-thread\",\n  \"thread\": \n}")
	foreignExport := write("foreign-export.json", `{"format": "something-else", "thread": "x", "checkpoints": []}`)
	missing := filepath.Join(dir, "missing.json")
	nodb := filepath.Join(dir, "nodb.db")

	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown command", []string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`}},
		{"unknown flag", []string{"run", "linear", "--bogus"}, 2, []string{"unknown flag: --bogus"}},
		{"misspelt flag", []string{"run", "linear", "--thred", "t1"}, 2, []string{"unknown flag: --thred (did you mean --thread?)"}},
		{"thread id starting with -", []string{"show", "-t1", "--db", db}, 2, []string{"unknown shorthand flag: 't' in -t1; an argument that starts with - (a thread id, say) goes after --: superstep show -- -t1"}},
		{"missing argument", []string{"run"}, 2, []string{"run: accepts 1 arg", "usage: superstep run GRAPH"}},
		{"too many arguments", []string{"diff", "t1", "a", "--db", db}, 2, []string{"diff: accepts 3 arg", "usage: superstep diff THREAD CKPT_A CKPT_B"}},
		{"graph given as a URL", []string{"run", "postgres://me@db.internal/agents", "--db", db}, 2, []string{"graph postgres://me@db.internal/agents: a URL, not a file", "--db"}},
		{"scenario given as a URL", []string{"trace", "https://example.com/flow.json"}, 2, []string{"scenario https://example.com/flow.json: a URL, not a file"}},
		{"bench scenario given as a URL", []string{"bench", "https://example.com/flow.json"}, 2, []string{"a URL, not a file"}},
		{"graph given as a URL without //", []string{"run", "s3:flows/flow.json", "--db", db}, 2, []string{"graph s3:flows/flow.json: a URL, not a file", "written ./s3:flows/flow.json"}},
		{"import given a URL", []string{"import", "postgres://me:secret@db.internal/agents", "--db", db}, 2, []string{"import postgres://me:xxxxx@db.internal/agents: a URL, not a file", "pull"}},
		{"ambiguous prefix names the thread first", []string{"show", "t1", "--db", db, "--checkpoint", "1"}, 2, []string{`thread "t1": checkpoint prefix "1" is ambiguous`}},
		{"unknown graph", []string{"run", "nosuch", "--db", db}, 2, []string{`unknown graph "nosuch"`, "research"}},
		{"missing scenario file", []string{"graph", missing}, 2, []string{"missing.json", "no such file"}},
		{"malformed scenario", []string{"run", testdata("broken.json"), "--db", db}, 2, []string{"broken.json:5:29", "invalid JSON"}},
		{"malformed input JSON", []string{"run", "linear", "--db", db, "--input", `{"total": }`}, 2, []string{"--input", "line 1, column 11"}},
		{"multi-line input JSON", []string{"run", "linear", "--db", db, "--input", "{\n\"total\": 1,\n}"}, 2, []string{"line 3, column 1"}},
		{"input not an object", []string{"run", "linear", "--db", db, "--input", `[1]`}, 2, []string{"want a JSON object"}},
		{"malformed resume JSON", []string{"run", "linear", "--db", db, "--thread", "t1", "--resume", `{x`}, 2, []string{"--resume", "line 1, column 2"}},
		{"resume without thread", []string{"run", "linear", "--db", db, "--resume", `"yes"`}, 2, []string{"--resume needs --thread"}},
		{"input and resume", []string{"run", "linear", "--db", db, "--thread", "t1", "--input", `{}`, "--resume", `1`}, 2, []string{"cannot be combined"}},
		{"resume unknown thread", []string{"run", "linear", "--db", db, "--thread", "ghost", "--resume", `"yes"`}, 2, []string{"thread not found", "ghost"}},
		{"resume with nothing pending", []string{"run", "linear", "--db", db, "--thread", "finished", "--resume", `"yes"`}, 2, []string{"nothing to resume", "finished"}},
		{"run with another graph", []string{"run", "research", "--db", db, "--thread", "finished"}, 2, []string{"topology differs", "finished", "- node a"}},
		{"history unknown thread", []string{"history", "ghost", "--db", db}, 2, []string{"thread not found", `"ghost"`}},
		{"show unknown thread", []string{"show", "ghost", "--db", db}, 2, []string{"thread not found"}},
		{"show unknown checkpoint", []string{"show", "t1", "--db", db, "--checkpoint", "zzzz"}, 2, []string{`no checkpoint "zzzz"`, "t1"}},
		{"diff unknown checkpoint", []string{"diff", "t1", "zzzz", "yyyy", "--db", db}, 2, []string{`no checkpoint "zzzz"`}},
		{"diff empty id", []string{"diff", "t1", "", "1", "--db", db}, 2, []string{"empty checkpoint id"}},
		{"diff ambiguous prefix", []string{"diff", "t1", "1", "1", "--db", db}, 2, []string{`prefix "1" is ambiguous`}},
		{"export unknown thread", []string{"export", "ghost", "--db", db}, 2, []string{"thread not found"}},
		{"import missing file", []string{"import", missing, "--db", db}, 2, []string{"missing.json", "no such file"}},
		{"import malformed JSON", []string{"import", badExport, "--db", db}, 2, []string{"bad-export.json", "line 4, column 1"}},
		{"import foreign JSON", []string{"import", foreignExport, "--db", db}, 2, []string{"foreign-export.json", "invalid thread export", "something-else"}},
		{"no database", []string{"threads", "--db", nodb}, 2, []string{"no database", "nodb.db"}},
		{"corrupt database", []string{"threads", "--db", garbage}, 2, []string{"not a superstep database", "garbage.db"}},
		{"JSON file as database", []string{"history", "t1", "--db", jsonFile}, 2, []string{"not a superstep database", "foreign.db"}},
		{"run on corrupt database", []string{"run", "linear", "--db", garbage}, 2, []string{"not a superstep database"}},
		{"check corrupt database", []string{"check", "--db", garbage}, 2, []string{"not a superstep database", "garbage.db"}},
		{"replay unknown thread", []string{"replay", "ghost", "--db", db, "--graph", "linear"}, 2, []string{"thread not found"}},
		{"replay unknown graph", []string{"replay", "t1", "--db", db, "--graph", "nosuch"}, 2, []string{`unknown graph "nosuch"`}},
		{"replay unknown step", []string{"replay", "t1", "--db", db, "--from", "99"}, 2, []string{"no checkpoint at step 99"}},
		{"trace missing file", []string{"trace", missing}, 2, []string{"missing.json", "no such file"}},
		{"bench missing file", []string{"bench", missing}, 2, []string{"no such file"}},
		{"bench bad saver", []string{"bench", testdata("approve.json"), "--saver", "disk"}, 2, []string{`--saver "disk"`}},
		{"bench bad durability", []string{"bench", testdata("approve.json"), "--saver", "bbolt", "--durability", "maybe"}, 2, []string{`--durability "maybe"`}},
		{"bench durability without bbolt", []string{"bench", testdata("approve.json"), "--durability", "async"}, 2, []string{"--durability applies to --saver bbolt"}},
		{"run bad durability", []string{"run", "linear", "--db", db, "--durability", "never"}, 2, []string{`--durability "never"`}},
		{"zero timeout", []string{"threads", "--db", db, "--timeout", "0"}, 2, []string{"--timeout 0s"}},
		{"bench zero runs", []string{"bench", testdata("approve.json"), "--runs", "0"}, 2, []string{"--runs"}},
		{"bad flag value", []string{"bench", testdata("approve.json"), "--runs", "many"}, 2, []string{"invalid argument"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := superstep(t, "", c.args...)
			r.want(t, c.code, c.want...)
			if n := countLines(r.stderr); n != 1 {
				t.Fatalf("stderr has %d lines, want one:\n%s", n, r.stderr)
			}
		})
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

// An import of a file that is not a thread export is refused before the
// database is opened: no new, empty database file (or lock file) is left
// where there was none.
func TestImport_BadFileCreatesNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(foreign, []byte(`{"name": "a scenario, not an export", "nodes": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "new.db")
	superstep(t, "", "import", foreign, "--db", db).want(t, 2, "flow.json", "invalid thread export")
	wantNoFiles(t, "a refused import", db, db+".lock")
}

// A command that works on a stored thread and writes (replay, update,
// copy, delete, run --resume or --checkpoint) given a database path that does not exist — a typo — says
// so, as the reading commands do, instead of creating an empty database
// there and reporting the thread missing. A PostgreSQL URL mistyped
// without its "//" is refused, never made a file of that name.
func TestWritingCommands_MissingDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "typo.db")
	for _, args := range [][]string{
		{"replay", "t1", "--graph", "linear"},
		{"update", "t1", "--values", `{"total":1}`},
		{"copy", "t1", "t2"},
		{"delete", "t1"},
		{"run", "linear", "--thread", "t1", "--resume", "yes"},
		{"run", "linear", "--thread", "t1", "--checkpoint", "abc"},
	} {
		superstep(t, "", append(args, "--db", db)...).want(t, 2, "no database at "+db)
		wantNoFiles(t, fmt.Sprintf("%s on a missing database", args[0]), db, db+".lock")
	}
	for url, want := range map[string]string{
		"postgres:/db.internal/agents": "not a PostgreSQL URL (want postgres://user:password@host:port/database)",
		"postgresql:agents":            "not a PostgreSQL URL (want postgres://user:password@host:port/database)",
		// The scheme as typed, not as url.URL writes it back.
		"Postgres://me:secret@db.internal/agents": "database Postgres://me:xxxxx@db.internal/agents: a PostgreSQL URL's scheme is postgres:// or postgresql://, in lower case",
		"sqlite:agents.db":                        `database sqlite:agents.db: a "sqlite:" URL, which is not supported (want a file name or a postgres:// URL; a file whose name has a colon is written ./sqlite:agents.db)`,
	} {
		// Run in dir: a URL taken for a file name would be created there.
		cmd := exec.Command(binary, "run", "linear", "--db", url, "--thread", "t1")
		cmd.Dir, cmd.Env = dir, testEnv(t)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), want) {
			t.Fatalf("run --db %s: %v\n%s\nwant %q", url, err, out, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("refused commands left %v behind", entries)
	}
}
