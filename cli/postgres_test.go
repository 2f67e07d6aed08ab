package cli_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/superstep/superstep/cli"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist/postgres"
)

// postgresDB returns a URL of the test server with a schema of its own,
// dropped when the test ends; without SUPERSTEP_TEST_POSTGRES it skips.
func postgresDB(t testing.TB) string {
	t.Helper()
	server := os.Getenv("SUPERSTEP_TEST_POSTGRES")
	if server == "" {
		t.Skip("set SUPERSTEP_TEST_POSTGRES to a PostgreSQL URL to run this test (eval \"$(.ci/pg.sh start)\" starts one)")
	}
	var b [6]byte
	rand.Read(b[:])
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("schema", "cli_"+hex.EncodeToString(b[:]))
	u.RawQuery = q.Encode()
	db := u.String()
	t.Cleanup(func() {
		if err := postgres.DropSchema(context.Background(), db); err != nil {
			t.Errorf("drop the test schema: %v", err)
		}
	})
	return db
}

// TestPostgres_Workflow: a thread run on a PostgreSQL server is listed,
// inspected, checked, pulled into a local file, continued there, pushed
// back, and exported alike from both databases.
func TestPostgres_Workflow(t *testing.T) {
	t.Parallel()
	pg := postgresDB(t)
	local := filepath.Join(t.TempDir(), "local.db")
	superstep(t, "", "run", "research", "--db", pg, "--thread", "r1").want(t, 0, "interrupted")
	superstep(t, "", "threads", "--db", pg).want(t, 0, "r1", "interrupted")
	superstep(t, "", "history", "r1", "--db", pg).want(t, 0, "human_review")
	superstep(t, "", "check", "--db", pg).want(t, 0, "ok", "superstep:xxxxx@")

	superstep(t, "", "pull", "r1", "--from", pg, "--db", local).want(t, 0, "pulled thread r1")
	fromPG := superstep(t, "", "export", "r1", "--db", pg)
	fromFile := superstep(t, "", "export", "r1", "--db", local)
	fromPG.want(t, 0)
	if fromPG.stdout != fromFile.stdout {
		t.Errorf("the pulled thread exports differently:\nfrom PostgreSQL: %.400s\nfrom the file:   %.400s", fromPG.stdout, fromFile.stdout)
	}
	superstep(t, "", "pull", "r1", "--from", pg, "--db", local).want(t, 2, "already in", "--overwrite")

	// history and show read a file's thread in part (values left out,
	// one checkpoint) and a server's in full: both must print the same.
	first := superstep(t, "", "history", "r1", "--db", pg, "--json")
	first.want(t, 0)
	var rows []struct{ ID string }
	if err := json.Unmarshal([]byte(first.stdout), &rows); err != nil || len(rows) < 2 {
		t.Fatalf("history --json: %v\n%s", err, first.stdout)
	}
	for _, args := range [][]string{
		{"history", "r1", "--json"},
		{"show", "r1", "--json"},
		{"show", "r1", "--json", "--checkpoint", engine.ShortID(rows[len(rows)-1].ID)},
	} {
		a := superstep(t, "", append(args, "--db", pg)...)
		b := superstep(t, "", append(args, "--db", local)...)
		a.want(t, 0)
		if a.stdout != b.stdout {
			t.Errorf("%v prints differently:\nfrom PostgreSQL: %.400s\nfrom the file:   %.400s", args, a.stdout, b.stdout)
		}
	}

	// Continue offline, then push the finished thread back.
	superstep(t, "", "run", "research", "--db", local, "--thread", "r1", "--resume", `{"action":"approve"}`).want(t, 0)
	superstep(t, "", "push", "r1", "--db", local, "--to", pg).want(t, 2, "already in")
	superstep(t, "", "push", "r1", "--db", local, "--to", pg, "--overwrite").want(t, 0, "pushed thread r1")
	if a, b := superstep(t, "", "export", "r1", "--db", pg).stdout, superstep(t, "", "export", "r1", "--db", local).stdout; a != b {
		t.Error("the pushed thread exports differently from the local one")
	}
	superstep(t, "", "check", "--db", pg).want(t, 0, "ok")
	superstep(t, "", "pull", "nope", "--from", pg, "--db", local).want(t, 2, `thread "nope" is not in`)
}

