package main

// The test needs a PostgreSQL server, as the store's own tests do, named by
// the same variable. From the repository's root:
//
//	eval "$(.ci/pg.sh start)"          # a throwaway server; sets SUPERSTEP_TEST_POSTGRES
//	go test ./examples/pgservice/
//	.ci/pg.sh stop
//
// Without the variable the test says so on one line and passes; with it
// set, a server that cannot be used fails it. Each run works in a schema
// of its own, dropped when it ends.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/superstep/superstep/cli"
	"github.com/superstep/superstep/engine"
	"github.com/superstep/superstep/persist"
	"github.com/superstep/superstep/persist/postgres"
)

// serverEnv names the server, as in persist/postgres's tests.
const serverEnv = "SUPERSTEP_TEST_POSTGRES"

var serverURL string

func TestMain(m *testing.M) {
	serverURL = os.Getenv(serverEnv)
	if serverURL == "" {
		fmt.Printf("examples/pgservice: skipped: set %s to a PostgreSQL URL to run its test (eval \"$(.ci/pg.sh start)\" starts a throwaway server)\n", serverEnv)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// schemaURL is the server's URL with a fresh schema, dropped when the test
// ends.
func schemaURL(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	q := u.Query()
	q.Set("schema", "pgservice_"+hex.EncodeToString(b[:]))
	u.RawQuery = q.Encode()
	t.Cleanup(func() {
		if err := postgres.DropSchema(context.Background(), u.String()); err != nil {
			t.Errorf("DropSchema: %v", err)
		}
	})
	return u.String()
}

// machine is one process of the service: its store and its HTTP servers.
type machine struct {
	svc        *Service
	api, admin *httptest.Server
}

func startMachine(t *testing.T, db string) *machine {
	t.Helper()
	svc, err := Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	m := &machine{svc: svc, api: httptest.NewServer(svc.Handler()), admin: httptest.NewServer(svc.AdminHandler())}
	t.Cleanup(func() {
		m.api.Close()
		m.admin.Close()
		if err := svc.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// post sends body to path on m and returns the status and the reply
// (decoded when the status is 200, else its text in Draft).
func (m *machine) post(t *testing.T, path string, body any) (int, Reply) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(m.api.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Errorf("POST %s: %v", path, err)
		return 0, Reply{}
	}
	defer resp.Body.Close()
	var out Reply
	if resp.StatusCode != http.StatusOK {
		var text bytes.Buffer
		text.ReadFrom(resp.Body)
		return resp.StatusCode, Reply{Draft: text.String()}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Errorf("POST %s: %v", path, err)
	}
	return resp.StatusCode, out
}

// Two machines serve one database: threads start on both at once, each is
// answered on the machine that did not ask its question, a thread that
// waits for nothing is refused, and the threads are listed and pulled into
// a local file through the admin handler, with nothing but superstep's
// command line.
func TestService_TwoMachines(t *testing.T) {
	db := schemaURL(t)
	a, b := startMachine(t, db), startMachine(t, db)
	machines := [2]*machine{a, b}
	const threads = 8

	// Start every thread at once, half on each machine.
	var wg sync.WaitGroup
	for i := range threads {
		wg.Go(func() {
			code, r := machines[i%2].post(t, "/runs", RunRequest{Thread: fmt.Sprint("t-", i), Request: fmt.Sprint("refund order ", i)})
			if code != http.StatusOK || r.Status != "interrupted" || !strings.Contains(r.Draft, fmt.Sprint("refund order ", i)) {
				t.Errorf("start t-%d: %d %+v; want it interrupted with its draft", i, code, r)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// Answer each on the other machine, at once: yes for the even ones.
	for i := range threads {
		wg.Go(func() {
			answer, want := "no", "rejected"
			if i%2 == 0 {
				answer, want = "yes", "sent"
			}
			code, r := machines[(i+1)%2].post(t, "/resume", ResumeRequest{Thread: fmt.Sprint("t-", i), Answer: answer})
			if code != http.StatusOK || r.Status != "done" || r.Outcome != want {
				t.Errorf("resume t-%d on the other machine: %d %+v; want it done and %s", i, code, r, want)
			}
		})
	}
	wg.Wait()

	// Answered once, a thread waits for nothing: answering again is a
	// conflict, on either machine, and changes nothing.
	if code, r := a.post(t, "/resume", ResumeRequest{Thread: "t-0", Answer: "no"}); code != http.StatusConflict || !strings.Contains(r.Draft, "nothing to resume") {
		t.Errorf("resume t-0 again: %d %q; want 409 saying nothing waits", code, r.Draft)
	}
	if code, r := a.post(t, "/runs", map[string]any{"thread": "t-x", "request": 1}); code != http.StatusBadRequest {
		t.Errorf("a body of the wrong shape: %d %q; want 400", code, r.Draft)
	}

	// The admin handler of either machine lists every thread and copies
	// one into a local bbolt file, as superstep threads and pull do.
	from := b.admin.URL + "/debug/checkpoints"
	var out, errb bytes.Buffer
	app := &cli.App{Stdout: &out, Stderr: &errb}
	if code := app.Run(context.Background(), []string{"threads", "--from", from}); code != 0 {
		t.Fatalf("superstep threads --from: exit %d: %s", code, errb.String())
	}
	for i := range threads {
		if !strings.Contains(out.String(), fmt.Sprint("t-", i)) {
			t.Errorf("superstep threads --from lacks t-%d:\n%s", i, out.String())
		}
	}
	file := filepath.Join(t.TempDir(), "bug.db")
	out.Reset()
	errb.Reset()
	if code := app.Run(context.Background(), []string{"pull", "t-0", "--from", from, "--db", file}); code != 0 {
		t.Fatalf("superstep pull: exit %d: %s", code, errb.String())
	}
	local, err := persist.Open(file, persist.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	g, err := buildGraph(local)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := g.GetState(context.Background(), engine.Config{ThreadID: "t-0"})
	if err != nil || snap.Values["outcome"] != "sent" || len(snap.Next) != 0 {
		t.Fatalf("t-0 pulled: %v, %v; want it done and sent", snap, err)
	}
}
