package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/superstep/superstep/cli"
)

// named runs the command line in-process as a program of the user's own
// called name (cli.App.Name), with a private HOME.
func named(t *testing.T, name string, args ...string) result {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	var out, errb bytes.Buffer
	app := &cli.App{Name: name, Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("")}
	code := app.Run(context.Background(), args)
	return result{out.String(), errb.String(), code}
}

// speaks asserts that r's output names the program name in each of want
// and never tells the user to run superstep, a program that does not know
// their graphs.
func (r result) speaks(t *testing.T, name string, code int, want ...string) {
	t.Helper()
	r.want(t, code, want...)
	all := r.stdout + r.stderr
	if !strings.Contains(all, name) {
		t.Fatalf("output does not name %s\nstdout:\n%s\nstderr:\n%s", name, r.stdout, r.stderr)
	}
	for _, line := range strings.Split(all, "\n") {
		if strings.HasPrefix(line, "superstep:") {
			t.Fatalf("a line names superstep, not %s: %q\nstdout:\n%s\nstderr:\n%s", name, line, r.stdout, r.stderr)
		}
	}
	// A command line that starts with superstep; the engine's word for a
	// step of a run ("every superstep matches") may stay.
	for rest := all; ; {
		i := strings.Index(rest, "superstep")
		if i < 0 {
			break
		}
		rest = rest[i+len("superstep"):]
		if (rest == "" || rest[0] == ' ' || rest[0] == '\n') && (strings.TrimSpace(rest) == "" || goesOnAsCommand(rest)) {
			t.Fatalf("a command line names superstep, not %s: %q\nstdout:\n%s\nstderr:\n%s", name, all[len(all)-len(rest)-len("superstep"):][:min(len(rest)+len("superstep"), 60)], r.stdout, r.stderr)
		}
	}
}

// goesOnAsCommand reports whether rest, what follows a "superstep", goes
// on as a command line: a command's name, a flag or a comment.
func goesOnAsCommand(rest string) bool {
	rest = strings.TrimLeft(rest, " \n")
	if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "#") {
		return true
	}
	word, _, _ := strings.Cut(strings.Fields(rest + " ")[0], ")")
	return slices.Contains([]string{"tui", "run", "trace", "bench", "graphs", "graph", "threads", "history", "show", "diff",
		"export", "import", "check", "replay", "exec", "update", "delete", "copy", "pull", "push", "help"}, word)
}

// TestApp_NamedProgramSpeaksItsName: a program that embeds the command
// line under its own name (README's "Debugging your own graph") is named
// in every hint that tells the user a command to run, in error prefixes
// and in the help's examples and usage lines; superstep is not.
func TestApp_NamedProgramSpeaksItsName(t *testing.T) {
	// Not parallel: named sets HOME.
	db := filepath.Join(t.TempDir(), "my dbs", "a.db")
	const me = "myagent"

	// An interrupt's answer hint repeats the database.
	named(t, me, "run", "research", "--db", db, "--thread", "t1").
		speaks(t, me, 0, `answer with: myagent run research --db '`+db+`' --thread t1 --resume '{"action":"approve"}'`)
	// A resume of a thread with nothing pending says how to continue it.
	named(t, me, "run", "research", "--db", db, "--thread", "t1", "--resume", `{"action":"approve"}`).want(t, 0, "done")
	named(t, me, "run", "research", "--db", db, "--thread", "t1", "--resume", "x").speaks(t, me, 2, "myagent: ", "it has finished")

	// Unknown thread, checkpoint and namespace: the listing to look in is
	// the same database's.
	q := "'" + db + "'"
	named(t, me, "show", "nope", "--db", db).speaks(t, me, 2, `myagent: thread not found: "nope" (myagent threads --db `+q+` lists them)`)
	named(t, me, "export", "nope", "--db", db).speaks(t, me, 2, "(myagent threads --db "+q+" lists them)")
	named(t, me, "show", "t1", "--db", db, "--checkpoint", "zzzz").speaks(t, me, 2, "(myagent history t1 --db "+q+" lists them)")
	named(t, me, "show", "t1", "--db", db, "--ns", "nope").speaks(t, me, 2, "(myagent show t1 --db "+q+" lists a checkpoint's)")

	// show's subgraph lines name the command that reads them.
	sub := testdata("sub_two_asks.json")
	named(t, me, "run", sub, "--db", db, "--thread", "s1").speaks(t, me, 0, "answer with: myagent run ")
	named(t, me, "show", "s1", "--db", db).speaks(t, me, 0, "subgraphs (their checkpoints: myagent show s1 --db "+q+" --ns NS)")
	named(t, me, "history", "s1", "--db", db, "--ns", "sub:", "--checkpoint", "zzzz").speaks(t, me, 2)

	// A new thread opened by name warns with the listing on the same
	// database.
	named(t, me, "tui", "research", "--db", db, "--thread", "typo").
		speaks(t, me, 0, "myagent: warning: ", "(myagent threads --db '"+db+"' lists those there)")

	// Help: usage lines, examples, descriptions; usage errors.
	named(t, me, "--help").speaks(t, me, 0, "Usage:\n  myagent [flags]\n  myagent [command]", "  myagent run research --json", "(see myagent graphs)")
	named(t, me, "run", "--help").speaks(t, me, 0, "  myagent run research --thread t1 --resume", "myagent run GRAPH [flags]")
	named(t, me, "export", "--help").speaks(t, me, 0, "ssh server myagent export t1 | myagent import -")
	named(t, me, "show", "--help").speaks(t, me, 0, "(myagent show lists those of a checkpoint")
	named(t, me, "replay", "--help").speaks(t, me, 0, "myagent exec runs one node alone")
	// A command line broken across two lines of a description.
	named(t, me, "update", "--help").speaks(t, me, 0, "(myagent\nshow lists")
	for _, c := range []string{"tui", "run", "trace", "bench", "graphs", "graph", "threads", "history", "show", "diff", "export", "import", "check", "replay", "exec", "update", "delete", "copy", "pull", "push"} {
		named(t, me, c, "--help").speaks(t, me, 0, "Usage:\n  myagent "+c)
	}
	named(t, me, "stray").speaks(t, me, 2, "myagent --help lists the commands")
	named(t, me, "show").speaks(t, me, 2, "usage: myagent show THREAD")
}

// TestApp_DefaultNameIsSuperstep: an App without a Name is the superstep
// command, in help and errors alike.
func TestApp_DefaultNameIsSuperstep(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	named(t, "", "run", "research", "--db", db, "--thread", "t1").want(t, 0, "answer with: superstep run research --db ")
	r := named(t, "", "show", "nope", "--db", db)
	r.want(t, 2, `superstep: thread not found: "nope" (superstep threads --db `+db+` lists them)`)
	// Without --db the hint needs none.
	t.Setenv("SUPERSTEP_DB", db)
	var out, errb bytes.Buffer
	(&cli.App{Stdout: &out, Stderr: &errb}).Run(context.Background(), []string{"show", "nope"})
	if want := `superstep: thread not found: "nope" (superstep threads lists them)`; !strings.Contains(errb.String(), want) {
		t.Fatalf("stderr %q lacks %q", errb.String(), want)
	}
	named(t, "", "--help").want(t, 0, "  superstep run research --json")
}