// TestPostgres_EnvironmentURL: SUPERSTEP_DB may be a URL too.
func TestPostgres_EnvironmentURL(t *testing.T) {
	t.Parallel()
	pg := postgresDB(t)
	superstepEnv(t, []string{"SUPERSTEP_DB=" + pg}, "", "run", "linear", "--thread", "l1").want(t, 0)
	superstep(t, "", "threads", "--db", pg).want(t, 0, "l1")
}

// TestPostgres_OpenErrors: what a user sees for a server that is not
// there, a wrong password, a missing database, and a URL of another kind.
func TestPostgres_OpenErrors(t *testing.T) {
	t.Parallel()
	pg := postgresDB(t)
	u, _ := url.Parse(pg)
	wrongPW := *u
	wrongPW.User = url.UserPassword(u.User.Username(), "wrong-password")
	superstep(t, "", "threads", "--db", wrongPW.String()).want(t, 2, "authentication failed")
	noDB := *u
	noDB.Path = "/no_such_db"
	superstep(t, "", "threads", "--db", noDB.String()).want(t, 2, `database does not exist: "no_such_db"`)
	down := *u
	down.Host = "127.0.0.1:1"
	superstep(t, "", "threads", "--db", down.String()).want(t, 2, "nothing listens at 127.0.0.1:1")
	superstep(t, "", "threads", "--db", pg).want(t, 2, "no superstep schema")
	superstep(t, "", "threads", "--db", "mysql://u@h/db").want(t, 2, `"mysql" URLs are not supported`)
	r := superstep(t, "", "threads", "--db", wrongPW.String())
	if strings.Contains(r.stdout+r.stderr, "wrong-password") {
		t.Errorf("an error shows the password: %s", r.stderr)
	}
}

// --ns reads a subgraph's checkpoints from a server's thread (read in
// full, no outline) as from a file's (read in part): show lists the same
// namespaces, and show and history in one print the same.
func TestPostgres_Namespaces(t *testing.T) {
	t.Parallel()
	pg := postgresDB(t)
	local := filepath.Join(t.TempDir(), "local.db")
	superstep(t, "", "run", testdata("sub_two_asks.json"), "--db", pg, "--thread", "n1").want(t, 0, `"first?"`)
	superstep(t, "", "pull", "n1", "--from", pg, "--db", local).want(t, 0, "pulled thread n1")
	for _, args := range [][]string{
		{"show", "n1", "--json"},
		{"show", "n1", "--json", "--ns", "sub"},
		{"history", "n1", "--json", "--ns", "sub"},
		{"show", "n1", "--ns", "nope"},
	} {
		a := superstep(t, "", append(args, "--db", pg)...)
		b := superstep(t, "", append(args, "--db", local)...)
		if a.stdout != b.stdout || a.code != b.code || args[0] == "show" && a.code == 0 && !strings.Contains(a.stdout, "sub:") {
			t.Errorf("%v: from PostgreSQL (exit %d): %s%s\nfrom the file (exit %d): %s%s", args, a.code, a.stdout, a.stderr, b.code, b.stdout, b.stderr)
		}
	}
	// A prefix names the namespace to write in too.
	superstep(t, "", "update", "n1", "--db", pg, "--ns", "sub", "--values", `{"log":["edited"]}`).want(t, 0, "in namespace sub:")
	superstep(t, "", "update", "n1", "--db", local, "--ns", "sub", "--values", `{"log":["edited"]}`).want(t, 0, "in namespace sub:")
	a, b := superstep(t, "", "show", "n1", "--db", pg, "--ns", "sub"), superstep(t, "", "show", "n1", "--db", local, "--ns", "sub")
	a.want(t, 0, "source update", `"edited"`)
	b.want(t, 0, "source update", `"edited"`)
}

// The warning that a named thread is new names the PostgreSQL URL without
// its password, as every other message does: it printed the URL whole.
func TestPostgres_NewThreadWarningHidesThePassword(t *testing.T) {
	db := postgresDB(t)
	_, pw := postgresPassword(t, db)
	var out bytes.Buffer
	app := &cli.App{Stdout: &out, Stderr: &out, Debugger: func(_ context.Context, _ *engine.Graph, o cli.DebugOptions) error {
		out.WriteString(o.Warning) // what a headless debugger prints
		return nil
	}}
	if code := app.Run(context.Background(), []string{"tui", "linear", "--thread", "typo", "--db", db}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), `thread "typo" is not in the database`) {
		t.Fatalf("no new-thread warning: %s", out.String())
	}
	if strings.Contains(out.String(), ":"+pw+"@") {
		t.Errorf("the warning shows the password: %s", out.String())
	}
}

// TestPostgres_PasswordParameterIsHidden: a URL may carry its password as
// the password parameter (libpq's and pgx's form, often how a secret store
// hands it out); the messages that name the database show it masked, as
// they mask the one before the host. They showed it as typed: in pull's
// report, in the hint of a thread not found, in check's line.
func TestPostgres_PasswordParameterIsHidden(t *testing.T) {
	db := postgresDB(t)
	u, pw := postgresPassword(t, db)
	u.User = url.User(u.User.Username())
	u.RawQuery += "&password=" + url.QueryEscape(pw)
	db = u.String()
	local := filepath.Join(t.TempDir(), "local.db")
	for _, args := range [][]string{
		{"run", "linear", "--thread", "t1", "--db", db},
		{"history", "typo", "--db", db},
		{"check", "--db", db},
		{"pull", "t1", "--from", db, "--db", local},
		{"pull", "typo", "--from", db, "--db", local},
		{"push", "t1", "--db", local, "--to", db},
	} {
		var out bytes.Buffer
		app := &cli.App{Stdout: &out, Stderr: &out}
		app.Run(context.Background(), args)
		if strings.Contains(out.String(), "password="+url.QueryEscape(pw)) {
			t.Errorf("%s shows the password: %s", strings.Join(args[:2], " "), out.String())
		}
	}
}

// postgresPassword parses the test server's URL and returns it with its
// password; a server reached without one (a local socket's peer
// authentication) has nothing to hide, and the test is skipped, saying so.
// .ci/pg.sh's server requires one.
func postgresPassword(t *testing.T, db string) (*url.URL, string) {
	t.Helper()
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		t.Skip("the test server's URL has no password")
	}
	return u, pw
}

// TestPostgres_ThreadsStatusesAsFile: threads gives the threads of a
// PostgreSQL database the statuses it gives them in a file: done, waiting
// at an interrupt, waiting at a subgraph's interrupt, failed.
func TestPostgres_ThreadsStatusesAsFile(t *testing.T) {
	t.Parallel()
	pg := postgresDB(t)
	local := filepath.Join(t.TempDir(), "local.db")
	modes := []string{"done", "ask", "subask", "boom"}
	for _, mode := range modes {
		input := `{"n":0,"k":0,"limit":70,"mode":"` + mode + `"}`
		code := 0
		if mode == "boom" {
			code = 1
		}
		superstep(t, "", "run", "testdata/threads_mix.json", "--db", local, "--thread", mode, "--input", input).want(t, code)
		superstep(t, "", "push", mode, "--db", local, "--to", pg).want(t, 0)
	}
	statuses := func(db string) map[string]string {
		r := superstep(t, "", "threads", "--db", db, "--json")
		r.want(t, 0)
		var rows []struct{ Thread, Status string }
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, row := range rows {
			out[row.Thread] = row.Status
		}
		return out
	}
	want := map[string]string{"done": "done", "ask": "interrupted", "subask": "interrupted", "boom": "error"}
	for _, db := range []string{local, pg} {
		if got := statuses(db); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: statuses %v, want %v", displayName(db), got, want)
		}
	}
}

func displayName(db string) string {
	if strings.HasPrefix(db, "postgres") {
		return "PostgreSQL"
	}
	return "file"
}
